//! Hover, inlay hints and document symbols, data-driven: a CWL text with a cursor marker `┃`.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::features::hover::{Hover, hover};
use cwl_mcp_lsp::features::inlay_hints::inlay_hints;
use cwl_mcp_lsp::features::symbols::{SymbolKind, symbols};
use cwl_mcp_lsp::model::Model;

const NS: &str = "https://eoap.github.io/cwl-mcp-extension#";

fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        ..Settings::default()
    }
}

fn hover_at(marked: &str, profile: Profile) -> Option<(String, Hover)> {
    let at = marked.find('┃').expect("a cursor marker");
    let text = marked.replacen('┃', "", 1);
    let snapshot = Snapshot::parse(&text, 1);
    let context = DocumentContext::from_uri("file:///w/echo-region.cwl");
    hover(&Model::new(snapshot, settings(profile), context), at).map(|h| (text, h))
}

fn echo(hint: &str) -> String {
    format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\nlabel: Echo region\ndoc: Echoes the region.\n$namespaces:\n  agent: {NS}\nhints:\n{hint}baseCommand: echo\ninputs:\n  region: string\noutputs:\n  echoed:\n    type: stdout\n"
    )
}

const MAP: &str = "  agent:Tool:\n    title: Echo a region\n    useWhen: a region must be echoed\n    annotations:\n      readOnlyHint: true\n      openWorldHint: false\n";

#[test]
fn hover_on_the_class_shows_the_effective_tool_extension_profile() {
    let marked = echo(&MAP.replacen("agent:Tool", "agent:To┃ol", 1));
    let (text, h) = hover_at(&marked, Profile::Extension).expect("a hover");
    assert_eq!(&text[h.span.clone()], "agent:Tool");
    let md = &h.markdown;
    assert!(
        md.contains("**name:** `echo_region` (from the normalized process id)"),
        "{md}"
    );
    assert!(
        md.contains("**title:** Echo a region (from `title` of the hint)"),
        "{md}"
    );
    assert!(
        md.contains("> Echoes the region.\n  > \n  > Use when: a region must be echoed"),
        "{md}"
    );
    assert!(md.contains("- `readOnlyHint: true`\n"), "{md}");
    assert!(
        md.contains(
            "- `destructiveHint: true` *(MCP default: the tool may perform destructive updates)*"
        ),
        "{md}"
    );
    assert!(
        md.contains("- `idempotentHint: false` *(MCP default"),
        "{md}"
    );
    assert!(md.contains("- `openWorldHint: false`"), "{md}");
}

#[test]
fn hover_on_the_class_cwl2mcp_profile_and_list_form() {
    let list = "  - class: agent:Tool┃\n    name: echo\n    aliases: []\n    useWhen: x\n    doNotUseWhen: \"\"\n";
    let (text, h) = hover_at(&echo(list), Profile::Cwl2mcp).expect("a hover");
    assert_eq!(&text[h.span.clone()], "agent:Tool");
    let md = &h.markdown;
    assert!(md.contains("cwl2mcp profile"), "{md}");
    assert!(
        md.contains("**name:** `echo` (from `name` of the hint)"),
        "{md}"
    );
    assert!(
        md.contains("**title:** Echo region (from the CWL `label`)"),
        "{md}"
    );
    assert!(
        md.contains("> Echoes the region.") && !md.contains("Use when"),
        "{md}"
    );
    // Without a name: the raw id, not normalized.
    let list = "  - class: agent:Tool\n    annotations: {}\n";
    let marked = echo(list).replacen("class: agent", "┃class: agent", 1);
    let (_, h) = hover_at(&marked, Profile::Cwl2mcp).unwrap();
    assert!(
        h.markdown
            .contains("**name:** `echo-region` (from the raw process id"),
        "{}",
        h.markdown
    );
}

