//! The CWL view of a YAML tree: namespaces, processes (root, `$graph` items, inline `run:`),
//! their ids, labels, docs, hints, requirements, inputs and outputs, in every form CWL allows.
//!
//! It only reads the tree; it never fails. Whatever is missing or malformed is simply absent,
//! so that a document being typed still yields every process and hint that can be found.
use crate::document::yaml::{Kind, Node, Pair, YamlDoc};

pub mod refs;

/// The extension's namespace (SPEC §2).
pub const EXTENSION_NS: &str = "https://eoap.github.io/cwl-mcp-extension#";

pub const PROCESS_CLASSES: [&str; 4] =
    ["CommandLineTool", "Workflow", "ExpressionTool", "Operation"];

/// One step of a path from the document root to a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

/// A `$namespaces` entry.
#[derive(Clone, Debug)]
pub struct Namespace<'a> {
    pub prefix: &'a str,
    pub uri: &'a str,
    pub pair: &'a Pair,
}

/// An entry of `hints` or `requirements`, in list form (`- class: X`) or map form (`X: {...}`).
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    /// The class as written, when it is a string.
    pub class: Option<&'a str>,
    /// The node holding the class: the `class` value (list form) or the key (map form).
    pub class_node: Option<&'a Node>,
    /// The entry's mapping (list form: the item; map form: the value). May be a non-mapping.
    pub body: &'a Node,
    /// The whole entry: the list item, or the pair's key..value span.
    pub span: std::ops::Range<usize>,
    pub map_form: bool,
    /// Path of `body` from the process node.
    pub path: Vec<PathSeg>,
}

impl<'a> Entry<'a> {
    /// The entry's fields, without the `class` discriminator of the list form.
    pub fn fields(&self) -> impl Iterator<Item = &'a Pair> {
        let map_form = self.map_form;
        self.body
            .pairs()
            .unwrap_or(&[])
            .iter()
            .filter(move |p| map_form || p.key.scalar() != Some("class"))
    }
}

/// An input or output parameter.
#[derive(Clone, Debug)]
pub struct Param<'a> {
    pub id: &'a str,
    pub id_node: &'a Node,
    /// The parameter body: a mapping, or a type written directly (`x: string`).
    pub body: &'a Node,
}

/// A CWL process found in the document.
#[derive(Clone, Debug)]
pub struct Process<'a> {
    pub node: &'a Node,
    /// Path from the document root.
    pub path: Vec<PathSeg>,
    pub class: &'a str,
    pub class_pair: &'a Pair,
    /// The `id` as written.
    pub id: Option<&'a str>,
    pub id_node: Option<&'a Node>,
    /// The cwl2mcp export key: the id after its last `#`; for an inline `run:` without an id,
    /// `<step path>/run`; with none of these, `None` (the exporter then uses the file URI).
    pub key: Option<String>,
    pub label: Option<&'a Node>,
    pub doc: Option<&'a Node>,
    pub hints: Vec<Entry<'a>>,
    pub requirements: Vec<Entry<'a>>,
    /// The `inputs` and `outputs` nodes; read the parameters with [`Process::inputs`] and
    /// [`Process::outputs`] (large ones are built only then).
    pub inputs_node: Option<&'a Node>,
    pub outputs_node: Option<&'a Node>,
    /// Whether the process is written inline under a step's `run:`.
    pub inline: bool,
}

impl<'a> Process<'a> {
    pub fn inputs(&self, doc: &'a YamlDoc) -> Vec<Param<'a>> {
        params(doc, self.inputs_node)
    }

    pub fn outputs(&self, doc: &'a YamlDoc) -> Vec<Param<'a>> {
        params(doc, self.outputs_node)
    }

    /// Every entry of `hints` and `requirements` whose class is `class` (bare, as CWL names).
    pub fn requirement(&self, class: &str) -> impl Iterator<Item = &Entry<'a>> {
        let class = class.to_string();
        self.requirements
            .iter()
            .chain(self.hints.iter())
            .filter(move |e| e.class == Some(class.as_str()))
    }
}

/// The CWL view of one document.
#[derive(Clone, Debug, Default)]
pub struct CwlView<'a> {
    pub namespaces: Vec<Namespace<'a>>,
    pub namespaces_node: Option<&'a Pair>,
    pub processes: Vec<Process<'a>>,
    pub root: Option<&'a Node>,
}

impl<'a> CwlView<'a> {
    pub fn new(doc: &'a YamlDoc) -> CwlView<'a> {
        let Some(root) = doc.root.as_ref() else {
            return CwlView::default();
        };
        let mut view = CwlView {
            root: Some(root),
            ..CwlView::default()
        };
        if let Some(ns) = root.entry("$namespaces") {
            view.namespaces_node = Some(ns);
            for pair in ns.value.pairs().unwrap_or(&[]) {
                if let (Some(prefix), Some(uri)) = (pair.key.scalar(), pair.value.scalar()) {
                    view.namespaces.push(Namespace { prefix, uri, pair });
                }
            }
        }
        let mut walker = Walker {
            doc,
            out: Vec::new(),
        };
        if let Some(graph) = root.get("$graph") {
            for (i, item) in graph.items().unwrap_or(&[]).iter().enumerate() {
                let path = vec![PathSeg::Key("$graph".into()), PathSeg::Index(i)];
                walker.process(item, path, None, 0);
            }
        } else {
            walker.process(root, Vec::new(), None, 0);
        }
        view.processes = walker.out;
        view
    }

    /// The URI a prefix is bound to.
    pub fn namespace(&self, prefix: &str) -> Option<&'a str> {
        self.namespaces
            .iter()
            .find(|n| n.prefix == prefix)
            .map(|n| n.uri)
    }

