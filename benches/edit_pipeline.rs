//! In-process cost of each stage of one keystroke, on the generated benchmark documents and
//! edit sites of `bench/run.py`: applying a one-character edit (with the incremental reparse),
//! taking a snapshot, building the YAML value tree, and the whole `Model::new` (what the
//! server runs per version). Complements `bench/run.py` (which measures the server from
//! outside) by saying where the time goes; small enough to run under callgrind.
//!
//!     python3 bench/run.py --quick          # (or bench/gen_cwl.py) writes target/bench/tool_*
//!     cargo bench --bench edit_pipeline
//!
//! Environment: `CWL_MCP_BENCH_ITERS` (edits per site, default 30), `CWL_MCP_BENCH_SIZES`
//! (e.g. `50000`), `CWL_MCP_BENCH_PLACEMENTS` (`top`, `bottom`, `list`: the hint near the top
//! and the inputs a list), `CWL_MCP_BENCH_SITES` (e.g. `input_doc,yaml`),
//! `CWL_MCP_BENCH_OPEN=0` to skip the didOpen figure (for profiling one site),
//! `CWL_MCP_BENCH_WARM` (edits per site applied first, untimed and outside `measured*`: with
//! callgrind's `--toggle-collect='*measured*'`, the cost of the later edits only),
//! `CWL_MCP_BENCH_GAP_MS` (idle milliseconds before each edit, default 0: the harness leaves
//! 5 ms between edits, and after such a gap the same work takes up to twice as long on the
//! 2-core machine as in a tight loop, see bench/notes.md).
mod common;

use std::time::{Duration, Instant};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::Settings;
use cwl_mcp_lsp::document::yaml::YamlDoc;
use cwl_mcp_lsp::document::{Change, Document, Encoding};
use cwl_mcp_lsp::model::Model;

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

/// Current resident set size in MB (Linux), for the memory split printed per file.
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

/// A timed edit applied, with its reparse: a function of its own, so that
/// `valgrind --tool=callgrind --toggle-collect='*measured*'` counts those edits only.
#[inline(never)]
fn measured_edit(doc: &mut Document, change: Change, version: i32) {
    doc.apply_changes(&[change], version, Encoding::Utf16)
        .unwrap();
}

/// `Model::new` of a timed edit and its diagnostics (as [`measured_edit`]).
#[inline(never)]
fn measured(snap: cwl_mcp_lsp::document::Snapshot, settings: &Settings, context: &DocumentContext) {
    let model = Model::new(snap, settings.clone(), context.clone());
    std::hint::black_box(model.diagnostics().len());
}

fn main() {
    // The server's allocator settings, so that large blocks are reused as they are there.
    cwl_mcp_lsp::server::tune_malloc();
    let iterations: usize = std::env::var("CWL_MCP_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let open = std::env::var("CWL_MCP_BENCH_OPEN").map_or(true, |v| v != "0");
    let warm: usize = std::env::var("CWL_MCP_BENCH_WARM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let gap = Duration::from_secs_f64(
        std::env::var("CWL_MCP_BENCH_GAP_MS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1e3,
    );
    for size in [500, 5000, 50000] {
        if !common::wanted("CWL_MCP_BENCH_SIZES", &size.to_string()) {
            continue;
        }
        for placement in ["top", "bottom", "list"] {
            if !common::wanted("CWL_MCP_BENCH_PLACEMENTS", placement) {
                continue;
            }
            let Some((path, text, pos)) = common::generated(&format!("tool_{size}_{placement}"))
            else {
                continue;
            };
            let name = format!("{size:>6} {placement:<6}");
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
                "{name} memory: text {:.1} MB; document (text, rope, tree) +{:.1} MB; \
                 YAML value tree +{:.1} MB",
                bytes as f64 / 1e6,
                with_doc - before,
                with_yaml - with_doc
            );
            if open {
                let t = Instant::now();
                let d = Document::new(doc.text().to_string(), 1);
                let parsed = t.elapsed();
                let model = Model::new(d.snapshot(), settings.clone(), context.clone());
                let all = t.elapsed();
                std::hint::black_box(model.diagnostics().len());
                println!(
                    "{name} open: Document::new {:.3} ms, + Model::new {:.3} ms",
                    parsed.as_secs_f64() * 1e3,
                    (all - parsed).as_secs_f64() * 1e3
                );
            }
            let mut version = 1;
            for (site, edits) in pos["sites"].as_object().unwrap() {
                if !common::wanted("CWL_MCP_BENCH_SITES", site) {
                    continue;
                }
                let edits = edits.as_array().unwrap();
                // Timings per row of the harness (a break and its restore apart), in the
                // order the rows first appear.
                let mut rows: Vec<(String, [Vec<Duration>; 4])> = Vec::new();
                let rounds = iterations.div_ceil(edits.len()) * edits.len();
                for k in 0..rounds {
                    version += 1;
                    let edit = &edits[k % edits.len()];
                    let row = edit["row"].as_str().unwrap_or(site).to_string();
                    let change = common::change_of(edit);
                    if !gap.is_zero() {
                        std::thread::sleep(gap);
                    }
                    if k < warm {
                        doc.apply_changes(&[change], version, Encoding::Utf16)
                            .unwrap();
                        let model = Model::new(doc.snapshot(), settings.clone(), context.clone());
                        std::hint::black_box(model.diagnostics().len());
                        continue;
                    }
                    let t = Instant::now();
                    measured_edit(&mut doc, change, version);
                    let t_edit = t.elapsed();
                    let t = Instant::now();
                    let snap = doc.snapshot();
                    let t_snap = t.elapsed();
                    let t = Instant::now();
                    let yaml = YamlDoc::build(&snap);
                    let t_yaml = t.elapsed();
                    drop(yaml);
                    let t = Instant::now();
                    measured(snap, &settings, &context);
                    let t_model = t.elapsed();
                    let i = match rows.iter().position(|(r, _)| *r == row) {
                        Some(i) => i,
                        None => {
                            rows.push((row, Default::default()));
                            rows.len() - 1
                        }
                    };
                    for (list, t) in rows[i].1.iter_mut().zip([t_edit, t_snap, t_yaml, t_model]) {
                        list.push(t);
                    }
                }
                for (row, [t_edit, t_snap, t_yaml, t_model]) in rows {
                    println!("{name} {row:<20} apply_changes+reparse {}", stats(t_edit));
                    println!("{name} {row:<20} snapshot              {}", stats(t_snap));
                    println!("{name} {row:<20} YamlDoc::build        {}", stats(t_yaml));
                    println!("{name} {row:<20} Model::new            {}", stats(t_model));
                }
            }
        }
    }
}
