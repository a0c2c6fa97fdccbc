//! No input makes a feature panic: every feature at many offsets of every reference case and
//! example, of truncated copies (text being typed) and of CRLF copies; every quick fix offered
//! applies cleanly (edits inside the text, on char boundaries, not overlapping).
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::apply_edits;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::features::{code_actions, completion, hover, inlay_hints, symbols};
use cwl_mcp_lsp::model;
use cwl_mcp_lsp::model::Model;

fn inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["tests/fixtures/derive/oracle-runs/cases", "examples"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cwl"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.display().to_string(), text));
        }
    }
    assert!(out.len() > 50);
    out
}

fn exercise(name: &str, text: &str, offsets: usize) {
    let snapshot = Snapshot::parse(text, 1);
    let context = DocumentContext::from_uri("file:///w/case.cwl");
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let step = (boundaries.len() / offsets).max(1);
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let settings = Settings {
            profile,
            ..Settings::default()
        };
        let model = Model::new(snapshot.clone(), settings.clone(), context.clone());
        for &at in boundaries.iter().step_by(step) {
            for item in completion::completion(&model, at) {
                let mut edits = vec![item.edit.clone()];
                edits.extend(item.additional_edits);
                assert!(
                    apply_edits(text, &edits).is_some(),
                    "{name} @{at}: {edits:?}"
                );
            }
            if let Some(h) = hover::hover(&model, at) {
                assert!(h.span.end <= text.len());
            }
        }
        for fix in code_actions::quick_fixes(&model, 0..text.len()) {
            let fixed = apply_edits(text, &fix.edits)
                .unwrap_or_else(|| panic!("{name}: `{}` does not apply", fix.title));
            model::diagnostics(&Snapshot::parse(&fixed, 2), &settings, &context);
        }
        for h in inlay_hints::inlay_hints(&model) {
            assert!(text.is_char_boundary(h.at), "{name}");
        }
        symbols::symbols(&model);
    }
}

#[test]
fn every_feature_on_every_case_and_on_text_being_typed() {
    for (name, text) in inputs() {
        exercise(&name, &text, 120);
        exercise(&name, &text.replace('\n', "\r\n"), 40);
        // Truncated copies: the document as it is while being typed.
        let cuts: Vec<usize> = (1..6).map(|k| text.len() * k / 6).collect();
        for cut in cuts {
            let mut cut = cut;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            exercise(&name, &text[..cut], 30);
        }
    }
}

#[test]
fn odd_texts() {
    for text in [
        "",
        "\n",
        "-",
        "- - -\n  - :\n",
        ":",
        "hints:\n  - \n  -",
        "hints:\n- class:\n  ",
        "hints: {mcp:Tool: {annotations: {readOnlyHint: yes}}}",
        "\"hints\":\n  \"mcp:Tool\":\n    \"name\": 3\n",
        "hints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: é\n    \t\n",
        "$namespaces: [a, b]\nhints:\n  mcp:Tool: x\n",
        "\u{feff}class: CommandLineTool\nhints:\n  mcp:Tool:\n    ",
        "class: CommandLineTool\rhints:\r  mcp:Tool:\r    na",
    ] {
        exercise(text, text, 200);
    }
}

mod common;

/// Second tier: every real CWL file of `../shared/corpus/` (conformance tests, pipelines,
/// deliberately broken files), at a few offsets each.
#[test]
fn every_feature_on_the_real_corpus() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files = common::cwl_files(&shared.join("corpus/real"));
    files.extend(common::cwl_files(&shared.join("corpus/mcp")));
    assert!(files.len() > 1000);
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        exercise(&path.display().to_string(), &text, 6);
    }
}
