//! The hint rules of [`super`] (SPEC §3, §5), each shown on a CWL document with its expected
//! diagnostics annotated inline (see `crate::model::fixture` for the syntax).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::check_diagnostics;

// ---- namespace-unbound, namespace-mismatch, hint-bare-class --------------------------------

#[test]
fn an_unbound_prefix_ignores_the_hint() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: mcp:Tool
#          ^^^^^^^^ warning[namespace-unbound]: `mcp:Tool`: the prefix `mcp` is not bound in `$namespaces`,
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn an_unbound_prefix_in_map_form_under_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  s: https://schema.org/
hints:
  mcp:Tool:
# ^^^^^^^^ warning[namespace-unbound]: `mcp:Tool`: the prefix `mcp` is not bound in `$namespaces`,
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_near_miss_namespace_is_reported_on_the_class() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines-typo
label: Count lines
doc: Counts the lines of a text file.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension
#      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[namespace-mismatch]: resembles the MCP extension's namespace `https://eoap.github.io/cwl-mcp-extension#` but is not it: the classes written with `mcp:` (line 9) are ignored
hints:
  - class: mcp:Tool
#          ^^^^^^^^ warning[namespace-mismatch]: `mcp:Tool`: the prefix `mcp` is bound to
    name: count_lines
baseCommand: [wc, -l]
inputs:
  text:
    type: File
    inputBinding: {position: 1}
outputs:
  count:
    type: stdout
"#,
    );
}

/// The fixture of one namespace binding `mcp: URI` used by an `mcp:Tool` hint, with both
/// `namespace-mismatch` diagnostics annotated (on the URI and on the class).
fn near_miss_fixture(uri: &str) -> String {
    format!(
        "
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: {uri}
#      {carets} warning[namespace-mismatch]: `{uri}` resembles the MCP extension's namespace
hints:
  - class: mcp:Tool
#          ^^^^^^^^ warning[namespace-mismatch]: the prefix `mcp` is bound to `{uri}`, which resembles
    name: echo_region
baseCommand: echo
inputs: {{}}
outputs: {{}}
",
        carets = "^".repeat(uri.chars().count())
    )
}

#[test]
fn hidden_near_misses_of_the_namespace_are_reported() {
    // Issue 13: each of these was silently ignored (the hint did nothing, `check` exited 0).
    for uri in [
        "https://github.com/eoap/cwl-mcp-extension#",
        "https://eoap.github.io/cwl-mcp#",
        "https://eoap.github.io/mcp-extension#",
        "https://github.com/eoap/cwl-mcp#",
        "https://eoap.github.io/cwl-mcp-extensions#",
        "https://eoap.github.io/cwl-mcp-extensio#",
        "https://eoap.githib.io/cwl-mcp-extension#",
        "https://eoap.github.io/cwl_mcp_extension#",
        "https://example.org/vocab/cwl-mcp-extension#",
        "https://EOAP.github.io/cwl-mcp-extension/",
        "http://eoap.github.io/cwl-mcp-extension#",
    ] {
        for profile in [Extension, Cwl2mcp] {
            check_diagnostics(profile, &near_miss_fixture(uri));
        }
    }
}

#[test]
fn unrelated_namespaces_are_not_near_misses() {
    // `s:Tool` is some other vocabulary's class: not the extension's, not a near miss, so the
    // document has no MCP hint and gets nothing (SPEC §5).
    for uri in [
        "https://schema.org/",
        "http://edamontology.org/",
        "https://w3id.org/cwl/cwl#",
        "http://commonwl.org/cwltool#",
        "https://eoap.github.io/schemas/string_format.yaml#",
    ] {
        check_diagnostics(
            Extension,
            &format!(
                "
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  s: {uri}
hints:
  - class: s:Tool
    name: echo_region
baseCommand: echo
inputs: {{}}
outputs: {{}}
"
            ),
        );
    }
}

#[test]
fn a_near_miss_binding_used_twice_is_reported_once_on_the_uri() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
$namespaces:
  mcp: "https://github.com/eoap/cwl-mcp-extension#"
#      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[namespace-mismatch]: the classes written with `mcp:` (line 8, 14) are ignored
$graph:
  - class: CommandLineTool
    id: a
    hints:
      - class: mcp:Tool
#              ^^^^^^^^ warning[namespace-mismatch]: `mcp:Tool`: the prefix `mcp` is bound to
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: b
    hints:
      mcp:ToolAnnotations: {}
#     ^^^^^^^^^^^^^^^^^^^ warning[namespace-mismatch]: `mcp:ToolAnnotations`: the prefix `mcp` is bound to
    inputs: {}
    outputs: {}
