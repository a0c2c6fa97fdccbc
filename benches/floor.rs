//! The floors that `bench/run.py` prints beside the server's figures, measured in the same run
//! with the project's vendored tree-sitter-yaml grammar (`cwl_mcp_lsp::document::grammar`):
//!
//!     floor parse SPEC.json   # full parse of the file, and the incremental reparse of each edit
//!     floor rss FILE          # peak RSS of a process holding only the text, rope and tree
//!
//! `parse` reads a JSON object `{"file": path, "full_parses": n, "sites": {name: [edit, ...]}}`
//! where an edit is `{"start": byte, "end": byte, "text": str}`; the edits of one site are
//! applied in order, cyclically, `repeats` times over (each site's list returns the text to
//! where it started). For every edit it times what tree-sitter alone has to do for it:
//! `Tree::edit` and `Parser::parse` with the edited old tree. It prints one JSON object:
//! `{"full_parse_ms": [...], "sites": {name: [[edit index, ms], ...]}}`.
//!
//! `rss` builds the `String`, the `ropey::Rope` and the tree of FILE (what the server keeps of
//! an open document at the least), drops the parser, and prints `{"rss_mb": VmHWM, ...}`.
//!
//! Build (`bench/run.py` does this): `cargo bench --bench floor --no-run`.
use std::time::Instant;

use cwl_mcp_lsp::document::grammar;
use cwl_mcp_lsp::document::position::ts_point_in;
use serde_json::{Value, json};
use tree_sitter::{InputEdit, Tree};

fn status_kb(field: &str) -> Option<f64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn parse_floor(spec_path: &str) {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(spec_path).unwrap_or_else(|e| panic!("{spec_path}: {e}")),
    )
    .expect("floor spec is JSON");
    let file = spec["file"].as_str().expect("spec.file");
    let mut text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let full_parses = spec["full_parses"].as_u64().unwrap_or(5) as usize;
    let repeats = spec["repeats"].as_u64().unwrap_or(1) as usize;
    let mut parser = grammar::parser();

    let mut full = Vec::new();
    let mut tree: Option<Tree> = None;
    for _ in 0..full_parses.max(1) {
        let t = Instant::now();
        let fresh = parser.parse(&text, None).expect("a tree");
        full.push(t.elapsed().as_secs_f64() * 1e3);
        tree = Some(fresh);
    }
    let mut tree = tree.expect("parsed at least once");

    let mut sites = serde_json::Map::new();
    if let Some(map) = spec["sites"].as_object() {
        for (name, edits) in map {
            let edits = edits.as_array().expect("a list of edits");
            let mut times = Vec::new();
            for _ in 0..repeats {
                for (i, e) in edits.iter().enumerate() {
                    let start = e["start"].as_u64().expect("start") as usize;
                    let end = e["end"].as_u64().expect("end") as usize;
                    let new = e["text"].as_str().expect("text");
                    // Positions are computed outside the timed part: the server gets them from
                    // its rope; tree-sitter's own work is the edit and the reparse.
                    let start_position = ts_point_in(text.as_bytes(), start);
                    let old_end_position = ts_point_in(text.as_bytes(), end);
                    text.replace_range(start..end, new);
                    let new_end = start + new.len();
                    let new_end_position = ts_point_in(text.as_bytes(), new_end);
                    let edit = InputEdit {
                        start_byte: start,
                        old_end_byte: end,
                        new_end_byte: new_end,
                        start_position,
                        old_end_position,
                        new_end_position,
                    };
                    let t = Instant::now();
                    tree.edit(&edit);
                    let next = parser.parse(&text, Some(&tree)).expect("a tree");
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    tree = next;
                    times.push(json!([i, ms]));
                }
            }
            sites.insert(name.clone(), Value::Array(times));
        }
    }
    println!(
        "{}",
        json!({"file": file, "full_parse_ms": full, "sites": sites})
    );
}

fn rss_floor(file: &str) {
    let baseline = status_kb("VmHWM:").unwrap_or(0.0) / 1024.0;
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let rope = ropey::Rope::from_str(&text);
    let tree = {
        let mut parser = grammar::parser();
        parser.parse(&text, None).expect("a tree")
    };
    std::hint::black_box((&text, &rope, &tree));
    let hwm = status_kb("VmHWM:").unwrap_or(0.0) / 1024.0;
    let rss = status_kb("VmRSS:").unwrap_or(0.0) / 1024.0;
    println!(
        "{}",
        json!({"file": file, "bytes": text.len(), "rss_mb": hwm, "rss_now_mb": rss,
               "baseline_mb": baseline, "nodes": tree.root_node().descendant_count()})
    );
}

fn main() {
    // `cargo bench` passes `--bench` to harness-less targets; ignore flags.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match args.as_slice() {
        [cmd, arg] if cmd == "parse" => parse_floor(arg),
        [cmd, arg] if cmd == "rss" => rss_floor(arg),
        _ => eprintln!(
            "usage: floor parse SPEC.json | floor rss FILE \
             (see the header of benches/floor.rs; bench/run.py drives it)"
        ),
    }
}
