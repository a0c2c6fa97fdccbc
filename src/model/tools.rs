//! The derived MCP Tool of each process of a model: its derivation, and where each problem sits
//! in the text. Diagnostics, `derive`, `tools-list`, the preview, lenses and hover read these
//! entries through the [`Model`].
use std::ops::Range;

use serde_json::Value;

use crate::base::{Code, Diagnostic, Severity};
use crate::cwl::{self, PathSeg, Process};
use crate::derive::view::{Location, derive_process};
use crate::derive::{Derivation, DeriveOptions, Problem};
use crate::document::yaml::YamlDoc;
use crate::hint::validate::process_hints;

use super::Model;

/// One process and the Tool derived from it.
#[derive(Clone, Debug)]
pub struct ToolEntry {
    /// The cwl2mcp key (id after `#`, `step/run` for inline processes, else the file URI).
    pub key: String,
    /// The process `id` as written.
    pub id: Option<String>,
    /// Index in `CwlView::processes`.
    pub process_index: usize,
    pub hinted: bool,
    /// Written inline under a step's `run:`.
    pub inline: bool,
    /// What the code lens and name diagnostics point at: the hint's class, or the process's
    /// `class` key when there is no hint.
    pub anchor: Range<usize>,
    /// The process's whole span.
    pub span: Range<usize>,
    pub derivation: Derivation,
    /// Each problem with the span it concerns.
    pub located: Vec<(Problem, Range<usize>)>,
    /// The diagnostics of the hint's own fields that refuse the Tool (SPEC §4 "Refusal"),
    /// as the hint rules reported them.
    pub blocked_by: Vec<Diagnostic>,
}

impl ToolEntry {
    /// Whether no Tool can be exported: a blocking problem of the derivation or of the hint.
    pub fn is_refused(&self) -> bool {
        self.derivation.is_refused() || !self.blocked_by.is_empty()
    }

    pub fn name(&self) -> Option<&str> {
        self.derivation.tool.as_ref()?.get("name")?.as_str()
    }

    /// Whether `selector` (a key, an id as written, an id without its `#`, or `@N` for the
    /// process at index `N` of the document) names this process.
    pub fn matches(&self, selector: &str) -> bool {
        if let Some(index) = selector
            .strip_prefix('@')
            .and_then(|n| n.parse::<usize>().ok())
        {
            return index == self.process_index;
        }
        let bare = selector.trim_start_matches('#');
        self.key == selector
            || self.key == bare
            || self.id.as_deref() == Some(selector)
            || self.id.as_deref().map(|i| i.trim_start_matches('#')) == Some(bare)
    }
}

/// Derives the Tool of process `index` of the model's view.
pub(super) fn derive_entry(model: &Model, index: usize) -> ToolEntry {
    let yaml = model.yaml();
    let view = model.view();
    let context = &model.context;
    let process = &view.processes[index];
    let hints = process_hints(view, process);
    let hinted = hints.hint.is_some();
    let reading = model.validation.hints.get(index).and_then(Option::as_ref);
    let anchor = hints
        .hint
        .and_then(|h| h.class_node.map(|n| n.span.clone()))
        .unwrap_or_else(|| process.class_pair.key.span.clone());
    let opts = DeriveOptions::from_settings(&model.settings);
    let location = Location {
        path: context.path.as_deref(),
        sandbox_root: context.sandbox_root.as_deref(),
    };
    let values = reading.map(|r| &r.values);
    let derivation = match derive_memoized(model, process, values, location, &opts) {
        Some(d) => d,
        None => Derivation {
            tool: None,
            problems: vec![Problem {
                code: Code::TypeTooComplex,
                message: "the document expands to too many values (YAML aliases nested too \
                          deep); no Tool is derived"
                    .into(),
                path: Vec::new(),
                blocking: true,
            }],
            ..Derivation::default()
        },
    };
    let located = derivation
        .problems
        .iter()
        .map(|p| (p.clone(), problem_span(yaml, process, &p.path, &anchor)))
        .collect();
    ToolEntry {
        key: process.key.clone().unwrap_or_else(|| context.uri.clone()),
        id: process.id.map(str::to_string),
        process_index: index,
        hinted,
        inline: process.inline,
        anchor,
        span: process.node.span.clone(),
        derivation,
        located,
        blocked_by: reading.map(|r| r.blocking.clone()).unwrap_or_default(),
    }
}

