//! Each quick fix of [`super`], applied at a cursor (`$0`) inside the diagnostic it fixes: the
//! text it gives, exactly, and that the diagnostic is gone after it (see
//! `crate::model::fixture`).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::{check_fix, check_fix_titled, check_no_fix};

// ---- namespace-unbound ---------------------------------------------------------------------

#[test]
fn bind_the_prefix_in_a_new_namespaces_block() {
    // A new `$namespaces` goes at the top of the root mapping.
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: mcp:T$0ool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn bind_the_prefix_in_the_existing_namespaces() {
    check_fix_titled(
        Cwl2mcp,
        "Bind `mcp`",
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  s: https://schema.org/
id: echo-region
hints:
  $0mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  s: https://schema.org/
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn use_the_prefix_that_is_bound() {
    check_fix_titled(
        Extension,
        "Use `agent:Tool`",
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  agent: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: "mcp:Tool$0"
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  agent: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: "agent:Tool"
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- namespace-mismatch --------------------------------------------------------------------

#[test]
fn correct_the_namespace_uri() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines-typo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension
hints:
  - class: mcp:$0Tool
    name: count_lines
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines-typo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: count_lines
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn correct_a_namespace_on_another_host_from_the_class_or_the_uri() {
    // One fix resolves both diagnostics, offered at either: the class and the wrong URI.
    let after = r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: "https://eoap.github.io/cwl-mcp-extension#"
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#;
    for before in [
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: "https://github.com/eoap/cwl-mcp-extension#"
hints:
  - class: mcp:To$0ol
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: "https://github.com/eoap/cwl-mc$0p-extension#"
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    ] {
        check_fix(Extension, before, after);
    }
}

#[test]
fn correct_a_one_letter_typo_in_a_flow_namespace_map() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces: {mcp: https://eoap.github.io/mcp-ext$0ension#}
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces: {mcp: https://eoap.github.io/cwl-mcp-extension#}
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn correct_a_full_uri_class() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: http://eoap.github.io/cwl-mcp-extension#T$0ool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: https://eoap.github.io/cwl-mcp-extension#Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- hint-bare-class -----------------------------------------------------------------------

#[test]
fn prefix_a_bare_class_with_the_bound_prefix() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: To$0ol
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn prefix_a_bare_class_and_bind_the_prefix() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  Tool$0:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_bare_tool_annotations_hint_has_no_fix() {
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: ToolAnno$0tations
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- hint-in-requirements ------------------------------------------------------------------

#[test]
fn move_the_only_requirement_to_new_hints() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  mcp:$0Tool:
    name: echo_region
    annotations:
      readOnlyHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo_region
    annotations:
      readOnlyHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn move_one_of_several_requirements_to_existing_list_hints() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  - class: InlineJavascriptRequirement
  - class: mcp:Tool$0
    name: echo_region
hints:
  - class: DockerRequirement
    dockerPull: alpine:3
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  - class: InlineJavascriptRequirement
hints:
  - class: DockerRequirement
    dockerPull: alpine:3
  - class: mcp:Tool
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn move_a_list_item_to_map_form_hints() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  - class: $0mcp:Tool
    name: echo_region
  - class: InlineJavascriptRequirement
hints:
  DockerRequirement:
    dockerPull: alpine:3
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  - class: InlineJavascriptRequirement
hints:
  DockerRequirement:
    dockerPull: alpine:3
  mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn move_to_hints_and_bind_the_prefix() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
requirements:
  mcp:Tool$0:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn move_to_hints_and_correct_the_prefix() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: http://eoap.github.io/cwl-mcp-extension#
requirements:
  mcp:Tool$0:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- missing-field -------------------------------------------------------------------------

#[test]
fn add_the_fields_cwl2mcp_requires() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:T$0ool:
    title: Echo Region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    title: Echo Region
    name: echo_region
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
      readOnlyHint: false
      destructiveHint: true
      idempotentHint: false
      openWorldHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn add_the_required_annotations() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations$0:
      readOnlyHint: true
      idempotentHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations:
      readOnlyHint: true
      idempotentHint: true
      destructiveHint: false
      openWorldHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- name-invalid --------------------------------------------------------------------------

#[test]
fn normalize_an_invalid_name() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: "count $0lines"
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: "count_lines"
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn name_the_tool_when_the_fallback_is_invalid() {
    // Without an id, cwl2mcp names the Tool by the file URI, which breaks the name rules.
    // The same edit as "Add the required fields: name" (missing-field): one fix for both.
    check_fix_titled(
        Cwl2mcp,
        "Add the required fields: name",
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:To$0ol:
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    name: tool
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_uri_id_becomes_a_plain_id_under_cwl2mcp() {
    // cwl2mcp 0.1.0 cannot load a document whose process id is a URI, whatever the hint's
    // `name` (reference case 49): the fix is the id's local part.
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: https://example.org/tools#e$0cho
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn rename_the_annotations_class_for_cwl2mcp() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
      class: mcp:ToolAnnot$0ations
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
      class: mcp:Annotations
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn rename_an_unknown_annotations_class() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    annotations:
      class: 'Hin$0ts'
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    annotations:
      class: 'Annotations'
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- annotation-default --------------------------------------------------------------------

#[test]
fn make_the_left_out_defaults_explicit() {
    // `destructiveHint` of a read-only tool is written `false`: MCP ignores it there, and
    // `true` would be `annotation-ignored`.
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    annota$0tions:
      readOnlyHint: true
      idempotentHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    annotations:
      readOnlyHint: true
      idempotentHint: true
      destructiveHint: false
      openWorldHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn make_every_default_explicit_in_a_hint_without_annotations() {
    check_fix_titled(
        Extension,
        "Make the MCP defaults explicit",
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool$0
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    annotations:
      readOnlyHint: false
      destructiveHint: true
      idempotentHint: false
      openWorldHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- invalid-type --------------------------------------------------------------------------

#[test]
fn write_a_yaml11_boolean_as_a_boolean() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: count-lines
hints:
  - class: mcp:Tool
    name: count_lines
    annotations:
      readOnlyHint: Y$0es
      destructiveHint: false
      idempotentHint: true
      openWorldHint: off
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: count-lines
hints:
  - class: mcp:Tool
    name: count_lines
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: off
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn other_wrong_types_have_no_fix() {
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: count-lines
hints:
  - class: mcp:Tool
    name: count_lines
    annotations:
      readOnlyHint: "tr$0ue"
      destructiveHint: false
      idempotentHint: true
      openWorldHint: true
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#,
    );
}

// ---- the document's own style --------------------------------------------------------------

#[test]
fn fixes_keep_crlf_line_breaks() {
    let before = "cwlVersion: v1.2\r\nclass: CommandLineTool\r\nid: echo-region\r\n$namespaces:\r\n  mcp: https://eoap.github.io/cwl-mcp-extension#\r\nhints:\r\n  mcp:Tool:\r\n    name: echo_region\r\n    annotations$0:\r\n      readOnlyHint: false\r\nbaseCommand: echo\r\ninputs: {}\r\noutputs: {}\r\n";
    let after = "cwlVersion: v1.2\r\nclass: CommandLineTool\r\nid: echo-region\r\n$namespaces:\r\n  mcp: https://eoap.github.io/cwl-mcp-extension#\r\nhints:\r\n  mcp:Tool:\r\n    name: echo_region\r\n    annotations:\r\n      readOnlyHint: false\r\n      destructiveHint: true\r\n      idempotentHint: false\r\n      openWorldHint: true\r\nbaseCommand: echo\r\ninputs: {}\r\noutputs: {}\r\n";
    check_fix(Extension, before, after);
}

#[test]
fn bind_the_prefix_in_json_form_cwl() {
    check_fix_titled(
        Extension,
        "Bind",
        r#"
{
  "cwlVersion": "v1.2",
  "class": "CommandLineTool",
  "id": "echo-region",
  "$namespaces": {"s": "https://schema.org/"},
  "hints": [{"class": "mcp:T$0ool", "name": "echo_region"}],
  "baseCommand": "echo",
  "inputs": {},
  "outputs": {}
}
"#,
        r#"
{
  "cwlVersion": "v1.2",
  "class": "CommandLineTool",
  "id": "echo-region",
  "$namespaces": {"s": "https://schema.org/", "mcp": "https://eoap.github.io/cwl-mcp-extension#"},
  "hints": [{"class": "mcp:Tool", "name": "echo_region"}],
  "baseCommand": "echo",
  "inputs": {},
  "outputs": {}
}
"#,
    );
}

#[test]
fn annotation_ignored_becomes_false() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    annotations:
      readOnlyHint: true
      destructiveHint: tr$0ue
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn annotation_inconsistent_follows_what_the_process_declares() {
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: fetch
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  NetworkAccess:
    networkAccess: true
hints:
  mcp:Tool:
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: fal$0se
baseCommand: curl
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: fetch
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  NetworkAccess:
    networkAccess: true
hints:
  mcp:Tool:
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: true
baseCommand: curl
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn add_what_cwl2mcp_requires() {
    check_fix_titled(
        Extension,
        "Add what cwl2mcp requires",
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:To$0ol:
    useWhen: a region must be echoed
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    useWhen: a region must be echoed
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
    name: echo_region
    aliases: []
    doNotUseWhen: ""
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- hint-on-step --------------------------------------------------------------------------

/// After a `hint-on-step` fix: no `hint-on-step` is left, and the process the step runs (at
/// `key`) derives its Tool from the moved hint.
#[track_caller]
fn check_moved(after: &str, key: &str, name: &str, read_only: bool) {
    use crate::base::Code;
    use crate::model::Model;
    use crate::model::fixture::{context, settings};
    let text = after.strip_prefix('\n').unwrap_or(after);
    let model = Model::of_text(text, settings(Extension), context());
    assert!(
        model
            .diagnostics()
            .iter()
            .all(|d| d.code != Code::HintOnStep),
        "{:?}",
        model.diagnostics()
    );
    let entry = model.entries().find(|e| e.key == key).unwrap_or_else(|| {
        let keys: Vec<&str> = model.entries().map(|e| e.key.as_str()).collect();
        panic!("no process `{key}` in {keys:?}")
    });
    assert!(entry.hinted, "`{key}` carries the hint");
    let tool = model.current_tool(entry).expect("a Tool");
    assert_eq!(tool["name"], name);
    assert_eq!(tool["annotations"]["readOnlyHint"], read_only);
    assert!(model.served().iter().any(|e| e.key == key));
}

#[test]
fn move_a_map_form_step_hint_into_an_inline_process_without_hints() {
    let after = r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  inner:
    run:
      class: CommandLineTool
      hints:
        mcp:Tool:
          name: inner_tool
          description: >-
            Counts the lines
            of a file.
          annotations:
            readOnlyHint: true
      baseCommand: wc
      inputs: {}
      outputs: []
    in: {}
    out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  inner:
    hints:
      mcp:T$0ool:
        name: inner_tool
        description: >-
          Counts the lines
          of a file.
        annotations:
          readOnlyHint: true
    run:
      class: CommandLineTool
      baseCommand: wc
      inputs: {}
      outputs: []
    in: {}
    out: []
"#,
        after,
    );
    check_moved(after, "wf/inner/run", "inner_tool", true);
}

#[test]
fn move_a_list_form_step_hint_into_existing_list_hints_keeping_the_steps_other_hints() {
    let after = r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  - id: count
    hints:
      - class: ResourceRequirement
        coresMin: 1
    run:
        class: CommandLineTool
        id: count
        hints:
          - class: DockerRequirement
            dockerPull: alpine:3
          - class: mcp:Tool
            name: count_lines
            annotations:
              readOnlyHint: false
        inputs: {}
        outputs: []
    in: {}
    out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  - id: count
    hints:
      - class: mcp:Tool$0
        name: count_lines
        annotations:
          readOnlyHint: false
      - class: ResourceRequirement
        coresMin: 1
    run:
        class: CommandLineTool
        id: count
        hints:
          - class: DockerRequirement
            dockerPull: alpine:3
        inputs: {}
        outputs: []
    in: {}
    out: []
"#,
        after,
    );
    check_moved(after, "wf/count/run/count", "count_lines", false);
}

#[test]
fn move_a_step_hint_into_existing_map_hints_after_the_steps_run() {
    // The step's `hints` after `run:`, the list item rendered in map form; the step keeps
    // its other hint.
    let after = r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  crop:
    run:
      class: CommandLineTool
      hints:
        DockerRequirement:
          dockerPull: alpine:3
        mcp:Tool:
          name: crop
          annotations:
            readOnlyHint: true
      inputs: {}
      outputs: []
    hints:
    - class: ResourceRequirement
      coresMin: 1
    in: {}
    out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  crop:
    run:
      class: CommandLineTool
      hints:
        DockerRequirement:
          dockerPull: alpine:3
      inputs: {}
      outputs: []
    hints:
    - class: ResourceRequirement
      coresMin: 1
    - class: $0mcp:Tool
      name: crop
      annotations:
        readOnlyHint: true
    in: {}
    out: []
"#,
        after,
    );
    check_moved(after, "wf/crop/run", "crop", true);
}

#[test]
fn move_a_map_form_step_hint_into_list_hints_and_under_an_empty_hints_key() {
    // Map form in, list form out (the process's `hints` decides); the step keeps its other
    // map-form hint.
    let after = r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    hints:
      ResourceRequirement:
        coresMin: 1
    run:
      class: ExpressionTool
      hints:
      - class: InlineJavascriptRequirement
      - class: mcp:Tool
        name: step_a
        annotations: {readOnlyHint: true}
      expression: ${return {};}
      inputs: {}
      outputs: {}
    in: {}
    out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    hints:
      ResourceRequirement:
        coresMin: 1
      mcp:Tool$0:
        name: step_a
        annotations: {readOnlyHint: true}
    run:
      class: ExpressionTool
      hints:
      - class: InlineJavascriptRequirement
      expression: ${return {};}
      inputs: {}
      outputs: {}
    in: {}
    out: []
"#,
        after,
    );
    check_moved(after, "wf/a/run", "step_a", true);
    // `hints:` with nothing under it: the entry goes below it, in its own form.
    let after = r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    run:
      class: CommandLineTool
      hints:
        mcp:Tool:
          name: step_a
      inputs: {}
      outputs: []
    in: {}
    out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    run:
      class: CommandLineTool
      hints:
      inputs: {}
      outputs: []
    hints:
      $0mcp:Tool:
        name: step_a
    in: {}
    out: []
"#,
        after,
    );
}

#[test]
fn move_a_step_hint_into_the_graph_process_the_step_runs() {
    // `run: '#crop'` names a process of this document: the hint goes there; the document's
    // `$namespaces` binds its prefix there too.
    let after = r#"
cwlVersion: v1.2
$namespaces:
  ext: https://eoap.github.io/cwl-mcp-extension#
$graph:
- class: CommandLineTool
  hints:
  - class: ext:Tool
    name: crop_image
    annotations:
      readOnlyHint: true
  id: crop
  inputs: {}
  outputs: {}
- class: Workflow
  id: main
  inputs: {}
  outputs: {}
  steps:
    crop:
      run: '#crop'
      in: {}
      out: []
"#;
    check_fix(
        Extension,
        r#"
cwlVersion: v1.2
$namespaces:
  ext: https://eoap.github.io/cwl-mcp-extension#
$graph:
- class: CommandLineTool
  id: crop
  inputs: {}
  outputs: {}
- class: Workflow
  id: main
  inputs: {}
  outputs: {}
  steps:
    crop:
      run: '#crop'
      hints:
      - class: ext:$0Tool
        name: crop_image
        annotations:
          readOnlyHint: true
      in: {}
      out: []
"#,
        after,
    );
    check_moved(after, "crop", "crop_image", true);
}

#[test]
fn no_move_into_a_run_file_or_a_process_with_its_own_hint() {
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    run: tools/a.cwl
    hints:
      mcp:T$0ool:
        name: step_a
    in: {}
    out: []
"#,
    );
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    run:
      class: CommandLineTool
      hints:
        mcp:Tool:
          name: inner
      inputs: {}
      outputs: []
    hints:
      mcp:T$0ool:
        name: step_a
    in: {}
    out: []
"#,
    );
    // Flow-form `hints`, and a `hints` that shares its line with the step's `-`: no fix.
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  a:
    hints: [{class: mcp:T$0ool, name: step_a}]
    run:
      class: CommandLineTool
      inputs: {}
      outputs: []
    in: {}
    out: []
"#,
    );
    check_no_fix(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
inputs: {}
outputs: {}
steps:
  - hints:
      mcp:T$0ool:
        name: step_a
    id: a
    run:
      class: CommandLineTool
      inputs: {}
      outputs: []
    in: {}
    out: []
"#,
    );
}
