//! "Preview derived MCP Tool": the code action, the code lenses and the command's answer. The
//! Tool is the model's current Tool, exactly what `cwl-mcp-lsp derive` prints for the same text
//! and settings; broken YAML or a blocking problem gives the same refusal `derive` reports.
use std::ops::Range;

use serde_json::Value;

use crate::base::Diagnostic;
use crate::derive::view::sorted;
use crate::model::{Model, Refusal};

/// The command the preview code action and code lenses run.
pub const PREVIEW_COMMAND: &str = "cwl-mcp.previewTool";

/// A code lens: where, its title, and the process key for the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens {
    pub span: Range<usize>,
    pub title: String,
    pub key: String,
}

/// The key of the innermost process containing `offset`, for the code action's argument.
pub fn process_key_at(model: &Model, offset: usize) -> Option<String> {
    let view = model.view();
    let process = view.process_at(offset)?;
    let index = view
        .processes
        .iter()
        .position(|p| std::ptr::eq(p, process))?;
    Some(model.selector(model.entry(index)))
}

/// The lens title for one entry: the name when the Tool is derived, else why it is not.
pub fn lens_title(model: &Model, entry: &crate::model::ToolEntry, linked: &[Diagnostic]) -> String {
    match model.current_tool_with(entry, linked) {
        Ok(tool) => format!(
            "MCP Tool: {}",
            tool.get("name").and_then(Value::as_str).unwrap_or("?")
        ),
        Err(Refusal::Syntax(errors)) => format!(
            "MCP Tool: cannot be derived ({} YAML syntax error(s))",
            errors.len()
        ),
        Err(Refusal::Blocked(reasons)) => format!(
            "MCP Tool: {} cannot be derived ({} error(s))",
            entry.name().unwrap_or("?"),
            reasons.len()
        ),
        Err(Refusal::NoProcess(_)) => "MCP Tool: cannot be derived".into(),
    }
}

/// One lens above each Tool the document serves (SPEC §10): at the hint, or at the process's
/// `class` when it has none. `linked`: the document's errors from other files
/// ([`Model::current_tool_with`]).
pub fn code_lenses(model: &Model, linked: &[Diagnostic]) -> Vec<Lens> {
    model
        .served()
        .into_iter()
        .map(|e| Lens {
            span: e.anchor.clone(),
            title: lens_title(model, e, linked),
            key: model.selector(e),
        })
        .collect()
}

/// The derived Tool of the process `key` (any process key or id; `None`: the document's root
/// process, or `main` / the first item of a `$graph`), with sorted keys.
pub fn preview(model: &Model, key: Option<&str>, linked: &[Diagnostic]) -> Result<Value, Refusal> {
    let entry = model.select(key)?;
    model.current_tool_with(entry, linked).map(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::DocumentContext;
    use crate::base::settings::{Profile, Settings};

    const DOC: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    title: Echo\ninputs:\n  region: string\noutputs: {}\n";

    fn model(text: &str, profile: Profile) -> Model {
        let settings = Settings {
            profile,
            ..Settings::default()
        };
        Model::of_text(
            text,
            settings,
            DocumentContext::from_uri("file:///w/echo.cwl"),
        )
    }

    #[test]
    fn preview_lens_and_key_agree_with_derivation() {
        let m = model(DOC, Profile::Extension);
        let tool = preview(&m, None, &[]).unwrap();
        assert_eq!(tool["name"], "echo_region");
        assert_eq!(tool["title"], "Echo");
        assert_eq!(preview(&m, Some("echo-region"), &[]).unwrap(), tool);
        let lenses = code_lenses(&m, &[]);
        assert_eq!(lenses.len(), 1);
        assert_eq!(lenses[0].title, "MCP Tool: echo_region");
        assert_eq!(&DOC[lenses[0].span.clone()], "mcp:Tool");
        let at = DOC.find("title").unwrap();
        assert_eq!(process_key_at(&m, at).as_deref(), Some("echo-region"));
        assert!(matches!(
            preview(&m, Some("nope"), &[]),
            Err(Refusal::NoProcess(_))
        ));
    }

    #[test]
    fn refused_tools_explain_why() {
        let m = model(DOC, Profile::Cwl2mcp);
        let text = preview(&m, None, &[]).unwrap_err().to_string();
        assert!(text.contains("name"), "{text}");
        assert!(text.contains("line 7"), "{text}");
        assert!(code_lenses(&m, &[])[0].title.contains("cannot be derived"));
    }

    #[test]
    fn broken_yaml_gives_no_current_tool() {
        let broken = DOC.replace("title: Echo", "title: [Echo");
        let m = model(&broken, Profile::Extension);
        let err = preview(&m, None, &[]).unwrap_err();
        assert!(matches!(err, Refusal::Syntax(_)), "{err:?}");
        assert!(err.to_string().contains("yaml-syntax"), "{err}");
        for lens in code_lenses(&m, &[]) {
            assert!(lens.title.contains("cannot be derived"), "{}", lens.title);
        }
    }
}
