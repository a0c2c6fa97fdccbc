//! Hostile input through the analysis and `check` (SPEC §9): alias bombs, a 1 MB single line,
//! deeply nested flow and block collections, 0-byte, binary, NUL and invalid UTF-8 files.
//! Each case must finish within a time bound, produce the expected kind of verdict, and (for
//! the binary) stay under a memory limit enforced by `ulimit -v`.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::project::Layer;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::cli::check;
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::model;

/// Generous for unoptimised test builds on a loaded 2-core machine; the release binary takes
/// well under a second on each of these inputs (docs/reliability.md).
const BOUND: Duration = Duration::from_secs(20);

const HEAD: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: hostile\n$namespaces:\n  \
                    mcp: https://eoap.github.io/cwl-mcp-extension#\n";

fn alias_bomb() -> String {
    // 10^9 "lol" when expanded; the hint and the inputs point into it.
    let mut t = String::from(HEAD);
    t.push_str("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(",");
        t.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    t.push_str(
        "hints:\n  mcp:Tool:\n    name: bomb\n    description: *a9\n    annotations: *a9\n    \
         aliases: *a9\n  other: &self {x: *a9}\ninputs: *a9\noutputs: *a9\nrequirements: *a9\n",
    );
    t
}

fn block_alias_bomb() -> String {
    // The same in block style, with the hint itself an alias.
    let mut t = String::from(HEAD);
    t.push_str("base: &b0\n  - class: mcp:Tool\n    name: t\n");
    for i in 1..12 {
        t.push_str(&format!("l{i}: &b{i}\n"));
        for _ in 0..8 {
            t.push_str(&format!("  - *b{}\n", i - 1));
        }
    }
    t.push_str("hints: *b11\ninputs: {}\noutputs: {}\n");
    t
}

fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let mut long_line = String::from(HEAD);
    long_line.push_str("doc: ");
    long_line.push_str(&"é日本😀x".repeat(1_000_000 / 12));
    long_line.push_str("\nhints:\n  mcp:Tool:\n    name: long\n");
    let mut long_hint_line = String::from(HEAD);
    long_hint_line.push_str("hints:\n  mcp:Tool:\n    name: ");
    long_hint_line.push_str(&"n".repeat(1 << 20));
    long_hint_line.push('\n');
    let mut deep_block = String::from(HEAD);
    for i in 0..2_000 {
        deep_block.push_str(&" ".repeat(i));
        deep_block.push_str("- k:\n");
    }
    let closed_brackets = format!("{HEAD}hints: {}{}\n", "[".repeat(5_000), "]".repeat(5_000));
    vec![
        ("alias bomb (flow)", alias_bomb().into_bytes()),
        (
            "alias bomb (block, hint is an alias)",
            block_alias_bomb().into_bytes(),
        ),
        ("1 MB single line", long_line.into_bytes()),
        ("1 MB hint name", long_hint_line.into_bytes()),
        ("100k unclosed [", "[".repeat(100_000).into_bytes()),
        (
            "50k nested {a:",
            format!("{HEAD}hints: {}\n", "{a: ".repeat(50_000)).into_bytes(),
        ),
        ("5k closed [ ]", closed_brackets.into_bytes()),
        ("2k nested block sequences", deep_block.into_bytes()),
        ("0 bytes", Vec::new()),
        ("binary", (0..=255u8).cycle().take(100_000).collect()),
        ("NUL bytes", format!("{HEAD}label: a\0b\n\0").into_bytes()),
        (
            "invalid UTF-8",
            [HEAD.as_bytes(), b"label: caf\xe9 \xff\xfe\n"].concat(),
        ),
        (
            "only line breaks",
            "\r\n\r\r\n\n".repeat(50_000).into_bytes(),
        ),
        ("BOM and tabs", "\u{feff}cwlVersion:\tv1.2\n\t- x\n".into()),
    ]
}

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("robust_inputs");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn hostile_documents_are_analysed_in_bounded_time() {
    for (name, bytes) in cases() {
        let Ok(text) = String::from_utf8(bytes) else {
            continue; // invalid UTF-8 cannot reach the analysis (checked through `check` below)
        };
        for profile in [Profile::Extension, Profile::Cwl2mcp] {
            let settings = Settings {
                profile,
                ..Settings::default()
            };
            let started = Instant::now();
            let snapshot = Snapshot::parse(&text, 1);
            let diags = model::diagnostics(
                &snapshot,
                &settings,
                &DocumentContext::from_uri("file:///h/hostile.cwl"),
            );
            let took = started.elapsed();
            assert!(took < BOUND, "{name} ({profile:?}) took {took:?}");
            for d in &diags {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= text.len(),
                    "{name}: span {:?} out of the text",
                    d.span
                );
                assert!(text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end));
                assert!(d.message.len() < 10_000, "{name}: a huge message");
            }
            match name {
                "100k unclosed [" | "50k nested {a:" => {
                    assert!(diags.iter().any(|d| d.code == "yaml-syntax"), "{name}")
                }
                "0 bytes" | "5k closed [ ]" => {
                    assert!(
                        !diags.iter().any(|d| d.code == "yaml-syntax"),
                        "{name}: {diags:?}"
                    )
                }
                _ => {}
            }
        }
    }
}

#[test]
fn check_reports_hostile_files_without_crashing() {
    let dir = dir();
    for (k, (name, bytes)) in cases().into_iter().enumerate() {
        let path = dir.join(format!("case{k}.cwl"));
        std::fs::write(&path, &bytes).unwrap();
        let started = Instant::now();
        let reported = check::check_file(&path, &Layer::default())
            .unwrap_or_else(|e| panic!("{name}: check failed: {e}"));
        assert!(
            started.elapsed() < BOUND,
            "{name} took {:?}",
            started.elapsed()
        );
        match name {
            "invalid UTF-8" => {
                assert_eq!(reported.len(), 1, "{reported:?}");
                assert_eq!(reported[0].code, "yaml-syntax");
                assert!(reported[0].message.contains("not valid UTF-8"));
            }
            "binary" => assert!(reported.iter().any(|r| r.severity == "error"), "{name}"),
            "0 bytes" => assert!(reported.is_empty(), "{reported:?}"),
            _ => {}
        }
    }
}

/// The release-like path: the built binary over every hostile file at once, under a 1 GiB
/// address-space limit, finishes with exit code 1 (errors found), never a crash or signal.
#[test]
fn the_binary_checks_a_folder_of_hostile_files_under_a_memory_limit() {
    let dir = dir().join("folder");
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (_, bytes)) in cases().into_iter().enumerate() {
        std::fs::write(dir.join(format!("case{k}.cwl")), bytes).unwrap();
    }
    // A file that cannot be read (a directory named *.cwl is skipped; a dangling symlink is not
    // a file either): the walk must not fail on it.
    let _ = std::fs::create_dir_all(dir.join("folder.cwl"));
    let started = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" check --format json \"$1\"")
        .arg(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        started.elapsed() < BOUND * 3,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "status {:?}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn check_on_missing_paths_is_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .args(["check", "/nonexistent/x.cwl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
