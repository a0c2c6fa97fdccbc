//! `run-target-missing`, `hint-on-step` and reference targets, over real files in a temporary
//! folder (the rule reads the file system inside the read boundary).
use std::path::{Path, PathBuf};

use crate::base::DocumentContext;
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::Model;
use crate::model::fixture::{check_diagnostics_in, settings};
use crate::model::links::Target;

/// A fresh folder `<tmp>/cwl-mcp-links-<name>/w` holding `files`; returns the folder.
fn workspace(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let base = std::env::temp_dir().join(format!("cwl-mcp-links-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let root = base.join("w");
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(base.join("outside.cwl"), "class: CommandLineTool\n").unwrap();
    root
}

fn at(root: &Path, rel: &str) -> DocumentContext {
    DocumentContext::from_path(&root.join(rel)).within(Some(root.to_path_buf()))
}

const TOOL: &str =
    "cwlVersion: v1.2\nclass: CommandLineTool\nid: flagstat\ninputs: {}\noutputs: {}\n";

#[test]
fn a_missing_run_file_or_id_is_an_error_in_a_hinted_document() {
    let root = workspace("missing", &[("tools/flagstat.cwl", TOOL)]);
    check_diagnostics_in(
        Extension,
        at(&root, "wf.cwl"),
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, missing-field, agent-context
cwlVersion: v1.2
class: Workflow
id: wf
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: wf
inputs: {}
outputs: {}
steps:
  present:
    run: tools/flagstat.cwl
    in: {}
    out: []
  absent:
    run: tools/does-not-exist.cwl
#        ^^^^^^^^^^^^^^^^^^^^^^^^ error[run-target-missing]: `tools/does-not-exist.cwl` does not exist
    in: {}
    out: []
  with-id:
    run: tools/flagstat.cwl#flagstat
    in: {}
    out: []
  wrong-id:
    run: tools/flagstat.cwl#other
#        ^^^^^^^^^^^^^^^^^^^^^^^^ error[run-target-missing]: no process `#other` in `tools/flagstat.cwl`
    in: {}
    out: []
  local:
    run: '#crop'
#        ^^^^^^^ error[run-target-missing]: no process `#crop` in this document
    in: {}
    out: []
  escape:
    run: ../outside.cwl
#        ^^^^^^^^^^^^^^ error[run-target-missing]: outside the folder that may be read
    in: {}
    out: []
  computed:
    run: $(inputs.tool)
    in: {}
    out: []
"#,
    );
}

#[test]
fn a_document_without_hints_gets_no_run_diagnostic_under_extension_but_does_under_cwl2mcp() {
    let root = workspace("unhinted", &[]);
    let text = "cwlVersion: v1.2\nclass: Workflow\nid: wf\ninputs: {}\noutputs: {}\nsteps:\n  a:\n    run: gone.cwl\n    in: {}\n    out: []\n";
    let ext = Model::of_text(text, settings(Extension), at(&root, "wf.cwl"));
    assert!(ext.diagnostics().is_empty(), "{:?}", ext.diagnostics());
    let c2m = Model::of_text(text, settings(Cwl2mcp), at(&root, "wf.cwl"));
    assert!(
        c2m.diagnostics()
            .iter()
            .any(|d| d.code == crate::base::Code::RunTargetMissing),
        "{:?}",
        c2m.diagnostics()
    );
}

#[test]
fn graph_ids_resolve_to_the_process_and_files_to_their_path() {
    let root = workspace("graph", &[("tools/flagstat.cwl", TOOL)]);
    let text = "cwlVersion: v1.2\n$graph:\n- class: CommandLineTool\n  id: crop\n  inputs: {}\n  outputs: {}\n- class: Workflow\n  id: main\n  inputs: {}\n  outputs: {}\n  steps:\n    a:\n      run: '#crop'\n      in: {}\n      out: []\n    b:\n      run: tools/flagstat.cwl\n      in: {}\n      out: []\n";
    let model = Model::of_text(text, settings(Extension), at(&root, "pkg.cwl"));
    let refs = model.references();
    assert_eq!(refs.len(), 2);
    match model.target(&refs[0]) {
        Target::Here { id, .. } => assert_eq!(&text[id], "crop"),
        other => panic!("{other:?}"),
    }
    match model.target(&refs[1]) {
        Target::File { path, fragment } => {
            assert!(path.ends_with("tools/flagstat.cwl"), "{}", path.display());
            assert_eq!(fragment, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_tool_hint_under_a_step_is_a_warning() {
    let root = workspace("step", &[]);
    check_diagnostics_in(
        Extension,
        at(&root, "wf.cwl"),
        r#"
# check: ignore annotation-default, cwl2mcp-incompatible, missing-field, agent-context
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
      mcp:Tool:
#     ^^^^^^^^ warning[hint-on-step]: move it into the step's `run:` process
        name: inner
    run:
      class: CommandLineTool
      inputs: {}
      outputs: []
    in: {}
    out: []
"#,
    );
}
