//! What a document refers to (SPEC §10): steps' `run:` values (a file, a `file#id`, or a
//! `#id` of this document's `$graph`), `$import` and `$include`; and the hints written under a
//! step (`hint-on-step`). Plain reads of the tree, as the rest of the view.
use std::ops::Range;

use super::{CwlView, Entry, PathSeg, Process, entries};
use crate::document::yaml::{Kind, Node, YamlDoc};

/// The kind of a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// A step's `run:` string.
    Run,
    /// `$import: target`.
    Import,
    /// `$include: target`.
    Include,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Run => "run",
            RefKind::Import => "$import",
            RefKind::Include => "$include",
        }
    }
}

/// One reference as written: its kind, its target text and the span of the value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    pub kind: RefKind,
    pub target: String,
    pub span: Range<usize>,
}

impl Reference {
    /// The file part (`None`: this document) and the fragment (`None`: the whole file).
    pub fn parts(&self) -> (Option<&str>, Option<&str>) {
        let (file, fragment) = match self.target.split_once('#') {
            Some((f, id)) => (f, Some(id)),
            None => (self.target.as_str(), None),
        };
        let file = (!file.is_empty()).then_some(file);
        (file, fragment.filter(|f| !f.is_empty()))
    }

    /// Whether the target is remote (a URL other than `file://`) or an expression: not a local
    /// reference that can be followed or checked.
    pub fn is_remote(&self) -> bool {
        let t = self.target.as_str();
        (t.contains("://") && !t.starts_with("file://")) || t.contains("$(") || t.contains("${")
    }
}

/// A step of a workflow process, with its `run:` node.
#[derive(Clone, Debug)]
pub struct Step<'a> {
    /// The index of the workflow in [`CwlView::processes`].
    pub workflow: usize,
    pub node: &'a Node,
    pub run: Option<&'a Node>,
    /// The step's `hints`, in either form.
    pub hints: Vec<Entry<'a>>,
    /// The path of the step node from the process node.
    pub path: Vec<PathSeg>,
}

const MAX_DEPTH: usize = 64;

/// Every step of every workflow of the view, in document order.
pub fn steps<'a>(doc: &'a YamlDoc, view: &CwlView<'a>) -> Vec<Step<'a>> {
    let mut out = Vec::new();
    for (i, p) in view.processes.iter().enumerate() {
        out.extend(process_steps(doc, i, p));
    }
    out
}

fn process_steps<'a>(doc: &'a YamlDoc, index: usize, p: &Process<'a>) -> Vec<Step<'a>> {
    let mut out = Vec::new();
    if p.class != "Workflow" {
        return out;
    }
    let Some(steps) = p.node.get("steps") else {
        return out;
    };
    let steps = doc.deref(steps);
    let mut push = |node: &'a Node, path: Vec<PathSeg>| {
        let node = doc.deref(node);
        if !node.is_map() {
            return;
        }
        out.push(Step {
            workflow: index,
            node,
            run: node.get("run"),
            hints: entries(doc, node.get("hints"), "hints"),
            path,
        });
    };
    match &steps.kind {
        Kind::Map { pairs, .. } => {
            for pair in pairs {
                let name = pair.key.scalar().unwrap_or("").to_string();
                push(
                    &pair.value,
                    vec![PathSeg::Key("steps".into()), PathSeg::Key(name)],
                );
            }
        }
        Kind::Seq { items, .. } => {
            for (i, item) in items.iter().enumerate() {
                push(item, vec![PathSeg::Key("steps".into()), PathSeg::Index(i)]);
            }
        }
        _ => {}
    }
    out
}

/// The `run:` strings of the steps (cheap: no deferred subtree is built).
pub fn run_references<'a>(doc: &'a YamlDoc, view: &CwlView<'a>) -> Vec<Reference> {
    steps(doc, view)
        .iter()
        .filter_map(|s| {
            let run = s.run?;
            let target = run.scalar()?;
            if !matches!(run.kind, Kind::Scalar { .. }) || target.is_empty() {
                return None;
            }
            Some(Reference {
                kind: RefKind::Run,
                target: target.to_string(),
                span: run.span.clone(),
            })
        })
        .collect()
}

/// Every reference of the document: `run:` strings, `$import` and `$include`, in document
/// order.
pub fn references<'a>(doc: &'a YamlDoc, view: &CwlView<'a>) -> Vec<Reference> {
    let mut out = run_references(doc, view);
    if let Some(root) = view.root {
        imports(doc, root, 0, &mut out);
    }
    out.sort_by_key(|r| r.span.start);
    out.dedup();
    out
}