"#,
    );
}

#[test]
fn a_near_miss_full_uri_class() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  - class: http://eoap.github.io/cwl-mcp-extension#Tool
#          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[namespace-mismatch]: `http://eoap.github.io/cwl-mcp-extension#Tool`:
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_bare_tool_class_is_not_the_extension() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: Tool
#          ^^^^ warning[hint-bare-class]: bare `Tool` is not the MCP extension's class and is
    name: echo_region
  - class: ToolAnnotations
#          ^^^^^^^^^^^^^^^ warning[hint-bare-class]: bare `ToolAnnotations` is not the MCP extension's class and
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_bare_class_in_map_form_under_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
hints:
  Tool:
# ^^^^ warning[hint-bare-class]: bare `Tool` is not the MCP extension's class and is
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- hint-in-requirements, hint-duplicate --------------------------------------------------

#[test]
fn a_hint_under_requirements_in_list_form() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
requirements:
  - class: InlineJavascriptRequirement
  - class: mcp:Tool
#          ^^^^^^^^ error[hint-in-requirements]: `mcp:Tool` is under `requirements`: cwltool rejects a
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_hint_under_requirements_in_map_form_under_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
label: Echo region identifier
doc: Returns the region identifier provided by the caller.
requirements:
  mcp:Tool:
# ^^^^^^^^ error[hint-in-requirements]: `mcp:Tool` is under `requirements`: cwltool rejects a
    name: echo_region
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations:
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs:
  region:
    type: string
outputs: {}
"#,
    );
}

#[test]
fn an_unbound_tool_under_requirements_is_still_misplaced() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
requirements:
  mcp:Tool:
