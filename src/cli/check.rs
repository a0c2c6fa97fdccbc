//! `cwl-mcp-lsp check`: diagnostics for files and folders, as text, JSON, SARIF 2.1.0 or GitHub
//! Actions workflow commands (SPEC §1). The files are checked as one workspace: cross-file rules
//! apply, as in the editor. What is printed and what fails the run follow each file's
//! [`CheckPolicy`] (`deny-warnings`, `min-severity`: its `cwl-mcp.toml` < the flags).
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::base::project::{CheckPolicy, Layer};
use crate::base::{Code, Diagnostic, Severity};
use crate::document::Encoding;
use crate::model::analysis::sort;
use crate::model::workspace::{self, ServedName};

use super::{LoadError, load_with_policy, read_roots};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// One SARIF 2.1.0 log ([`super::sarif`]).
    Sarif,
    /// GitHub Actions workflow commands ([`super::github`]).
    Github,
}

pub use super::report::Reported;

/// Every `*.cwl` under the given paths (files are taken as given), in a stable order: the
/// workspace index's walker (`.gitignore` respected), so `check DIR`, `tools-list DIR` and the
/// editor see the same files.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    crate::model::index::collect(paths)
}

fn report(path: &str, lines: &crate::document::LineIndex, d: &Diagnostic) -> Reported {
    let start = lines.position(d.span.start, Encoding::Chars);
    let end = lines.position(d.span.end, Encoding::Chars);
    Reported {
        path: path.to_string(),
        line: start.line + 1,
        column: start.character + 1,
        end_line: end.line + 1,
        end_column: end.character + 1,
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: d.message.clone(),
    }
}

impl Reported {
    pub fn severity(&self) -> Severity {
        Severity::parse(self.severity).unwrap_or(Severity::Error)
    }
}

/// The diagnostics of a set of files checked together (cross-file rules included), in file
/// order. `Err` entries are the files that could not be read (exit code 2).
pub fn check_files(
    files: &[PathBuf],
    roots: &[PathBuf],
    cli: &Layer,
) -> (Vec<Reported>, Vec<String>) {
    let (reported, errors) = check_files_with_policy(files, roots, cli);
    (reported.into_iter().map(|(r, _)| r).collect(), errors)
}

/// What `check` keeps of one analysed file once its model is dropped: its own diagnostics
/// (the `cwl2mcp` `run:` ones included), the names it takes part in cross-file rules with, and
/// its lines for positions. Files are analysed in parallel and their trees freed at once.
struct Checked {
    display: String,
    policy: CheckPolicy,
    settings: crate::base::Settings,
    lines: crate::document::LineIndex,
    own: Vec<Diagnostic>,
    served: Vec<ServedName>,
}

fn check_one(file: &Path, roots: &[PathBuf], cli: &Layer) -> Result<Checked, LoadError> {
    let (model, policy) = load_with_policy(file, roots, cli)?;
    let mut own = model.diagnostics().to_vec();
    // Under `cwl2mcp`, the files reached through `run:` fail a document whose export they fail.
    own.extend(crate::model::linked::diagnostics_from_disk(&model));
    Ok(Checked {
        display: file.display().to_string(),
        policy,
        served: workspace::served_names(&model, workspace::Scope::Diagnosed),
        settings: model.settings.clone(),
        lines: model.snapshot.lines.clone(),
        own,
    })
}

/// [`check_files`], each diagnostic with the [`CheckPolicy`] of its file.
pub fn check_files_with_policy(
    files: &[PathBuf],
    roots: &[PathBuf],
    cli: &Layer,
) -> (Vec<(Reported, CheckPolicy)>, Vec<String>) {
    let mut checked: Vec<Checked> = Vec::new();
    let mut reported = Vec::new();
    let mut errors = Vec::new();
    let loaded = super::par_map(files, |file| check_one(file, roots, cli));
    for (file, loaded) in files.iter().zip(loaded) {
        let display = file.display().to_string();
        match loaded {
            Ok(c) => checked.push(c),
            Err(LoadError::Io(e)) => errors.push(e),
            Err(LoadError::NotUtf8(at)) => reported.push((
                Reported {
                    path: display,
                    line: 1,
                    column: 1,
                    end_line: 1,
                    end_column: 1,
                    severity: Severity::Error.as_str(),
                    code: Code::YamlSyntax.as_str(),
                    message: format!("the file is not valid UTF-8 (invalid byte at offset {at})"),
                },
                Layer::check_policy(&[cli]),
            )),
        }
    }
    let served: Vec<(String, Vec<ServedName>)> = checked
        .iter_mut()
        .map(|c| (c.display.clone(), std::mem::take(&mut c.served)))
        .collect();
    for (i, c) in checked.iter().enumerate() {
        let mut all = c.own.clone();
        all.extend(
            workspace::across(i, &served)
                .into_iter()
                .filter(|d| crate::model::analysis::reported(&c.settings, d.code)),
        );
        sort(&mut all);
        reported.extend(
            all.iter()
                .map(|d| (report(&c.display, &c.lines, d), c.policy)),
        );
    }
    (reported, errors)
}

/// The diagnostics of one file checked alone.
pub fn check_file(path: &Path, cli: &Layer) -> Result<Vec<Reported>, String> {
    let files = [path.to_path_buf()];
    let (reported, errors) = check_files(&files, &read_roots(&files), cli);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(reported),
    }
}

/// Runs `check` and returns the exit code: 2 when a path could not be read, else 1 when a
/// diagnostic fails its file's policy (an error; a warning too under `deny-warnings`), printed
/// or not, else 0.
pub fn run(paths: &[PathBuf], cli: &Layer, format: Format, out: &mut dyn Write) -> i32 {
    let files = match collect_files(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cwl-mcp-lsp: {e}");
            return 2;
        }
    };
    let (all, errors) = check_files_with_policy(&files, &read_roots(paths), cli);
    for e in &errors {
        eprintln!("cwl-mcp-lsp: {e}");
    }
    let fails = all.iter().any(|(r, p)| p.fails(r.severity()));
    let shown: Vec<Reported> = all
        .into_iter()
        .filter(|(r, p)| p.prints(r.severity()))
        .map(|(r, _)| r)
        .collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let written = match format {
        Format::Text => shown.iter().try_for_each(|r| {
            writeln!(
                out,
                "{}:{}:{}: {}[{}]: {}",
                r.path, r.line, r.column, r.severity, r.code, r.message
            )
        }),
        Format::Json => serde_json::to_writer_pretty(&mut *out, &shown)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        Format::Sarif => {
            let profile = Layer::resolve(&[cli]).profile;
            let log = super::sarif::log(&shown, &cwd, profile);
            serde_json::to_writer_pretty(&mut *out, &log)
                .map_err(std::io::Error::other)
                .and_then(|()| writeln!(out))
        }
        Format::Github => shown
            .iter()
            .try_for_each(|r| writeln!(out, "{}", super::github::command(r, &cwd))),
    };
    if written.is_err() {
        return 2;
    }
    if !errors.is_empty() {
        2
    } else if fails {
        1
    } else {
        0
    }
}
