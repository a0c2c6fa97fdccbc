//! Completion reads the lines a cursor's walks reach (`outline::lines_around`: every line of
//! the top-level block holding the cursor, the first line of every other block) instead of
//! every line of the text. This test checks that the items are exactly those read from every
//! line (`completion_from` an `Outline::of` the text), at every line of real texts (col 0, the content's
//! column, the middle and the end of each line), in the texts as written and with one line
//! cut at its middle (a half-typed line: the YAML often broken), one cursor after the other on
//! the same model (so the outline kept for one block is reused, or rebuilt, as the cursor
//! moves).
//!
//! It also checks that the indentation unit read in one pass over the text
//! (`outline::indent_unit_of`: completion and the quick fixes) is the one read from every line.
//!
//! Tier 1: every `*.cwl` of `examples/` and `tests/fixtures/`. Tier 2: every `*.cwl` of
//! `../shared/corpus`, as written, at most 400 cursors per file spread over it (said plainly
//! when it is absent).
mod common;

use std::path::{Path, PathBuf};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::Settings;
use cwl_mcp_lsp::document::outline::{self, Outline};
use cwl_mcp_lsp::features::completion::{completion, completion_from};
use cwl_mcp_lsp::model::Model;

/// The byte offsets checked on each line: its start, its content's column, its middle, its end.
fn cursors(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let body = piece.trim_end_matches(['\n', '\r']);
        let content = body.len() - body.trim_start_matches([' ', '-']).len();
        for col in [0, content, body.len() / 2, body.len()] {
            let mut at = start + col.min(body.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            out.push(at);
        }
        start += piece.len();
    }
    out.push(text.len());
    out.dedup();
    out
}

#[derive(Default)]
struct Tally {
    texts: usize,
    cursors: usize,
    /// Cursors where completion offered something.
    offered: usize,
    /// Texts whose outline around some cursor holds fewer lines than the text.
    scoped: usize,
}

/// Compares the two completions at every cursor of `text` (at most `most`, spread over the
/// text); returns the first difference.
fn compare(name: &str, text: &str, most: usize, tally: &mut Tally) -> Result<(), String> {
    let model = Model::of_text(
        text,
        Settings::default(),
        DocumentContext::from_uri("file:///scope/tool.cwl"),
    );
    tally.texts += 1;
    // The indentation unit read without keeping the lines is the one read from every line.
    let unit = outline::indent_unit(&outline::lines(text));
    if outline::indent_unit_of(text) != unit {
        return Err(format!(
            "{name}: indentation unit {} against {unit}",
            outline::indent_unit_of(text)
        ));
    }
    let every = Outline::of(text.into());
    let mut scoped = false;
    let all = cursors(text);
    let step = all.len().div_ceil(most).max(1);
    for at in all.into_iter().step_by(step) {
        let got = completion(&model, at);
        let want = completion_from(&model, at, &every);
        if got != want {
            return Err(format!(
                "{name}: at byte {at} (line {}), the scoped outline gives\n{got:#?}\n\
                 and every line gives\n{want:#?}",
                text[..at].matches('\n').count() + 1
            ));
        }
        tally.cursors += 1;
        tally.offered += usize::from(!got.is_empty());
        scoped = scoped || Outline::around(text.into(), at).lines().len() < every.lines().len();
    }
    tally.scoped += usize::from(scoped);
    Ok(())
}

/// `text` with line `k` cut at the middle of its content (what is left of a line being typed).
fn cut(text: &str, k: usize) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = lines.get(k)?;
    let content = line.len() - line.trim_start().len();
    let mut mid = content + (line.len() - content) / 2;
    while !line.is_char_boundary(mid) {
        mid -= 1;
    }
    if line.trim().is_empty() || mid == line.len() {
        return None;
    }
    let mut out = lines.clone();
    out[k] = &line[..mid];
    Some(out.join("\n"))
}

fn project_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = common::cwl_files(&root.join("examples"));
    files.extend(common::cwl_files(&root.join("tests/fixtures")));
    files
}

