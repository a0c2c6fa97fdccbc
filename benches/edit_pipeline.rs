//! In-process cost of each stage of one keystroke, on the generated benchmark documents:
//! applying a one-character edit (with the incremental reparse), taking a snapshot, building
//! the YAML value tree, and the whole `model::diagnostics`. Complements `bench/run.py`
//! (which measures the server from outside) by saying where the time goes.
//!
//!     python3 bench/gen_cwl.py --lines 50000 -o target/bench/tool_50000.cwl   # (run.py does this)
//!     cargo bench --bench edit_pipeline
use std::time::{Duration, Instant};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::Settings;
use cwl_mcp_lsp::document::yaml::YamlDoc;
use cwl_mcp_lsp::document::{Change, Document, Encoding, Position};
use cwl_mcp_lsp::model;

fn stats(mut xs: Vec<Duration>) -> String {
    xs.sort();
    let med = xs[xs.len() / 2];
    let p95 = xs[((xs.len() * 95).div_ceil(100))
        .saturating_sub(1)
        .min(xs.len() - 1)];
    format!(
        "median {:>8.3} ms  p95 {:>8.3} ms",
        med.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3
    )
}

/// Current resident set size in MB (Linux), for the memory split printed per size.
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    let iterations: usize = std::env::var("CWL_MCP_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    for size in [500, 5000, 50000] {
        let path = dir.join(format!("tool_{size}.cwl"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!(
                "SKIPPED {}: run `python3 bench/gen_cwl.py --lines {size} -o {}` first",
                path.display(),
                path.display()
            );
            continue;
        };
        let pos: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{}.pos.json", path.display())).unwrap(),
        )
        .unwrap();
        let (line, ch) = (
            pos["change"][0].as_u64().unwrap() as u32,
            pos["change"][1].as_u64().unwrap() as u32,
        );
        let settings = Settings::default();
        let context = DocumentContext::from_path(&path);
        let before = rss_mb();
        let bytes = text.len();
        let mut doc = Document::new(text, 1);
        let with_doc = rss_mb();
        let yaml = YamlDoc::build(&doc.snapshot());
        let with_yaml = rss_mb();
        drop(yaml);
        println!(
            "{size:>6} lines  memory: text {:.1} MB; document (text, rope, tree) +{:.1} MB; \
             YAML value tree +{:.1} MB",
            bytes as f64 / 1e6,
            with_doc - before,
            with_yaml - with_doc
        );
        let (mut t_edit, mut t_snap, mut t_yaml, mut t_diag) = (vec![], vec![], vec![], vec![]);
        for k in 0..iterations {
            let change = if k % 2 == 0 {
                Change {
                    range: Some((Position::new(line, ch), Position::new(line, ch))),
                    text: "x".into(),
                }
            } else {
                Change {
                    range: Some((Position::new(line, ch), Position::new(line, ch + 1))),
                    text: String::new(),
                }
            };
            let t = Instant::now();
            doc.apply_changes(&[change], k as i32 + 2, Encoding::Utf16)
                .unwrap();
            t_edit.push(t.elapsed());
            let t = Instant::now();
            let snap = doc.snapshot();
            t_snap.push(t.elapsed());
            let t = Instant::now();
            let yaml = YamlDoc::build(&snap);
            t_yaml.push(t.elapsed());
            drop(yaml);
            let t = Instant::now();
            let diags = model::diagnostics(&snap, &settings, &context);
            t_diag.push(t.elapsed());
            std::hint::black_box(diags);
        }
        if std::env::var("CWL_MCP_BENCH_WALK").is_ok() {
            let snap = doc.snapshot();
            let t = Instant::now();
            let mut c = snap.tree.walk();
            let mut n = 0usize;
            'outer: loop {
                n += 1;
                if c.goto_first_child() {
                    continue;
                }
                while !c.goto_next_sibling() {
                    if !c.goto_parent() {
                        break 'outer;
                    }
                }
            }
            println!("{size:>6} lines  cursor walk {n} nodes {:?}", t.elapsed());
            fn rec(node: tree_sitter::Node, n: &mut usize) {
                *n += 1;
                let mut c = node.walk();
                for ch in node.named_children(&mut c) {
                    rec(ch, n);
                }
            }
            let t = Instant::now();
            let mut n = 0;
            rec(snap.tree.root_node(), &mut n);
            println!(
                "{size:>6} lines  named_children walk {n} nodes {:?}",
                t.elapsed()
            );
        }
        println!("{size:>6} lines  apply_changes+reparse  {}", stats(t_edit));
        println!("{size:>6} lines  snapshot              {}", stats(t_snap));
        println!("{size:>6} lines  YamlDoc::build        {}", stats(t_yaml));
        println!("{size:>6} lines  model::diagnostics {}", stats(t_diag));
    }
}
