//! `cwl-mcp-lsp check`: diagnostics for files and folders, as text or JSON (SPEC §1). The
//! files are checked as one workspace: cross-file rules apply, as in the editor.
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::project::Layer;
use crate::base::{Code, Diagnostic, Severity};
use crate::document::Encoding;
use crate::model::Model;
use crate::model::analysis::sort;
use crate::model::workspace::{self, ServedName};

use super::{LoadError, load, read_roots};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// One reported diagnostic, 1-based, columns in Unicode scalar values.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Reported {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
}

/// Every `*.cwl` under the given paths (files are taken as given), in a stable order: the
/// workspace index's walker (`.gitignore` respected), so `check DIR`, `tools-list DIR` and the
/// editor see the same files.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    crate::model::index::collect(paths)
}

fn report(path: &str, model: &Model, d: &Diagnostic) -> Reported {
    let start = model.snapshot.lines.position(d.span.start, Encoding::Chars);
    let end = model.snapshot.lines.position(d.span.end, Encoding::Chars);
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

/// The diagnostics of a set of files checked together (cross-file rules included), in file
/// order. `Err` entries are the files that could not be read (exit code 2).
pub fn check_files(
    files: &[PathBuf],
    roots: &[PathBuf],
    cli: &Layer,
) -> (Vec<Reported>, Vec<String>) {
    let mut models: Vec<(String, Model)> = Vec::new();
    let mut reported = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let display = file.display().to_string();
        match load(file, roots, cli) {
            Ok(model) => models.push((display, model)),
            Err(LoadError::Io(e)) => errors.push(e),
            Err(LoadError::NotUtf8(at)) => reported.push(Reported {
                path: display,
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
                severity: Severity::Error.as_str(),
                code: Code::YamlSyntax.as_str(),
                message: format!("the file is not valid UTF-8 (invalid byte at offset {at})"),
            }),
        }
    }
    let served: Vec<(String, Vec<ServedName>)> = models
        .iter()
        .map(|(display, m)| {
            (
                display.clone(),
                workspace::served_names(m, workspace::Scope::Diagnosed),
            )
        })
        .collect();
    for (i, (display, model)) in models.iter().enumerate() {
        let mut all = model.diagnostics().to_vec();
        all.extend(workspace::across(i, &served));
        sort(&mut all);
        reported.extend(all.iter().map(|d| report(display, model, d)));
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

/// Runs `check` and returns the exit code.
pub fn run(paths: &[PathBuf], cli: &Layer, format: Format, out: &mut dyn Write) -> i32 {
    let files = match collect_files(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cwl-mcp-lsp: {e}");
            return 2;
        }
    };
    let (all, errors) = check_files(&files, &read_roots(paths), cli);
    for e in &errors {
        eprintln!("cwl-mcp-lsp: {e}");
    }
    let written = match format {
        Format::Text => all.iter().try_for_each(|r| {
            writeln!(
                out,
                "{}:{}:{}: {}[{}]: {}",
                r.path, r.line, r.column, r.severity, r.code, r.message
            )
        }),
        Format::Json => serde_json::to_writer_pretty(&mut *out, &all)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
    };
    if written.is_err() {
        return 2;
    }
    if !errors.is_empty() {
        2
    } else if all.iter().any(|r| r.severity == Severity::Error.as_str()) {
        1
    } else {
        0
    }
}
