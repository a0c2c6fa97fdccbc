//! `cwl-mcp-lsp check`: diagnostics for files and folders, as text or JSON (SPEC §1).
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::{self, Diagnostic, DocumentContext, Severity};
use crate::config::{self, Layer};
use crate::document::{Encoding, Snapshot};

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

/// Every `*.cwl` under the given paths (files are taken as given), in a stable order.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, 0);
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, out, depth + 1);
        } else if (kind.is_file() || kind.is_symlink())
            && path.extension().is_some_and(|e| e == "cwl")
            && path.is_file()
        {
            out.push(path);
        }
    }
}

/// The diagnostics of one file, converted for reporting. `Err` for I/O and configuration
/// errors (exit code 2).
pub fn check_file(path: &Path, cli: &Layer) -> Result<Vec<Reported>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let project = config::load_project_layer(&std::path::absolute(dir).unwrap_or(dir.into()), None)
        .map_err(|e| e.to_string())?;
    let file_layer = project.map(|(_, l)| l).unwrap_or_default();
    let settings = Layer::resolve(&[&file_layer, cli]);
    let display = path.display().to_string();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            return Ok(vec![Reported {
                path: display,
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
                severity: "error",
                code: "yaml-syntax",
                message: format!("the file is not valid UTF-8 (invalid byte at offset {at})"),
            }]);
        }
    };
    let snapshot = Snapshot::parse(&text, 0);
    let context = DocumentContext::from_path(path);
    let diags = analysis::diagnostics(&snapshot, &settings, &context);
    Ok(diags
        .iter()
        .map(|d| report(&display, &snapshot, d))
        .collect())
}

fn report(path: &str, snapshot: &Snapshot, d: &Diagnostic) -> Reported {
    let start = snapshot.lines.position(d.span.start, Encoding::Chars);
    let end = snapshot.lines.position(d.span.end, Encoding::Chars);
    Reported {
        path: path.to_string(),
        line: start.line + 1,
        column: start.character + 1,
        end_line: end.line + 1,
        end_column: end.character + 1,
        severity: d.severity.as_str(),
        code: d.code,
        message: d.message.clone(),
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
    let mut all = Vec::new();
    let mut io_error = false;
    for file in &files {
        match check_file(file, cli) {
            Ok(r) => all.extend(r),
            Err(e) => {
                eprintln!("cwl-mcp-lsp: {e}");
                io_error = true;
            }
        }
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
    if io_error {
        2
    } else if all.iter().any(|r| r.severity == Severity::Error.as_str()) {
        1
    } else {
        0
    }
}
