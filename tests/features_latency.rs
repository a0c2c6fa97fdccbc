//! Completion and hover latency on a generated 5,000-line tool (SPEC §8 target: ≤ 1 ms each).
//! A measurement, not a timed test: run with
//! `cargo test --release --test features_latency -- --ignored --nocapture`.
use std::time::{Duration, Instant};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::Settings;
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::features::{completion, hover};
use cwl_mcp_lsp::model::Model;

/// A CommandLineTool of about `lines` lines with an MCP hint at the end.
pub fn generated_tool(lines: usize) -> String {
    let mut text = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: big-tool\nlabel: Big tool\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nbaseCommand: echo\ninputs:\n",
    );
    let mut i = 0;
    while text.lines().count() < lines.saturating_sub(12) {
        text.push_str(&format!(
            "  in_{i}:\n    type: string\n    doc: input number {i}\n"
        ));
        i += 1;
    }
    text.push_str("outputs: []\nhints:\n  mcp:Tool:\n    name: big_tool\n    annotations:\n      readOnlyHint: true\n      \n");
    text
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "a measurement; run in release with --ignored --nocapture"]
fn completion_and_hover_latency_at_5000_lines() {
    let text = generated_tool(5_000);
    let snapshot = Snapshot::parse(&text, 1);
    let settings = Settings::default();
    let context = DocumentContext::from_uri("file:///big-tool.cwl");
    let cursor = text.len() - 1;
    let on_hint = text.find("mcp:Tool:").unwrap() + 2;
    let model = Model::new(snapshot.clone(), settings.clone(), context.clone());
    let mut c = Vec::new();
    let mut h = Vec::new();
    for _ in 0..51 {
        let t = Instant::now();
        let items = completion::completion(&model, cursor);
        c.push(t.elapsed());
        assert!(!items.is_empty());
        let t = Instant::now();
        let hover = hover::hover(&model, on_hint);
        h.push(t.elapsed());
        assert!(hover.is_some());
    }
    // Cold: the first request after an edit, before anything built the model of the new
    // version (in the server the diagnostics run usually builds it first).
    let mut cold = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let fresh = Model::new(snapshot.clone(), settings.clone(), context.clone());
        assert!(hover::hover(&fresh, on_hint).is_some());
        cold.push(t.elapsed());
    }
    println!(
        "{} lines: completion median {:?}, hover median {:?} (YAML tree shared), hover median {:?} (cold, YAML tree built)",
        text.lines().count(),
        median(c),
        median(h),
        median(cold)
    );
}
