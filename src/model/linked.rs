//! The files a whole-document export reaches through `run:` (SPEC §10, issue 10 item 4).
//!
//! cwl2mcp loads a document with every file its steps `run:`, transitively, and exports every
//! process the load indexes: the processes of those files are part of the document's export,
//! and one that cannot be converted fails the whole export. Under the `cwl2mcp` profile, then:
//!
//! - `derive` and `tools-list` export the reached files' processes with the document's;
//! - the document gets an error on the `run:` through which a failing file is reached
//!   ([`diagnostics`]), in `check` and in the editor alike, with the failing lines of the
//!   other file as related information.
//!
//! Only files inside the document's read boundary are followed (the one [`super::links`]
//! rule resolves them); `#id` targets are processes of the same document, already exported.
use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::base::{Code, Diagnostic, DocumentContext, Profile, Related, Severity};
use crate::cwl::refs::{self, Reference};
use crate::derive::resolve::MAX_FILE_BYTES;

use super::Model;
use super::links::Target;

/// Files followed from one document at most (a guard against generated chains).
const MAX_FILES: usize = 512;

/// One file reached from a document through `run:`.
#[derive(Clone, Debug)]
pub struct Reached<T> {
    /// The file (canonical path).
    pub path: PathBuf,
    /// The root document's `run:` through which the file is first reached (directly, or
    /// through the files in between).
    pub via: Reference,
    /// Whether `via` names this file itself (else a file in between does).
    pub direct: bool,
    pub value: T,
}

/// Why one process of a file cannot be exported (the first reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The process key (`None`: the file fails to load: broken YAML, a missing `run:`).
    pub key: Option<String>,
    pub code: Code,
    pub message: String,
    /// 0-based line and column (Unicode scalar values) in that file.
    pub line: u32,
    pub column: u32,
}

/// The local files `model`'s steps `run:`, each with the reference that names it (canonical
/// paths, in document order, each once). Read through [`Model::run_files`].
pub(super) fn run_files(model: &Model) -> Vec<(Reference, PathBuf)> {
    let mut seen = HashSet::new();
    refs::run_references(model.yaml(), model.view())
        .into_iter()
        .filter_map(|r| match model.target(&r) {
            Target::File { path, .. } => Some((r, path)),
            _ => None,
        })
        .filter(|(_, p)| seen.insert(p.clone()))
        .collect()
}

/// Every file reached from `root` through `run:` files, transitively, breadth first, each once
/// (the root itself excluded). `open` analyses one file: its value and the files its own
/// steps `run:` (canonical); `None` skips a file that cannot be read.
pub fn reach<T>(
    root: &Model,
    mut open: impl FnMut(&Path) -> Option<(T, Vec<PathBuf>)>,
) -> Vec<Reached<T>> {
    let mut seen: HashSet<PathBuf> = root
        .context
        .path
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let mut queue: VecDeque<(PathBuf, Reference, bool)> = VecDeque::new();
    for (r, p) in root.run_files().iter().cloned() {
        if seen.insert(p.clone()) {
            queue.push_back((p, r, true));
        }
    }
    let mut out = Vec::new();
    while let Some((path, via, direct)) = queue.pop_front() {
        if out.len() >= MAX_FILES {
            break;
        }
        let Some((value, next)) = open(&path) else {
            continue;
        };
        for p in next {
            if seen.insert(p.clone()) {
                queue.push_back((p, via.clone(), false));
            }
        }
        out.push(Reached {
            path,
            via,
            direct,
            value,
        });
    }
    out
}

/// The context of a reached file: its own path and URI, the root's read boundary.
pub fn context_of(root: &Model, path: &Path) -> DocumentContext {
    DocumentContext::from_path(path).within(root.context.sandbox_root.clone())
}

/// Why the whole-document export of `model` fails, one reason per process (empty: it is
/// exported). Broken YAML and missing `run:` targets fail the load, once. Read through
/// [`Model::export_failures`].
pub(super) fn failures(model: &Model) -> Vec<Failure> {
    let mut out = Vec::new();
    if model.settings.profile != Profile::Cwl2mcp {
        return out;
    }
    for entry in model.entries() {
        if let Err(refusal) = model.current_tool(entry) {
            let load = matches!(refusal, super::Refusal::Syntax(_))
                || refusal
                    .reasons()
                    .iter()
                    .all(|r| r.code == Code::RunTargetMissing);
            let Some(r) = refusal.reasons().first() else {
                continue;
            };
            out.push(Failure {
                key: (!load).then(|| entry.key.clone()),
                code: r.code,
                message: r.message.clone(),
                line: r.line,
                column: r.column,
            });
            if load {
                break;
            }
        }
    }
    out
}

