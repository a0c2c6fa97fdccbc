//! The session: what holds for every document of a workspace — its folders, the editor's
//! settings, and the `cwl-mcp.toml` files — resolved once and kept until something changes
//! (a `workspace/didChangeWatchedFiles` for a project file, `didChangeConfiguration`). It has its
//! own lock: settings are resolved, and project files read, outside the documents' lock.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::base::project::{self, ConfigError, Layer};
use crate::base::{BoundaryRule, Settings, read_boundary};

type Found = Option<(PathBuf, Result<Layer, ConfigError>)>;

/// One project-file lookup and what it depended on: each candidate path with its modification
/// time when it existed.
#[derive(Clone)]
struct Lookup {
    found: Found,
    stamps: Vec<(PathBuf, Option<std::time::SystemTime>)>,
}

fn stamp(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())?
        .modified()
        .ok()
}

#[derive(Default)]
pub struct Session {
    /// The workspace folders (absolute paths).
    pub folders: Vec<PathBuf>,
    /// `initializationOptions.cwlMcp`: what the user set when the client started the server.
    init: Layer,
    /// The last `cwlMcp` settings object the client sent (configuration answer or
    /// `didChangeConfiguration`), over `init`.
    pulled: Layer,
    /// Project-file lookups per folder: `None` = no `cwl-mcp.toml` up to the workspace root.
    projects: HashMap<PathBuf, Lookup>,
    /// The client watches `**/cwl-mcp.toml` for us: lookups stay valid until it reports a
    /// change. Otherwise each lookup is checked against the files' modification times (a few
    /// `stat`s, no reads) before it is reused.
    pub watching: bool,
    /// Bumped whenever settings or project files may have changed: every model built before is
    /// stale.
    pub generation: u64,
    /// Malformed project files whose own diagnostic was published.
    reported: std::collections::BTreeMap<PathBuf, String>,
}

/// What a settings object from the editor did.
#[derive(Debug, PartialEq, Eq)]
pub struct Applied {
    pub changed: bool,
    pub problems: Vec<String>,
}

impl Session {
    /// The settings given in `initializationOptions` (SPEC §1).
    pub fn set_initialization_options(&mut self, value: &serde_json::Value) -> Vec<String> {
        let (layer, problems) = Layer::from_json(value);
        self.init = layer;
        self.generation += 1;
        problems
    }

    /// A `cwlMcp` settings object from `workspace/configuration` or `didChangeConfiguration`.
    /// `null` or an empty object carries nothing and changes nothing (a client without
    /// settings for the section answers so; Neovim does); any other object replaces the
    /// previously received one, over the initialization options.
    pub fn apply_editor_settings(&mut self, value: &serde_json::Value) -> Applied {
        self.apply(value, false)
    }

    /// Settings pushed by `didChangeConfiguration` with an explicit `cwlMcp` object: it is the
    /// whole of the user's settings, so an empty object removes what was set before (the
    /// initialization options still apply).
    pub fn replace_editor_settings(&mut self, value: &serde_json::Value) -> Applied {
        self.apply(value, true)
    }

    fn apply(&mut self, value: &serde_json::Value, empty_replaces: bool) -> Applied {
        let empty = value.is_null() || value.as_object().is_some_and(|o| o.is_empty());
        if empty && !empty_replaces {
            return Applied {
                changed: false,
                problems: Vec::new(),
            };
        }
        let (layer, problems) = Layer::from_json(value);
        let changed = layer != self.pulled;
        if changed {
            self.pulled = layer;
            self.generation += 1;
        }
        Applied { changed, problems }
    }

    /// Forgets every project-file lookup (a `cwl-mcp.toml` was created, changed or deleted).
    pub fn reload_project_files(&mut self) {
        self.projects.clear();
        self.generation += 1;
    }

