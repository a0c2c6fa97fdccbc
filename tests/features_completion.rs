//! Completion, data-driven: a CWL text with a cursor marker `┃` → the items offered, and the
//! text after applying one.
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::base::{DocumentContext, apply_edits};
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::features::completion::{Completion, completion};
use cwl_mcp_lsp::model::Model;

const CURSOR: char = '┃';
const NS: &str = "https://eoap.github.io/cwl-mcp-extension#";

fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        ..Settings::default()
    }
}

/// The text without its marker, and the items at the marker.
fn complete(marked: &str, profile: Profile) -> (String, Vec<Completion>) {
    let at = marked.find(CURSOR).expect("a cursor marker");
    let text = marked.replacen(CURSOR, "", 1);
    let model = Model::of_text(
        &text,
        settings(profile),
        DocumentContext::from_uri("file:///w/echo-region.cwl"),
    );
    let mut items = completion(&model, at);
    items.sort_by(|a, b| a.sort_text.cmp(&b.sort_text).then(a.label.cmp(&b.label)));
    (text, items)
}

fn labels(items: &[Completion]) -> Vec<&str> {
    items.iter().map(|i| i.label.as_str()).collect()
}

/// Applies an item (its edit and additional edits) as an editor would.
fn apply(text: &str, item: &Completion) -> String {
    let mut edits = vec![item.edit.clone()];
    edits.extend(item.additional_edits.iter().cloned());
    apply_edits(text, &edits).expect("non-overlapping edits")
}

const HEAD: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n";

#[test]
fn hint_class_in_map_form_uses_the_bound_prefix() {
    let marked = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  DockerRequirement:\n    dockerPull: alpine\n  ┃\ninputs: []\noutputs: []\n"
    );
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let (text, items) = complete(&marked, profile);
        assert_eq!(labels(&items), vec!["agent:Tool"]);
        assert!(items[0].additional_edits.is_empty());
        assert!(
            items[0].snippet,
            "a snippet: the line break survives one-word insertion"
        );
        assert!(
            items[0]
                .documentation
                .starts_with(cwl_mcp_lsp::hint::fields::TOOL_DOC)
        );
        assert_eq!(
            apply(&text, &items[0]),
            format!(
                "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  DockerRequirement:\n    dockerPull: alpine\n  agent:Tool:\n    $0\ninputs: []\noutputs: []\n"
            )
        );
    }
}

