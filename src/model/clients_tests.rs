//! The client rules of [`super`] (SPEC §5, issue 13) on CWL documents with their expected
//! diagnostics annotated inline (see `crate::model::fixture` for the syntax).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::check_diagnostics;
use crate::model::fixture::{check_fix, check_fix_titled, check_workspace_diagnostics};

// ---- mcp-client-interop ----------------------------------------------------------------------

#[test]
fn the_cwl2mcp_shape_of_files_breaks_clients() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: stage
doc: Stages a product.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: stage
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true}
baseCommand: stage
inputs:
  item:
# ^^^^ information[mcp-client-interop]: the input `item` (CWL type `File`): its schema in the derived `inputSchema` has `$ref` `https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json`, neither local (`#…`) nor bundled
    type: File
    label: Item
  where:
# ^^^^^ information[mcp-client-interop]: `https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json`, `https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json`, neither local
    type: Directory
    label: Where
  count:
    type: int?
    label: Count
  $ref:
    type: string
    label: A field named like the keyword
outputs:
  staged:
# ^^^^^^ information[mcp-client-interop]: the output `staged` (CWL type `File?`): its schema in the derived `outputSchema` has `$ref` `https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json`, neither local (`#…`) nor bundled in the schema: the MCP TypeScript SDK's `Client.listTools()` throws ("can't resolve reference
# ^^^^^^ information[mcp-client-interop]: has `nullable` but no `type`: the MCP TypeScript SDK's `Client.listTools()` throws
    type: File?
"#,
    );
}

/// The document of [`the_cwl2mcp_shape_of_files_breaks_clients`] without annotations.
const STAGE: &str = r#"
cwlVersion: v1.2
class: CommandLineTool
id: stage
doc: Stages a product.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: stage
    useWhen: a product must be staged
    doNotUseWhen: it is staged already
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true}
baseCommand: stage
inputs:
  item: {type: File, label: Item}
  where: {type: Directory, label: Where}
  choice: {type: ["null", string, int], label: Choice}
  anything: {type: Any?, label: Anything}
outputs:
  staged:
    type: File?
"#;

#[test]
fn the_extension_profile_derives_none_of_these_constructs() {
    check_diagnostics(
        Extension,
        &format!("# check: ignore cwl2mcp-incompatible\n{STAGE}"),
    );
}

#[test]
fn a_union_and_any_leave_nullable_untyped_under_cwl2mcp() {
    let text = STAGE.replace(
        "    useWhen: a product must be staged\n    doNotUseWhen: it is staged already\n",
        "    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n",
    );
    let model = crate::model::Model::of_text(
        &text,
        crate::model::fixture::settings(Cwl2mcp),
        crate::model::fixture::context(),
    );
    let found: Vec<(String, &str)> = model
        .diagnostics()
        .iter()
        .filter(|d| d.code == crate::base::Code::McpClientInterop)
        .map(|d| {
            assert_eq!(d.severity, crate::base::Severity::Information);
            let kind = if d.message.contains("`nullable` but no `type`") {
                "nullable"
            } else {
                "ref"
            };
            (text[d.span.clone()].to_string(), kind)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("item".to_string(), "ref"),
            ("where".to_string(), "ref"),
            ("choice".to_string(), "nullable"),
            ("anything".to_string(), "nullable"),
            ("staged".to_string(), "ref"),
            ("staged".to_string(), "nullable"),
        ]
    );
}

#[test]
fn constructs_are_read_only_at_schema_positions() {
    use super::{Construct, constructs};
    use serde_json::json;
    let tool = json!({
        "name": "t",
        "inputSchema": {
            "$id": "https://example.org/t/inputs.json",
            "type": "object",
            "properties": {
                // a property named like the keywords is no construct
                "$ref": {"type": "string"},
                "nullable": {"type": "boolean", "default": {"$ref": "https://example.org/x"}},
                "local": {"$ref": "#/$defs/L"},
                "relative": {"$ref": "inputs.json#/$defs/L"},
                "bundled": {"$ref": "https://example.org/bundled.json"},
                "remote": {"items": {"anyOf": [{"$ref": "https://example.org/remote.json#/a"}]}},
                "untyped": {"nullable": false, "oneOf": [{"type": "string"}]},
            },
            "$defs": {
                "L": {"type": "string", "enum": [{"$ref": "https://example.org/data"}]},
                "B": {"$id": "https://example.org/bundled.json", "type": "string"},
            },
        },
    });
    let found: Vec<(Option<String>, Construct)> = constructs(&tool)
        .into_iter()
        .map(|f| (f.param, f.construct))
        .collect();
    assert_eq!(
        found,
        [
            (
                Some("remote".to_string()),
                Construct::RemoteRef("https://example.org/remote.json#/a".into())
            ),
            (Some("untyped".to_string()), Construct::UntypedNullable),
        ]
    );
}