/// `path` relative to the folder `from` (both absolute), with `..` where it lies outside.
fn relative(path: &Path, from: &Path) -> PathBuf {
    let (a, b): (Vec<_>, Vec<_>) = (path.components().collect(), from.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c);
    }
    out
}

/// Under `cwl2mcp`, an error on each `run:` of `root` through which a file whose export fails
/// is reached: the exporter fails the whole document on it. `uri` names a reached file in
/// related information; the message names it relative to the document's folder.
pub fn diagnostics(
    root: &Model,
    reached: &[Reached<Vec<Failure>>],
    uri: impl Fn(&Path) -> String,
) -> Vec<Diagnostic> {
    if root.settings.profile != Profile::Cwl2mcp {
        return Vec::new();
    }
    let folder = root
        .context
        .path
        .as_deref()
        .and_then(Path::parent)
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
    let shown = |p: &Path| match &folder {
        Some(f) => relative(p, f).display().to_string(),
        None => p.display().to_string(),
    };
    let mut out: Vec<Diagnostic> = Vec::new();
    for r in reached.iter().filter(|r| !r.value.is_empty()) {
        let first = &r.value[0];
        // A key that is the file's URI (a process without `id`) says nothing more.
        let process = first
            .key
            .as_deref()
            .filter(|k| !k.starts_with("file://"))
            .map(|k| format!(" (process `{k}`)"))
            .unwrap_or_default();
        let which = if r.direct {
            format!("`{}`", r.via.target)
        } else {
            format!("`{}` (reached through this `run:`)", shown(&r.path))
        };
        let mut d = Diagnostic::new(
            r.via.span.clone(),
            Severity::Error,
            first.code,
            format!(
                "cwl2mcp exports the processes of `run:` files with this document, and {which} \
                 cannot be exported: line {}: {}{process}",
                first.line + 1,
                first.message
            ),
        );
        d.related = r
            .value
            .iter()
            .map(|f| Related {
                uri: Some(uri(&r.path)),
                span: 0..0,
                line: Some(f.line),
                message: format!("{} [{}]", f.message, f.code),
            })
            .collect();
        out.push(d);
    }
    // The settings that turn codes off apply here as to the document's own diagnostics.
    out.retain(|d| super::analysis::reported(&root.settings, d.code));
    out
}

/// Reads a reached file (at most [`MAX_FILE_BYTES`]); `None`: unreadable, too large, not UTF-8.
fn read(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The model of a reached file, under the root's settings and read boundary.
pub fn model_of(root: &Model, path: &Path, text: &str) -> Model {
    Model::of_text(text, root.settings.clone(), context_of(root, path))
}

/// The files `root` reaches, analysed from disk (`derive`, `tools-list`).
pub fn models_from_disk(root: &Model) -> Vec<Reached<Model>> {
    reach(root, |p| {
        let model = model_of(root, p, &read(p)?);
        let next = model.run_files().iter().map(|(_, p)| p.clone()).collect();
        Some((model, next))
    })
}

/// [`diagnostics`] of `root` over reached files that were analysed (`derive`, `tools-list`,
/// `check`: [`models_from_disk`]), in the CLI's `file://` URIs.
pub fn diagnostics_of_models(root: &Model, reached: &[Reached<Model>]) -> Vec<Diagnostic> {
    let summaries: Vec<Reached<Vec<Failure>>> = reached
        .iter()
        .map(|r| Reached {
            path: r.path.clone(),
            via: r.via.clone(),
            direct: r.direct,
            value: r.value.export_failures().to_vec(),
        })
        .collect();
    diagnostics(root, &summaries, file_uri)
}

/// [`diagnostics`] of `root` over the files it reaches on disk (`check`). Empty, without reading
/// anything, unless the profile is `cwl2mcp`.
pub fn diagnostics_from_disk(root: &Model) -> Vec<Diagnostic> {
    if root.settings.profile != Profile::Cwl2mcp {
        return Vec::new();
    }
    diagnostics_of_models(root, &models_from_disk(root))
}

/// The `file://` URI of a path (as [`DocumentContext::from_path`] writes it).
pub fn file_uri(path: &Path) -> String {
    DocumentContext::from_path(path).uri
}

#[cfg(test)]
mod tests {
    use super::relative;
    use std::path::Path;

    #[test]
    fn files_are_named_relative_to_the_document_folder() {
        let from = Path::new("/w/workflows/sub");
        assert_eq!(
            relative(Path::new("/w/workflows/sub/t.cwl"), from),
            Path::new("t.cwl")
        );
        assert_eq!(
            relative(Path::new("/w/tools/x/t.cwl"), from),
            Path::new("../../tools/x/t.cwl")
        );
    }
}
