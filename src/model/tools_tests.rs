//! The diagnostics derivation adds (SPEC §4, §5): `tool-name-duplicate` in a document and
//! across a workspace, `mcp-schema`, and the engine's own codes (`unresolved-reference`,
//! `recursive-type`, `type-too-complex`, `default-file-object`, a wrong `label`), each on a CWL
//! document with its expected diagnostics annotated inline (see `crate::model::fixture`).
use std::path::Path;

use crate::base::Profile::{Cwl2mcp, Extension};
use crate::base::{Code, DocumentContext};
use crate::model::Model;
use crate::model::fixture::{
    check_diagnostics, check_diagnostics_in, check_workspace_diagnostics, context, settings,
};

// ---- tool-name-duplicate -------------------------------------------------------------------

#[test]
fn two_processes_of_a_graph_derive_the_same_name() {
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
    id: echo
    hints:
      - class: mcp:Tool
#              ^^^^^^^^ warning[tool-name-duplicate]: the MCP tool name `echo` is also derived for the process `echo-again` in this document
        name: echo
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: echo-again
    hints:
      mcp:Tool:
#     ^^^^^^^^ warning[tool-name-duplicate]: the MCP tool name `echo` is also derived for the process `echo` in this document
        name: echo
    baseCommand: echo
    inputs: {}
    outputs: {}
"#,
    );
}

