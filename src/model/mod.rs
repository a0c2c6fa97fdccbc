//! The model of one analysed document: built once per (text version, settings, place) and read
//! by every surface — push and pull diagnostics, `check`, `derive`, `tools-list`, the preview,
//! code lenses, hover, inlay hints, quick fixes and completion. Nothing above this layer runs
//! the analysis again; a surface that needs something the model does not hold adds it here.
//!
//! - [`Model::diagnostics`]: the document's own diagnostics (SPEC §5), sorted, each once;
//!   cross-document ones come from [`workspace`] over the models of a workspace.
//! - [`Model::entry`]: the derived Tool of each process (lazily for processes that no
//!   diagnostic needs), [`Model::served`] the ones a server would list (SPEC §10).
//! - [`Model::fixes`]: the quick fixes of every diagnostic, computed once on first use.
//! - [`Model::current_tool`]: the one answer to "which Tool does this text give": refused
//!   while the YAML is broken (SPEC §4, issue 9 item 8).
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::base::{Code, Diagnostic, DocumentContext, Settings};
use crate::cwl::CwlView;
use crate::document::Snapshot;
use crate::document::outline::{self, Outline};
use crate::document::yaml::YamlDoc;

pub mod agent;
pub mod analysis;
pub mod clients;
#[cfg(test)]
mod derive_tests;
pub mod edits;
pub mod effective;
pub mod fixes;
pub mod index;
pub mod linked;
pub mod links;
#[cfg(test)]
mod links_tests;
pub mod shared;
mod split;
pub mod tools;
pub mod workspace;

#[cfg(test)]
pub(crate) mod fixture;

pub use tools::ToolEntry;

self_cell::self_cell!(
    /// The YAML value tree and the CWL view that borrows it.
    struct Parsed {
        owner: Arc<YamlDoc>,
        #[covariant]
        dependent: CwlView,
    }
);

/// One analysed snapshot. Cheap to share (`Arc<Model>`); immutable once built.
pub struct Model {
    pub snapshot: Snapshot,
    pub settings: Settings,
    pub context: DocumentContext,
    parsed: Parsed,
    /// One slot per process of the view, derived on first use.
    entries: Vec<OnceLock<ToolEntry>>,
    /// The document's JSON value, built when a derivation needs it (`None`: alias bomb).
    json: OnceLock<Option<Value>>,
    /// The hint rules' findings: their diagnostics and each process's hint reading.
    pub(crate) validation: crate::hint::validate::Validation,
    diagnostics: OnceLock<Vec<Diagnostic>>,
    fixes: OnceLock<Vec<fixes::Fix>>,
    /// The local files the steps `run:` and why the `cwl2mcp` export fails, on first use.
    run_files: OnceLock<Vec<(crate::cwl::refs::Reference, std::path::PathBuf)>>,
    export_failures: OnceLock<Vec<linked::Failure>>,
    /// The text's lines read from indentation around the last completion's cursor
    /// ([`Model::outline_at`]), and the text's indentation unit, built on first use.
    outline: std::sync::Mutex<Option<Arc<Outline>>>,
    indent_unit: OnceLock<usize>,
}

/// Why no Tool is presented as the current one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No process matches the selector (or the document has none).
    NoProcess(String),
    /// The text has YAML syntax errors.
    Syntax(Vec<Reason>),
    /// The process's Tool cannot be derived: its blocking problems.
    Blocked(Vec<Reason>),
}

/// One reason for a refusal: where (0-based line, column in Unicode scalar values), what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    pub line: u32,
    pub column: u32,
    pub code: Code,
    pub message: String,
}

impl Refusal {
    pub fn reasons(&self) -> &[Reason] {
        match self {
            Refusal::NoProcess(_) => &[],
            Refusal::Syntax(r) | Refusal::Blocked(r) => r,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let listed = || {
            self.reasons()
                .iter()
                .map(|r| format!("line {}: {} [{}]", r.line + 1, r.message, r.code))
                .collect::<Vec<_>>()
                .join("; ")
        };
        match self {
            Refusal::NoProcess(what) => write!(f, "{what}"),
            Refusal::Syntax(_) => write!(
                f,
                "the MCP Tool cannot be derived: the YAML has syntax errors: {}",
                listed()
            ),
            Refusal::Blocked(_) => write!(f, "the MCP Tool cannot be derived: {}", listed()),
        }
    }
}

impl Model {
    /// Analyses `snapshot` under `settings` for the document at `context`.
    pub fn new(snapshot: Snapshot, settings: Settings, context: DocumentContext) -> Model {
        #[cfg(debug_assertions)]
        analysis::test_panic_hook(&snapshot.text);
        shared::count(snapshot.text.len());
        let yaml = Arc::new(YamlDoc::build(&snapshot));
        let parsed = Parsed::new(yaml, |yaml| CwlView::new(yaml));
        let count = parsed.borrow_dependent().processes.len();
        let validation = crate::hint::validate::validate(
            parsed.borrow_dependent(),
            parsed.borrow_owner(),
            &snapshot,
            &settings,
            &context,
        );
        Model {
            snapshot,
            settings,
            context,
            parsed,
            entries: (0..count).map(|_| OnceLock::new()).collect(),
            json: OnceLock::new(),
            validation,
            diagnostics: OnceLock::new(),
            fixes: OnceLock::new(),
            run_files: OnceLock::new(),
            export_failures: OnceLock::new(),
            outline: std::sync::Mutex::new(None),
            indent_unit: OnceLock::new(),
        }
    }