    /// The workspace folder holding `path` (the innermost), where project-file lookups stop.
    fn folder_of(&self, path: &Path) -> Option<&Path> {
        self.folders
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.as_os_str().len())
            .map(PathBuf::as_path)
    }

    /// The effective settings of a document at `path` (SPEC §1: defaults < `cwl-mcp.toml` <
    /// the editor's explicit settings), with the error of a malformed project file governing it.
    pub fn settings_for(&mut self, path: Option<&Path>) -> (Settings, Option<ConfigError>) {
        let (project, error) = match path.and_then(Path::parent) {
            Some(dir) => match self.project_file(dir) {
                Some((_, Ok(layer))) => (layer, None),
                Some((_, Err(e))) => (Layer::default(), Some(e)),
                None => (Layer::default(), None),
            },
            None => (Layer::default(), None),
        };
        (Layer::resolve(&[&project, &self.init, &self.pulled]), error)
    }

    fn project_file(&mut self, dir: &Path) -> Found {
        if let Some(lookup) = self.projects.get(dir)
            && (self.watching || lookup.stamps.iter().all(|(p, t)| stamp(p) == *t))
        {
            return lookup.found.clone();
        }
        let stop = self.folder_of(dir).map(Path::to_path_buf);
        let mut stamps = Vec::new();
        for d in dir.ancestors() {
            let candidate = d.join(project::PROJECT_FILE);
            let t = stamp(&candidate);
            stamps.push((candidate, t));
            if t.is_some() || stop.as_deref() == Some(d) {
                break;
            }
        }
        let found = project::find_project_file(dir, stop.as_deref()).map(|path| {
            let layer = std::fs::read_to_string(&path)
                .map_err(|e| ConfigError {
                    path: path.clone(),
                    message: format!("cannot read: {e}"),
                    span: None,
                })
                .and_then(|text| project::parse_project_file(&path, &text));
            (path, layer)
        });
        self.projects.insert(
            dir.to_path_buf(),
            Lookup {
                found: found.clone(),
                stamps,
            },
        );
        found
    }

    /// Every malformed project file found so far (for their own diagnostics).
    pub fn malformed_project_files(&self) -> Vec<ConfigError> {
        let mut out: Vec<ConfigError> = self
            .projects
            .values()
            .filter_map(|l| l.found.as_ref())
            .filter_map(|(_, r)| r.as_ref().err().cloned())
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup();
        out
    }

    /// What changed since the last call in the malformed project files' own diagnostics:
    /// (newly malformed, fixed or gone). Each is published once, not on every keystroke.
    pub fn project_file_reports(&mut self) -> (Vec<ConfigError>, Vec<PathBuf>) {
        let bad = self.malformed_project_files();
        let fixed: Vec<PathBuf> = self
            .reported
            .keys()
            .filter(|p| !bad.iter().any(|e| &e.path == *p))
            .cloned()
            .collect();
        for p in &fixed {
            self.reported.remove(p);
        }
        let new: Vec<ConfigError> = bad
            .into_iter()
            .filter(|e| {
                self.reported.insert(e.path.clone(), e.message.clone()) != Some(e.message.clone())
            })
            .collect();
        (new, fixed)
    }

    /// The folder local reads of a document at `path` must stay in (SPEC §9).
    pub fn read_boundary(&self, path: &Path) -> PathBuf {
        read_boundary(path, &self.folders, BoundaryRule::Editor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Profile;
    use serde_json::json;

    #[test]
    fn null_or_empty_answers_keep_the_initialization_options() {
        let mut s = Session::default();
        s.set_initialization_options(&json!({"profile": "cwl2mcp"}));
        for answer in [json!(null), json!({})] {
            let applied = s.apply_editor_settings(&answer);
            assert!(!applied.changed);
            assert_eq!(s.settings_for(None).0.profile, Profile::Cwl2mcp);
        }
        let applied = s.apply_editor_settings(&json!({"inlayHints": false}));
        assert!(applied.changed);
        let settings = s.settings_for(None).0;
        assert_eq!(settings.profile, Profile::Cwl2mcp);
        assert!(!settings.inlay_hints);
        assert!(
            s.apply_editor_settings(&json!({"profile": "extension"}))
                .changed
        );
        assert_eq!(s.settings_for(None).0.profile, Profile::Extension);
    }

    #[test]
    fn project_files_are_read_once_until_reloaded() {
        let dir = std::env::temp_dir().join(format!("cwl-mcp-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let doc = dir.join("a.cwl");
        std::fs::write(dir.join("cwl-mcp.toml"), "profile = \"cwl2mcp\"\n").unwrap();
        let mut s = Session {
            folders: vec![dir.clone()],
            watching: true,
            ..Session::default()
        };
        assert_eq!(s.settings_for(Some(&doc)).0.profile, Profile::Cwl2mcp);
        std::fs::write(dir.join("cwl-mcp.toml"), "profile = \n").unwrap();
        // Cached: the change is seen only after a reload.
        assert_eq!(s.settings_for(Some(&doc)).0.profile, Profile::Cwl2mcp);
        let before = s.generation;
        s.reload_project_files();
        assert!(s.generation > before);
        let (settings, error) = s.settings_for(Some(&doc));
        assert_eq!(settings.profile, Profile::Extension);
        assert!(error.is_some());
        assert_eq!(s.malformed_project_files().len(), 1);
        // Without a watcher, a changed file is noticed by its modification time.
        s.watching = false;
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.join("cwl-mcp.toml"), "profile = \"cwl2mcp\"\n").unwrap();
        let (settings, error) = s.settings_for(Some(&doc));
        assert_eq!(settings.profile, Profile::Cwl2mcp);
        assert!(error.is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