    /// The prefix bound to the extension's namespace, if any.
    pub fn extension_prefix(&self) -> Option<&'a str> {
        self.namespaces
            .iter()
            .find(|n| n.uri == EXTENSION_NS)
            .map(|n| n.prefix)
    }

    /// Expands `prefix:local` with the bound namespaces; other strings are returned as is.
    pub fn expand(&self, name: &str) -> String {
        if let Some((prefix, local)) = name.split_once(':')
            && let Some(uri) = self.namespace(prefix)
        {
            return format!("{uri}{local}");
        }
        name.to_string()
    }

    /// The local name of `name` in the extension's vocabulary: `P:local` with `P` bound to the
    /// extension namespace, or the full URI `<namespace>local`; `None` for anything else (bare
    /// names included). The one expansion of the extension's names (the hint rules, the fixes
    /// and completion use it).
    pub fn extension_local<'n>(&self, name: &'n str) -> Option<&'n str> {
        if let Some(local) = name.strip_prefix(EXTENSION_NS) {
            return Some(local);
        }
        let (prefix, local) = name.split_once(':')?;
        (self.namespace(prefix) == Some(EXTENSION_NS)).then_some(local)
    }

    /// The innermost process whose node contains byte `offset`.
    pub fn process_at(&self, offset: usize) -> Option<&Process<'a>> {
        self.processes
            .iter()
            .filter(|p| p.node.span.start <= offset && offset <= p.node.span.end)
            .min_by_key(|p| p.node.span.end - p.node.span.start)
    }
}

struct Walker<'a> {
    doc: &'a YamlDoc,
    out: Vec<Process<'a>>,
}

const MAX_NESTING: usize = 64;

impl<'a> Walker<'a> {
    fn process(
        &mut self,
        node: &'a Node,
        path: Vec<PathSeg>,
        inline_step_path: Option<String>,
        depth: usize,
    ) {
        if depth > MAX_NESTING {
            return;
        }
        let node = self.doc.deref(node);
        let Some(class_pair) = node.entry("class") else {
            return;
        };
        let Some(class) = class_pair.value.scalar() else {
            return;
        };
        if !PROCESS_CLASSES.contains(&class) {
            return;
        }
        let id_node = node.get("id").filter(|n| n.scalar().is_some());
        let id = id_node.and_then(|n| n.scalar());
        let fragment = id.map(|id| id.rsplit('#').next().unwrap_or(id).to_string());
        let key = match (&inline_step_path, &fragment) {
            (Some(step), Some(frag)) => Some(format!("{step}/run/{frag}")),
            (Some(step), None) => Some(format!("{step}/run")),
            (None, Some(frag)) => Some(frag.clone()),
            (None, None) => None,
        };
        let process = Process {
            node,
            path: path.clone(),
            class,
            class_pair,
            id,
            id_node,
            key: key.clone(),
            label: node.get("label"),
            doc: node.get("doc"),
            hints: entries(self.doc, node.get("hints"), "hints"),
            requirements: entries(self.doc, node.get("requirements"), "requirements"),
            inputs_node: node.get("inputs"),
            outputs_node: node.get("outputs"),
            inline: inline_step_path.is_some(),
        };
        self.out.push(process);
        if class != "Workflow" {
            return;
        }
        // Inline `run:` processes of the steps, in both forms of `steps`.
        let Some(steps) = node.get("steps") else {
            return;
        };
        let steps = self.doc.deref(steps);
        let base = key.clone().unwrap_or_default();
        let mut visit = |step: &'a Node, step_id: Option<&str>, step_path: Vec<PathSeg>| {
            let step = self.doc.deref(step);
            let Some(run) = step.get("run") else { return };
            if !run.is_map() {
                return;
            }
            let step_id = step_id
                .or_else(|| step.get("id").and_then(|n| n.scalar()))
                .unwrap_or("");
            let step_id = step_id.rsplit(['#', '/']).next().unwrap_or(step_id);
            let step_key = if base.is_empty() {
                step_id.to_string()
            } else {
                format!("{base}/{step_id}")
            };
            let mut run_path = step_path;
            run_path.push(PathSeg::Key("run".into()));
            self.process(run, run_path, Some(step_key), depth + 1);
        };
        match &steps.kind {
            Kind::Map { pairs, .. } => {
                for pair in pairs {
                    let mut p = path.clone();
                    p.push(PathSeg::Key("steps".into()));
                    let name = pair.key.scalar().unwrap_or("");
                    p.push(PathSeg::Key(name.to_string()));
                    visit(&pair.value, Some(name), p);
                }
            }
            Kind::Seq { items, .. } => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(PathSeg::Key("steps".into()));
                    p.push(PathSeg::Index(i));
                    visit(item, None, p);
                }
            }
            _ => {}
        }
    }
}

