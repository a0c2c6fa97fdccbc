//! Large documents take the deferred/memoized paths (a root process's big `inputs`/`outputs`
//! built on demand and memoized by content; input/output schemas memoized across hint edits).
//! Their results must equal the plain paths': JSON equal to libyaml's, errors and spans in the
//! right place, and Tools equal to a derivation from the whole document's JSON.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::cwl::CwlView;
use cwl_mcp_lsp::derive::DeriveOptions;
use cwl_mcp_lsp::derive::view::{Location, derive_process};
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::document::yaml::{Kind, YamlDoc};
use cwl_mcp_lsp::model;
use cwl_mcp_lsp::model::Model;

fn big_tool(inputs: usize, title: &str, extra_input: &str) -> String {
    let mut text = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: big-tool\nlabel: Big\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nrequirements:\n  SchemaDefRequirement:\n    types:\n      - name: Mode\n        type: enum\n        symbols: [fast, slow]\ninputs:\n",
    );
    for i in 0..inputs {
        text.push_str(&format!(
            "  in_{i:04}:\n    type: {}\n    label: Input é {i}\n    doc: |\n      Line one of {i}.\n      Line two.\n    default: {}\n",
            ["string", "int?", "File", "Mode", "string[]"][i % 5],
            ["x", "3", "null", "fast", "[a, b]"][i % 5],
        ));
    }
    text.push_str(extra_input);
    text.push_str(&format!(
        "outputs:\n  out:\n    type: stdout\nhints:\n  mcp:Tool:\n    name: big_tool\n    title: {title}\n    aliases: []\n    useWhen: ''\n    doNotUseWhen: ''\n    annotations: {{readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}}\n"
    ));
    text
}

#[test]
fn deferred_inputs_read_like_libyaml_with_exact_spans() {
    let text = big_tool(400, "Big", "");
    assert!(text.len() > 40_000);
    for round in 0..2 {
        // Round 2 takes the memo.
        let yaml = YamlDoc::parse(&text);
        let root = yaml.root.as_ref().unwrap();
        let inputs = root.get("inputs").unwrap();
        assert!(matches!(inputs.kind, Kind::Deferred(_)), "round {round}");
        assert_eq!(
            yaml.to_json().unwrap(),
            serde_norway::from_str::<serde_json::Value>(&text).unwrap()
        );
        let built = yaml.deref(inputs);
        let pair = built.entry("in_0123").unwrap();
        assert_eq!(&text[pair.key.span.clone()], "in_0123");
        // Each input is deferred too (memoized by its own text), read through `deref`.
        assert!(
            matches!(pair.value.kind, Kind::Deferred(_)),
            "round {round}"
        );
        let label = yaml.deref(&pair.value).get("label").unwrap();
        assert_eq!(&text[label.span.clone()], "Input é 123");
        let view = CwlView::new(&yaml);
        assert_eq!(view.processes[0].inputs(&yaml).len(), 400);
    }
    // Anchors anywhere: nothing is deferred (an alias could point inside).
    let anchored = text.replacen("label: Big", "label: &l Big", 1);
    let yaml = YamlDoc::parse(&anchored);
    assert!(!matches!(
        yaml.root.as_ref().unwrap().get("inputs").unwrap().kind,
        Kind::Deferred(_)
    ));
}

#[test]
fn errors_inside_deferred_inputs_are_reported_every_time_at_their_place() {
    let text = big_tool(300, "Big", "  in_0007:\n    type: string\n");
    let settings = Settings::default();
    let context = DocumentContext::from_uri("file:///w/big.cwl");
    for _ in 0..2 {
        let snapshot = Snapshot::parse(&text, 1);
        let diags = model::diagnostics(&snapshot, &settings, &context);
        let dup: Vec<_> = diags.iter().filter(|d| d.code == "yaml-syntax").collect();
        assert_eq!(dup.len(), 1, "{diags:?}");
        assert_eq!(&text[dup[0].span.clone()], "in_0007");
        assert!(dup[0].span.start > text.find("in_0299").unwrap());
    }
}

fn reference(
    text: &str,
    settings: &Settings,
    context: &DocumentContext,
) -> (serde_json::Value, Vec<String>) {
    let yaml = YamlDoc::parse(text);
    let view = CwlView::new(&yaml);
    let root = yaml.to_json().unwrap();
    // The hint's values as the hint rules read them, then the engine on the whole document.
    let snapshot = cwl_mcp_lsp::document::Snapshot::parse(text, 1);
    let validation =
        cwl_mcp_lsp::hint::validate::validate(&view, &yaml, &snapshot, settings, context);
    let hint = validation.hints[0].as_ref().map(|r| &r.values);
    let d = derive_process(
        &root,
        &view.processes[0],
        hint,
        context,
        Location::default(),
        &DeriveOptions::from_settings(settings),
    );
    let mut problems: Vec<String> = d
        .problems
        .iter()
        .map(|p| format!("{}:{}", p.code, p.message))
        .collect();
    problems.sort();
    (d.tool.unwrap(), problems)
}

fn memoized(
    text: &str,
    settings: &Settings,
    context: &DocumentContext,
) -> (serde_json::Value, Vec<String>) {
    let model = Model::of_text(text, settings.clone(), context.clone());
    let d = model.entry(0).to_derivation();
    let mut problems: Vec<String> = d
        .problems
        .iter()
        .map(|p| format!("{}:{}", p.code, p.message))
        .collect();
    problems.sort();
    (d.tool.clone().unwrap(), problems)
}

#[test]
fn hint_edits_reuse_schemas_and_give_the_same_tool_as_a_full_derivation() {
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let settings = Settings {
            profile,
            ..Settings::default()
        };
        let context = DocumentContext::from_uri(&format!("file:///w/big-{profile:?}.cwl"));
        // An input whose type is undefined gives a schema-side problem to carry over.
        let extra = "  odd:\n    type: Undefined\n";
        for title in ["First title", "Second title", "Third, with é"] {
            let text = big_tool(250, title, extra);
            let (tool, problems) = memoized(&text, &settings, &context);
            assert_eq!(tool["title"], title);
            assert_eq!(
                (tool.clone(), problems.clone()),
                reference(&text, &settings, &context),
                "{profile:?} {title}"
            );
        }
        // An input edit is not hidden by the memo.
        let text = big_tool(251, "Third, with é", extra);
        let (tool, _) = memoized(&text, &settings, &context);
        let props = if profile == Profile::Cwl2mcp {
            &tool["inputSchema"]["$defs"]
        } else {
            &tool["inputSchema"]["properties"]
        };
        assert!(props.get("in_0250").is_some(), "{profile:?}");
    }
}