    /// A model of `text` parsed from scratch (the CLI, tests).
    pub fn of_text(text: &str, settings: Settings, context: DocumentContext) -> Model {
        Model::new(Snapshot::parse(text, 0), settings, context)
    }

    pub fn text(&self) -> &str {
        &self.snapshot.text
    }

    /// The text's lines as indentation reads them, for a cursor at byte `at`: those its walks
    /// reach ([`Outline::around`]: the lines of the top-level block holding it, the first line
    /// of every other block), kept for the next request of this version at a cursor in the
    /// same block.
    pub fn outline_at(&self, at: usize) -> Arc<Outline> {
        let block = outline::block_around(&self.snapshot.text, at);
        let mut slot = self.outline.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = slot.as_ref().filter(|o| o.block() == Some(&block)) {
            return o.clone();
        }
        let o = Arc::new(Outline::of_block(self.snapshot.text.clone(), block));
        *slot = Some(o.clone());
        o
    }

    /// The text's indentation unit ([`outline::indent_unit_of`]), on first use.
    pub fn indent_unit(&self) -> usize {
        *self
            .indent_unit
            .get_or_init(|| outline::indent_unit_of(&self.snapshot.text))
    }

    pub fn yaml(&self) -> &YamlDoc {
        self.parsed.borrow_owner()
    }

    pub fn view(&self) -> &CwlView<'_> {
        self.parsed.borrow_dependent()
    }