# ^^^^^^^^ error[hint-in-requirements]: `mcp:Tool` is under `requirements`: cwltool rejects a
    name: echo_region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_second_hint_is_ignored() {
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: first
    aliases: []
    useWhen: a
    doNotUseWhen: b
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
  - class: mcp:Tool
#          ^^^^^^^^ warning[hint-duplicate]: a second MCP Tool hint in the same process; only the first
    name: second
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_second_hint_under_the_extension_profile() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: first
  - class: https://eoap.github.io/cwl-mcp-extension#Tool
#          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[hint-duplicate]: a second MCP Tool hint in the same process; only the first
    name: second
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- unknown-field -------------------------------------------------------------------------

#[test]
fn an_unknown_field_under_the_extension_profile() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
  s: https://schema.org/
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    foo: bar
#   ^^^ error[unknown-field]: invalid field `foo` in Tool, expected one of: `class`
    s:keywords: [echo]
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn description_and_annotation_titles_are_unknown_to_cwl2mcp() {
    check_diagnostics(
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
    description: Echoes the region.
#   ^^^^^^^^^^^ error[unknown-field]: invalid field `description` in Tool (`description` is not
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations:
      title: Echo
#     ^^^^^ error[unknown-field]: invalid field `title` in annotations (`title` is not
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
      foo: 1
#     ^^^ error[unknown-field]: invalid field `foo` in annotations, expected one of
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn description_and_annotation_titles_are_allowed_by_the_extension() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    description: Echoes the region.
#   ^^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 rejects the field `description` (it builds
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations:
      title: Echo
#     ^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 rejects `annotations.title`
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

// ---- missing-field -------------------------------------------------------------------------

#[test]
fn cwl2mcp_requires_its_fields() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
label: Echo region identifier
hints:
  mcp:Tool:
# ^^^^^^^^ error[missing-field]: missing required field `aliases` (required by the cwl2mcp
# ^^^^^^^^ error[missing-field]: missing required field `annotations` (required by the
# ^^^^^^^^ error[missing-field]: missing required field `doNotUseWhen` (required by the
# ^^^^^^^^ error[missing-field]: missing required field `name` (required by the cwl2mcp
# ^^^^^^^^ error[missing-field]: missing required field `useWhen` (required by the cwl2mcp
    title: Echo Region
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn cwl2mcp_requires_every_annotation() {
    check_diagnostics(
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
    annotations:
#   ^^^^^^^^^^^ error[missing-field]: `annotations` is missing the required field `openWorldHint`
#   ^^^^^^^^^^^ error[missing-field]: `annotations` is missing the required field `readOnlyHint`
      destructiveHint: false
      idempotentHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn an_empty_hint_under_the_extension_profile_asks_nothing() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
# ^^^^^^^^ hint[annotation-default]: `destructiveHint` is left out: MCP clients assume `true`
# ^^^^^^^^ hint[annotation-default]: `idempotentHint` is left out: MCP clients assume `false`
# ^^^^^^^^ hint[annotation-default]: `openWorldHint` is left out: MCP clients assume `true` (the
# ^^^^^^^^ hint[annotation-default]: `readOnlyHint` is left out: MCP clients assume `false` (the
# ^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 would reject this hint: it requires `name`
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- invalid-type --------------------------------------------------------------------------

#[test]
fn yaml11_booleans_are_strings() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    annotations:
      readOnlyHint: yes
#                   ^^^ error[invalid-type]: `readOnlyHint` must be a boolean, found the string `yes`
      destructiveHint: "false"
#                      ^^^^^^^ error[invalid-type]: `destructiveHint` must be a boolean, found the string
      idempotentHint: 1
#                     ^ error[invalid-type]: `idempotentHint` must be a boolean, found the integer `1`
      openWorldHint:
#     ^^^^^^^^^^^^^ error[invalid-type]: `openWorldHint` must be a boolean, found null (an empty
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn wrong_field_types_under_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: 42
#         ^^ error[invalid-type]: `name` must be a string, found the integer `42`
    title: 123
#          ^^^ error[invalid-type]: `title` must be a string, found the integer `123`
    aliases: echo
#            ^^^^ error[invalid-type]: `aliases` must be a list of strings, found the string `echo`
    useWhen: [the user, wants it]
#            ^^^^^^^^^^^^^^^^^^^^ error[invalid-type]: `useWhen` must be a string, found a list
    doNotUseWhen: anything else.
    annotations: read-only
#                ^^^^^^^^^ error[invalid-type]: `annotations` must be a mapping, found the string
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn each_alias_must_be_a_string() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    aliases: [echo, 7, region]
#                   ^ error[invalid-type]: each of `aliases` must be a string, found the integer `7`
    title:
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_null_name_is_a_wrong_type() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: null
#         ^^^^ error[invalid-type]: `name` must be a string, found null (an empty value)
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn the_hint_must_be_a_mapping() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool: [echo_region]
#           ^^^^^^^^^^^^^ error[invalid-type]: the MCP Tool hint must be a mapping of its fields
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- annotations-class ---------------------------------------------------------------------

#[test]
fn cwl2mcp_accepts_only_the_annotations_class() {
    check_diagnostics(
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
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
    annotations:
      class: mcp:ToolAnnotations
#            ^^^^^^^^^^^^^^^^^^^ error[annotations-class]: `annotations.class: mcp:ToolAnnotations` is not allowed by
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
fn annotations_classes_under_the_extension_profile() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: Workflow
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: main
hints:
  - class: mcp:Tool
    name: main
    aliases: []
    useWhen: always
    doNotUseWhen: never
    annotations:
      class: ToolAnnotations
#            ^^^^^^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 names this record `Annotations` and rejects
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
inputs: {}
outputs: {}
steps:
  echo:
    run:
      class: CommandLineTool
      hints:
        mcp:Tool:
          name: echo
          aliases: []
          useWhen: always
          doNotUseWhen: never
          annotations:
            class: Other
#                  ^^^^^ error[annotations-class]: `annotations.class: Other` is not allowed by the extension
            readOnlyHint: true
            destructiveHint: false
            idempotentHint: true
            openWorldHint: false
      baseCommand: echo
      inputs: {}
      outputs: {}
    in: {}
    out: []
"#,
    );
}

#[test]
fn the_annotations_class_by_prefix_or_uri_is_accepted() {
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: echo_region
    aliases: [echo, region]
    useWhen: the user wants the region echoed.
    doNotUseWhen: anything else.
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

// ---- name-invalid --------------------------------------------------------------------------

#[test]
fn an_explicit_name_with_a_space() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
label: Count lines
doc: Counts the lines of a text file.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: count lines
#         ^^^^^^^^^^^ error[name-invalid]: the MCP tool name `count lines` (from `name` of the hint)
baseCommand: [wc, -l]
inputs:
  text:
    type: File
    inputBinding: {position: 1}
outputs:
  count:
    type: stdout
"#,
    );
}

#[test]
fn names_break_the_mcp_rules_in_many_ways() {
    // One `$graph` document, one process per way a name can be wrong; the carets under the
    // non-ASCII name count characters.
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore agent-context, name-client-compat
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: colon
    hints:
      mcp:Tool:
        name: ns:tool
#             ^^^^^^^ error[name-invalid]: the MCP tool name `ns:tool` (from `name` of the hint) contains
        aliases: []
        useWhen: ""
        doNotUseWhen: ""
        annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: hash
    hints:
      mcp:Tool:
        name: '#tool'
#             ^^^^^^^ error[name-invalid]: the MCP tool name `#tool` (from `name` of the hint) contains `#`
        aliases: []
        useWhen: ""
        doNotUseWhen: ""
        annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: unicode
    hints:
      mcp:Tool:
        name: échо
#             ^^^^ error[name-invalid]: the MCP tool name `échо` (from `name` of the hint) contains `é`
        aliases: []
        useWhen: ""
        doNotUseWhen: ""
        annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: long
    hints:
      mcp:Tool:
        name: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[name-invalid]: the MCP tool name `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        aliases: []
        useWhen: ""
        doNotUseWhen: ""
        annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: exactly-128
    hints:
      mcp:Tool:
        name: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
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
fn an_empty_name_falls_back_to_the_id() {
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  mcp:Tool:
    name: ""
    title: ""
    aliases: [echo, region]
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
fn without_an_id_cwl2mcp_names_the_tool_by_its_file_uri() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
#<^^^^^ error[name-invalid]: the MCP tool name `file:///fixture/tool.cwl` (from the document URI, as the process has no `id`)
label: Echo region identifier
baseCommand: echo
inputs:
  region:
    type: string
outputs: {}
"#,
    );
}

#[test]
fn a_uri_id_is_kept_whole_by_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: https://example.org/tools#echo
#   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[name-invalid]: the process id `https://example.org/tools#echo` is a URI; cwl2mcp 0.1.0 fails to load such a document
baseCommand: echo
inputs:
  region:
    type: string
    label: Region
    doc: Region identifier to echo.
outputs: {}
"#,
    );
}

#[test]
fn the_extension_profile_normalizes_the_id_and_checks_only_hinted_processes() {
    // `https://example.org/tools#echo` becomes `echo`; the document without a hint would get
    // nothing at all, the fallback of a hint without `name` is checked.
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: https://example.org/tools#echo
    hints:
      mcp:Tool: {}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: "tools/"
#       ^^^^^^^^ error[name-invalid]: the MCP tool name `` (from the normalized process id)
    hints:
      mcp:Tool: {}
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    baseCommand: echo
    inputs: {}
    outputs: {}
"#,
    );
}

