//! The workspace index (SPEC §10): which `*.cwl` files a workspace holds (one walker for the
//! server, `check DIR` and `tools-list DIR`), and per file only what cross-file rules and
//! navigation need — its diagnosed Tool names with their lines, its served Tools (name, title,
//! key, line), its references, and a version stamp. No trees are kept.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::cwl::refs::Reference;
use crate::derive::resolve::MAX_FILE_BYTES;

use super::Model;
use super::workspace::{Scope, ServedName, served_names};

/// Every `*.cwl` under `root` (a file is taken as given), sorted: `.gitignore`, `.ignore` and
/// `.git/info/exclude` are respected (inside `root` only: nothing above it is read), hidden
/// files and folders are skipped, folder symlinks are not followed, and a file symlink counts
/// only when its target stays inside `root`.
pub fn cwl_files(root: &Path) -> Vec<PathBuf> {
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut out: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .standard_filters(true)
        .parents(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .build()
        .flatten()
        .filter(|e| e.depth() > 0)
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwl"))
        .filter(|e| match e.file_type() {
            Some(t) if t.is_file() => true,
            Some(t) if t.is_symlink() => std::fs::canonicalize(e.path())
                .is_ok_and(|real| real.is_file() && real.starts_with(&real_root)),
            _ => false,
        })
        .map(ignore::DirEntry::into_path)
        .collect();
    out.sort();
    out
}

/// Every `*.cwl` under the given paths (files are taken as given), in a stable order; an
/// error names a path that does not exist.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.is_dir() {
            out.extend(cwl_files(path));
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// What a file's entry was built from: its length and modification time on disk, or the
/// version of the open document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    Disk(u64, Option<SystemTime>),
    Open(i32),
}

impl Stamp {
    /// The stamp of `path` on disk, `None` when it is not a readable regular file.
    pub fn of_file(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        Some(Stamp::Disk(meta.len(), meta.modified().ok()))
    }
}

/// One served Tool of a file, for workspace symbols and hover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedTool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The process key (`derive FILE#KEY`).
    pub key: String,
    /// The process `id` as written.
    pub id: Option<String>,
    /// 0-based line of the Tool's anchor.
    pub line: u32,
}

/// One file of the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub stamp: Stamp,
    /// The names taking part in `tool-name-duplicate` (SPEC §5: [`Scope::Diagnosed`]).
    pub names: Vec<ServedName>,
    /// The Tools a server built from the file lists (SPEC §10).
    pub tools: Vec<IndexedTool>,
    /// Its `run:`, `$import` and `$include` references.
    pub references: Vec<Reference>,
    /// The local files its steps `run:` (canonical paths; [`Model::run_files`]); under
    /// `extension`, empty.
    pub run_files: Vec<PathBuf>,
    /// Under `cwl2mcp`, why its whole-document export fails ([`Model::export_failures`]):
    /// a document that `run:`s it fails too. Empty under `extension`.
    pub failures: Vec<super::linked::Failure>,
}

impl IndexEntry {
    /// The entry of an analysed file.
    pub fn of_model(model: &Model, stamp: Stamp) -> IndexEntry {
        let tools = model
            .served()
            .into_iter()
            .filter_map(|e| {
                e.has_tool().then_some(())?;
                let text = |k: &str| e.field(k).and_then(|v| v.as_str()).map(str::to_string);
                Some(IndexedTool {
                    name: e.name()?.to_string(),
                    title: text("title"),
                    description: text("description"),
                    key: model.selector(e),
                    id: e.id.clone(),
                    line: model.line_of(e.anchor.start),
                })
            })
            .collect();
        IndexEntry {
            stamp,
            names: served_names(model, Scope::Diagnosed),
            tools,
            references: model.references(),
            // Only a `cwl2mcp` export follows `run:` files (the `extension` index skips the
            // resolution: a `file#id` target would be parsed).
            run_files: if model.settings.profile == crate::base::Profile::Cwl2mcp {
                model.run_files().iter().map(|(_, p)| p.clone()).collect()
            } else {
                Vec::new()
            },
            failures: model.export_failures().to_vec(),
        }
    }

    /// The served Tool of process `fragment` (a key or id), or the entry process's (`None`).
    pub fn tool(&self, fragment: Option<&str>) -> Option<&IndexedTool> {
        match fragment {
            Some(f) => self.tools.iter().find(|t| {
                t.key == f
                    || t.id
                        .as_deref()
                        .is_some_and(|id| id == f || id.trim_start_matches('#') == f)
            }),
            None => self
                .tools
                .iter()
                .find(|t| t.key == "main")
                .or(self.tools.first()),
        }
    }
}

/// Reads and analyses one file for the index: `analyse` builds its model from the text (the
/// caller supplies settings and read boundary). `None`: not a readable UTF-8 file within the
/// size limit.
pub fn index_file(path: &Path, analyse: impl FnOnce(Arc<str>) -> Arc<Model>) -> Option<IndexEntry> {
    let stamp = Stamp::of_file(path)?;
    if matches!(stamp, Stamp::Disk(len, _) if len > MAX_FILE_BYTES) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let model = analyse(Arc::from(text));
    Some(IndexEntry::of_model(&model, stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walker_respects_gitignore_and_skips_hidden_and_other_files() {
        let root = std::env::temp_dir().join(format!("cwl-mcp-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for rel in [
            "a.cwl",
            "sub/b.cwl",
            "build/c.cwl",
            ".hidden/d.cwl",
            "e.yml",
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "class: CommandLineTool\n").unwrap();
        }
        std::fs::create_dir_all(root.join("dir.cwl")).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        let got: Vec<String> = cwl_files(&root)
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(got, vec!["a.cwl", "sub/b.cwl"]);
        let given = collect(&[root.join("build/c.cwl")]).unwrap();
        assert_eq!(given, vec![root.join("build/c.cwl")]);
        assert!(collect(&[root.join("nope")]).is_err());
    }
}
