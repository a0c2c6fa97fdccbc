//! `agent-context` (SPEC §5, issue 13) on CWL documents with their expected diagnostics
//! annotated inline (see `crate::model::fixture` for the syntax).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::check_diagnostics;

#[test]
fn what_an_agent_is_not_told() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
# ^^^^^^^^ hint[agent-context]: the Tool `count_lines` has no description: an agent has nothing but its name to choose it by; write a CWL `doc`, or `useWhen` / `description` in the hint
# ^^^^^^^^ hint[agent-context]: the hint has no `useWhen` and `doNotUseWhen`
    name: count_lines
baseCommand: [wc, -l]
inputs:
  text: File
# ^^^^ hint[agent-context]: the input `text` has neither `label` nor `doc`: it reaches the agent as a bare name
  mode:
# ^^^^ hint[agent-context]: the input `mode` has neither `label` nor `doc`
    type: string
    label: "  "
  lines:
    type: int
    label: Lines
  format:
    type: string
    doc: [The output format, one of the listed ones.]
outputs: []
"#,
    );
}

#[test]
fn a_described_tool_gets_nothing() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    useWhen: the user asks how long a text file is
    doNotUseWhen: the text is not in a file
baseCommand: [wc, -l]
inputs:
  text: {type: File, label: Text file}
outputs: []
"#,
    );
}

#[test]
fn only_the_missing_half_of_use_when_is_named() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
doc: Counts lines.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
# ^^^^^^^^ hint[agent-context]: the hint has no `doNotUseWhen`:
    useWhen: the user asks how long a text file is
inputs: []
outputs: []
"#,
    );
}

#[test]
fn under_cwl2mcp_the_doc_alone_describes_and_use_when_is_not_asked() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: hinted
    hints:
      - class: mcp:Tool
#              ^^^^^^^^ hint[agent-context]: the Tool `hinted` has no description: an agent has nothing but its name to choose it by; write a CWL `doc` (cwl2mcp 0.1.0 describes a Tool by it alone)
        name: hinted
        aliases: []
        useWhen: ""
        doNotUseWhen: ""
        annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    inputs:
      text: string
#     ^^^^ hint[agent-context]: the input `text` has neither `label` nor `doc`: nothing but its name tells an agent what to pass (cwl2mcp 0.1.0 does not carry `label`/`doc` into the schema
    outputs: []
  - class: CommandLineTool
    id: unhinted
    inputs:
      text: string
    outputs: []
"#,
    );
}

#[test]
fn a_document_without_hints_gets_nothing() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
inputs:
  text: File
outputs: []
"#,
    );
}

#[test]
fn the_setting_turns_the_family_off() {
    let text = r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool: {}
inputs:
  text: File
outputs: []
"#;
    let count = |agent_context| {
        let settings = crate::base::Settings {
            agent_context,
            ..crate::model::fixture::settings(Extension)
        };
        crate::model::Model::of_text(text, settings, crate::model::fixture::context())
            .diagnostics()
            .iter()
            .filter(|d| d.code == crate::base::Code::AgentContext)
            .count()
    };
    assert_eq!(count(true), 3);
    assert_eq!(count(false), 0);
}

/// A large `inputs` (deferred, read once per content) gives the same findings as one built in
/// place, also after an edit before it moves it (the memo's relative spans, shifted).
#[test]
fn a_large_deferred_inputs_gives_the_findings_of_one_built_in_place() {
    use crate::base::Code;
    use crate::model::Model;
    use crate::model::fixture::{context, settings};
    let doc = |name: &str, in_place: bool| {
        let mut t = format!(
            "cwlVersion: v1.2\nclass: CommandLineTool\nid: big\ndoc: Counts.\n$namespaces:\n  \
             mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: {name}\n\
             \x20   useWhen: always\n    doNotUseWhen: never\ninputs:\n"
        );
        for i in 0..600 {
            match i % 3 {
                0 => t.push_str(&format!("  bare_{i}: string\n")),
                1 => t.push_str(&format!(
                    "  said_{i}:\n    type: int\n    doc: Count {i}.\n"
                )),
                _ => t.push_str(&format!("  blank_{i}:\n    type: int\n    label: ' '\n")),
            }
        }
        t.push_str("outputs: []\n");
        // `&` anywhere (here in a comment) keeps every subtree in place.
        if in_place {
            t.push_str("# &\n");
        }
        t
    };
    let findings = |text: &str| {
        let m = Model::of_text(text, settings(Extension), context());
        assert!(!m.syntax_broken());
        assert_eq!(m.yaml().deferred.is_empty(), text.contains('&'));
        m.diagnostics()
            .iter()
            .filter(|d| d.code == Code::AgentContext)
            .map(|d| (d.span.clone(), d.message.clone()))
            .collect::<Vec<_>>()
    };
    for name in ["count", "count_lines_longer"] {
        let deferred = findings(&doc(name, false));
        assert!(doc(name, false).len() > crate::document::yaml::memo::MIN_BYTES);
        assert_eq!(deferred.len(), 400, "{deferred:?}");
        assert_eq!(deferred, findings(&doc(name, true)), "{name}");
        let text = doc(name, false);
        assert_eq!(&text[deferred[0].0.clone()], "bare_0");
        assert_eq!(&text[deferred[399].0.clone()], "blank_599");
    }
}
