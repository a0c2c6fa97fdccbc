//! The derived MCP Tool of each process of a model: its derivation, and where each problem sits
//! in the text. Diagnostics, `derive`, `tools-list`, the preview, lenses and hover read these
//! entries through the [`Model`].
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::base::{Code, Diagnostic, Severity};
use crate::cwl::{self, PathSeg, Process};
use crate::derive::view::{Location, derive_process, derive_process_parted};
use crate::derive::{Derivation, DeriveOptions, Problem, ToolSchemas};
use crate::document::yaml::YamlDoc;
use crate::hint::validate::process_hints;

use super::Model;

/// One process and the Tool derived from it.
#[derive(Debug)]
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
    /// The derivation; its Tool lacks `inputSchema`/`outputSchema` when `shared` holds them.
    derivation: Derivation,
    /// The memoized schemas of a root process, shared with every version that has the same
    /// text outside the hint (nothing proportional to the inputs is copied per keystroke).
    shared: Option<Arc<schema_memo::Schemas>>,
    /// The whole Tool (header and shared schemas), assembled on first read.
    whole: OnceLock<Option<Value>>,
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

    /// The derived Tool (also when refused, for previews), whole.
    pub fn tool(&self) -> Option<&Value> {
        let Some(shared) = &self.shared else {
            return self.derivation.tool.as_ref();
        };
        self.whole
            .get_or_init(|| {
                let mut tool = self.derivation.tool.clone()?;
                if let Some(map) = tool.as_object_mut() {
                    shared.insert_into(map);
                }
                Some(tool)
            })
            .as_ref()
    }

    /// The Tool's field `key` (`name`, `title`, `annotations`, …), without assembling the
    /// whole Tool.
    pub fn field(&self, key: &str) -> Option<&Value> {
        let head = self.derivation.tool.as_ref()?;
        match &self.shared {
            Some(shared) if schema_memo::FIELDS.contains(&key) => shared.field(key),
            _ => head.get(key),
        }
    }

    /// The whole Tool's size in bytes as compact JSON (what `tools/list` sends), without
    /// assembling it: the header's, plus each shared schema's member, measured once per memo.
    pub fn size(&self) -> usize {
        let Some(head) = &self.derivation.tool else {
            return 0;
        };
        let own = serde_json::to_string(head).map_or(0, |t| t.len());
        match &self.shared {
            None => own,
            Some(shared) => {
                let (members, bytes) = *shared.members.get_or_init(|| shared.measure());
                // `{}` gains no comma for its first member.
                let empty = head.as_object().is_some_and(|m| m.is_empty());
                own + bytes - usize::from(empty && members > 0)
            }
        }
    }

    /// Whether a Tool value exists (refused or not).
    pub fn has_tool(&self) -> bool {
        self.derivation.tool.is_some()
    }

    /// The derivation's problems (the hint's blocking diagnostics are in `blocked_by`).
    pub fn problems(&self) -> &[Problem] {
        &self.derivation.problems
    }

    /// Where the Tool's name, title and description came from.
    pub fn sources(&self) -> &crate::derive::Sources {
        &self.derivation.sources
    }

    /// The whole derivation, as one value (tests and oracles compare it).
    pub fn to_derivation(&self) -> Derivation {
        Derivation {
            tool: self.tool().cloned(),
            problems: self.derivation.problems.clone(),
            sources: self.derivation.sources.clone(),
        }
    }

    /// The constructs of the Tool's schemas that clients fail on
    /// ([`super::clients::constructs`]), read once per memoized schema.
    pub fn client_constructs(&self) -> Vec<super::clients::Found> {
        match &self.shared {
            Some(shared) => shared
                .constructs
                .get_or_init(|| super::clients::constructs_of_parted(&shared.schemas))
                .clone(),
            None => self
                .derivation
                .tool
                .as_ref()
                .map(super::clients::constructs)
                .unwrap_or_default(),
        }
    }

    /// The `$id`s of the Tool's schemas ([`super::clients::schema_ids`]).
    pub fn schema_ids(&self) -> Vec<(&'static str, String)> {
        match &self.shared {
            // A schema's `$id` is at its root, in the skeleton of a parted one.
            Some(shared) => super::clients::schema_ids_of(|name| {
                shared.schemas.field(name).map(|p| &p.skeleton)
            }),
            None => super::clients::schema_ids_of(|name| self.field(name)),
        }
    }

    pub fn name(&self) -> Option<&str> {
        self.field("name")?.as_str()
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
    let (derivation, shared) = match derive_memoized(model, process, values, location, &opts) {
        Some(d) => d,
        None => (
            Derivation {
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
            None,
        ),
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
        shared,
        whole: OnceLock::new(),
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
    entry.problems().iter().filter(|p| p.blocking).collect()
}

/// A Tool JSON value with sorted keys (what `derive` prints and the preview returns).
pub fn sorted(tool: &Value) -> Value {
    crate::derive::view::sorted(tool)
}

/// Derives one process. A root process's input and output schemas do not depend on its
/// `mcp:Tool` hint, so they are memoized by the document text without the hint (plus the
/// settings and the document's place): typing in the hint of a 50,000-line tool re-derives only
/// the Tool's header (name, title, description, annotations, `_meta`) from the document without
/// its `inputs`/`outputs`, and shares the memoized schemas, and the problems found in them
/// (the returned `Schemas`; the Tool of the derivation then has no schema fields).
/// `None` when the document's JSON cannot be built (alias bombs).
fn derive_memoized(
    model: &Model,
    process: &Process,
    hint: Option<&crate::hint::values::HintValues>,
    location: Location,
    opts: &DeriveOptions,
) -> Option<(Derivation, Option<Arc<schema_memo::Schemas>>)> {
    let (yaml, view, context) = (model.yaml(), model.view(), &model.context);
    let full = || {
        model
            .json()
            .map(|r| derive_process(r, process, hint, context, location, opts))
    };
    if !process.path.is_empty()
        || !crate::document::yaml::memo::enabled()
        || super::split::names_directives_around_inputs(model, process)
    {
        return full().map(|d| (d, None));
    }
    let Some(text) = yaml.text.clone() else {
        return full().map(|d| (d, None));
    };
    // The key shares the snapshot's text: nothing is copied on a keystroke.
    let key = schema_memo::Key::new(
        format!(
            "{:?}|{:?}|{}|{:?}|{:?}|{}",
            opts.profile,
            opts.protocol_version,
            context.uri,
            context.path,
            context.sandbox_root,
            context.file_stem
        ),
        text,
        process_hints(view, process).hint.map(|h| h.span.clone()),
    );
    let header = |yaml: &YamlDoc| {
        let mut json = process.node.to_json_without(yaml, &["inputs", "outputs"])?;
        if let Some(map) = json.as_object_mut() {
            map.insert("inputs".into(), Value::Array(Vec::new()));
            map.insert("outputs".into(), Value::Array(Vec::new()));
        }
        let (derivation, _) =
            derive_process_parted(&json, process, hint, context, location, opts, None);
        Some(derivation)
    };
    let (mut derivation, shared) = match schema_memo::lookup(&key) {
        Some(part) => (header(yaml)?, part),
        None => {
            let split = super::split::derive(model, process, hint, location, opts, &key.settings);
            let (mut whole, schemas) = match split {
                Some(whole) => whole,
                None => {
                    #[cfg(test)]
                    super::split::WHOLE.with(|n| n.set(n.get() + 1));
                    model.json().map(|r| {
                        derive_process_parted(r, process, hint, context, location, opts, None)
                    })?
                }
            };
            let assembled = |mut whole: Derivation, schemas: ToolSchemas| {
                if let Some(tool) = whole.tool.as_mut().and_then(Value::as_object_mut) {
                    schemas.move_into(tool);
                }
                Some((whole, None))
            };
            if whole.tool.is_none() {
                return assembled(whole, schemas);
            }
            let Some(head) = header(yaml) else {
                return assembled(whole, schemas);
            };
            // The schemas move into the memo (the header derivation is what this version keeps).
            let problems = std::mem::take(&mut whole.problems)
                .into_iter()
                .filter(|p| !head.problems.contains(p))
                .collect();
            let stored = schema_memo::store(
                key,
                schema_memo::Schemas {
                    schemas,
                    problems,
                    whole: Default::default(),
                    constructs: OnceLock::new(),
                    members: OnceLock::new(),
                },
            );
            (head, stored)
        }
    };
    derivation.problems.extend(shared.problems.iter().cloned());
    Some((derivation, Some(shared)))
}

mod schema_memo {
    use std::sync::{Arc, Mutex, OnceLock};

    use serde_json::Value;

    use crate::derive::{Problem, ToolSchemas};
    use crate::document::yaml::memo::BUDGET_BYTES;
    use crate::model::clients::Found;

    /// The Tool fields a memo holds.
    pub const FIELDS: [&str; 2] = crate::derive::parted::SCHEMA_FIELDS;

    #[derive(Debug)]
    pub struct Schemas {
        /// The two schemas, parted (each input's part shared with its memo).
        pub schemas: ToolSchemas,
        /// Problems of the full derivation that the header alone does not have.
        pub problems: Vec<Problem>,
        /// Each schema whole, assembled on first read ([`Schemas::field`]).
        pub whole: [OnceLock<Option<Value>>; 2],
        /// What `mcp-client-interop` finds in the two schemas, read once.
        pub constructs: OnceLock<Vec<Found>>,
        /// How many members the schemas add to a Tool object, and their bytes as compact
        /// JSON, each with its comma ([`Schemas::measure`]), once.
        pub members: OnceLock<(usize, usize)>,
    }

    impl Schemas {
        /// The whole schema of Tool field `name` (`inputSchema`, `outputSchema`).
        pub fn field(&self, name: &str) -> Option<&Value> {
            let i = FIELDS.iter().position(|f| *f == name)?;
            self.whole[i]
                .get_or_init(|| self.schemas.field(name).map(|p| p.assembled()))
                .as_ref()
        }

        /// The members the schemas add to a compact JSON object: `,"inputSchema":{…}` each,
        /// from the size of each part.
        pub fn measure(&self) -> (usize, usize) {
            self.schemas
                .fields()
                .fold((0, 0), |(n, bytes), (field, schema)| {
                    (n + 1, bytes + 1 + field.len() + 2 + 1 + schema.bytes())
                })
        }

        /// Puts the schemas, whole, into a header Tool where a plain derivation writes them
        /// (`inputSchema`, `outputSchema`, then `annotations` and `_meta`): both paths give
        /// the same Tool, key order included (`tests/incremental_sites.rs`).
        pub fn insert_into(&self, tool: &mut serde_json::Map<String, Value>) {
            let whole = FIELDS.map(|f| self.field(f).cloned());
            ToolSchemas::place(tool, whole);
        }
    }

    /// The document text without the hint, and the settings and place: what the schemas of a
    /// root process depend on. Kept in the memo as its hash ([`Stored`]).
    pub struct Key {
        pub settings: String,
        pub text: Arc<str>,
        pub hint: Option<std::ops::Range<usize>>,
        hash: OnceLock<u128>,
    }

    impl Key {
        pub fn new(settings: String, text: Arc<str>, hint: Option<std::ops::Range<usize>>) -> Key {
            Key {
                settings,
                text,
                hint,
                hash: OnceLock::new(),
            }
        }

        /// The settings, then the text before the hint and the text after it (or the whole
        /// text, when there is no hint).
        fn parts(&self) -> Vec<&[u8]> {
            let t = self.text.as_bytes();
            match &self.hint {
                Some(h) => vec![self.settings.as_bytes(), &t[..h.start], &t[h.end..]],
                None => vec![self.settings.as_bytes(), t],
            }
        }

        fn len(&self) -> usize {
            self.parts().iter().map(|p| p.len()).sum()
        }

        fn hash(&self) -> u128 {
            *self
                .hash
                .get_or_init(|| crate::base::content_hash(&self.parts()))
        }
    }

    /// A key as the memo keeps it: its hash ([`content_hash`](crate::base::content_hash),
    /// trusted as the key), and its length. No version's text is kept alive by the memo (it
    /// held the texts of the two most recent versions that stored schemas, 2.3 MB apiece at
    /// 50,000 lines, issue 14).
    struct Stored {
        hash: u128,
        len: usize,
    }

    /// At most this many entries, and beyond the two most recent no more than
    /// `BUDGET_BYTES` of document text (the length of each key) in all, the budget of the
    /// YAML memo.
    const CAPACITY: usize = 8;
    type Entry = (Stored, Arc<Schemas>);
    static MEMO: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

    /// The schemas memoized under `key`, moved to the front (the key hashed only when an
    /// entry has its length).
    pub fn lookup(key: &Key) -> Option<Arc<Schemas>> {
        let len = key.len();
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        let i = memo
            .iter()
            .position(|(k, _)| k.len == len && k.hash == key.hash())?;
        let entry = memo.remove(i);
        let found = entry.1.clone();
        memo.insert(0, entry);
        Some(found)
    }

    pub fn store(key: Key, schemas: Schemas) -> Arc<Schemas> {
        let schemas = Arc::new(schemas);
        let stored = Stored {
            hash: key.hash(),
            len: key.len(),
        };
        drop(key);
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        memo.insert(0, (stored, schemas.clone()));
        let kept = crate::document::yaml::memo::kept(
            memo.iter().map(|(k, _)| k.len),
            BUDGET_BYTES,
            CAPACITY,
        );
        // The evicted Tool's parts (one per input of a large `inputs`) are freed off the
        // keystroke's path.
        let evicted: Vec<Arc<Schemas>> = memo.split_off(kept).into_iter().map(|e| e.1).collect();
        drop(memo);
        crate::base::free_later(evicted);
        schemas
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
        let tools: Vec<Derivation> = m.entries().map(|e| e.to_derivation()).collect();
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
        assert_eq!(
            m.entry(1).to_derivation().exported().unwrap()["name"],
            "main"
        );
    }
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod fixture_tests;

#[cfg(test)]
mod memo_text_tests {
    use std::sync::{Arc, Weak};

    use crate::base::{DocumentContext, Settings};
    use crate::document::Document;
    use crate::model::Model;

    /// The model of `text` opened afresh (broken or not, as `broken` says), and the text its
    /// YAML and memos are keyed by (`T'` when broken), held weakly.
    fn analysed(text: String, broken: bool) -> (Weak<str>, Model) {
        let snapshot = Document::new(text, 1).snapshot();
        assert_eq!(snapshot.settled.is_some(), broken);
        let keyed = match &snapshot.settled {
            Some(settled) => Arc::downgrade(&settled.valid),
            None => Arc::downgrade(&snapshot.text),
        };
        let context = DocumentContext::from_uri("file:///w/tool.cwl");
        let model = Model::new(snapshot, Settings::default(), context);
        assert!(model.entries().next().is_some_and(|e| e.has_tool()));
        (keyed, model)
    }

    /// Whether `text` is freed within a second. Tests on other threads share the memos: one
    /// may hold a section memo for a moment (the recent sections a build reads).
    fn freed(text: &Weak<str>) -> bool {
        (0..1000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            text.upgrade().is_none()
        })
    }

    /// A version's text is freed with its last model: the memos that the next version finds
    /// again (its `inputs` and schemas unchanged while the hint is edited) share that
    /// version's text from then on, instead of keeping the text of the version that built
    /// them (2.3 MB apiece at 50,000 lines, issue 14). Also while an input is broken, where
    /// the memos are keyed by the settled text `T'`.
    #[test]
    fn memos_found_again_keep_no_text_of_the_version_before() {
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id());
        for broken in [false, true] {
            let inputs: String = (0..400)
                .map(|i| match i {
                    7 if broken => "  in_7: {type: string, doc: [x}\n".to_string(),
                    _ => format!("  in_{i}:\n    type: string\n    doc: input {i} of {tag}\n"),
                })
                .collect();
            let text = |description: &str| {
                format!(
                    "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n\
                     $namespaces: {{mcp: \"https://eoap.github.io/cwl-mcp-extension#\"}}\n\
                     hints:\n  - class: mcp:Tool\n    description: {description}\n\
                     inputs:\n{inputs}outputs: {{}}\nbaseCommand: echo\n"
                )
            };
            let version = |description: &str| analysed(text(description), broken);
            let (first, model) = version("Echoes.");
            let (_, next) = version("Echoes its inputs.");
            assert!(first.upgrade().is_some());
            drop(model);
            assert!(
                freed(&first),
                "broken: {broken}: the first version's text outlives its model"
            );
            drop(next);
        }
    }

    /// Typing in one input builds the new `inputs` from the one before, which then keeps only
    /// its text's hash: the text of the version before is freed with its model (neither the
    /// YAML memo's section nor the schema memo keeps it), and an undo still finds that
    /// section by its hash. Also while an input is broken (keyed by `T'`).
    #[test]
    fn a_section_built_from_the_one_before_frees_that_version_s_text() {
        use crate::document::yaml::memo::Memo;
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id());
        for broken in [false, true] {
            let text = |typed: &str| -> String {
                let inputs: String = (0..400)
                    .map(|i| match i {
                        7 if broken => "  in_7: {type: string, doc: [x}\n".to_string(),
                        200 => format!("  in_200:\n    type: string\n    doc: {typed}\n"),
                        _ => format!("  in_{i}:\n    type: string\n    doc: input {i} of {tag}\n"),
                    })
                    .collect();
                format!(
                    "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n\
                     $namespaces: {{mcp: \"https://eoap.github.io/cwl-mcp-extension#\"}}\n\
                     hints:\n  - class: mcp:Tool\n    description: Echoes.\n\
                     inputs:\n{inputs}outputs: {{}}\nbaseCommand: echo\n"
                )
            };
            let version = |typed: &str| -> (Weak<str>, Arc<Memo>, Model) {
                let (keyed, model) = analysed(text(typed), broken);
                let yaml = model.yaml();
                let inputs = yaml.root.as_ref().and_then(|r| r.get("inputs")).unwrap();
                let section = yaml.deferred_part(inputs).expect("a deferred `inputs`");
                (keyed, section.memo().clone(), model)
            };
            // Other tests share the memos and may evict ours between two versions: a few
            // tries, each with texts of its own.
            let undone = (0..5).any(|k| {
                let (first, section, model) = version(&format!("typed {k}"));
                let (_, _, next) = version(&format!("typed {k}, more"));
                drop(model);
                assert!(
                    freed(&first),
                    "broken: {broken}: the text of the version before outlives its model"
                );
                let (_, again, undo) = version(&format!("typed {k}"));
                drop((next, undo));
                Arc::ptr_eq(&section, &again)
            });
            assert!(
                undone,
                "broken: {broken}: an undo finds the section by its hash"
            );
        }
    }
}
