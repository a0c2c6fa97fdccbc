//! The open documents: their text, and the model of their current version. All mutations
//! happen under one synchronous lock, before any `.await` (tower-lsp runs handlers
//! concurrently); models are built outside it, once per (version, settings generation).
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use tower_lsp_server::ls_types::Uri;

use crate::base::project::ConfigError;
use crate::base::{Code, Diagnostic, DocumentContext, Settings, Severity};
use crate::document::{Document, Snapshot};
use crate::model::Model;
use crate::model::analysis::sort;
use crate::model::index::IndexEntry;
use crate::model::linked;
use crate::model::workspace::{self, ServedName};

/// The model of one version of a document under one settings generation, built once by
/// whichever request or job needs it first; the others wait for it and share it.
pub type ModelCell = Arc<OnceLock<Arc<Model>>>;

pub struct OpenDocument {
    pub document: Document,
    pub context: DocumentContext,
    pub path: Option<PathBuf>,
    /// `(version, generation)` of `model`.
    pub cached: Option<((i32, u64), Cached)>,
    /// Whether asking ahead the verdicts a first break would ask of it was started
    /// ([`crate::document::Warming`]: once per open, after its first analysis).
    pub warmed: bool,
    /// Whether the last model built for it took longer than the protocol task may wait
    /// (`server::scheduler`): its next analysis runs on a blocking thread, whatever its size.
    pub slow: bool,
}

impl OpenDocument {
    /// Applies a `didChange`. A change after which the text must be parsed from scratch (it
    /// breaks the YAML, `Document::reparse`) first hands the superseded version's model to the
    /// freeing thread: that model holds the previous tree, and with both trees alive the
    /// fresh parse peaked at one tree more (about 36 MB at 50,000 lines). Requests still using
    /// it hold their own `Arc`. Any other change keeps it until the new version's model
    /// replaces it: other documents' `run:` rules read an open document's latest model.
    pub fn apply_changes(
        &mut self,
        changes: &[crate::document::Change],
        version: i32,
        encoding: crate::document::Encoding,
    ) -> Result<(), crate::document::OutOfRange> {
        let cached = &mut self.cached;
        self.document
            .apply_changes_then(changes, version, encoding, || {
                crate::base::free_later(cached.take())
            })
    }
}

/// What is cached per document version: its settings, their project-file error, the model.
#[derive(Clone)]
pub struct Cached {
    pub settings: Settings,
    pub config_error: Option<ConfigError>,
    pub model: ModelCell,
}

#[derive(Default)]
pub struct State {
    pub docs: HashMap<Uri, OpenDocument>,
    /// Documents whose diagnostics must be recomputed.
    pub dirty: HashSet<Uri>,
    pub shutting_down: bool,
    /// The `(version, generation)` last published per document (push clients).
    pub published: HashMap<Uri, (i32, u64)>,
    /// The names each open document serves (for cross-document `tool-name-duplicate`).
    pub served: HashMap<Uri, Vec<ServedName>>,
    /// The `(version, generation)` each entry of `served` was computed for.
    pub served_at: HashMap<Uri, (i32, u64)>,
    /// The workspace index (SPEC §10): every `*.cwl` of the workspace folders, by path, with
    /// its URI. Open documents win: an entry whose path is open is not used for diagnostics.
    pub index: HashMap<PathBuf, Indexed>,
    /// Bumped by every index build: a build that is no longer the latest stops.
    pub index_build: u64,
    /// The open documents by canonical path (the files `run:` reaches are looked up here).
    pub by_path: HashMap<PathBuf, Uri>,
    /// The open documents whose `cwl2mcp` export was last seen to reach each file (recorded by
    /// [`State::linked`]): re-published when that file changes. May hold stale entries (a
    /// spurious re-publish, never a missed one).
    pub reached_by: HashMap<PathBuf, HashSet<Uri>>,
}

/// One file of the workspace index, with the URI its diagnostics and related places use.
#[derive(Clone, Debug)]
pub struct Indexed {
    pub uri: String,
    pub entry: IndexEntry,
}