#[test]
fn hover_on_fields_and_values_reads_the_field_table() {
    let marked = echo(&MAP.replacen("readOnlyHint", "readOn┃lyHint", 1));
    let (text, h) = hover_at(&marked, Profile::Extension).unwrap();
    assert_eq!(&text[h.span.clone()], "readOnlyHint");
    let md = &h.markdown;
    assert!(
        md.contains("boolean · optional under the `extension` profile"),
        "{md}"
    );
    assert!(
        md.contains("If true, the tool does not modify its environment."),
        "{md}"
    );
    assert!(md.contains("**MCP default:** `false`: when absent, clients assume the tool may modify its environment."), "{md}");
    assert!(md.contains("**Here:** `true`"), "{md}");
    // On the value, under cwl2mcp: required.
    let marked = echo(&MAP.replacen("openWorldHint: false", "openWorldHint: fa┃lse", 1));
    let (text, h) = hover_at(&marked, Profile::Cwl2mcp).unwrap();
    assert_eq!(&text[h.span.clone()], "false");
    assert!(
        h.markdown.contains("required under the `cwl2mcp` profile"),
        "{}",
        h.markdown
    );
    assert!(
        h.markdown
            .contains("clients assume the tool may interact with an open world"),
        "{}",
        h.markdown
    );
    // A Tool field.
    let marked = echo(&MAP.replacen("useWhen", "use┃When", 1));
    let (_, h) = hover_at(&marked, Profile::Cwl2mcp).unwrap();
    assert!(
        h.markdown.starts_with(
            "**`useWhen`** (mcp:Tool) · string · required under the `cwl2mcp` profile"
        ),
        "{}",
        h.markdown
    );
    let (_, h) = hover_at(&marked, Profile::Extension).unwrap();
    assert!(
        h.markdown
            .contains("optional under the `extension` profile"),
        "{}",
        h.markdown
    );
    // `annotations`: the values clients will see.
    let marked = echo(&MAP.replacen("annotations", "annot┃ations", 1));
    let (_, h) = hover_at(&marked, Profile::Extension).unwrap();
    assert!(
        h.markdown
            .contains("- `destructiveHint: true` *(MCP default"),
        "{}",
        h.markdown
    );
    // `title`: the effective title.
    let marked = echo(&MAP.replacen("title", "ti┃tle", 1));
    let (_, h) = hover_at(&marked, Profile::Extension).unwrap();
    assert!(
        h.markdown.contains("**Effective title:** Echo a region"),
        "{}",
        h.markdown
    );
    // `description` is not allowed under cwl2mcp.
    let marked = echo(&format!("{MAP}    descr┃iption: d\n"));
    let (_, h) = hover_at(&marked, Profile::Cwl2mcp).unwrap();
    assert!(
        h.markdown
            .contains("not allowed under the `cwl2mcp` profile"),
        "{}",
        h.markdown
    );
}

#[test]
fn no_hover_outside_a_recognised_hint() {
    for marked in [
        echo(MAP).replacen("baseCommand", "base┃Command", 1),
        echo(MAP).replacen("region: string", "region: str┃ing", 1),
        echo(
            &MAP.replace("agent:Tool", "other:Tool")
                .replacen("title", "ti┃tle", 1),
        ),
    ] {
        assert!(hover_at(&marked, Profile::Extension).is_none(), "{marked}");
    }
}

#[test]
fn inlay_hints_for_each_annotation_left_out_where_it_would_be_written() {
    let text = echo(MAP);
    let snapshot = Snapshot::parse(&text, 1);
    let hints = inlay_hints(&Model::new(
        snapshot.clone(),
        settings(Profile::Extension),
        ctx(),
    ));
    let labels: Vec<&str> = hints.iter().map(|h| h.label.as_str()).collect();
    assert_eq!(
        labels,
        vec![
            "destructiveHint: true (MCP default)",
            "idempotentHint: false (MCP default)"
        ]
    );
    let line_end = text.find("openWorldHint: false").unwrap() + "openWorldHint: false".len();
    assert!(hints.iter().all(|h| h.at == line_end));
    assert!(hints[0].tooltip.contains("clients assume `true`"));
    // No annotations: all four, after the hint's last field; list form.
    let text = echo("  - class: agent:Tool\n    name: e # the name\n");
    let hints = inlay_hints(&Model::of_text(&text, settings(Profile::Cwl2mcp), ctx()));
    assert_eq!(hints.len(), 4);
    let end = text.find("# the name").unwrap() + "# the name".len();
    assert!(hints.iter().all(|h| h.at == end));
    // Turned off, or no recognised hint: none.
    let off = Settings {
        inlay_hints: false,
        ..Settings::default()
    };
    assert!(inlay_hints(&Model::of_text(&echo(MAP), off, ctx())).is_empty());
    let unbound = echo(&MAP.replace("agent:Tool", "mcp:Tool"));
    assert!(inlay_hints(&Model::of_text(&unbound, Settings::default(), ctx())).is_empty());
}

