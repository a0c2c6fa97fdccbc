//! Builds the vendored tree-sitter-yaml 0.7.2 grammar with one small patch applied at build time.
//!
//! The grammar's external scanner keeps rows and columns in `int16_t`, so any document longer
//! than 32,767 lines parses as one ERROR node (upstream issues #23 and #49, proposed fix PR #35).
//! We compile the pristine `vendor/tree-sitter-yaml/scanner.c` after widening those fields to
//! `int32_t` and bounding the serialization loop by the real item size. See
//! `docs/decisions.md` ("tree-sitter-yaml line limit").
use std::{env, fs, path::PathBuf};

fn main() {
    let vendor = PathBuf::from("vendor/tree-sitter-yaml");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));

    let pristine = fs::read_to_string(vendor.join("scanner.c")).expect("read vendored scanner.c");
    let patched = patch_scanner(&pristine);
    let patched_path = out.join("scanner.c");
    fs::write(&patched_path, patched).expect("write patched scanner.c");

    let mut build = cc::Build::new();
    build
        .std("c11")
        .include(&vendor)
        .flag_if_supported("-Wno-unused-but-set-variable")
        .flag_if_supported("-Wno-unused-value")
        .flag_if_supported("-Wno-implicit-fallthrough")
        .flag_if_supported("-Wno-unused-parameter")
        .file(vendor.join("parser.c"))
        .file(&patched_path);
    build.compile("tree-sitter-yaml-patched");

    for file in ["scanner.c", "parser.c", "schema.core.c"] {
        println!("cargo:rerun-if-changed=vendor/tree-sitter-yaml/{file}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// Widens the scanner's 16-bit row/column state to 32 bits.
fn patch_scanner(src: &str) -> String {
    assert!(
        src.matches("int16_t").count() > 20,
        "unexpected scanner.c: the int16_t patch no longer applies"
    );
    let loop_guard = "typ_itr != typ_end && size < TREE_SITTER_SERIALIZATION_BUFFER_SIZE;";
    assert!(
        src.contains(loop_guard),
        "unexpected scanner.c: serialize loop changed"
    );
    src.replace("int16_t", "int32_t").replace(
        loop_guard,
        "typ_itr != typ_end && size + 2 * sizeof(int32_t) <= TREE_SITTER_SERIALIZATION_BUFFER_SIZE;",
    )
}