#[test]
fn cwl2mcp_names_processes_without_hints_too() {
    // A process without a hint is anchored at its `class` key.
    check_diagnostics(
        Cwl2mcp,
        r#"
# check: ignore agent-context
cwlVersion: v1.2
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
$graph:
  - class: CommandLineTool
#   ^^^^^ warning[tool-name-duplicate]: the MCP tool name `echo` is also derived for the process `shout` in this document
    id: echo
    baseCommand: echo
    inputs: {}
    outputs: {}
  - class: CommandLineTool
    id: shout
    hints:
      mcp:Tool:
#     ^^^^^^^^ warning[tool-name-duplicate]: the MCP tool name `echo` is also derived for the process `echo` in this document
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
fn a_name_served_by_two_documents_of_the_workspace() {
    // `c.cwl` has no hint: under the extension profile it serves its root process but takes
    // no part in diagnostics, so its `echo` is not reported.
    let echo = |other: &str| {
        format!(
            r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
class: CommandLineTool
id: echo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
# ^^^^^^^^ warning[tool-name-duplicate]: the MCP tool name `echo` is also derived by `{other}`; names must be unique within a server
    name: echo
baseCommand: echo
inputs: {{}}
outputs: {{}}
"#
        )
    };
    let unrelated = r#"
# check: ignore agent-context
cwlVersion: v1.2
class: CommandLineTool
id: echo
baseCommand: echo
inputs: {}
outputs: {}
"#;
    check_workspace_diagnostics(
        Extension,
        &[
            ("file:///w/a.cwl", &echo("b.cwl")),
            ("file:///w/tools/b.cwl", &echo("a.cwl")),
            ("file:///w/c.cwl", unrelated),
        ],
    );
}

// ---- mcp-schema ----------------------------------------------------------------------------

#[test]
fn a_wrong_annotation_type_is_reported_once_not_again_as_mcp_schema() {
    // The view's `invalid-type` refuses the Tool before the schema would see `title: 42`;
    // `mcp-schema` guards the engine and is not reachable from a hint the view accepts.
    check_diagnostics(
        Extension,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
# ^^^^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 would reject this hint: it requires
    name: echo
    annotations:
      title: 42
#     ^^^^^ information[cwl2mcp-incompatible]: cwl2mcp 0.1.0 rejects `annotations.title`
#            ^^ error[invalid-type]: `title` must be a string, found the integer `42`
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

// ---- a wrong label -------------------------------------------------------------------------

#[test]
fn a_label_that_is_not_a_string_fails_cwl2mcp() {
    check_diagnostics(
        Cwl2mcp,
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
label: [Echo, it]
#<^^^^^ error[invalid-type]: `label` must be a string, not a list
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

#[test]
fn a_label_that_is_not_a_string_under_the_extension() {
    // Without a hint the document gets nothing; with one, the label is left out of the Tool.
    check_diagnostics(
        Extension,
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
class: CommandLineTool
id: echo
label: [Echo, it]
#<^^^^^ warning[invalid-type]: `label` must be a string, not a list
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool: {}
baseCommand: echo
inputs: {}
outputs: {}
"#,
    );
}

// ---- unresolved-reference ------------------------------------------------------------------

#[test]
fn an_include_that_cannot_be_read() {
    check_diagnostics_in(
        Extension,
        in_examples(),
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, agent-context
cwlVersion: v1.2
class: CommandLineTool
id: echo
doc:
  $include: missing-doc.md
#           ^^^^^^^^^^^^^^ warning[unresolved-reference]: unresolved reference: `missing-doc.md` cannot be read
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: echo
baseCommand: echo
inputs:
  region:
# ^^^^^^ warning[unresolved-reference]: the type `Region` is not defined in a SchemaDefRequirement
    type: Region
outputs: {}
"#,
    );
}

#[test]
fn an_import_that_cannot_be_read_under_cwl2mcp() {
    check_diagnostics_in(
        Cwl2mcp,
        in_examples(),
        r#"
cwlVersion: v1.2
class: CommandLineTool
id: echo
requirements:
  SchemaDefRequirement:
    types:
      - $import: missing-types.yaml
#                ^^^^^^^^^^^^^^^^^^ error[unresolved-reference]: unresolved reference: `missing-types.yaml` cannot be read
baseCommand: echo
inputs:
  region:
    type: missing-types.yaml#Region
outputs: {}
"#,
    );
}

// ---- recursive-type ------------------------------------------------------------------------

const RECURSIVE: &str = r#"
cwlVersion: v1.2
class: CommandLineTool
id: tree
requirements:
  SchemaDefRequirement:
    types:
      - name: Node
        type: record
        fields:
          children:
            type:
              type: array
              items: Node
baseCommand: echo
inputs:
  root:
# ^^^^ error[recursive-type]: the type `Node` contains itself; cwl2mcp 0.1.0 fails on recursive types (RecursionError)
    type: tree/Node
outputs: {}
"#;

#[test]
fn a_recursive_type_fails_cwl2mcp() {
    // The input names the type scoped by the process id (`tree/Node`), as cwl-utils resolves
    // it; inside the definition the bare name reaches it.
    check_diagnostics(Cwl2mcp, RECURSIVE);
}

#[test]
fn a_recursive_type_is_a_ref_under_the_extension() {
    let hinted = RECURSIVE
        .replace(
            "id: tree\n",
            "id: tree\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: tree\n    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}\n",
        )
        .lines()
        .filter(|l| !l.contains("error[recursive-type]"))
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    check_diagnostics(
        Extension,
        &format!("# check: ignore cwl2mcp-incompatible, agent-context\n{hinted}"),
    );
}

// ---- type-too-complex ----------------------------------------------------------------------

#[test]
fn types_nested_too_deeply() {
    let mut ty = "string".to_string();
    for _ in 0..100 {
        ty = format!("{{type: array, items: {ty}}}");
    }
    check_diagnostics(
        Cwl2mcp,
        &format!(
            r#"
cwlVersion: v1.2
class: CommandLineTool
id: deep
baseCommand: echo
inputs:
  x:
# ^ error[type-too-complex]: types are nested too deeply to derive a schema
    type: {ty}
outputs: {{}}
"#
        ),
    );
}

#[test]
fn named_types_that_expand_exponentially() {
    let mut types = String::new();
    for i in 0..40 {
        types.push_str(&format!(
            "      - {{name: T{i}, type: record, fields: {{a: T{n}, b: T{n}}}}}\n",
            n = i + 1
        ));
    }
    types.push_str("      - {name: T40, type: record, fields: {z: int}}\n");
    check_diagnostics(
        Extension,
        &format!(
            r#"
# check: ignore annotation-default, cwl2mcp-incompatible
cwlVersion: v1.2
class: CommandLineTool
id: t
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: t
requirements:
  SchemaDefRequirement:
    types:
{types}baseCommand: echo
inputs:
  x:
# ^ error[type-too-complex]: types are nested too deeply to derive a schema
    type: T0
outputs: {{}}
"#
        ),
    );
}

// ---- default-file-object -------------------------------------------------------------------

const FILE_DEFAULT: &str = r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
baseCommand: [wc, -l]
inputs:
  text:
    type: File
    default:
#   ^^^^^^^ error[default-file-object]: the default `echo-region.cwl` names an existing file; cwl2mcp 0.1.0 then fails
      class: File
      location: echo-region.cwl
  other:
    type: File
    default:
      class: File
      location: no-such-file.txt
outputs: {}
"#;

/// A document in `examples/`, beside `echo-region.cwl`, read within that folder.
fn in_examples() -> DocumentContext {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    DocumentContext::from_path(&dir.join("file-default.cwl")).within(Some(dir))
}

#[test]
fn a_default_naming_an_existing_file_fails_cwl2mcp() {
    check_diagnostics_in(Cwl2mcp, in_examples(), FILE_DEFAULT);
}

#[test]
fn a_default_file_is_its_location_under_the_extension() {
    check_diagnostics_in(
        Extension,
        in_examples(),
        &format!(
            "# check: ignore cwl2mcp-incompatible, agent-context\n{}",
            FILE_DEFAULT
                .replace(
                    "id: count-lines\n",
                    "id: count-lines\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: count_lines\n    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}\n",
                )
                .lines()
                .filter(|l| !l.contains("error[default-file-object]"))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        ),
    );
}

/// On a thread with the stack every analysing thread of the server gets (the ignored bug was
/// found with the 2 MiB default: the depth bound of the value tree needs more unoptimised).
#[test]
fn deep_flow_nesting_is_bounded_on_an_analysis_thread() {
    let mut ty = "string".to_string();
    for _ in 0..1000 {
        ty = format!("{{type: array, items: {ty}}}");
    }
    let text = format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: deep\nbaseCommand: echo\ninputs:\n  x:\n    type: {ty}\noutputs: {{}}\n"
    );
    let analysed = std::thread::Builder::new()
        .stack_size(crate::base::ANALYSIS_STACK_BYTES)
        .spawn(move || {
            let model = Model::of_text(&text, settings(Cwl2mcp), context());
            model
                .diagnostics()
                .iter()
                .map(|d| d.code)
                .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(analysed, vec![Code::TypeTooComplex]);
}

/// `cwl2mcpHints = false` drops the `cwl2mcp-incompatible` notes, and nothing else.
#[test]
fn cwl2mcp_notes_can_be_turned_off() {
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    title: Echo\nbaseCommand: echo\ninputs: {}\noutputs: {}\n";
    let codes = |cwl2mcp_hints| {
        let settings = crate::base::Settings {
            cwl2mcp_hints,
            ..crate::base::Settings::default()
        };
        Model::of_text(text, settings, context())
            .diagnostics()
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>()
    };
    let on = codes(true);
    let off = codes(false);
    assert!(on.contains(&Code::Cwl2mcpIncompatible), "{on:?}");
    assert!(!off.contains(&Code::Cwl2mcpIncompatible), "{off:?}");
    let rest: Vec<Code> = on
        .into_iter()
        .filter(|c| *c != Code::Cwl2mcpIncompatible)
        .collect();
    assert_eq!(rest, off);
}

/// `clientNames = false` and `clientInterop = false` silence their families, and nothing else.
#[test]
fn client_families_can_be_turned_off() {
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: tools.echo\n    useWhen: always\n    doNotUseWhen: never\nbaseCommand: echo\ninputs: {}\noutputs: {}\n";
    let codes = |client_names| {
        let settings = crate::base::Settings {
            client_names,
            ..crate::base::Settings::default()
        };
        Model::of_text(text, settings, context())
            .diagnostics()
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>()
    };
    let on = codes(true);
    assert!(on.contains(&Code::NameClientCompat), "{on:?}");
    let off = codes(false);
    assert!(!off.contains(&Code::NameClientCompat), "{off:?}");
    assert_eq!(
        on.into_iter()
            .filter(|c| *c != Code::NameClientCompat)
            .collect::<Vec<_>>(),
        off
    );
    let interop_off = crate::base::Settings {
        client_interop: false,
        ..crate::base::Settings::default()
    };
    assert!(crate::model::analysis::reported(
        &crate::base::Settings::default(),
        Code::McpClientInterop
    ));
    assert!(!crate::model::analysis::reported(
        &interop_off,
        Code::McpClientInterop
    ));
}