#[test]
fn symbols_for_processes_hints_inputs_and_outputs() {
    let text = echo(MAP);
    let syms = symbols(&Model::of_text(&text, Settings::default(), ctx()));
    assert_eq!(syms.len(), 1);
    let root = &syms[0];
    assert_eq!(
        (root.name.as_str(), root.kind),
        ("echo-region", SymbolKind::Process)
    );
    let kids: Vec<(&str, SymbolKind)> = root
        .children
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(
        kids,
        vec![
            ("agent:Tool", SymbolKind::Hint),
            ("region", SymbolKind::Input),
            ("echoed", SymbolKind::Output)
        ]
    );
    assert_eq!(&text[root.children[0].selection.clone()], "agent:Tool");
    assert_eq!(root.children[1].detail.as_deref(), Some("string"));
    // A workflow with an inline `run:` process: nested.
    let wf = format!(
        "class: Workflow\nid: main\n$namespaces: {{mcp: \"{NS}\"}}\ninputs: []\noutputs: []\nsteps:\n  s1:\n    run:\n      class: CommandLineTool\n      hints:\n        - class: mcp:Tool\n          name: inner\n      inputs: {{x: int}}\n      outputs: []\n    in: []\n    out: []\n"
    );
    let syms = symbols(&Model::of_text(&wf, Settings::default(), ctx()));
    assert_eq!(syms.len(), 1);
    let inner = syms[0]
        .children
        .iter()
        .find(|c| c.kind == SymbolKind::Process)
        .expect("the inline process nested in the workflow");
    assert_eq!(inner.name, "main/s1/run");
    assert_eq!(
        inner.children[0].detail.as_deref(),
        Some("MCP tool `inner`")
    );
    assert_eq!(inner.children[1].name, "x");
}

#[test]
fn hover_in_json_form() {
    let marked = format!(
        "{{\"class\": \"CommandLineTool\", \"id\": \"x-y\", \"$namespaces\": {{\"m\": \"{NS}\"}},\n \"hints\": [{{\"class\": \"m:To┃ol\", \"annotations\": {{\"readOnlyHint\": true}}}}]}}"
    );
    let (text, h) = hover_at(&marked, Profile::Extension).expect("a hover");
    assert_eq!(&text[h.span.clone()], "\"m:Tool\"");
    assert!(
        h.markdown
            .contains("**name:** `x_y` (from the normalized process id)"),
        "{}",
        h.markdown
    );
    assert!(
        h.markdown
            .contains("**title:** x_y (from the normalized process id)"),
        "{}",
        h.markdown
    );
    let marked = marked
        .replace('┃', "")
        .replacen("\"readOnlyHint\"", "\"readOnly┃Hint\"", 1);
    let (text, h) = hover_at(&marked, Profile::Cwl2mcp).expect("a hover");
    assert_eq!(&text[h.span.clone()], "\"readOnlyHint\"");
    assert!(h.markdown.contains("**Here:** `true`"), "{}", h.markdown);
}

fn ctx() -> DocumentContext {
    DocumentContext::from_uri("file:///w/echo-region.cwl")
}

/// Each effective value names its source correctly (issue 11): without an `id` the name and
/// title come from the file name, and a composed description says it is composed.
#[test]
fn sources_are_named_as_they_are() {
    let marked = echo(&MAP.replacen("agent:Tool", "agent:To┃ol", 1))
        .replace("id: echo-region\n", "")
        .replace("label: Echo region\n", "")
        .replace("    title: Echo a region\n", "");
    let (_, h) = hover_at(&marked, Profile::Extension).expect("a hover");
    let md = &h.markdown;
    assert!(
        md.contains(
            "**name:** `echo_region` (from the normalized file name, as the process has no `id`)"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "**title:** echo_region (from the normalized file name, as the process has no `id`)"
        ),
        "{md}"
    );
    assert!(
        md.contains("**description** (from the CWL `doc`, `useWhen` and `doNotUseWhen`)"),
        "{md}"
    );
    assert!(!md.contains("from composed"), "{md}");
    // Broken YAML: the fields' docs, no effective values.
    let broken = marked.replace("readOnlyHint: true", "readOnlyHint: [true");
    let (_, h) = hover_at(&broken, Profile::Extension).expect("a hover");
    assert!(h.markdown.contains("syntax errors"), "{}", h.markdown);
    assert!(!h.markdown.contains("**name:**"), "{}", h.markdown);
}
