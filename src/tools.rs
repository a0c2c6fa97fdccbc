//! The derived MCP Tools of one document: which processes become Tools, their derivation, and
//! where each problem sits in the text. Diagnostics, the CLI (`derive`, `tools-list`) and the
//! server's preview all read this one function's result.
use std::ops::Range;

use serde_json::Value;

use crate::analysis::{Diagnostic, DocumentContext, Severity};
use crate::cwl::{self, CwlView, PathSeg, Process};
use crate::derive::view::{Location, derive_process};
use crate::derive::{Derivation, DeriveOptions, Problem, codes};
use crate::document::yaml::YamlDoc;
use crate::hint::validate::process_hints;
use crate::settings::{Profile, Settings};

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
}

impl ToolEntry {
    pub fn name(&self) -> Option<&str> {
        self.derivation.tool.as_ref()?.get("name")?.as_str()
    }

    /// Whether `selector` (a key, an id as written, or an id without its `#`) names this process.
    pub fn matches(&self, selector: &str) -> bool {
        let bare = selector.trim_start_matches('#');
        self.key == selector
            || self.key == bare
            || self.id.as_deref() == Some(selector)
            || self.id.as_deref().map(|i| i.trim_start_matches('#')) == Some(bare)
    }
}

/// Whether a process becomes a Tool worth diagnosing under the profile: every process under
/// `cwl2mcp` (the exporter exports them all), only hinted ones under `extension`.
pub fn diagnosed(profile: Profile, hinted: bool) -> bool {
    hinted || profile == Profile::Cwl2mcp
}

/// Derives the Tool of every process of the document (`only`: restrict to the processes for
/// which it returns true, to save work).
pub fn derive_document(
    yaml: &YamlDoc,
    view: &CwlView,
    settings: &Settings,
    context: &DocumentContext,
    only: &dyn Fn(&Process, bool) -> bool,
) -> Vec<ToolEntry> {
    let wanted: Vec<(usize, bool)> = view
        .processes
        .iter()
        .enumerate()
        .map(|(i, p)| (i, process_hints(view, p).hint.is_some()))
        .filter(|(i, hinted)| only(&view.processes[*i], *hinted))
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    // The whole document's JSON is built only when a derivation needs it (see `schema_memo`).
    let mut root: Option<Option<Value>> = None;
    let opts = DeriveOptions::from_settings(settings);
    let location = Location {
        path: context.path.as_deref(),
        sandbox_root: context.sandbox_root.as_deref(),
    };
    let mut out = Vec::new();
    for (index, hinted) in wanted {
        let process = &view.processes[index];
        let hints = process_hints(view, process);
        let anchor = hints
            .hint
            .and_then(|h| h.class_node.map(|n| n.span.clone()))
            .unwrap_or_else(|| process.class_pair.key.span.clone());
        let derivation =
            match derive_memoized(yaml, view, process, context, location, &opts, &mut root) {
                Some(d) => d,
                None => Derivation {
                    tool: None,
                    problems: vec![Problem {
                        code: codes::TYPE_TOO_COMPLEX,
                        message:
                            "the document expands to too many values (YAML aliases nested too \
                              deep); no Tool is derived"
                                .into(),
                        path: Vec::new(),
                        blocking: true,
                    }],
                },
            };
        let located = derivation
            .problems
            .iter()
            .map(|p| (p.clone(), problem_span(yaml, process, &p.path, &anchor)))
            .collect();
        out.push(ToolEntry {
            key: process.key.clone().unwrap_or_else(|| context.uri.clone()),
            id: process.id.map(str::to_string),
            process_index: index,
            hinted,
            inline: process.inline,
            anchor,
            span: process.node.span.clone(),
            derivation,
            located,
        });
    }
    out
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

/// The diagnostics derivation adds to the view's: `mcp-schema`, the engine's problems, and
/// `tool-name-duplicate` within the document.
pub fn diagnostics(entries: &[ToolEntry], profile: Profile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for entry in entries {
        if !diagnosed(profile, entry.hinted) {
            continue;
        }
        for (problem, span) in &entry.located {
            if problem.also_reported_by_view() {
                continue;
            }
            let severity = if problem.blocking || problem.code == codes::MCP_SCHEMA {
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
        if !diagnosed(profile, entry.hinted) {
            continue;
        }
        let Some(name) = entry.name() else { continue };
        let others: Vec<&ToolEntry> = entries
            .iter()
            .enumerate()
            .filter(|(j, e)| *j != i && diagnosed(profile, e.hinted) && e.name() == Some(name))
            .map(|(_, e)| e)
            .collect();
        if let Some(other) = others.first() {
            out.push(Diagnostic::new(
                entry.anchor.clone(),
                Severity::Warning,
                "tool-name-duplicate",
                format!(
                    "the MCP tool name `{name}` is also derived for the process `{}` in this \
                     document; names must be unique within a server",
                    other.key
                ),
            ));
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
    yaml: &YamlDoc,
    view: &CwlView,
    process: &Process,
    context: &DocumentContext,
    location: Location,
    opts: &DeriveOptions,
    root: &mut Option<Option<Value>>,
) -> Option<Derivation> {
    let full = |root: &mut Option<Option<Value>>| {
        let json = root.get_or_insert_with(|| yaml.to_json());
        json.as_ref()
            .map(|r| derive_process(r, view, process, context, location, opts))
    };
    if !process.path.is_empty() {
        return full(root);
    }
    let Some(text) = yaml.text.clone() else {
        return full(root);
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
            &json, view, process, context, location, opts,
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
        }
        derivation.problems.extend(part.problems.iter().cloned());
        return Some(derivation);
    }
    let derivation = full(root)?;
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