fn imports(doc: &YamlDoc, node: &Node, depth: usize, out: &mut Vec<Reference>) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = match node.kind {
        Kind::Deferred(_) if !may_import(doc, node) => return,
        Kind::Deferred(_) => doc.deref(node),
        _ => node,
    };
    match &node.kind {
        Kind::Map { pairs, .. } => {
            for pair in pairs {
                let kind = match pair.key.scalar() {
                    Some("$import") => Some(RefKind::Import),
                    Some("$include") => Some(RefKind::Include),
                    _ => None,
                };
                match (kind, pair.value.scalar()) {
                    (Some(kind), Some(target))
                        if matches!(pair.value.kind, Kind::Scalar { .. }) && !target.is_empty() =>
                    {
                        out.push(Reference {
                            kind,
                            target: target.to_string(),
                            span: pair.value.span.clone(),
                        })
                    }
                    _ => imports(doc, &pair.value, depth + 1, out),
                }
            }
        }
        Kind::Seq { items, .. } => {
            for item in items {
                imports(doc, item, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Whether the deferred subtree `node` stands for may hold an `$import` or `$include` key:
/// its text names one, or has an escape (a double-quoted key can spell one with escapes).
/// A deferred subtree holds no alias, so nothing else brings a key into it. Reading one builds
/// it in place (5.4 MB for the `inputs` of a 50,000-line tool, kept in its model): the index
/// asks every file for its references.
fn may_import(doc: &YamlDoc, node: &Node) -> bool {
    let Some(text) = doc.text().and_then(|t| t.get(node.span.clone())) else {
        return true;
    };
    memchr::memmem::find(text.as_bytes(), b"$import").is_some()
        || memchr::memmem::find(text.as_bytes(), b"$include").is_some()
        || memchr::memchr(b'\\', text.as_bytes()).is_some()
}

/// The reference whose value contains byte `offset`.
pub fn reference_at(refs: &[Reference], offset: usize) -> Option<&Reference> {
    refs.iter()
        .find(|r| r.span.start <= offset && offset <= r.span.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_run_files_ids_imports_and_includes() {
        let text = "class: Workflow\nid: main\ninputs: []\noutputs: []\nsteps:\n  a:\n    run: tools/a.cwl\n  b:\n    run: '#crop'\n  c:\n    run:\n      class: CommandLineTool\n      inputs:\n        x:\n          type: {$import: types.yml}\n      outputs: []\n      arguments:\n      - $include: script.sh\n  d:\n    run: $(inputs.x)\n";
        let doc = YamlDoc::parse(text);
        let view = CwlView::new(&doc);
        let refs = references(&doc, &view);
        let got: Vec<(RefKind, &str)> = refs.iter().map(|r| (r.kind, r.target.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (RefKind::Run, "tools/a.cwl"),
                (RefKind::Run, "#crop"),
                (RefKind::Import, "types.yml"),
                (RefKind::Include, "script.sh"),
                (RefKind::Run, "$(inputs.x)"),
            ]
        );
        assert_eq!(&text[refs[0].span.clone()], "tools/a.cwl");
        assert_eq!(refs[1].parts(), (None, Some("crop")));
        assert_eq!(refs[0].parts(), (Some("tools/a.cwl"), None));
        assert!(refs[4].is_remote());
        assert_eq!(steps(&doc, &view).len(), 4);
    }

    /// A tool whose `inputs` is large enough to be deferred, with `extra` in input 150.
    fn large_tool(extra: &str) -> String {
        let mut t = String::from("class: CommandLineTool\ninputs:\n");
        for i in 0..500 {
            t.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: Input {i}.\n"
            ));
            if i == 150 {
                t.push_str(extra);
            }
        }
        t + "outputs: []\n"
    }

    /// The references of `text`, and whether reading them built a deferred subtree; checked
    /// against a build with nothing deferred.
    fn references_of(text: &str) -> (Vec<(RefKind, String, String)>, bool) {
        let listed = |doc: &YamlDoc| {
            let view = CwlView::new(doc);
            references(doc, &view)
                .into_iter()
                .map(|r| (r.kind, r.target, text[r.span].to_string()))
                .collect::<Vec<_>>()
        };
        let doc = YamlDoc::parse(text);
        assert!(!doc.deferred.is_empty(), "`inputs` is deferred");
        let got = listed(&doc);
        let built = doc.deferred.iter().any(|p| p.is_built());
        let whole = crate::document::yaml::memo::unmemoized(|| YamlDoc::parse(text));
        assert!(whole.deferred.is_empty());
        assert_eq!(got, listed(&whole), "{text}");
        (got, built)
    }

    /// A deferred section is read for `$import` and `$include` only when its text may hold
    /// one: building it kept a copy of the whole section in the model.
    #[test]
    fn a_deferred_section_is_read_only_when_it_may_import() {
        assert_eq!(references_of(&large_tool("")), (vec![], false));
        let (got, built) = references_of(&large_tool("    default: {$import: d.yml}\n"));
        assert_eq!(got, vec![(RefKind::Import, "d.yml".into(), "d.yml".into())]);
        assert!(built);
        // An escaped key spells `$include` without the word in the text.
        let (got, built) = references_of(&large_tool(
            "    inputBinding:\n      valueFrom: {\"\\x24include\": s.sh}\n",
        ));
        assert_eq!(got, vec![(RefKind::Include, "s.sh".into(), "s.sh".into())]);
        assert!(built);
    }
}