/// The span of the node a problem's path names: the key of the last mapping step when there is
/// one (short and precise), else the value; the anchor for the process itself.
fn problem_span(
    yaml: &YamlDoc,
    process: &Process,
    path: &[PathSeg],
    anchor: &Range<usize>,
) -> Range<usize> {
    let Some((last, parent_path)) = path.split_last() else {
        return anchor.clone();
    };
    let Some(parent) = cwl::node_at(yaml, process.node, parent_path) else {
        return anchor.clone();
    };
    match last {
        PathSeg::Key(k) => match parent.entry(k) {
            Some(pair)
                if pair.value.span.is_empty()
                    || pair.value.is_map()
                    || pair.value.items().is_some() =>
            {
                pair.key.span.clone()
            }
            Some(pair) => pair.value.span.clone(),
            None => parent_key_span(yaml, process, parent_path).unwrap_or(anchor.clone()),
        },
        PathSeg::Index(i) => parent
            .items()
            .and_then(|items| items.get(*i))
            .map(|n| n.span.clone())
            .unwrap_or_else(|| anchor.clone()),
    }
}

fn parent_key_span(yaml: &YamlDoc, process: &Process, path: &[PathSeg]) -> Option<Range<usize>> {
    let (last, parent_path) = path.split_last()?;
    let parent = cwl::node_at(yaml, process.node, parent_path)?;
    match last {
        PathSeg::Key(k) => parent.entry(k).map(|p| p.key.span.clone()),
        PathSeg::Index(i) => parent.items()?.get(*i).map(|n| n.span.clone()),
    }
}