    /// The document's own diagnostics, sorted by position, each once: computed on first read
    /// (the server reads them right after building the model, on the analysis thread, so
    /// that a request arriving meanwhile, such as a completion after a keystroke, is answered
    /// from the model without waiting for them).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.diagnostics.get_or_init(|| analysis::diagnostics(self))
    }

    /// Whether [`Model::diagnostics`] are computed already.
    pub fn has_diagnostics(&self) -> bool {
        self.diagnostics.get().is_some()
    }

    /// Whether the current text has YAML syntax errors.
    pub fn syntax_broken(&self) -> bool {
        !self.yaml().errors.is_empty()
    }

    /// The document's JSON value (aliases expanded), built once.
    pub(crate) fn json(&self) -> Option<&Value> {
        self.json.get_or_init(|| self.yaml().to_json()).as_ref()
    }

    /// The derived Tool of process `index` of the view.
    pub fn entry(&self, index: usize) -> &ToolEntry {
        self.entries[index].get_or_init(|| tools::derive_entry(self, index))
    }

    /// Every process's entry, in document order.
    pub fn entries(&self) -> impl Iterator<Item = &ToolEntry> {
        (0..self.entries.len()).map(|i| self.entry(i))
    }

    /// The entries a server built from this document lists (SPEC §10): under `cwl2mcp` every
    /// process, as the exporter; under `extension` the processes with an `mcp:Tool` hint when
    /// any has one, else the document's entry process (`#main`, or the root process).
    pub fn served(&self) -> Vec<&ToolEntry> {
        let view = self.view();
        let hinted = |i: usize| {
            crate::hint::validate::process_hints(view, &view.processes[i])
                .hint
                .is_some()
        };
        match self.settings.profile {
            crate::base::Profile::Cwl2mcp => self.entries().collect(),
            crate::base::Profile::Extension if (0..self.entries.len()).any(hinted) => {
                (0..self.entries.len())
                    .filter(|i| hinted(*i))
                    .map(|i| self.entry(i))
                    .collect()
            }
            crate::base::Profile::Extension => self.select(None).into_iter().collect(),
        }
    }

    /// The entries whose problems are diagnostics (SPEC §5): every process under `cwl2mcp`,
    /// the processes with a hint under `extension` (a document without hints gets none).
    pub fn diagnosed(&self) -> Vec<&ToolEntry> {
        let view = self.view();
        (0..self.entries.len())
            .filter(|i| {
                self.settings.profile == crate::base::Profile::Cwl2mcp
                    || crate::hint::validate::process_hints(view, &view.processes[*i])
                        .hint
                        .is_some()
            })
            .map(|i| self.entry(i))
            .collect()
    }

    /// The entry `selector` names (a key, an id as written, or an id without `#`); `None`: the
    /// document's root process, or `main` / the first item of a `$graph`.
    pub fn select(&self, selector: Option<&str>) -> Result<&ToolEntry, Refusal> {
        let found = match selector {
            Some(k) => self.entries().find(|e| e.matches(k)),
            None => self
                .entries()
                .find(|e| !e.inline && e.matches("main"))
                .or_else(|| self.entries().find(|e| !e.inline)),
        };
        found.ok_or_else(|| {
            Refusal::NoProcess(match selector {
                Some(k) => format!("no process `{k}` in this document"),
                None => "no CWL process in this document".into(),
            })
        })
    }

    /// The selector that names `entry` and no other process: its key, or `@N` (its index) when
    /// an earlier process has the same key (duplicate ids). Lenses, the preview code action and
    /// `derive`'s `{ID: Tool}` maps use it, so each names the process it shows.
    pub fn selector(&self, entry: &ToolEntry) -> String {
        let uri = &self.context.uri;
        let first = self
            .view()
            .processes
            .iter()
            .position(|p| p.key.as_deref().unwrap_or(uri) == entry.key);
        if first == Some(entry.process_index) {
            entry.key.clone()
        } else {
            format!("@{}", entry.process_index)
        }
    }

    /// The Tool this text gives for `entry`, as `derive` prints it and the preview shows it, or
    /// why there is none: broken YAML refuses every Tool, then any blocking problem.
    pub fn current_tool<'m>(&'m self, entry: &'m ToolEntry) -> Result<&'m Value, Refusal> {
        self.current_tool_with(entry, &[])
    }

    /// [`Model::current_tool`] with the document's errors that come from other files
    /// (`linked`: a `run:` file whose `cwl2mcp` export fails), which fail the whole document
    /// as a missing `run:` target does.
    pub fn current_tool_with<'m>(
        &'m self,
        entry: &'m ToolEntry,
        linked: &[Diagnostic],
    ) -> Result<&'m Value, Refusal> {
        if self.syntax_broken() {
            return Err(Refusal::Syntax(
                self.yaml()
                    .errors
                    .iter()
                    .map(|e| self.reason(e.span.start, Code::YamlSyntax, &e.message))
                    .collect(),
            ));
        }
        // A `run:` target that cannot be loaded fails the whole document, as the exporter's
        // load (and cwltool's) does.
        let missing: Vec<Reason> = self
            .diagnostics()
            .iter()
            .filter(|d| d.code == Code::RunTargetMissing)
            .chain(linked)
            .map(|d| self.reason(d.span.start, d.code, &d.message))
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::Blocked(missing));
        }
        if entry.is_refused() {
            let mut reasons: Vec<(usize, String, Code)> = entry
                .blocked_by
                .iter()
                .map(|d| (d.span.start, d.message.clone(), d.code))
                .chain(
                    entry
                        .located
                        .iter()
                        .filter(|(p, _)| p.blocking)
                        .map(|(p, span)| (span.start, p.message.clone(), p.code)),
                )
                .collect();
            reasons.sort_by_key(|r| r.0);
            return Err(Refusal::Blocked(
                reasons
                    .into_iter()
                    .map(|(at, m, code)| self.reason(at, code, &m))
                    .collect(),
            ));
        }
        Ok(entry.tool().expect("not refused"))
    }

    fn reason(&self, at: usize, code: Code, message: &str) -> Reason {
        let p = self
            .snapshot
            .lines
            .position(at, crate::document::Encoding::Chars);
        Reason {
            line: p.line,
            column: p.character,
            code,
            message: message.to_string(),
        }
    }

    /// The 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> u32 {
        self.snapshot
            .lines
            .position(offset, crate::document::Encoding::Chars)
            .line
    }

    /// The local files the document's steps `run:` ([`linked::run_files`]), once.
    pub fn run_files(&self) -> &[(crate::cwl::refs::Reference, std::path::PathBuf)] {
        self.run_files.get_or_init(|| linked::run_files(self))
    }

    /// Why the document's `cwl2mcp` export fails ([`linked::failures`]), once.
    pub fn export_failures(&self) -> &[linked::Failure] {
        self.export_failures.get_or_init(|| linked::failures(self))
    }

    /// The quick fixes of every diagnostic of the document, computed on first use.
    pub fn fixes(&self) -> &[fixes::Fix] {
        self.fixes.get_or_init(|| fixes::fixes(self))
    }

    /// The fixes of the diagnostics that touch `range` (bytes).
    pub fn fixes_in(&self, range: Range<usize>) -> Vec<&fixes::Fix> {
        self.fixes()
            .iter()
            .filter(|f| {
                f.diagnostics
                    .iter()
                    .any(|(_, s)| s.start <= range.end && range.start <= s.end)
            })
            .collect()
    }
}

/// The diagnostics of `snapshot` (a model built and dropped): for callers that need nothing
/// else, such as tests and fuzz targets.
pub fn diagnostics(
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Vec<Diagnostic> {
    Model::new(snapshot.clone(), settings.clone(), context.clone())
        .diagnostics()
        .to_vec()
}