#[test]
fn a_document_without_hints_gets_nothing_under_the_extension_profile() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: https://example.org/tools#echo with spaces
doc:
  - First.
  - Second.
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- doc-not-string ------------------------------------------------------------------------

#[test]
fn a_list_valued_doc_fails_cwl2mcp_even_without_a_hint() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
label: Echo region identifier
doc:
#<^^^ error[doc-not-string]: cwl2mcp 0.1.0 copies `doc` into the Tool description
  - First.
  - Second.
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_list_valued_doc_is_joined_under_the_extension_profile() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
doc: [First., Second.]
#    ^^^^^^^^^^^^^^^^^ information[cwl2mcp-incompatible]: a list-valued `doc` is joined with blank lines here, but
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo_region
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

// ---- annotation-ignored, annotation-inconsistent -------------------------------------------

#[test]
fn a_destructive_read_only_tool() {
    for profile in [Extension, Cwl2mcp] {
        check_diagnostics(
            profile,
            r#"
# check: ignore agent-context
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
      readOnlyHint: true
      destructiveHint: true
#                      ^^^^ warning[annotation-ignored]: `destructiveHint: true` has no effect with `readOnlyHint
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs: {}
outputs: {}
"#,
        );
    }
}

#[test]
fn the_broken_hint_example() {
    // examples/broken-hint.cwl: an invalid name, a YAML 1.1 boolean, and a closed world with
    // network access.
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
label: Count lines
doc: Counts the lines of a text file.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
#          ^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 would reject this hint: it requires
    name: count lines
#         ^^^^^^^^^^^ error[name-invalid]: the MCP tool name `count lines` (from `name` of the hint)
    annotations:
#   ^^^^^^^^^^^ hint[annotation-default]: `destructiveHint` is left out: MCP clients assume `true`
#   ^^^^^^^^^^^ hint[annotation-default]: `idempotentHint` is left out: MCP clients assume `false`
#   ^^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 requires all four annotations; missing
      readOnlyHint: yes
#                   ^^^ error[invalid-type]: `readOnlyHint` must be a boolean, found the string `yes`
      openWorldHint: false
#                    ^^^^^ warning[annotation-inconsistent]: `openWorldHint: false`, but the process declares `NetworkAccess` with `networkAccess` enabled (line 16)
requirements:
  NetworkAccess:
    networkAccess: true
baseCommand: [wc, -l]
inputs:
  text:
    type: File
    inputBinding: {position: 1}
outputs:
  count:
    type: stdout
"#,
    );
}