fn entries<'a>(doc: &'a YamlDoc, node: Option<&'a Node>, field: &str) -> Vec<Entry<'a>> {
    let Some(node) = node else { return Vec::new() };
    let node = doc.deref(node);
    let mut out = Vec::new();
    match &node.kind {
        Kind::Seq { items, .. } => {
            for (i, item) in items.iter().enumerate() {
                let body = doc.deref(item);
                let class_node = body.get("class");
                out.push(Entry {
                    class: class_node.and_then(|n| n.scalar()),
                    class_node,
                    body,
                    span: item.span.clone(),
                    map_form: false,
                    path: vec![PathSeg::Key(field.into()), PathSeg::Index(i)],
                });
            }
        }
        Kind::Map { pairs, .. } => {
            for pair in pairs {
                let class = pair.key.scalar();
                out.push(Entry {
                    class,
                    class_node: Some(&pair.key),
                    body: doc.deref(&pair.value),
                    span: pair.key.span.start..pair.value.span.end.max(pair.key.span.end),
                    map_form: true,
                    path: vec![
                        PathSeg::Key(field.into()),
                        PathSeg::Key(class.unwrap_or("").into()),
                    ],
                });
            }
        }
        _ => {}
    }
    out
}

/// The parameters of an `inputs` / `outputs` node (list or map form).
pub fn params<'a>(doc: &'a YamlDoc, node: Option<&'a Node>) -> Vec<Param<'a>> {
    let Some(node) = node else { return Vec::new() };
    let node = doc.deref(node);
    let mut out = Vec::new();
    match &node.kind {
        Kind::Seq { items, .. } => {
            for item in items {
                let body = doc.deref(item);
                if let Some(id_node) = body.get("id")
                    && let Some(id) = id_node.scalar()
                {
                    out.push(Param { id, id_node, body });
                }
            }
        }
        Kind::Map { pairs, .. } => {
            for pair in pairs {
                if let Some(id) = pair.key.scalar() {
                    out.push(Param {
                        id,
                        id_node: &pair.key,
                        body: doc.deref(&pair.value),
                    });
                }
            }
        }
        _ => {}
    }
    out
}

/// Reads a node of the tree by path (as a [`Process::path`] gives).
pub fn node_at<'a>(doc: &'a YamlDoc, mut node: &'a Node, path: &[PathSeg]) -> Option<&'a Node> {
    for seg in path {
        node = doc.deref(node);
        node = match seg {
            PathSeg::Key(k) => node.get(k)?,
            PathSeg::Index(i) => node.items()?.get(*i)?,
        };
    }
    Some(doc.deref(node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_processes_keys_hints_and_params_in_every_form() {
        let text = r#"
cwlVersion: v1.2
class: Workflow
id: main
$namespaces: {mcp: "https://eoap.github.io/cwl-mcp-extension#"}
hints:
  - class: mcp:Tool
    name: wf
inputs:
  - id: a
    type: string
outputs: {}
steps:
  s1:
    run:
      class: CommandLineTool
      hints:
        mcp:Tool: {name: inner}
      inputs: {x: int}
      outputs: []
"#;
        let doc = YamlDoc::parse(text);
        let view = CwlView::new(&doc);
        assert_eq!(view.extension_prefix(), Some("mcp"));
        let keys: Vec<_> = view.processes.iter().map(|p| p.key.clone()).collect();
        assert_eq!(
            keys,
            vec![Some("main".to_string()), Some("main/s1/run".to_string())]
        );
        let wf = &view.processes[0];
        assert_eq!(wf.hints[0].class, Some("mcp:Tool"));
        assert!(!wf.hints[0].map_form);
        assert_eq!(wf.inputs(&doc)[0].id, "a");
        let inner = &view.processes[1];
        assert!(inner.inline);
        assert_eq!(inner.hints[0].class, Some("mcp:Tool"));
        assert!(inner.hints[0].map_form);
        assert_eq!(inner.inputs(&doc)[0].id, "x");
        assert_eq!(
            inner.path,
            vec![
                PathSeg::Key("steps".into()),
                PathSeg::Key("s1".into()),
                PathSeg::Key("run".into())
            ]
        );
        assert!(node_at(&doc, view.root.unwrap(), &inner.path).is_some());
    }

    #[test]
    fn graph_items_and_json_form() {
        let text = r##"{"cwlVersion": "v1.2", "$graph": [
            {"class": "CommandLineTool", "id": "#tool.cwl", "inputs": [], "outputs": []},
            {"class": "Workflow", "id": "#main", "inputs": [], "outputs": [], "steps": []}]}"##;
        let doc = YamlDoc::parse(text);
        let view = CwlView::new(&doc);
        let keys: Vec<_> = view
            .processes
            .iter()
            .map(|p| p.key.clone().unwrap())
            .collect();
        assert_eq!(keys, vec!["tool.cwl", "main"]);
    }
}