/// What building a model needs, taken under the lock and used outside it.
#[derive(Clone)]
pub struct Job {
    pub uri: Uri,
    pub snapshot: Snapshot,
    pub context: DocumentContext,
    pub path: Option<PathBuf>,
    pub key: (i32, u64),
    /// Set when the document already has a cache entry for `key`.
    pub cached: Option<Cached>,
    /// Whether a version before this one was analysed (its sections are in the memos: this
    /// analysis reads what the edits changed, [`crate::document::yaml::memo`]).
    pub edited: bool,
    /// [`OpenDocument::slow`].
    pub slow: bool,
}

impl State {
    /// The job of an open document under settings generation `generation`.
    pub fn job(&self, uri: &Uri, generation: u64) -> Option<Job> {
        let doc = self.docs.get(uri)?;
        let key = (doc.document.version(), generation);
        Some(Job {
            uri: uri.clone(),
            snapshot: doc.document.snapshot(),
            context: doc.context.clone(),
            path: doc.path.clone(),
            key,
            cached: doc
                .cached
                .as_ref()
                .filter(|(k, _)| *k == key)
                .map(|(_, c)| c.clone()),
            edited: doc.cached.as_ref().is_some_and(|(k, _)| k.0 != key.0),
            slow: doc.slow,
        })
    }

    /// Stores `cached` for `uri` at `key` unless the document moved on; returns the entry in
    /// place (another request may have stored one first).
    pub fn store(&mut self, uri: &Uri, key: (i32, u64), cached: Cached) -> Cached {
        let Some(doc) = self.docs.get_mut(uri) else {
            return cached;
        };
        if doc.document.version() != key.0 {
            return cached;
        }
        match &doc.cached {
            Some((k, existing)) if *k == key => existing.clone(),
            _ => {
                crate::base::free_later(doc.cached.replace((key, cached.clone())));
                cached
            }
        }
    }

    /// The open documents (other than `except`) whose served names are not known for their
    /// current version and settings: what must be analysed before cross-document answers.
    pub fn stale_served(&self, except: &Uri, generation: u64) -> Vec<Job> {
        let mut out: Vec<Job> = self
            .docs
            .keys()
            .filter(|u| *u != except)
            .filter_map(|u| self.job(u, generation))
            .filter(|j| self.served_at.get(&j.uri) != Some(&j.key))
            .collect();
        out.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        out
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.docs.get(uri).map(|d| d.document.version())
    }

    /// Records the names `uri` serves; returns the other documents whose cross-document
    /// diagnostics may change (they shared an old or a new name).
    pub fn set_served(&mut self, uri: &Uri, key: (i32, u64), names: Vec<ServedName>) -> Vec<Uri> {
        let reaching = self
            .docs
            .get(uri)
            .and_then(|d| d.path.clone())
            .map(|p| self.reaching(uri, &p))
            .unwrap_or_default();
        let mut out = self.set_served_names(uri, key, names);
        out.extend(reaching);
        out.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        out.dedup();
        out
    }

    /// What an analysis of `uri` at `key` changes for the other open documents, whichever
    /// surface ran it (the diagnostics worker, a pulled diagnostic): the names it serves are
    /// recorded while that version is current, and `others` (documents whose names
    /// [`refresh_served`](super::scheduler::refresh_served) brought up to date meanwhile) added.
    pub fn served_by_analysis(
        &mut self,
        uri: &Uri,
        key: (i32, u64),
        names: Vec<ServedName>,
        others: Vec<Uri>,
    ) -> Vec<Uri> {
        let mut affected = if self.version(uri) == Some(key.0) {
            self.set_served(uri, key, names)
        } else {
            Vec::new()
        };
        affected.extend(others.into_iter().filter(|o| o != uri));
        affected.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        affected.dedup();
        affected
    }

    fn set_served_names(&mut self, uri: &Uri, key: (i32, u64), names: Vec<ServedName>) -> Vec<Uri> {
        self.served_at.insert(uri.clone(), key);
        let old = self
            .served
            .insert(uri.clone(), names.clone())
            .unwrap_or_default();
        let same = |a: &[ServedName], b: &[ServedName]| {
            let ids = |n: &ServedName| {
                n.schema_ids
                    .iter()
                    .map(|i| i.id.clone())
                    .collect::<Vec<_>>()
            };
            a.iter()
                .map(|n| (&n.name, ids(n)))
                .eq(b.iter().map(|n| (&n.name, ids(n))))
        };
        if same(&old, &names) {
            return Vec::new();
        }
        self.sharing(uri, old.iter().chain(names.iter()))
    }