#[test]
fn a_schema_id_shared_by_two_tools_of_a_workspace() {
    // cwl2ogc names every `#main`'s schemas `…/main/inputs.yaml` and `…/main/outputs.yaml`:
    // two documents served together collide although their Tools have different names.
    let doc = |name: &str, other: &str| {
        format!(
            r#"
cwlVersion: v1.2
class: CommandLineTool
id: main
doc: Tool {name}.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: {name}
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {{readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}}
baseCommand: echo
inputs:
#<^^^^^^ information[mcp-client-interop]: the derived `inputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/inputs.yaml`, which a schema of the Tool `{other}` of `{other}.cwl` has too: served together, the MCP TypeScript SDK's client keys its validators by `$id`, so it validates the second Tool's results against the first one's schema
  text: {{type: string, label: Text}}
outputs:
#<^^^^^^^ information[mcp-client-interop]: the derived `outputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/outputs.yaml`, which a schema of the Tool `{other}` of `{other}.cwl` has too
  out: {{type: string}}
"#
        )
    };
    check_workspace_diagnostics(
        Cwl2mcp,
        &[
            ("file:///w/a.cwl", &doc("a", "b")),
            ("file:///w/b.cwl", &doc("b", "a")),
        ],
    );
    // Under the extension profile the schemas are inline, without `$id`: nothing to share.
    let plain = |name: &str| {
        doc(name, "x")
            .lines()
            .filter(|l| !l.starts_with("#<"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    check_workspace_diagnostics(
        Extension,
        &[
            (
                "file:///w/a.cwl",
                &format!(
                    "# check: ignore cwl2mcp-incompatible, agent-context\n{}",
                    plain("a")
                ),
            ),
            (
                "file:///w/b.cwl",
                &format!(
                    "# check: ignore cwl2mcp-incompatible, agent-context\n{}",
                    plain("b")
                ),
            ),
        ],
    );
}

#[test]
fn a_schema_id_shared_within_a_document() {
    check_diagnostics(
        Cwl2mcp,
        r##"
# check: ignore tool-name-duplicate
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: main
    doc: One.
    inputs: []
#   ^^^^^^ information[mcp-client-interop]: the derived `inputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/inputs.yaml`, which a schema of the process `main` in this document has too
    outputs: []
#   ^^^^^^^ information[mcp-client-interop]: the derived `outputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/outputs.yaml`
  - class: CommandLineTool
    id: "#main"
    doc: Two.
    inputs: []
#   ^^^^^^ information[mcp-client-interop]: the derived `inputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/inputs.yaml`
    outputs: []
#   ^^^^^^^ information[mcp-client-interop]: the derived `outputSchema` has the `$id` `https://eoap.github.io/cwl2ogc/main/outputs.yaml`
"##,
    );
}

// ---- name-client-compat ----------------------------------------------------------------------

#[test]
fn dotted_and_long_names_fail_function_calling_apis() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: dotted
    hints:
      mcp:Tool:
        name: tools.count_lines
#             ^^^^^^^^^^^^^^^^^ information[name-client-compat]: the MCP tool name `tools.count_lines` is valid MCP, but the function-calling APIs agents pass MCP tools to commonly require `^[a-zA-Z0-9_-]{1,64}$`, and it contains `.`
    inputs: []
    outputs: []
  - class: CommandLineTool
    id: a_process_whose_identifier_is_far_too_long_for_the_function_calling_apis
    hints:
      mcp:Tool: {}
#     ^^^^^^^^ information[name-client-compat]: and it has 72 characters
    inputs: []
    outputs: []
  - class: CommandLineTool
    id: fine
    hints:
      mcp:Tool:
        name: count-lines_2
    inputs: []
    outputs: []
"#,
    );
}

#[test]
fn a_dotted_name_under_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: main
doc: Counts lines.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: "eo.count"
#         ^^^^^^^^^^ information[name-client-compat]: `eo_count` passes
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
baseCommand: wc
inputs: []
outputs: []
"#,
    );
}

#[test]
fn fix_a_dotted_name() {
    check_fix(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: main
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: "eo.to$0ols.count"
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
inputs: []
outputs: []
"#,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: main
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: "eo_tools_count"
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
inputs: []
outputs: []
"#,
    );
}

#[test]
fn fix_a_long_fallback_name_by_naming_the_tool_in_the_hint() {
    let long = "a_process_whose_identifier_is_far_too_long_for_the_function_calling_apis";
    check_fix_titled(
        Extension,
        "Name the MCP tool",
        &format!(
            r#"
cwlVersion: v1.2
class: CommandLineTool
id: {long}
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:T$0ool:
    useWhen: always
inputs: []
outputs: []
"#
        ),
        &format!(
            r#"
cwlVersion: v1.2
class: CommandLineTool
id: {long}
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    useWhen: always
    name: {}
inputs: []
outputs: []
"#,
            &long[..64]
        ),
    );
}
