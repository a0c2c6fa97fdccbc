//! Links, definitions and the `run:` hover over real files in a temporary folder.
use std::path::{Path, PathBuf};

use super::*;
use crate::base::DocumentContext;
use crate::base::Profile::Extension;
use crate::model::fixture::settings;
use crate::model::index::{IndexEntry, Stamp};

fn workspace(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir()
        .join(format!("cwl-mcp-nav-{name}-{}", std::process::id()))
        .join("w");
    let _ = std::fs::remove_dir_all(&root);
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(&root).unwrap();
    std::fs::canonicalize(root).unwrap()
}

fn model(root: &Path, rel: &str, text: &str) -> Model {
    let context = DocumentContext::from_path(&root.join(rel)).within(Some(root.to_path_buf()));
    Model::of_text(text, settings(Extension), context)
}

const NS: &str = "$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n";

fn tool(id: &str, name: &str) -> String {
    format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: {id}\n{NS}hints:\n  mcp:Tool:\n    \
         name: {name}\n    title: The {name}\ninputs: {{}}\noutputs: {{}}\n"
    )
}

const PACKED: &str = "cwlVersion: v1.2\n$graph:\n- class: CommandLineTool\n  id: first\n  \
                      inputs: {}\n  outputs: {}\n- class: CommandLineTool\n  id: second\n  \
                      inputs: {}\n  outputs: {}\n";

fn at(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap() + 1
}

#[test]
fn run_files_file_ids_imports_and_includes_are_links() {
    let root = workspace(
        "links",
        &[
            ("tools/flagstat.cwl", &tool("flagstat", "flagstat")),
            ("packed.cwl", PACKED),
            ("types.yml", "- name: T\n  type: record\n  fields: []\n"),
            ("doc.txt", "Some words.\n"),
        ],
    );
    let text = "cwlVersion: v1.2\nclass: Workflow\nid: wf\nrequirements:\n  \
                SchemaDefRequirement:\n    types:\n      - $import: types.yml\n\
                doc:\n  $include: doc.txt\ninputs: {}\noutputs: {}\nsteps:\n  a:\n    \
                run: tools/flagstat.cwl\n    in: {}\n    out: []\n  b:\n    \
                run: packed.cwl#second\n    in: {}\n    out: []\n  c:\n    \
                run: gone.cwl\n    in: {}\n    out: []\n";
    let m = model(&root, "wf.cwl", text);
    let links = links(&m);
    let got: Vec<(RefKind, &str)> = links.iter().map(|l| (l.kind, l.target.as_str())).collect();
    assert_eq!(
        got,
        [
            (RefKind::Import, "types.yml"),
            (RefKind::Include, "doc.txt"),
            (RefKind::Run, "tools/flagstat.cwl"),
            (RefKind::Run, "packed.cwl#second"),
        ],
        "a missing target gives no link"
    );
    let Destination::File { path, line, .. } = &links[2].destination else {
        panic!("{:?}", links[2])
    };
    assert_eq!(path, &root.join("tools/flagstat.cwl"));
    assert_eq!(*line, 0);
    let Destination::File {
        path,
        fragment,
        line,
    } = &links[3].destination
    else {
        panic!("{:?}", links[3])
    };
    assert_eq!(path, &root.join("packed.cwl"));
    assert_eq!(fragment.as_deref(), Some("second"));
    assert_eq!(*line, 7, "the line of `id: second`");
    assert_eq!(&text[links[3].span.clone()], "packed.cwl#second");
    // Definition on the value; nothing on a missing target or elsewhere.
    let d = definition(&m, at(text, "packed.cwl#")).unwrap();
    assert_eq!(d.target, "packed.cwl#second");
    assert!(definition(&m, at(text, "gone.cwl")).is_none());
    assert!(definition(&m, at(text, "Workflow")).is_none());
    assert!(links[0].tooltip().contains("types.yml"));
}

#[test]
fn an_id_in_the_graph_leads_to_its_process() {
    let root = workspace("graph", &[]);
    let text = "cwlVersion: v1.2\n$graph:\n- class: CommandLineTool\n  id: echo\n  \
                inputs: {}\n  outputs: {}\n- class: Workflow\n  id: main\n  inputs: {}\n  \
                outputs: {}\n  steps:\n    s:\n      run: '#echo'\n      in: {}\n      \
                out: []\n    t:\n      run: '#nope'\n      in: {}\n      out: []\n";
    let m = model(&root, "packed.cwl", text);
    let links = links(&m);
    assert_eq!(links.len(), 1, "{links:?}");
    let Destination::Here { span, selection } = &links[0].destination else {
        panic!("{:?}", links[0])
    };
    assert_eq!(&text[selection.clone()], "echo");
    assert!(text[span.clone()].starts_with("class: CommandLineTool"));
    assert!(definition(&m, at(text, "'#echo")).is_some());
    assert!(definition(&m, at(text, "'#nope")).is_none());
}

#[test]
fn hover_on_run_names_the_targets_tool() {
    let root = workspace(
        "hover",
        &[("tools/flagstat.cwl", &tool("flagstat", "flagstat_tool"))],
    );
    let text = format!(
        "cwlVersion: v1.2\n{NS}$graph:\n- class: CommandLineTool\n  id: echo\n  hints:\n    \
         mcp:Tool:\n      name: echo_tool\n      title: Echo\n  inputs: {{}}\n  outputs: {{}}\n\
         - class: Workflow\n  id: main\n  inputs: {{}}\n  outputs: {{}}\n  steps:\n    s:\n      \
         run: '#echo'\n      in: {{}}\n      out: []\n    t:\n      \
         run: tools/flagstat.cwl\n      in: {{}}\n      out: []\n"
    );
    let m = model(&root, "packed.cwl", &text);
    let none = |_: &Path| None;
    let h = run_hover(&m, at(&text, "'#echo"), &none).unwrap();
    assert!(h.markdown.contains("`echo_tool`"), "{}", h.markdown);
    assert!(h.markdown.contains("Echo"), "{}", h.markdown);
    // A file target: read from the entry the caller gives (here, analysed as the index does).
    let file = root.join("tools/flagstat.cwl");
    let entry_of = |p: &Path| {
        assert_eq!(p, file);
        let t = std::fs::read_to_string(p).unwrap();
        let other = model(&root, "tools/flagstat.cwl", &t);
        Some(IndexEntry::of_model(&other, Stamp::Open(0)))
    };
    let h = run_hover(&m, at(&text, "tools/flagstat"), &entry_of).unwrap();
    assert!(h.markdown.contains("`flagstat_tool`"), "{}", h.markdown);
    assert!(h.markdown.contains("The flagstat_tool"), "{}", h.markdown);
    let h = run_hover(&m, at(&text, "tools/flagstat"), &none).unwrap();
    assert!(h.markdown.contains("No MCP Tool"), "{}", h.markdown);
    assert!(run_hover(&m, at(&text, "Workflow"), &none).is_none());
}
