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
