//! The server's mutable state: open documents and settings. All mutations happen here, under
//! one synchronous lock, before any `.await` (tower-lsp runs handlers concurrently).
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::Uri;

use crate::analysis::DocumentContext;
use crate::config::{self, ConfigError, Layer};
use crate::document::{Document, Encoding, Snapshot};
use crate::settings::Settings;

pub struct OpenDocument {
    pub document: Document,
    pub context: DocumentContext,
    pub path: Option<PathBuf>,
}

#[derive(Default)]
pub struct State {
    pub docs: HashMap<Uri, OpenDocument>,
    pub encoding: Encoding,
    /// Settings the user set explicitly in the editor.
    pub editor_layer: Layer,
    pub workspace_roots: Vec<PathBuf>,
    /// Documents whose diagnostics must be recomputed and published.
    pub dirty: HashSet<Uri>,
    /// Project files currently reported as malformed.
    pub bad_project_files: HashSet<PathBuf>,
    pub shutting_down: bool,
    /// Bumped whenever settings change, so that the same version is re-analysed and
    /// republished under the new settings, but never published twice otherwise.
    pub generation: u64,
    /// The (version, generation) last published per document.
    pub published: HashMap<Uri, (i32, u64)>,
    /// The MCP Tool names each open document derives, for workspace-wide duplicates.
    pub tool_names: HashMap<Uri, Vec<String>>,
}

/// What an analysis run needs, taken under the lock and used outside it.
#[derive(Clone)]
pub struct Job {
    pub uri: Uri,
    pub snapshot: Snapshot,
    pub settings: Settings,
    pub context: DocumentContext,
    pub config_error: Option<ConfigError>,
    pub generation: u64,
}

impl State {
    /// The workspace root that holds `path`, if any.
    fn root_of(&self, path: &Path) -> Option<&Path> {
        self.workspace_roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.as_os_str().len())
            .map(PathBuf::as_path)
    }

    /// Effective settings for a document, with the error of a malformed project file.
    pub fn settings_for(&self, path: Option<&Path>) -> (Settings, Option<ConfigError>) {
        let (project, error) = match path.and_then(Path::parent) {
            Some(dir) => match config::load_project_layer(dir, self.root_of(dir)) {
                Ok(found) => (found.map(|(_, l)| l).unwrap_or_default(), None),
                Err(e) => (Layer::default(), Some(e)),
            },
            None => (Layer::default(), None),
        };
        (Layer::resolve(&[&project, &self.editor_layer]), error)
    }

    pub fn job(&self, uri: &Uri) -> Option<Job> {
        let doc = self.docs.get(uri)?;
        let (settings, config_error) = self.settings_for(doc.path.as_deref());
        Some(Job {
            uri: uri.clone(),
            snapshot: doc.document.snapshot(),
            settings,
            context: doc.context.clone(),
            config_error,
            generation: self.generation,
        })
    }

    /// The folder local reads of a document must stay in (SPEC §9): its workspace folder, else
    /// the nearest parent holding `.git` or `cwl-mcp.toml`, else its own folder.
    pub fn sandbox_for(&self, path: &Path) -> Option<PathBuf> {
        let dir = path.parent()?;
        if let Some(root) = self.root_of(dir) {
            return Some(root.to_path_buf());
        }
        let marked = dir
            .ancestors()
            .find(|d| d.join(".git").exists() || d.join(config::PROJECT_FILE).is_file());
        Some(marked.unwrap_or(dir).to_path_buf())
    }

    /// Open documents other than `uri` that derive `name`.
    pub fn other_documents_naming(&self, uri: &Uri, name: &str) -> Vec<Uri> {
        self.tool_names
            .iter()
            .filter(|(u, names)| *u != uri && names.iter().any(|n| n == name))
            .map(|(u, _)| u.clone())
            .collect()
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.docs.get(uri).map(|d| d.document.version())
    }
}

pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}