    /// Whether a document at `path` is open (its text wins over the file on disk).
    pub fn is_open(&self, path: &std::path::Path) -> bool {
        self.docs.values().any(|d| d.path.as_deref() == Some(path))
    }

    /// Records (or, with `None`, forgets) the index entry of `path`; returns the open
    /// documents whose cross-document diagnostics may change (they share an old or new name).
    pub fn set_indexed(&mut self, path: PathBuf, indexed: Option<Indexed>) -> Vec<Uri> {
        let old = match indexed {
            Some(new) => {
                let names: Vec<String> = new.entry.names.iter().map(|n| n.name.clone()).collect();
                let old = self.index.insert(path.clone(), new);
                let mut all = names;
                all.extend(
                    old.iter()
                        .flat_map(|o| o.entry.names.iter().map(|n| n.name.clone())),
                );
                all
            }
            None => self
                .index
                .remove(&path)
                .map(|o| o.entry.names.iter().map(|n| n.name.clone()).collect())
                .unwrap_or_default(),
        };
        let uri = Uri::from_file_path(&path);
        let mut out: Vec<Uri> = self
            .served
            .iter()
            .filter(|(u, served)| {
                Some(*u) != uri.as_ref() && served.iter().any(|n| old.contains(&n.name))
            })
            .map(|(u, _)| u.clone())
            .collect();
        if let Some(uri) = &uri {
            out.extend(self.reaching(uri, &path));
        }
        out.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        out.dedup();
        out
    }

    /// The files `model` reaches through `run:` (SPEC §10), from the open documents and the
    /// index (nothing is read under the lock): what [`linked::diagnostics`] needs of each.
    ///
    /// [`linked::diagnostics`]: crate::model::linked::diagnostics
    fn reached(&self, model: &Model) -> Vec<linked::Reached<Vec<linked::Failure>>> {
        linked::reach(model, |p| {
            let open = self.by_path.get(p).and_then(|u| self.docs.get(u));
            if let Some(m) = open
                .and_then(|d| d.cached.as_ref())
                .and_then(|(_, c)| c.model.get())
            {
                let files = m.run_files().iter().map(|(_, f)| f.clone()).collect();
                return Some((m.export_failures().to_vec(), files));
            }
            self.index
                .get(p)
                .map(|i| (i.entry.failures.clone(), i.entry.run_files.clone()))
        })
    }

    /// The errors the files `model` reaches through `run:` give it under `cwl2mcp`
    /// ([`linked::diagnostics`]), as every surface shows them: diagnostics, the preview and
    /// the lenses.
    pub fn linked(&mut self, uri: &Uri, model: &Model) -> Vec<Diagnostic> {
        if model.settings.profile != crate::base::Profile::Cwl2mcp {
            return Vec::new();
        }
        let reached = self.reached(model);
        for r in &reached {
            self.reached_by
                .entry(r.path.clone())
                .or_default()
                .insert(uri.clone());
        }
        linked::diagnostics(model, &reached, |p| {
            Uri::from_file_path(p)
                .map(|u| u.as_str().to_string())
                .unwrap_or_default()
        })
    }

    /// The open documents other than `uri` whose `cwl2mcp` export reaches `path` through
    /// `run:`: their diagnostics follow that file.
    fn reaching(&self, uri: &Uri, path: &std::path::Path) -> Vec<Uri> {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.reached_by
            .get(&path)
            .into_iter()
            .flatten()
            .filter(|u| *u != uri && self.docs.contains_key(*u))
            .cloned()
            .collect()
    }

    /// Forgets `uri`'s names; returns the documents that shared one.
    pub fn remove_served(&mut self, uri: &Uri) -> Vec<Uri> {
        self.served_at.remove(uri);
        let old = self.served.remove(uri).unwrap_or_default();
        self.sharing(uri, old.iter())
    }

