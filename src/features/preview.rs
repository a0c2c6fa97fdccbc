//! "Preview derived MCP Tool": the code action, the code lenses and the command's answer. The
//! Tool is exactly what `cwl-mcp-lsp derive` prints for the same text and settings.
use std::ops::Range;

use serde_json::Value;

use crate::analysis::DocumentContext;
use crate::cwl::CwlView;
use crate::document::Snapshot;
use crate::settings::Settings;
use crate::tools::{self, ToolEntry};

/// The command the preview code action and code lenses run.
pub const PREVIEW_COMMAND: &str = "cwl-mcp.previewTool";

/// A code lens: where, its title, and the process key for the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens {
    pub span: Range<usize>,
    pub title: String,
    pub key: String,
}

fn entries(snapshot: &Snapshot, settings: &Settings, context: &DocumentContext) -> Vec<ToolEntry> {
    let yaml = snapshot.yaml();
    let view = CwlView::new(&yaml);
    tools::derive_document(&yaml, &view, settings, context, &|_, _| true)
}

/// The key of the innermost process containing `offset`, for the code action's argument.
pub fn process_key_at(
    snapshot: &Snapshot,
    context: &DocumentContext,
    offset: usize,
) -> Option<String> {
    let yaml = snapshot.yaml();
    let view = CwlView::new(&yaml);
    let process = view.process_at(offset)?;
    Some(process.key.clone().unwrap_or_else(|| context.uri.clone()))
}

/// One lens above each hint, or above each process without one, titled with the derived name.
pub fn code_lenses(
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Vec<Lens> {
    entries(snapshot, settings, context)
        .iter()
        .map(|e| {
            let name = e.name().unwrap_or("?");
            let blocking = tools::refusal_reasons(e).len();
            let title = if blocking == 0 {
                format!("MCP Tool: {name}")
            } else {
                format!("MCP Tool: {name} (not exportable: {blocking} error(s))")
            };
            Lens {
                span: e.anchor.clone(),
                title,
                key: e.key.clone(),
            }
        })
        .collect()
}

/// Why a preview cannot be answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreviewError {
    NoProcess(String),
    Refused(Vec<String>),
}

impl std::fmt::Display for PreviewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreviewError::NoProcess(what) => write!(f, "{what}"),
            PreviewError::Refused(reasons) => {
                write!(f, "the MCP Tool cannot be derived: {}", reasons.join("; "))
            }
        }
    }
}

/// The derived Tool of the process `key` (any process key or id; `None`: the document's root
/// process, or `main` / the first item of a `$graph`), with sorted keys.
pub fn preview(
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
    key: Option<&str>,
) -> Result<Value, PreviewError> {
    let all = entries(snapshot, settings, context);
    let entry = match key {
        Some(k) => all.iter().find(|e| e.matches(k)),
        None => all
            .iter()
            .find(|e| !e.inline && e.matches("main"))
            .or_else(|| all.iter().find(|e| !e.inline)),
    };
    let Some(entry) = entry else {
        return Err(PreviewError::NoProcess(match key {
            Some(k) => format!("no process `{k}` in this document"),
            None => "no CWL process in this document".into(),
        }));
    };
    if entry.derivation.is_refused() {
        let reasons = entry
            .located
            .iter()
            .filter(|(p, _)| p.blocking)
            .map(|(p, span)| {
                let at = snapshot
                    .lines
                    .position(span.start, crate::document::Encoding::Chars);
                format!("line {}: {} [{}]", at.line + 1, p.message, p.code)
            })
            .collect();
        return Err(PreviewError::Refused(reasons));
    }
    Ok(tools::sorted(
        entry.derivation.tool.as_ref().unwrap_or(&Value::Null),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Profile;

    const DOC: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    title: Echo\ninputs:\n  region: string\noutputs: {}\n";

    #[test]
    fn preview_lens_and_key_agree_with_derivation() {
        let snapshot = Snapshot::parse(DOC, 1);
        let context = DocumentContext::from_uri("file:///w/echo.cwl");
        let settings = Settings::default();
        let tool = preview(&snapshot, &settings, &context, None).unwrap();
        assert_eq!(tool["name"], "echo_region");
        assert_eq!(tool["title"], "Echo");
        assert_eq!(
            preview(&snapshot, &settings, &context, Some("echo-region")).unwrap(),
            tool
        );
        let lenses = code_lenses(&snapshot, &settings, &context);
        assert_eq!(lenses.len(), 1);
        assert_eq!(lenses[0].title, "MCP Tool: echo_region");
        assert_eq!(&DOC[lenses[0].span.clone()], "mcp:Tool");
        let at = DOC.find("title").unwrap();
        assert_eq!(
            process_key_at(&snapshot, &context, at).as_deref(),
            Some("echo-region")
        );
        assert!(matches!(
            preview(&snapshot, &settings, &context, Some("nope")),
            Err(PreviewError::NoProcess(_))
        ));
    }

    #[test]
    fn refused_tools_explain_why() {
        let snapshot = Snapshot::parse(DOC, 1);
        let context = DocumentContext::from_uri("file:///w/echo.cwl");
        let settings = Settings {
            profile: Profile::Cwl2mcp,
            ..Settings::default()
        };
        let err = preview(&snapshot, &settings, &context, None).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("name"), "{text}");
        assert!(text.contains("line 7"), "{text}");
        let lenses = code_lenses(&snapshot, &settings, &context);
        assert!(lenses[0].title.contains("not exportable"), "{:?}", lenses);
    }
}
