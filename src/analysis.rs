//! The analysis entry point: a snapshot and settings in, plain diagnostics out.
//!
//! Everything here is a pure function of its inputs so that the CLI, the server and the tests
//! call the same code; the server only converts the results to LSP types.
use std::ops::Range;

use crate::cwl::CwlView;
use crate::document::Snapshot;
use crate::document::yaml::YamlDoc;
use crate::hint::validate;
use crate::settings::Settings;
use crate::tools;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    /// The LSP name, as the CLI prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// One finding, with a byte range into the document text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Range<usize>,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

impl Diagnostic {
    pub fn new(
        span: Range<usize>,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            span,
            severity,
            code,
            message: message.into(),
        }
    }
}

/// What the analysis needs besides the text: where the document lives.
#[derive(Clone, Debug, Default)]
pub struct DocumentContext {
    /// The document's file name without extension, for the extension profile's name fallback.
    pub file_stem: String,
    /// The document's URI (`file:///…`), which cwl2mcp uses as the key of a process without id.
    pub uri: String,
    /// The document's path, when it is a file (local `$import`/`$include` are read from it).
    pub path: Option<std::path::PathBuf>,
    /// The folder local reads must stay in (workspace folder, CLI root); default: the
    /// document's folder.
    pub sandbox_root: Option<std::path::PathBuf>,
}

impl DocumentContext {
    pub fn from_path(path: &std::path::Path) -> DocumentContext {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        DocumentContext {
            file_stem: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            uri: format!("file://{}", abs.display()),
            path: Some(abs),
            sandbox_root: None,
        }
    }

    pub fn from_uri(uri: &str) -> DocumentContext {
        let last = uri.rsplit('/').next().unwrap_or(uri);
        let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
        DocumentContext {
            file_stem: percent_decode(stem),
            uri: uri.to_string(),
            path: None,
            sandbox_root: None,
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What analysing one document gives: its diagnostics, and the names of the MCP Tools it
/// derives (with where each is declared), for workspace-wide duplicate checks.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub diagnostics: Vec<Diagnostic>,
    pub tool_names: Vec<(String, Range<usize>)>,
}

/// Every diagnostic of one document, sorted by position.
pub fn diagnostics(
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Vec<Diagnostic> {
    analyze(snapshot, settings, context).diagnostics
}

/// Diagnostics and derived Tool names of one document.
pub fn analyze(snapshot: &Snapshot, settings: &Settings, context: &DocumentContext) -> Analysis {
    #[cfg(debug_assertions)]
    test_panic_hook(&snapshot.text);
    let yaml = snapshot.yaml();
    analyze_yaml(&yaml, snapshot, settings, context)
}

/// A deliberate panic for the robustness tests (tests/robust_lsp.rs): in debug builds only,
/// analysis panics on a text that contains the non-empty value of the environment variable
/// `CWL_MCP_TEST_PANIC_MARKER`. Release builds do not contain this code.
#[cfg(debug_assertions)]
fn test_panic_hook(text: &str) {
    if let Some(marker) = std::env::var_os("CWL_MCP_TEST_PANIC_MARKER")
        && let Some(marker) = marker.to_str()
        && !marker.is_empty()
        && text.contains(marker)
    {
        panic!("deliberate test panic (CWL_MCP_TEST_PANIC_MARKER)");
    }
}

/// Same as [`diagnostics`], over an already built YAML tree.
pub fn diagnostics_of(
    yaml: &YamlDoc,
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Vec<Diagnostic> {
    analyze_yaml(yaml, snapshot, settings, context).diagnostics
}

fn analyze_yaml(
    yaml: &YamlDoc,
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Analysis {
    let mut out: Vec<Diagnostic> = yaml
        .errors
        .iter()
        .map(|e| Diagnostic::new(e.span.clone(), Severity::Error, "yaml-syntax", &e.message))
        .collect();
    let view = CwlView::new(yaml);
    out.extend(validate::validate(&view, yaml, snapshot, settings, context));
    let profile = settings.profile;
    let entries = tools::derive_document(yaml, &view, settings, context, &|_, hinted| {
        tools::diagnosed(profile, hinted)
    });
    out.extend(tools::diagnostics(&entries, profile));
    out.sort_by(|a, b| (a.span.start, a.span.end, a.code).cmp(&(b.span.start, b.span.end, b.code)));
    out.dedup();
    let tool_names = entries
        .iter()
        .filter_map(|e| Some((e.name()?.to_string(), e.anchor.clone())))
        .collect();
    Analysis {
        diagnostics: out,
        tool_names,
    }
}