    /// The other documents that serve one of these names or schema `$id`s.
    fn sharing<'n>(&self, uri: &Uri, served: impl Iterator<Item = &'n ServedName>) -> Vec<Uri> {
        let mut names: HashSet<&str> = HashSet::new();
        let mut ids: HashSet<&str> = HashSet::new();
        for n in served {
            names.insert(n.name.as_str());
            ids.extend(n.schema_ids.iter().map(|i| i.id.as_str()));
        }
        let mut out: Vec<Uri> = self
            .served
            .iter()
            .filter(|(u, served)| {
                *u != uri
                    && served.iter().any(|n| {
                        names.contains(n.name.as_str())
                            || n.schema_ids.iter().any(|i| ids.contains(i.id.as_str()))
                    })
            })
            .map(|(u, _)| u.clone())
            .collect();
        out.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        out
    }

    /// The diagnostics of `uri` as every surface shows them (push and pull alike): the model's
    /// own, the cross-document ones over the open documents, and a malformed `cwl-mcp.toml`
    /// that governs it.
    pub fn diagnostics(
        &mut self,
        uri: &Uri,
        model: &Model,
        config_error: Option<&ConfigError>,
    ) -> Vec<Diagnostic> {
        let mut out = model.diagnostics().to_vec();
        let mine = workspace::served_names(model, workspace::Scope::Diagnosed);
        let mut documents = vec![(uri.as_str().to_string(), mine)];
        // Only documents that serve something can share a name or a schema `$id`: the others
        // (most of a workspace under `extension`) are not copied on every publish.
        documents.extend(
            self.served
                .iter()
                .filter(|(u, names)| *u != uri && !names.is_empty())
                .map(|(u, names)| (u.as_str().to_string(), names.clone())),
        );
        // The files of the workspace that are not open, from the index.
        let open: HashSet<&std::path::Path> = self
            .docs
            .values()
            .filter_map(|d| d.path.as_deref())
            .collect();
        documents.extend(
            self.index
                .iter()
                .filter(|(path, i)| !open.contains(path.as_path()) && !i.entry.names.is_empty())
                .map(|(_, i)| (i.uri.clone(), i.entry.names.clone())),
        );
        documents[1..].sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(
            workspace::across(0, &documents)
                .into_iter()
                .filter(|d| crate::model::analysis::reported(&model.settings, d.code)),
        );
        // Under `cwl2mcp`, a `run:` file whose export fails fails this document's.
        out.extend(self.linked(uri, model));
        if let Some(e) = config_error {
            let text = model.text();
            let end = text.find('\n').unwrap_or(text.len());
            let end = text[..end].trim_end_matches('\r').len();
            out.push(Diagnostic::new(
                0..end,
                Severity::Error,
                Code::Config,
                format!(
                    "the project file {} is malformed and ignored (built-in settings apply): {}",
                    e.path.display(),
                    e.message
                ),
            ));
        }
        sort(&mut out);
        out
    }
}

pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Change, Encoding, Position};

    #[test]
    fn a_change_that_breaks_the_yaml_releases_the_superseded_model_before_the_fresh_parse() {
        let text = "cwlVersion: v1.2\nclass: CommandLineTool\nbaseCommand: [echo]\n";
        let document = Document::new(text.into(), 1);
        let model = Arc::new(Model::new(
            document.snapshot(),
            Settings::default(),
            DocumentContext::default(),
        ));
        let cell: ModelCell = Arc::new(OnceLock::new());
        let _ = cell.set(model.clone());
        let cached = Cached {
            settings: Settings::default(),
            config_error: None,
            model: cell,
        };
        let mut open = OpenDocument {
            document,
            warmed: false,
            slow: false,
            context: DocumentContext::default(),
            path: None,
            cached: Some(((1, 0), cached)),
        };
        let weak = Arc::downgrade(&model);
        drop(model);
        // A change that keeps the YAML valid keeps the model until the new one replaces it.
        let valid = Change {
            range: Some((Position::new(2, 14), Position::new(2, 14))),
            text: "x".into(),
        };
        open.apply_changes(&[valid], 2, Encoding::Utf16).unwrap();
        assert!(open.cached.is_some());
        assert!(!open.document.snapshot().tree.root_node().has_error());
        // `]` deleted: the YAML breaks, so the whole text is parsed again.
        let change = Change {
            range: Some((Position::new(2, 19), Position::new(2, 20))),
            text: String::new(),
        };
        open.apply_changes(&[change], 3, Encoding::Utf16).unwrap();
        assert!(open.cached.is_none());
        assert!(open.document.snapshot().tree.root_node().has_error());
        // Freed on the freeing thread: wait for it (bounded).
        let t = std::time::Instant::now();
        while weak.strong_count() > 0 && t.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(
            weak.strong_count(),
            0,
            "the superseded model is still alive"
        );
    }
}