#[test]
fn completion_reads_the_same_from_the_lines_around_the_cursor_as_from_every_line() {
    let mut tally = Tally::default();
    let files = project_files();
    assert!(
        files.len() >= 50,
        "the project's CWL files: {}",
        files.len()
    );
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.display().to_string();
        compare(&name, &text, usize::MAX, &mut tally).unwrap_or_else(|e| panic!("{e}"));
        // Every line cut in turn (at most 40 per file, spread over it).
        let n = text.split('\n').count();
        let step = n.div_ceil(40).max(1);
        for k in (0..n).step_by(step) {
            if let Some(t) = cut(&text, k) {
                compare(
                    &format!("{name} (line {} cut)", k + 1),
                    &t,
                    usize::MAX,
                    &mut tally,
                )
                .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    eprintln!(
        "{} texts, {} cursors, items offered at {}, the outline scoped in {} texts",
        tally.texts, tally.cursors, tally.offered, tally.scoped
    );
    // The comparison is not vacuous: many cursors offer items, and most texts have more than
    // one top-level block (the scoped outline is smaller than the text's).
    assert!(
        tally.offered >= 500,
        "items offered at {} cursors",
        tally.offered
    );
    assert!(
        tally.scoped * 2 >= tally.texts,
        "{} of {} texts scoped",
        tally.scoped,
        tally.texts
    );
}

#[test]
fn completion_reads_the_same_from_the_lines_around_the_cursor_on_the_shared_corpus() {
    // `shared_dir` says SKIPPED when `../shared` is absent.
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let corpus = shared.join("corpus");
    let mut tally = Tally::default();
    for path in common::cwl_files(&corpus) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        compare(&path.display().to_string(), &text, 400, &mut tally)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    eprintln!(
        "corpus: {} texts, {} cursors, items offered at {}, the outline scoped in {} texts",
        tally.texts, tally.cursors, tally.offered, tally.scoped
    );
    assert!(tally.texts >= 1000, "corpus texts: {}", tally.texts);
    assert!(
        tally.offered >= 100,
        "items offered at {} cursors",
        tally.offered
    );
}

/// The outline around a cursor in the hint of a long tool holds the hint's lines and the root
/// keys, not the inputs' lines; the one kept by the model serves the next cursor in the same
/// block and not one in another block.
#[test]
fn the_outline_around_a_cursor_in_the_hint_leaves_out_the_inputs() {
    let mut text = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nbaseCommand: [echo]\ninputs:\n",
    );
    for i in 0..2000 {
        text.push_str(&format!(
            "  in_{i}:\n    type: int\n    doc: input number {i}\n"
        ));
    }
    text.push_str("outputs: {}\nhints:\n  mcp:Tool:\n    name: echo\n    annotations:\n      readOnlyHint: true\n      \n");
    let at = text.len() - 1;
    let o = Outline::around(text.as_str().into(), at);
    let keys: Vec<&str> = o.lines().iter().filter_map(|l| l.key).collect();
    assert_eq!(
        keys,
        [
            "cwlVersion",
            "class",
            "$namespaces",
            "baseCommand",
            "inputs",
            "outputs",
            "hints",
            "mcp:Tool",
            "name",
            "annotations",
            "readOnlyHint"
        ]
    );
    assert!(o.serves(text.len() - 20));
    assert!(!o.serves(text.find("in_7:").unwrap()));
    let model = Model::of_text(
        &text,
        Settings::default(),
        DocumentContext::from_uri("file:///scope/tool.cwl"),
    );
    let labels: Vec<String> = completion(&model, at)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert!(labels.contains(&"openWorldHint".to_string()), "{labels:?}");
    assert!(!labels.contains(&"readOnlyHint".to_string()), "{labels:?}");
    assert_eq!(
        completion(&model, at),
        completion_from(&model, at, &Outline::of(text.as_str().into()))
    );
}

/// In broken YAML the `$namespaces` bindings are read from the text of the `$namespaces`
/// block (its last line included): a half-typed key in a hint of a tool whose
/// `baseCommand` is unclosed is offered under the bound prefix, without binding it again.
#[test]
fn the_namespaces_block_is_read_to_its_last_line_in_broken_yaml() {
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\n$namespaces:\n  s: https://schema.org/\n  ext: https://eoap.github.io/cwl-mcp-extension#\nbaseCommand: [echo\ninputs: {}\noutputs: {}\nhints:\n  ext:Tool:\n    name: echo\n    ann\n";
    let model = Model::of_text(
        text,
        Settings::default(),
        DocumentContext::from_uri("file:///scope/tool.cwl"),
    );
    assert!(model.syntax_broken());
    let at = text.find("ann\n").unwrap() + 3;
    let items = completion(&model, at);
    let ann = items
        .iter()
        .find(|c| c.label == "annotations")
        .unwrap_or_else(|| panic!("{items:#?}"));
    assert!(ann.additional_edits.is_empty(), "{ann:#?}");
    let at = text.find("ext:Tool").unwrap() + 1;
    let items = completion(&model, at);
    assert!(items.iter().any(|c| c.label == "ext:Tool"), "{items:#?}");
    assert!(
        items.iter().all(|c| c.additional_edits.is_empty()),
        "{items:#?}"
    );
}