/// The diagnostics derivation adds to the view's, over the entries the profile serves:
/// `mcp-schema`, the engine's problems, and `tool-name-duplicate` within the document.
pub fn diagnostics(entries: &[&ToolEntry]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for entry in entries {
        for (problem, span) in &entry.located {
            let severity = if problem.blocking || problem.code == Code::McpSchema {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(Diagnostic::new(
                span.clone(),
                severity,
                problem.code,
                &problem.message,
            ));
        }
    }
    for (i, entry) in entries.iter().enumerate() {
        let Some(name) = entry.name() else { continue };
        let other = entries
            .iter()
            .enumerate()
            .find(|(j, e)| *j != i && e.name() == Some(name));
        if let Some((_, other)) = other {
            let mut d = Diagnostic::new(
                entry.anchor.clone(),
                Severity::Warning,
                Code::ToolNameDuplicate,
                format!(
                    "the MCP tool name `{name}` is also derived for the process `{}` in this \
                     document; names must be unique within a server",
                    other.key
                ),
            );
            d.related.push(crate::base::Related {
                uri: None,
                span: other.anchor.clone(),
                line: None,
                message: format!("`{name}` is also derived here"),
            });
            out.push(d);
        }
    }
    out
}

/// The blocking problems of a refused Tool, for error messages.
pub fn refusal_reasons(entry: &ToolEntry) -> Vec<&Problem> {
    entry
        .derivation
        .problems
        .iter()
        .filter(|p| p.blocking)
        .collect()
}

/// A Tool JSON value with sorted keys (what `derive` prints and the preview returns).
pub fn sorted(tool: &Value) -> Value {
    crate::derive::view::sorted(tool)
}

/// Derives one process. A root process's input and output schemas do not depend on its
/// `mcp:Tool` hint, so they are memoized by the document text without the hint (plus the
/// settings and the document's place): typing in the hint of a 50,000-line tool re-derives only
/// the Tool's header (name, title, description, annotations, `_meta`) from the document without
/// its `inputs`/`outputs`, and takes the schemas, and the problems found in them, from the memo.
/// `None` when the document's JSON cannot be built (alias bombs).
fn derive_memoized(
    model: &Model,
    process: &Process,
    hint: Option<&crate::hint::values::HintValues>,
    location: Location,
    opts: &DeriveOptions,
) -> Option<Derivation> {
    let (yaml, view, context) = (model.yaml(), model.view(), &model.context);
    let full = || {
        model
            .json()
            .map(|r| derive_process(r, process, hint, context, location, opts))
    };
    if !process.path.is_empty() {
        return full();
    }
    let Some(text) = yaml.text.clone() else {
        return full();
    };
    // The key shares the snapshot's text: nothing is copied on a keystroke.
    let key = schema_memo::Key {
        settings: format!(
            "{:?}|{:?}|{}|{:?}|{:?}|{}",
            opts.profile,
            opts.protocol_version,
            context.uri,
            context.path,
            context.sandbox_root,
            context.file_stem
        ),
        text,
        hint: process_hints(view, process).hint.map(|h| h.span.clone()),
    };
    let header = |yaml: &YamlDoc| {
        let mut json = process.node.to_json_without(yaml, &["inputs", "outputs"])?;
        if let Some(map) = json.as_object_mut() {
            map.insert("inputs".into(), Value::Array(Vec::new()));
            map.insert("outputs".into(), Value::Array(Vec::new()));
        }
        Some(derive_process(
            &json, process, hint, context, location, opts,
        ))
    };
    if let Some(part) = schema_memo::lookup(&key) {
        let mut derivation = header(yaml)?;
        if let Some(tool) = derivation.tool.as_mut().and_then(Value::as_object_mut) {
            for (field, schema) in [("inputSchema", &part.input), ("outputSchema", &part.output)] {
                match schema {
                    Some(s) => tool.insert(field.into(), s.clone()),
                    None => tool.remove(field),
                };
            }
            in_derived_order(tool);
        }
        derivation.problems.extend(part.problems.iter().cloned());
        return Some(derivation);
    }
    let derivation = full()?;
    if let (Some(tool), Some(head)) = (&derivation.tool, header(yaml)) {
        let problems = derivation
            .problems
            .iter()
            .filter(|p| !head.problems.contains(p))
            .cloned()
            .collect();
        schema_memo::store(
            key,
            schema_memo::Schemas {
                input: tool.get("inputSchema").cloned(),
                output: tool.get("outputSchema").cloned(),
                problems,
            },
        );
    }
    Some(derivation)
}

/// Puts the fields a derivation writes last back in the order it writes them (`inputSchema`,
/// `outputSchema`, `annotations`, `_meta`), after the header's own fields: a schema taken from
/// the memo then sits where a plain derivation puts it, so both paths give the same Tool, key
/// order included (`tests/incremental_sites.rs`).
fn in_derived_order(tool: &mut serde_json::Map<String, Value>) {
    const LAST: [&str; 4] = ["inputSchema", "outputSchema", "annotations", "_meta"];
    for field in LAST {
        if let Some(v) = tool.shift_remove(field) {
            tool.insert(field.into(), v);
        }
    }
}

mod schema_memo {
    use std::sync::{Arc, Mutex};

    use serde_json::Value;

    use crate::derive::Problem;

    pub struct Schemas {
        pub input: Option<Value>,
        pub output: Option<Value>,
        /// Problems of the full derivation that the header alone does not have.
        pub problems: Vec<Problem>,
    }

    /// The document text without the hint (compared in place), and the settings and place.
    pub struct Key {
        pub settings: String,
        pub text: Arc<str>,
        pub hint: Option<std::ops::Range<usize>>,
    }

    impl Key {
        fn parts(&self) -> (&str, Option<&str>) {
            match &self.hint {
                Some(h) => (&self.text[..h.start], Some(&self.text[h.end..])),
                None => (&self.text, None),
            }
        }
    }

    impl PartialEq for Key {
        fn eq(&self, other: &Key) -> bool {
            self.settings == other.settings && self.parts() == other.parts()
        }
    }

    const CAPACITY: usize = 8;
    type Entry = (Key, Arc<Schemas>);
    static MEMO: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

    pub fn lookup(key: &Key) -> Option<Arc<Schemas>> {
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        let i = memo.iter().position(|(k, _)| k == key)?;
        let entry = memo.remove(i);
        let found = entry.1.clone();
        memo.insert(0, entry);
        Some(found)
    }

    pub fn store(key: Key, schemas: Schemas) {
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        memo.insert(0, (key, Arc::new(schemas)));
        memo.truncate(CAPACITY);
    }
}

#[cfg(test)]
mod tests {
    use crate::base::{Code, DocumentContext, Profile, Settings};
    use crate::derive::Derivation;
    use crate::model::Model;

    #[test]
    fn derives_through_the_view_with_inline_run_keys() {
        let text = r#"
cwlVersion: v1.2
class: Workflow
id: main
$namespaces: {mcp: "https://eoap.github.io/cwl-mcp-extension#"}
hints:
  - class: mcp:Tool
    name: wf
    aliases: []
    useWhen: ""
    doNotUseWhen: ""
    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
inputs:
  a: string
outputs: {}
steps:
  s1:
    run:
      class: CommandLineTool
      inputs: {x: int}
      outputs: {}
    in: {x: a}
    out: []
"#;
        let context = DocumentContext::from_uri("file:///w/main.cwl");
        let model = |profile| {
            let settings = Settings {
                profile,
                ..Settings::default()
            };
            Model::of_text(text, settings, context.clone())
        };
        let m = model(Profile::Cwl2mcp);
        let tools: Vec<&Derivation> = m.entries().map(|e| &e.derivation).collect();
        assert_eq!(tools.len(), 2);
        let wf = tools[0].exported().unwrap();
        assert_eq!(wf["name"], "wf");
        assert_eq!(wf["annotations"]["readOnlyHint"], true);
        // The inline process is keyed `main/s1/run`, which fails the name rules.
        let inline = &tools[1];
        assert!(inline.exported().is_none());
        assert_eq!(inline.tool.as_ref().unwrap()["name"], "main/s1/run");
        assert_eq!(inline.problems[0].code, Code::NameInvalid);
        let schema = &inline.tool.as_ref().unwrap()["inputSchema"];
        assert_eq!(
            schema["$id"],
            "https://eoap.github.io/cwl2ogc/main/s1/run/inputs.yaml"
        );
        assert_eq!(schema["required"], serde_json::json!(["x"]));
        // Under the extension profile the inline process takes the file name.
        let m = model(Profile::Extension);
        assert_eq!(m.entry(1).derivation.exported().unwrap()["name"], "main");
    }
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod fixture_tests;
