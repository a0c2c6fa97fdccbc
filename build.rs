//! Builds the vendored tree-sitter-yaml 0.7.2 grammar with one small patch applied at build time.
//!
//! The grammar's external scanner keeps rows and columns in `int16_t`, so any document longer
//! than 32,767 lines parses as one ERROR node (upstream issues #23 and #49, proposed fix PR #35).
//! We compile the pristine `vendor/tree-sitter-yaml/scanner.c` after widening those fields to
//! `int32_t` and bounding the serialization loop by the real item size. See
//! `docs/decisions.md` ("tree-sitter-yaml line limit").
//!
//! A second patch makes the scanner's serialized state independent of the token's position, so
//! that an incremental reparse resynchronises after an edit that shifts lines or columns
//! (`docs/decisions.md`, "Position-independent scanner state").
use std::{env, fs, path::PathBuf};

fn main() {
    let vendor = PathBuf::from("vendor/tree-sitter-yaml");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));

    let pristine = fs::read_to_string(vendor.join("scanner.c")).expect("read vendored scanner.c");
    let patched = position_independent_state(&patch_scanner(&pristine));
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

/// Makes the serialized state of the scanner independent of where its token lies.
///
/// tree-sitter reuses an old subtree only when the external-scanner state before it is
/// byte-equal to the current one, and on a mismatch it skips that subtree *whole* (its
/// descendants are not tried). The pristine scanner serializes the absolute `row` and `col`
/// where its last token ended, so a character inserted near the top of a file changes the state
/// after the edited token, and the subtree that follows (a balanced repeat node: most of the
/// document) is lexed again: a one-character insert cost about a full parse.
///
/// What the scanner reads of those fields, per scan (`init` copies them to `cur_row`/`cur_col`
/// and counts from there):
/// - `row` only in comparisons with rows of the same scan (`cur_row > row`, `cur_row == row`,
///   `blk_imp_row != bgn_row`): rows counted from the start of the scan do the same, so `row`
///   is serialized as 0 and `blk_imp_row` as 0 when the implicit key is on the row where the
///   token ended, else -1 (an earlier row: never equal to a row of the next scan);
/// - `col` is the column where the next scan starts. When the token is followed by a line
///   break, the scan begins by skipping it (`skp_nwl` sets `cur_col = 0`) before any use of the
///   column, so the column is then serialized as 0. Otherwise (a token followed by more of its
///   line) it is kept, and only the tokens after the edit on the edited line see a different
///   state.
///
/// The scanner's behaviour is still a function of the serialized bytes and the text from the
/// scan's position (every field it reads is reset or deserialized at each scan), which is what
/// tree-sitter's reuse assumes: the incremental tree equals a fresh parse
/// (`tests/differential_edits.rs`, `document::grammar` tests).
fn position_independent_state(src: &str) -> String {
    let replace_once = |src: String, from: &str, to: &str| {
        assert_eq!(
            src.matches(from).count(),
            1,
            "unexpected scanner.c: the position-independent-state patch no longer applies at {from:?}"
        );
        src.replace(from, to)
    };
    let mut s = src.to_string();
    // The line break after a token, recorded where the token ends.
    s = replace_once(
        s,
        "    int32_t end_col;\n",
        "    int32_t end_col;\n    bool end_nwl;\n",
    );
    s = replace_once(
        s,
        "    scanner->end_col = scanner->cur_col;\n    lexer->mark_end(lexer);\n",
        "    scanner->end_col = scanner->cur_col;\n    \
         scanner->end_nwl = lexer->lookahead == '\\r' || lexer->lookahead == '\\n';\n    \
         lexer->mark_end(lexer);\n",
    );
    s = replace_once(
        s,
        "    scanner->blk_imp_tab = 0;\n",
        "    scanner->blk_imp_tab = 0;\n    scanner->end_nwl = false;\n",
    );
    // serialize: rows relative to the token's end row, the column only when it is read.
    s = replace_once(
        s,
        "    *(int32_t *)&buffer[size] = scanner->row;\n",
        "    *(int32_t *)&buffer[size] = 0;\n",
    );
    s = replace_once(
        s,
        "    *(int32_t *)&buffer[size] = scanner->col;\n",
        "    *(int32_t *)&buffer[size] = scanner->end_nwl ? 0 : scanner->col;\n",
    );
    s = replace_once(
        s,
        "    *(int32_t *)&buffer[size] = scanner->blk_imp_row;\n",
        "    *(int32_t *)&buffer[size] = scanner->blk_imp_row == scanner->row ? 0 : -1;\n",
    );
    s
}
