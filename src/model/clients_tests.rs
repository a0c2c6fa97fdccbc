//! The client rules of [`super`] (SPEC §5, issue 13) on CWL documents with their expected
//! diagnostics annotated inline (see `crate::model::fixture` for the syntax).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::{check_diagnostics, settings};
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

// ---- over every fixture and the corpus -------------------------------------------------------

fn cwl_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = read.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cwl_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "cwl") {
            out.push(p);
        }
    }
}

/// Issue 13 "must show": the `extension` profile's Tools have no remote `$ref`, no untyped
/// `nullable` and no `$id` (so none to repeat), over every fixture, example and corpus
/// document; under `cwl2mcp`, every Tool with such a construct gets `mcp-client-interop` on
/// the CWL input or output whose type produces it. Prints the figures.
#[test]
fn over_fixtures_and_the_corpus() {
    use super::{Construct, constructs, param_place, schema_ids};
    use crate::base::{Code, DocumentContext};
    use crate::model::Model;
    use crate::model::workspace::{Scope, served_names, shared_ids_across};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/fixtures", "examples"] {
        cwl_files(&root.join(dir), &mut files);
    }
    let fixtures = files.len();
    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        cwl_files(&corpus, &mut files);
    } else {
        eprintln!(
            "SKIPPED the corpus part: {} is not there; only the {fixtures} fixtures were checked",
            corpus.display()
        );
    }
    assert!(fixtures > 50, "too few fixtures: {fixtures}");
    let (mut tools, mut ext_tools) = (0, 0);
    let (mut with_ref, mut with_nullable, mut with_any) = (0, 0, 0);
    let mut missing = Vec::new();
    let mut served = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let context = DocumentContext::from_path(file)
            .within(Some(file.parent().unwrap_or(root).to_path_buf()));
        let ext = Model::of_text(&text, settings(Extension), context.clone());
        for entry in ext.entries() {
            let Some(tool) = entry.tool() else {
                continue;
            };
            ext_tools += 1;
            assert_eq!(constructs(tool), [], "{}: {}", file.display(), entry.key);
            assert_eq!(schema_ids(tool), [], "{}: {}", file.display(), entry.key);
        }
        let model = Model::of_text(&text, settings(Cwl2mcp), context);
        let view = model.view();
        for entry in model.diagnosed() {
            let Some(tool) = entry.tool().filter(|_| !entry.is_refused()) else {
                continue;
            };
            tools += 1;
            let found = constructs(tool);
            let has = |ref_kind: bool| {
                found
                    .iter()
                    .any(|f| matches!(f.construct, Construct::RemoteRef(_)) == ref_kind)
            };
            with_ref += usize::from(has(true));
            with_nullable += usize::from(has(false));
            with_any += usize::from(!found.is_empty());
            let process = &view.processes[entry.process_index];
            for f in &found {
                let section = if f.schema == "inputSchema" {
                    "inputs"
                } else {
                    "outputs"
                };
                let (span, _) =
                    param_place(&model, process, section, f.param.as_deref(), &entry.anchor);
                let reported = model.diagnostics().iter().any(|d| {
                    d.code == Code::McpClientInterop
                        && d.span == span
                        && d.severity == crate::base::Severity::Information
                });
                if !reported {
                    missing.push(format!("{}: {} {:?}", file.display(), entry.key, f));
                }
            }
        }
        served.push((
            file.display().to_string(),
            served_names(&model, Scope::Diagnosed),
        ));
    }
    let shared: usize = (0..served.len())
        .map(|i| shared_ids_across(i, &served).len())
        .sum();
    eprintln!(
        "{} files; extension: {ext_tools} Tools, no construct; cwl2mcp: {tools} exported Tools, \
         {with_any} with a construct ({with_ref} a remote `$ref`, {with_nullable} an untyped \
         `nullable`), {shared} schemas whose `$id` another file's Tool shares",
        files.len()
    );
    assert!(missing.is_empty(), "not reported:\n{}", missing.join("\n"));
}