#[test]
fn a_read_only_tool_that_writes() {
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore mcp-client-interop
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: sort-in-place
requirements:
  - class: InplaceUpdateRequirement
    inplaceUpdate: true
  - class: InitialWorkDirRequirement
    listing:
      - entry: $(inputs.data)
        writable: true
      - entry: $(inputs.config)
  - class: NetworkAccess
    networkAccess: $(inputs.online)
hints:
  - class: mcp:Tool
    name: sort_in_place
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
      readOnlyHint: true
#                   ^^^^ warning[annotation-inconsistent]: `readOnlyHint: true`, but the process declares `InplaceUpdateRequirement` with `inplaceUpdate: true` (line 8)
#                   ^^^^ warning[annotation-inconsistent]: `readOnlyHint: true`, but the process declares an `InitialWorkDirRequirement` entry with `writable: true` (line 12)
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
#                    ^^^^^ warning[annotation-inconsistent]: `openWorldHint: false`, but the process declares `NetworkAccess` with `networkAccess` enabled (line 15)
baseCommand: sort
inputs:
  data: File
  config: File
  online: boolean
outputs: {}
"#,
    );
}

#[test]
fn consistent_annotations_get_nothing() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: fetch
requirements:
  NetworkAccess:
    networkAccess: true
  InitialWorkDirRequirement:
    listing:
      - entry: $(inputs.config)
        writable: false
hints:
  mcp:Tool:
    name: fetch
    aliases: [download]
    useWhen: the user asks for a remote file.
    doNotUseWhen: the file is local.
    annotations:
      readOnlyHint: false
      destructiveHint: true
      idempotentHint: true
      openWorldHint: true
baseCommand: curl
inputs:
  config: File
outputs: {}
"#,
    );
}

// ---- annotation-default, cwl2mcp-incompatible ----------------------------------------------

#[test]
fn left_out_annotations_state_their_defaults() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  - class: mcp:Tool
    name: echo_region
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
#   ^^^^^^^^^^^ hint[annotation-default]: `destructiveHint` is left out: MCP clients assume `true`
#   ^^^^^^^^^^^ hint[annotation-default]: `openWorldHint` is left out: MCP clients assume `true` (the
#   ^^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 requires all four annotations; missing
      readOnlyHint: true
      idempotentHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn cwl2mcp_does_not_state_defaults_it_requires() {
    // The same document under cwl2mcp: the left-out annotations are errors, not hints.
    check_diagnostics(
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
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations:
#   ^^^^^^^^^^^ error[missing-field]: `annotations` is missing the required field `destructiveHint`
#   ^^^^^^^^^^^ error[missing-field]: `annotations` is missing the required field `openWorldHint`
      readOnlyHint: true
      idempotentHint: true
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_minimal_extension_hint_is_incompatible_with_cwl2mcp() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
$namespaces:
  agent: https://eoap.github.io/cwl-mcp-extension#
id: echo-region
hints:
  agent:Tool:
# ^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 would reject this hint: it requires
    name: echo_region
    description: Echoes the region it is given.
#   ^^^^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 rejects the field `description` (it builds
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

// ---- yaml-syntax ---------------------------------------------------------------------------

#[test]
fn broken_yaml_is_reported_where_it_breaks() {
    for profile in [Extension, Cwl2mcp] {
        check_diagnostics(
            profile,
            r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
label: [unclosed
#      ^^^^^^^^^ error[yaml-syntax]: YAML syntax error: while parsing a flow sequence: did not
baseCommand: echo
inputs: {}
outputs: {}
"#,
        );
    }
}

#[test]
fn duplicate_keys_are_syntax_errors() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
id: echo-again
#<^^ error[yaml-syntax]: found duplicate key "id"
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_second_document_is_a_syntax_error() {
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo-region
baseCommand: echo
inputs: {}
outputs: {}
---
#<^^^… error[yaml-syntax]: expected a single document in the stream but found another
cwlVersion: v1.2
class: CommandLineTool
"#,
    );
}

#[test]
fn a_multi_line_quoted_expression_is_not_a_syntax_error() {
    // SPEC §2: ruamel.yaml and libyaml accept continuation lines at the key's column.
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: star-fusion
requirements:
  InlineJavascriptRequirement: {}
arguments:
  - valueFrom: '${
    return inputs.threads;
  }'
baseCommand: STAR-Fusion
inputs:
  threads: int
outputs: {}
"#,
    );
}
