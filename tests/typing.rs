//! Typing a hint character by character, from nothing to complete, through incremental edits:
//! no panic, and no diagnostic on a line the user has not touched.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::{Change, Document, Encoding, LineIndex};
use cwl_mcp_lsp::model;

const BEFORE: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: typed-tool\nlabel: Typed 日本\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n";
const AFTER: &str = "baseCommand: echo\ninputs:\n  region:\n    type: string\n    doc: Région\noutputs:\n  out:\n    type: stdout\n";

const HINTS: [&str; 2] = [
    "hints:\n  mcp:Tool:\n    name: typed_tool\n    title: Typed\n    description: Types.\n    aliases: [a, b]\n    useWhen: always\n    doNotUseWhen: never\n    annotations:\n      readOnlyHint: true\n      destructiveHint: false\n      idempotentHint: true\n      openWorldHint: false\n",
    "hints:\n  - class: mcp:Tool\n    name: typed_tool\n    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}\n",
];

fn type_hint(hint: &str, profile: Profile) {
    let settings = Settings {
        profile,
        ..Settings::default()
    };
    let context = DocumentContext::from_uri("file:///typed.cwl");
    let mut text = format!("{BEFORE}{AFTER}");
    let mut doc = Document::new(text.clone(), 0);
    let first_line = BEFORE.matches('\n').count() as u32;
    let mut offset = BEFORE.len();
    for (i, ch) in hint.chars().enumerate() {
        let lines = LineIndex::from_text(&text);
        let at = lines.position(offset, Encoding::Utf16);
        doc.apply_changes(
            &[Change {
                range: Some((at, at)),
                text: ch.to_string(),
            }],
            i as i32 + 1,
            Encoding::Utf16,
        )
        .unwrap();
        text.insert(offset, ch);
        offset += ch.len_utf8();
        assert_eq!(doc.text(), text);
        let snapshot = doc.snapshot();
        let diags = model::diagnostics(&snapshot, &settings, &context);
        let cursor_line = snapshot.lines.position(offset, Encoding::Utf16).line;
        for d in &diags {
            let line = snapshot.lines.position(d.span.start, Encoding::Utf16).line;
            assert!(
                (first_line..=cursor_line).contains(&line),
                "after typing {:?}: {} on untouched line {line} (typed lines {first_line}..={cursor_line}): {}",
                &hint[..hint
                    .char_indices()
                    .nth(i + 1)
                    .map_or(hint.len(), |(b, _)| b)],
                d.code,
                d.message
            );
        }
    }
    // Complete: the finished hint is valid under the extension profile.
    if profile == Profile::Extension {
        let diags = model::diagnostics(&doc.snapshot(), &settings, &context);
        assert!(
            diags
                .iter()
                .all(|d| d.severity != cwl_mcp_lsp::base::Severity::Error),
            "{diags:?}"
        );
    }
}

#[test]
fn typing_a_map_form_hint_touches_only_typed_lines() {
    type_hint(HINTS[0], Profile::Extension);
    type_hint(HINTS[0], Profile::Cwl2mcp);
}

#[test]
fn typing_a_list_form_hint_with_flow_annotations_touches_only_typed_lines() {
    type_hint(HINTS[1], Profile::Extension);
    type_hint(HINTS[1], Profile::Cwl2mcp);
}