/// What a user can bring into the `extension` derivation: a `SchemaDefRequirement` `$import`
/// of a file that carries JSON Schema keywords (`$ref` to a remote schema, `nullable`, `$id`),
/// and a remote `$import`. The derivation reads CWL types only (record fields, enum symbols,
/// array items) and writes its own keywords, so none of these reach the Tool: the rule has
/// nothing to report there, and the remote import is `unresolved-reference` instead.
#[test]
fn imports_cannot_bring_these_constructs_into_the_extension_derivation() {
    use super::{constructs, schema_ids};
    use crate::base::{Code, DocumentContext};
    use crate::model::Model;
    let dir = std::env::temp_dir().join(format!("cwl-mcp-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("types.yaml"),
        r#"
- name: Item
  type: record
  $id: https://example.org/item.json
  $ref: https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json
  nullable: true
  fields:
    href:
      type: string
      $ref: https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json
      nullable: true
"#,
    )
    .unwrap();
    let text = r#"
cwlVersion: v1.2
class: CommandLineTool
id: stage
doc: Stages an item.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    useWhen: always
    doNotUseWhen: never
requirements:
  SchemaDefRequirement:
    types:
      - $import: types.yaml
      - $import: https://example.org/remote-types.yaml
inputs:
  item: {type: "types.yaml#Item", label: Item}
outputs: []
"#;
    let context = DocumentContext::from_path(&dir.join("stage.cwl")).within(Some(dir.clone()));
    let model = Model::of_text(text, settings(Extension), context);
    let tool = model.entry(0).tool().cloned().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        tool["inputSchema"]["properties"]["item"]["properties"]["href"]["type"], "string",
        "{tool:#}"
    );
    assert_eq!(constructs(&tool), []);
    assert_eq!(schema_ids(&tool), []);
    let codes: Vec<Code> = model.diagnostics().iter().map(|d| d.code).collect();
    assert!(!codes.contains(&Code::McpClientInterop), "{codes:?}");
    assert!(codes.contains(&Code::UnresolvedReference), "{codes:?}");
}

#[test]
fn the_constructs_of_a_parted_schema_are_those_of_the_whole() {
    use crate::derive::{Part, Parted};
    use serde_json::json;
    let mut props = crate::derive::parted::Entries::default();
    let mut defs = crate::derive::parted::Entries::default();
    for (name, value) in [
        ("a", json!({"$ref": "#/$defs/a"})),
        (
            "b",
            json!({"type": "object", "properties": {"$ref": {"type": "string"}}}),
        ),
    ] {
        props.insert(name.into(), Part::new(value));
    }
    for (name, value) in [
        ("a", json!({"$ref": "https://remote.example/item.json"})),
        (
            "bundled",
            json!({"$id": "https://remote.example/bundled.json", "type": "object"}),
        ),
        ("relative", json!({"$ref": "sibling.json#/x"})),
        (
            "inside",
            json!({"anyOf": [{"$ref": "https://remote.example/bundled.json#/y"},
            {"nullable": true}]}),
        ),
    ] {
        defs.insert(name.into(), Part::new(value));
    }
    let parted = Parted {
        skeleton: json!({
            "$id": "https://eoap.github.io/cwl2ogc/main/inputs.yaml",
            "type": "object",
            "properties": {},
            "$defs": {},
            "not": {"$ref": "https://elsewhere.example/s.json"}
        }),
        members: vec![("properties", props), ("$defs", defs)],
    };
    let whole = super::constructs_in("inputSchema", &parted.assembled());
    let by_parts = super::constructs_in_parted("inputSchema", &parted);
    assert_eq!(by_parts, whole);
    let shown: Vec<String> = whole
        .iter()
        .map(|f| format!("{:?} {:?}", f.param, f.construct))
        .collect();
    assert_eq!(
        shown,
        [
            "None RemoteRef(\"https://elsewhere.example/s.json\")",
            "Some(\"a\") RemoteRef(\"https://remote.example/item.json\")",
            "Some(\"inside\") UntypedNullable",
            "Some(\"relative\") RemoteRef(\"sibling.json#/x\")",
        ]
    );
}