#[test]
fn hint_class_binds_the_namespace_when_unbound() {
    // List form, new item: `class: mcp:Tool`, and `$namespaces` added before the first key.
    let (text, items) = complete(
        &format!("{HEAD}hints:\n  - ┃\ninputs: []\n"),
        Profile::Extension,
    );
    assert_eq!(labels(&items), vec!["class: mcp:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!("$namespaces:\n  mcp: {NS}\n{HEAD}hints:\n  - class: mcp:Tool\n    \ninputs: []\n")
    );
    // A half-typed `cla` in the item; an existing `$namespaces` gets the entry.
    let marked =
        format!("{HEAD}$namespaces:\n  s: https://schema.org/\nhints:\n  - cla┃\ninputs: []\n");
    let (text, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(labels(&items), vec!["class: mcp:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!(
            "{HEAD}$namespaces:\n  s: https://schema.org/\n  mcp: {NS}\nhints:\n  - class: mcp:Tool\n    \ninputs: []\n"
        )
    );
    // The value of `class:` in a list item.
    let marked = format!("{HEAD}$namespaces: {{agent: \"{NS}\"}}\nhints:\n- class: ag┃\n");
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(labels(&items), vec!["agent:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!("{HEAD}$namespaces: {{agent: \"{NS}\"}}\nhints:\n- class: agent:Tool\n")
    );
}

#[test]
fn no_second_hint_class_and_the_namespaces_entry() {
    let marked =
        format!("{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool:\n    name: x\n  ┃\n");
    assert!(complete(&marked, Profile::Extension).1.is_empty());
    let marked = format!("{HEAD}$namespaces:\n  s: https://schema.org/\n  ┃\nhints: []\n");
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(labels(&items), vec!["mcp"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!("{HEAD}$namespaces:\n  s: https://schema.org/\n  mcp: {NS}\nhints: []\n")
    );
    // Already bound: nothing.
    let marked = format!("{HEAD}$namespaces:\n  agent: {NS}\n  ┃\n");
    assert!(complete(&marked, Profile::Extension).1.is_empty());
}

#[test]
fn tool_fields_map_form_both_profiles() {
    let marked = format!(
        "{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool:\n    name: echo_region\n    ┃\ninputs: []\n"
    );
    let (_, items) = complete(&marked, Profile::Extension);
    assert_eq!(
        labels(&items),
        vec![
            "title",
            "description",
            "aliases",
            "useWhen",
            "doNotUseWhen",
            "annotations"
        ]
    );
    assert!(
        items
            .iter()
            .all(|i| i.detail.contains("optional (extension profile)"))
    );
    let aliases = items.iter().find(|i| i.label == "aliases").unwrap();
    assert_eq!(aliases.edit.new_text, "aliases: [$1]");
    assert!(aliases.documentation.contains("Discovery synonyms"));
    // cwl2mcp: required fields first, `description` (rejected) not offered.
    let (_, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(
        labels(&items),
        vec!["aliases", "useWhen", "doNotUseWhen", "annotations", "title"]
    );
    assert!(items[0].detail.contains("required (cwl2mcp profile)"));
    assert!(items[4].detail.contains("optional (cwl2mcp profile)"));
}

#[test]
fn half_typed_key_in_broken_yaml_list_form_with_another_prefix() {
    let marked = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  - class: agent:Tool\n    name: x\n    useWhen: \"\"\n    ann┃\ninputs: []\n"
    );
    let text = marked.replacen(CURSOR, "", 1);
    assert!(
        Snapshot::parse(&text, 0).tree.root_node().has_error(),
        "the document is broken YAML while the key is typed"
    );
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(
        labels(&items),
        vec![
            "title",
            "description",
            "aliases",
            "doNotUseWhen",
            "annotations"
        ]
    );
    let annotations = items.iter().find(|i| i.label == "annotations").unwrap();
    assert!(annotations.snippet && annotations.as_is);
    assert_eq!(
        apply(&text, annotations),
        format!(
            "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  - class: agent:Tool\n    name: x\n    useWhen: \"\"\n    annotations:\n      readOnlyHint: ${{1:false}}\n      destructiveHint: ${{2:true}}\n      idempotentHint: ${{3:false}}\n      openWorldHint: ${{4:true}}\ninputs: []\n"
        )
    );
    // Map form, broken YAML, cwl2mcp.
    let marked = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  agent:Tool:\n    name: x\n    doNot┃\nlabel: l\n"
    );
    let (_, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(
        labels(&items),
        vec!["aliases", "useWhen", "doNotUseWhen", "annotations", "title"]
    );
    let item = items.iter().find(|i| i.label == "doNotUseWhen").unwrap();
    let start = marked.find("doNot").unwrap();
    assert_eq!(item.edit.span, start..start + "doNot".len());
}

#[test]
fn annotation_fields_then_values_with_the_default_marked() {
    let base = format!(
        "{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: false\n"
    );
    let (_, items) = complete(&format!("{base}      ┃\n"), Profile::Extension);
    assert_eq!(
        labels(&items),
        vec![
            "title",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint"
        ]
    );
    let d = items.iter().find(|i| i.label == "destructiveHint").unwrap();
    assert_eq!(d.edit.new_text, "destructiveHint: ${1:true}");
    assert!(d.detail.contains("MCP default: true"));
    let (_, items) = complete(&format!("{base}      ┃\n"), Profile::Cwl2mcp);
    assert_eq!(
        labels(&items),
        vec!["destructiveHint", "idempotentHint", "openWorldHint"]
    );
    // Values.
    for (key, default) in [
        ("destructiveHint", true),
        ("openWorldHint", true),
        ("idempotentHint", false),
    ] {
        let (text, items) = complete(&format!("{base}      {key}: ┃\n"), Profile::Extension);
        assert_eq!(
            labels(&items),
            vec![default.to_string(), (!default).to_string()]
        );
        assert!(items[0].preselect && items[0].detail.contains("MCP default"));
        assert!(!items[1].detail.contains("MCP default"));
        assert_eq!(
            apply(&text, &items[1]),
            format!("{base}      {key}: {}\n", !default)
        );
    }
    // List form, value half typed.
    let marked = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n- class: agent:Tool\n  annotations:\n    readOnlyHint: tr┃\n"
    );
    let (text, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(labels(&items), vec!["false", "true"]);
    assert_eq!(apply(&text, &items[1]), marked.replacen("tr┃", "true", 1));
}

#[test]
fn nothing_outside_the_hint() {
    let doc = format!(
        "{HEAD}$namespaces:\n  mcp: {NS}\nrequirements:\n  DockerRequirement:\n    dockerPull: alpine\n    X\nhints:\n  ResourceRequirement:\n    coresMin: 1\n    Y\n  foo:Tool:\n    Z\n  mcp:Tool:\n    name: x # W\ninputs:\n  a:\n    V\n    type: string\nU\noutputs: []\n"
    );
    for marker in ["X", "Y", "Z", "W", "V", "U"] {
        let marked = doc
            .replacen(marker, "┃", 1)
            .replace(['X', 'Y', 'Z', 'W', 'V', 'U'], "");
        for profile in [Profile::Extension, Profile::Cwl2mcp] {
            let (_, items) = complete(&marked, profile);
            assert!(items.is_empty(), "at {marker}: {:?}", labels(&items));
        }
    }
}

#[test]
fn flow_style_and_json_read_from_the_tree() {
    // Flow body in a block document.
    let marked = format!("{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool: {{name: x, ┃}}\n");
    let (text, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(
        labels(&items),
        vec!["aliases", "useWhen", "doNotUseWhen", "annotations", "title"]
    );
    let annotations = items.iter().find(|i| i.label == "annotations").unwrap();
    assert_eq!(
        apply(&text, annotations),
        format!(
            "{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool: {{name: x, annotations: {{readOnlyHint: ${{1:false}}, destructiveHint: ${{2:true}}, idempotentHint: ${{3:false}}, openWorldHint: ${{4:true}}}}}}\n"
        )
    );
    // A flow `annotations` value.
    let marked = format!(
        "{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  - class: mcp:Tool\n    annotations: {{readOnlyHint: ┃}}\n"
    );
    let (_, items) = complete(&marked, Profile::Extension);
    assert_eq!(labels(&items), vec!["false", "true"]);
    // JSON: quoted keys and values, half-typed quoted key.
    let marked = format!(
        "{{\"cwlVersion\": \"v1.2\", \"class\": \"CommandLineTool\", \"$namespaces\": {{\"agent\": \"{NS}\"}},\n \"hints\": [{{\"class\": \"agent:Tool\", \"name\": \"x\", \"ann┃\"}}]}}"
    );
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(
        labels(&items),
        vec![
            "title",
            "description",
            "aliases",
            "useWhen",
            "doNotUseWhen",
            "annotations"
        ]
    );
    let title = items.iter().find(|i| i.label == "title").unwrap();
    assert_eq!(title.filter_text.as_deref(), Some("\"title\""));
    assert_eq!(
        apply(&text, title),
        marked.replacen("\"ann┃\"", "\"title\": \"$1\"", 1)
    );
    let marked = format!(
        "{{\"class\": \"CommandLineTool\", \"$namespaces\": {{\"agent\": \"{NS}\"}}, \"hints\": {{\"agent:Tool\": {{\"annotations\": {{\"readOnlyHint\": true, ┃}}}}}}}}"
    );
    let (text, items) = complete(&marked, Profile::Cwl2mcp);
    assert_eq!(
        labels(&items),
        vec!["destructiveHint", "idempotentHint", "openWorldHint"]
    );
    assert_eq!(
        apply(&text, &items[0]),
        marked.replacen("┃", "\"destructiveHint\": ${1:false}", 1)
    );
    // The class in flow and JSON `hints`, in both forms, binding the namespace when unbound.
    let marked = format!("{HEAD}hints: {{DockerRequirement: {{dockerPull: a}}, ┃}}\n");
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(labels(&items), vec!["mcp:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!(
            "$namespaces:\n  mcp: {NS}\n{HEAD}hints: {{DockerRequirement: {{dockerPull: a}}, mcp:Tool: {{$1}}}}\n"
        )
    );
    let marked = "{\"class\": \"CommandLineTool\", \"hints\": [{\"class\": \"┃\"}]}";
    let (text, items) = complete(marked, Profile::Cwl2mcp);
    assert_eq!(labels(&items), vec!["mcp:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        format!(
            "{{\"$namespaces\": {{\"mcp\": \"{NS}\"}}, \"class\": \"CommandLineTool\", \"hints\": [{{\"class\": \"mcp:Tool\"}}]}}"
        )
    );
    let marked = format!(
        "{{\"class\": \"Workflow\", \"$namespaces\": {{\"agent\": \"{NS}\"}}, \"hints\": [{{\"dockerPull\": \"x\", \"cl┃\"}}]}}"
    );
    let (text, items) = complete(&marked, Profile::Extension);
    assert_eq!(labels(&items), vec!["class: agent:Tool"]);
    assert_eq!(
        apply(&text, &items[0]),
        marked.replacen("\"cl┃\"", "\"class\": \"agent:Tool\"", 1)
    );
    // Not twice.
    let marked = format!(
        "{{\"class\": \"Workflow\", \"$namespaces\": {{\"agent\": \"{NS}\"}}, \"hints\": [{{\"class\": \"agent:Tool\"}}, {{\"class\": \"┃\"}}]}}"
    );
    assert!(complete(&marked, Profile::Extension).1.is_empty());
    // Flow collections that are not the hint: nothing.
    for marked in [
        format!("{HEAD}$namespaces:\n  mcp: {NS}\ninputs: {{a: string, ┃}}\n"),
        format!("{HEAD}requirements: {{┃}}\n"),
        format!("{HEAD}hints:\n  DockerRequirement: {{┃}}\n"),
        format!("{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  other:Tool: {{na┃}}\n"),
    ] {
        assert!(
            complete(&marked, Profile::Extension).1.is_empty(),
            "{marked}"
        );
    }
}

#[test]
fn graph_processes_count_and_step_hints_do_not() {
    let marked = format!(
        "cwlVersion: v1.2\n$namespaces:\n  mcp: {NS}\n$graph:\n- class: CommandLineTool\n  id: a\n  inputs: []\n  outputs: []\n- id: main\n  class: Workflow\n  hints:\n    mcp:Tool:\n      ┃\n  steps:\n    s1:\n      run: '#a'\n      hints:\n        mcp:Tool:\n          X\n"
    );
    let (_, items) = complete(&marked.replace('X', ""), Profile::Extension);
    assert!(labels(&items).contains(&"name"), "{:?}", labels(&items));
    // A step's `hints` is not a process's: nothing there.
    let step = marked.replace('┃', "").replace('X', "┃");
    assert!(complete(&step, Profile::Extension).1.is_empty());
    let step = step.replace("        mcp:Tool:\n          ┃", "        ┃");
    assert!(complete(&step, Profile::Extension).1.is_empty());
    // The same in flow style.
    let flow = format!(
        "class: Workflow\n$namespaces: {{mcp: {NS}}}\nsteps:\n  s1:\n    hints: {{mcp:Tool: {{na┃}}}}\n"
    );
    assert!(complete(&flow, Profile::Extension).1.is_empty());
}

/// With `readOnlyHint: true`, `destructiveHint` is offered as `false` first, preselected: the
/// value the quick fix writes, which does not raise `annotation-ignored` (issue 11).
#[test]
fn values_consistent_with_read_only() {
    let base = format!(
        "{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: true\n"
    );
    let (_, items) = complete(
        &format!("{base}      destructiveHint: ┃\n"),
        Profile::Extension,
    );
    assert_eq!(labels(&items), vec!["false", "true"]);
    assert!(items[0].preselect && !items[1].preselect);
    assert!(items[1].detail.contains("MCP default"), "{:?}", items[1]);
    let (_, items) = complete(&format!("{base}      ┃\n"), Profile::Extension);
    let d = items.iter().find(|i| i.label == "destructiveHint").unwrap();
    assert_eq!(d.edit.new_text, "destructiveHint: ${1:false}");
    // Without `readOnlyHint: true`, the MCP default as before.
    let base = base.replace("readOnlyHint: true", "readOnlyHint: false");
    let (_, items) = complete(
        &format!("{base}      destructiveHint: ┃\n"),
        Profile::Extension,
    );
    assert_eq!(labels(&items), vec!["true", "false"]);
}

/// The hint class item's documentation speaks of the form it writes.
#[test]
fn class_documentation_for_each_form() {
    let (_, items) = complete(
        &format!("{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  ┃\n"),
        Profile::Extension,
    );
    let map = items.iter().find(|i| i.label == "mcp:Tool").unwrap();
    assert!(
        map.documentation.contains("map form"),
        "{}",
        map.documentation
    );
    assert!(
        !map.documentation.contains("list form"),
        "{}",
        map.documentation
    );
    let (_, items) = complete(
        &format!("{HEAD}$namespaces:\n  mcp: {NS}\nhints:\n  - ┃\n"),
        Profile::Extension,
    );
    let list = items.iter().find(|i| i.label == "class: mcp:Tool").unwrap();
    assert!(
        list.documentation.contains("list form"),
        "{}",
        list.documentation
    );
}

/// In a large document a broken hint's tree is settled around the large block (its value
/// blanked in the tree, read from the hint parsed alone): completion and hover inside the
/// broken hint answer as they do in a small document, where the fresh parse is the tree.
#[test]
fn a_broken_hint_beside_a_large_block_completes_and_hovers_as_in_a_small_document() {
    let mut inputs = String::from("inputs:\n");
    for i in 0..300 {
        inputs.push_str(&format!(
            "  in_{i}:\n    type: string\n    doc: input {i}\n"
        ));
    }
    let small = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  - class: agent:Tool\n    name: x\n    useWhen: \"\"\n    ann┃\noutputs: []\n"
    );
    let large = small.replace("outputs: []\n", &format!("{inputs}outputs: []\n"));
    let settled = Snapshot::parse(&large.replacen(CURSOR, "", 1), 0);
    assert!(
        settled.settled.is_some(),
        "the large document's tree is settled"
    );
    assert!(
        Snapshot::parse(&small.replacen(CURSOR, "", 1), 0)
            .settled
            .is_none()
    );
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let (small_text, small_items) = complete(&small, profile);
        let (large_text, large_items) = complete(&large, profile);
        assert!(!small_items.is_empty());
        assert_eq!(labels(&large_items), labels(&small_items), "{profile:?}");
        for (a, b) in small_items.iter().zip(&large_items) {
            assert_eq!(
                apply(&small_text, a).replace("outputs: []\n", ""),
                apply(&large_text, b).replace(&format!("{inputs}outputs: []\n"), ""),
                "{profile:?} {}",
                a.label
            );
        }
    }
    // Hover on the hint's class, and the syntax error reported once, in the hint.
    let at = |marked: &str| marked.find("agent:Tool").unwrap() + 2;
    let model = |marked: &str| {
        Model::of_text(
            &marked.replacen(CURSOR, "", 1),
            settings(Profile::Extension),
            DocumentContext::from_uri("file:///w/echo-region.cwl"),
        )
    };
    let (small_model, large_model) = (model(&small), model(&large));
    let hover = |m: &Model, marked: &str| {
        cwl_mcp_lsp::features::hover::hover(m, at(marked)).map(|h| h.markdown)
    };
    assert!(hover(&small_model, &small).is_some());
    assert_eq!(hover(&large_model, &large), hover(&small_model, &small));
    let syntax = |m: &Model| {
        m.diagnostics()
            .iter()
            .filter(|d| d.code == cwl_mcp_lsp::base::Code::YamlSyntax)
            .map(|d| d.span.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(syntax(&large_model), syntax(&small_model));
    assert_eq!(syntax(&small_model).len(), 1);
}
