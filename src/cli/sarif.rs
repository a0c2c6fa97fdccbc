//! `check --format sarif`: one SARIF 2.1.0 log (OASIS), as GitHub code scanning and other review
//! tools read it. One run; `tool.driver.rules` has one rule per [`Code`] (in [`Code::ALL`]'s
//! order, so `ruleIndex` is the code's position), with the texts of its row in
//! `docs/diagnostics.md` and its documentation link; results carry 1-based regions whose columns
//! count Unicode scalar values (`columnKind: unicodeCodePoints`), and artifact URIs relative to
//! the current directory (`uriBaseId: %SRCROOT%`, defined in `originalUriBaseIds`).
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::base::diagnostic::DOCS_URL;
use crate::base::settings::Profile;
use crate::base::{Code, Severity};

use super::report::Reported;

/// The `id` of the OASIS SARIF 2.1.0 schema (errata01).
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The project's home page (the repository the documentation link points into).
pub const INFORMATION_URI: &str = "https://github.com/eoap/cwl-mcp-lsp";
/// The `uriBaseId` of relative artifact URIs: the current directory of the run.
pub const SRCROOT: &str = "%SRCROOT%";

const DIAGNOSTICS_MD: &str = include_str!("../../docs/diagnostics.md");

/// A code's row in `docs/diagnostics.md`: what triggers it and, when given, an example.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CodeDoc {
    pub when: String,
    pub example: String,
}

/// The cells of a Markdown table row (`|` escaped as `\|` stays in its cell, unescaped).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    out.push(cell.trim().to_string());
    out
}

/// The documentation row of `code` in `docs/diagnostics.md` (any of its tables with a `code`
/// and a `when` column).
pub fn code_doc(code: Code) -> Option<CodeDoc> {
    let wanted = format!("`{}`", code.as_str());
    let mut header: Vec<String> = Vec::new();
    for line in DIAGNOSTICS_MD.lines() {
        if !line.trim_start().starts_with('|') {
            header.clear();
            continue;
        }
        let row = cells(line);
        if row.first().is_some_and(|c| c == "code") {
            header = row;
            continue;
        }
        if row.first() != Some(&wanted) {
            continue;
        }
        let column = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|i| row.get(i))
                .cloned()
                .unwrap_or_default()
        };
        return Some(CodeDoc {
            when: column("when"),
            example: column("example"),
        });
    }
    None
}

/// Markdown to plain text, for the `text` properties: code spans lose their backticks.
fn plain(markdown: &str) -> String {
    markdown.replace('`', "")
}

/// SARIF's level for a severity (SARIF has no `hint`: both information and hint are `note`).
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// The rule of one code.
fn rule(code: Code, profile: Profile) -> Value {
    let doc = code_doc(code).unwrap_or_default();
    let when = if doc.when.is_empty() {
        code.as_str().to_string()
    } else {
        doc.when.clone()
    };
    let mut full = format!("{}{}", upper_first(&when), end_stop(&when));
    if !doc.example.is_empty() {
        full += &format!(" Example: {}.", doc.example);
    }
    let url = code.doc_url();
    let severity = code.severity(profile);
    json!({
        "id": code.as_str(),
        "name": pascal(code.as_str()),
        "shortDescription": {"text": plain(&when), "markdown": when},
        "fullDescription": {"text": plain(&full), "markdown": full},
        "help": {
            "text": format!("{} See {url}", plain(&full)),
            "markdown": format!("{full} [Documentation of `{}`]({url})", code.as_str()),
        },
        "helpUri": url,
        "defaultConfiguration": {"level": level(severity)},
        "properties": {"severity": severity.as_str(), "profile": profile.as_str()},
    })
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn end_stop(text: &str) -> &'static str {
    if text.ends_with('.') { "" } else { "." }
}

/// `name-invalid` → `NameInvalid` (SARIF's `reportingDescriptor.name`).
fn pascal(code: &str) -> String {
    code.split('-').map(upper_first).collect()
}

/// The lexically normalised absolute form of `path` (`.` and `..` resolved, no symlinks).
fn normalise(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where a reported file is: relative to `cwd` (with `/` separators) when it is under it, else
/// absolute.
pub fn artifact_path(path: &str, cwd: &Path) -> Result<String, PathBuf> {
    let abs = normalise(Path::new(path), cwd);
    match abs.strip_prefix(normalise(cwd, cwd)) {
        Ok(rel) if !rel.as_os_str().is_empty() => Ok(rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")),
        _ => Err(abs),
    }
}

/// Percent-encodes what a URI path may not hold as is (RFC 3986 `pchar` and `/`).
pub fn encode_path(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

/// A `file://` URI of an absolute path; with `dir`, ending in `/` as SARIF requires of base URIs.
fn file_uri(abs: &Path, dir: bool) -> String {
    let mut text = abs.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        text.insert(0, '/'); // C:/x → /C:/x
    }
    if dir && !text.ends_with('/') {
        text.push('/');
    }
    format!("file://{}", encode_path(&text))
}

fn artifact_location(path: &str, cwd: &Path, index: usize) -> Value {
    match artifact_path(path, cwd) {
        Ok(rel) => json!({"uri": encode_path(&rel), "uriBaseId": SRCROOT, "index": index}),
        Err(abs) => json!({"uri": file_uri(&abs, false), "index": index}),
    }
}

/// The SARIF log of `check`'s (printed) diagnostics. `profile` sets the rules' default levels
/// (each result states its own level).
pub fn log(reported: &[Reported], cwd: &Path, profile: Profile) -> Value {
    let rules: Vec<Value> = Code::ALL.iter().map(|c| rule(*c, profile)).collect();
    let mut artifacts: Vec<&str> = Vec::new();
    let mut results = Vec::new();
    for r in reported {
        let index = match artifacts.iter().position(|a| *a == r.path) {
            Some(i) => i,
            None => {
                artifacts.push(&r.path);
                artifacts.len() - 1
            }
        };
        let rule_index = Code::ALL.iter().position(|c| c.as_str() == r.code);
        let mut result = Map::new();
        result.insert("ruleId".into(), r.code.into());
        if let Some(i) = rule_index {
            result.insert("ruleIndex".into(), i.into());
        }
        result.insert("level".into(), level(r.severity()).into());
        result.insert("message".into(), json!({"text": r.message}));
        result.insert(
            "locations".into(),
            json!([{
                "physicalLocation": {
                    "artifactLocation": artifact_location(&r.path, cwd, index),
                    "region": {
                        "startLine": r.line,
                        "startColumn": r.column,
                        "endLine": r.end_line,
                        "endColumn": r.end_column,
                    },
                },
            }]),
        );
        result.insert(
            "properties".into(),
            json!({"severity": r.severity, "source": "cwl-mcp"}),
        );
        results.push(Value::Object(result));
    }
    let artifacts: Vec<Value> = artifacts
        .iter()
        .map(|a| {
            let mut location = artifact_location(a, cwd, 0);
            location.as_object_mut().unwrap().remove("index");
            json!({"location": location, "mimeType": "text/x-cwl"})
        })
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": env!("CARGO_PKG_NAME"),
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
                "properties": {"documentation": DOCS_URL},
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": file_uri(&normalise(cwd, cwd), true)}},
            "artifacts": artifacts,
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_documentation_row() {
        for code in Code::ALL {
            let doc = code_doc(*code).unwrap_or_else(|| {
                panic!("docs/diagnostics.md has no row for `{}`", code.as_str())
            });
            assert!(!doc.when.is_empty(), "{}", code.as_str());
        }
        let doc = code_doc(Code::InvalidType).unwrap();
        assert_eq!(doc.when, "wrong value type");
        assert_eq!(doc.example, "`readOnlyHint: yes` (a string in YAML 1.2)");
    }

    #[test]
    fn cells_keep_escaped_pipes() {
        assert_eq!(cells("| `a` | x \\| y | z |"), ["`a`", "x | y", "z"]);
    }

    #[test]
    fn artifact_paths_are_relative_to_the_current_directory() {
        let cwd = Path::new("/repo");
        assert_eq!(
            artifact_path("examples/a.cwl", cwd),
            Ok("examples/a.cwl".into())
        );
        assert_eq!(
            artifact_path("./examples/../b c.cwl", cwd),
            Ok("b c.cwl".into())
        );
        assert_eq!(artifact_path("/repo/x/y.cwl", cwd), Ok("x/y.cwl".into()));
        assert_eq!(
            artifact_path("../other/y.cwl", cwd),
            Err(PathBuf::from("/other/y.cwl"))
        );
        assert_eq!(encode_path("b c/é#.cwl"), "b%20c/%C3%A9%23.cwl");
        assert_eq!(file_uri(Path::new("/repo"), true), "file:///repo/");
    }

    #[test]
    fn levels() {
        assert_eq!(level(Severity::Hint), "note");
        assert_eq!(level(Severity::Warning), "warning");
        assert_eq!(pascal("cwl2mcp-incompatible"), "Cwl2mcpIncompatible");
    }
}
