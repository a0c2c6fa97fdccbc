//! Conversions between the analysis's plain data and LSP types. Nothing else knows LSP.
use tower_lsp_server::ls_types as lsp;

use crate::base::{Diagnostic, Severity};
use crate::document::{Encoding, LineIndex, Position};

pub fn range(lines: &LineIndex, span: &std::ops::Range<usize>, enc: Encoding) -> lsp::Range {
    let a = lines.position(span.start, enc);
    let b = lines.position(span.end, enc);
    lsp::Range::new(position(a), position(b))
}

pub fn position(p: Position) -> lsp::Position {
    lsp::Position::new(p.line, p.character)
}

pub fn from_lsp(p: lsp::Position) -> Position {
    Position::new(p.line, p.character)
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

/// A diagnostic of the document `uri`, with its code's documentation link and related places.
pub fn diagnostic(
    lines: &LineIndex,
    uri: &lsp::Uri,
    d: &Diagnostic,
    enc: Encoding,
    shape: &ClientShape,
) -> lsp::Diagnostic {
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            let location = match (&r.uri, r.line) {
                (Some(other), Some(line)) => lsp::Location {
                    uri: other.parse().ok()?,
                    range: lsp::Range::new(
                        lsp::Position::new(line, 0),
                        lsp::Position::new(line, 0),
                    ),
                },
                _ => lsp::Location {
                    uri: uri.clone(),
                    range: range(lines, &r.span, enc),
                },
            };
            Some(lsp::DiagnosticRelatedInformation {
                location,
                message: r.message.clone(),
            })
        })
        .collect();
    lsp::Diagnostic {
        range: range(lines, &d.span, enc),
        severity: Some(severity(d.severity)),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        code_description: shape
            .code_description
            .then(|| d.code.doc_url().parse().ok())
            .flatten()
            .map(|href| lsp::CodeDescription { href }),
        source: Some("cwl-mcp".to_string()),
        message: d.message.clone(),
        related_information: (shape.related_information && !related.is_empty()).then_some(related),
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Editor features (`crate::features`).

use crate::base::Edit;
use crate::features::code_actions::Fix;
use crate::features::completion::{Completion, CompletionKind};
use crate::features::hover::Hover;
use crate::features::inlay_hints::InlayHint;
use crate::features::symbols::{Symbol, SymbolKind};

use super::capabilities::{
    APPLY_EDIT_COMMAND, ClientShape, line_indent, markdown_to_plain, relative_to_line,
    snippet_to_plain,
};

pub fn text_edit(lines: &LineIndex, edit: &Edit, enc: Encoding) -> lsp::TextEdit {
    lsp::TextEdit {
        range: range(lines, &edit.span, enc),
        new_text: edit.new_text.clone(),
    }
}

/// Markdown, or plain text for a client that does not list markdown.
fn markup(value: &str, markdown: bool) -> lsp::MarkupContent {
    if markdown {
        lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: value.to_string(),
        }
    } else {
        lsp::MarkupContent {
            kind: lsp::MarkupKind::PlainText,
            value: markdown_to_plain(value),
        }
    }
}

/// A completion item in the client's shape: the snippet as plain text where snippets are not
/// supported, multi-line text indented for the client's rule where `asIs` is not, markdown
/// documentation only where listed (else a plain string, valid for any client). `text` is the
/// document the item completes.
pub fn completion(
    lines: &LineIndex,
    text: &str,
    c: &Completion,
    enc: Encoding,
    shape: &ClientShape,
) -> lsp::CompletionItem {
    let snippet = c.snippet && shape.snippets;
    let mut new_text = if c.snippet && !snippet {
        snippet_to_plain(&c.edit.new_text)
    } else {
        c.edit.new_text.clone()
    };
    let as_is = c.as_is && shape.insert_as_is;
    if c.as_is && !as_is {
        new_text = relative_to_line(&new_text, line_indent(text, c.edit.span.start));
    }
    let edit = Edit::new(c.edit.span.clone(), new_text);
    lsp::CompletionItem {
        label: c.label.clone(),
        kind: Some(match c.kind {
            CompletionKind::Class => lsp::CompletionItemKind::CLASS,
            CompletionKind::Field => lsp::CompletionItemKind::FIELD,
            CompletionKind::Value => lsp::CompletionItemKind::VALUE,
            CompletionKind::Namespace => lsp::CompletionItemKind::MODULE,
        }),
        detail: Some(c.detail.clone()),
        documentation: Some(if shape.completion_markdown {
            lsp::Documentation::MarkupContent(markup(&c.documentation, true))
        } else {
            lsp::Documentation::String(markdown_to_plain(&c.documentation))
        }),
        preselect: (c.preselect && shape.preselect).then_some(true),
        sort_text: Some(c.sort_text.clone()),
        filter_text: Some(c.filter_text.clone().unwrap_or_else(|| c.label.clone())),
        insert_text_format: Some(if snippet {
            lsp::InsertTextFormat::SNIPPET
        } else {
            lsp::InsertTextFormat::PLAIN_TEXT
        }),
        insert_text_mode: as_is.then_some(lsp::InsertTextMode::AS_IS),
        text_edit: Some(lsp::CompletionTextEdit::Edit(text_edit(lines, &edit, enc))),
        additional_text_edits: (!c.additional_edits.is_empty()).then(|| {
            c.additional_edits
                .iter()
                .map(|e| text_edit(lines, e, enc))
                .collect()
        }),
        ..Default::default()
    }
}

pub fn hover(lines: &LineIndex, h: &Hover, enc: Encoding, shape: &ClientShape) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(markup(&h.markdown, shape.hover_markdown)),
        range: Some(range(lines, &h.span, enc)),
    }
}

/// A quick fix on `uri`, attached to the client's diagnostics it resolves (matched by code and
/// range): a code action literal, or for a client without them a command that makes the server
/// apply the edit (`APPLY_EDIT_COMMAND`); nothing for a client that can take neither.
pub fn quick_fix(
    lines: &LineIndex,
    uri: &lsp::Uri,
    fix: &Fix,
    client_diagnostics: &[lsp::Diagnostic],
    enc: Encoding,
    shape: &ClientShape,
) -> Option<lsp::CodeActionOrCommand> {
    let edits = fix.edits.iter().map(|e| text_edit(lines, e, enc)).collect();
    let edit = lsp::WorkspaceEdit {
        changes: Some([(uri.clone(), edits)].into_iter().collect()),
        ..Default::default()
    };
    if !shape.code_action_literals {
        return shape.fixes_as_commands().then(|| {
            lsp::CodeActionOrCommand::Command(lsp::Command {
                title: fix.title.clone(),
                command: APPLY_EDIT_COMMAND.into(),
                arguments: Some(vec![serde_json::to_value(&edit).unwrap_or_default()]),
            })
        });
    }
    let attached: Vec<lsp::Diagnostic> = client_diagnostics
        .iter()
        .filter(|d| {
            fix.diagnostics.iter().any(|(code, span)| {
                d.code == Some(lsp::NumberOrString::String(code.to_string()))
                    && d.range == range(lines, span, enc)
            })
        })
        .cloned()
        .collect();
    Some(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
        title: fix.title.clone(),
        kind: Some(lsp::CodeActionKind::QUICKFIX),
        diagnostics: (!attached.is_empty()).then_some(attached),
        edit: Some(edit),
        is_preferred: (fix.preferred && shape.is_preferred).then_some(true),
        ..Default::default()
    }))
}

/// A command offered as a code action: a kind-less literal (editors list kind-less actions in
/// their code action menu), or the bare command for a client without literals.
pub fn command_action(command: lsp::Command, shape: &ClientShape) -> lsp::CodeActionOrCommand {
    if shape.code_action_literals {
        lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: command.title.clone(),
            kind: None,
            command: Some(command),
            ..Default::default()
        })
    } else {
        lsp::CodeActionOrCommand::Command(command)
    }
}

pub fn inlay_hint(
    lines: &LineIndex,
    h: &InlayHint,
    enc: Encoding,
    shape: &ClientShape,
) -> lsp::InlayHint {
    lsp::InlayHint {
        position: position(lines.position(h.at, enc)),
        label: lsp::InlayHintLabel::String(h.label.clone()),
        kind: None,
        text_edits: None,
        tooltip: Some(if shape.hover_markdown {
            lsp::InlayHintTooltip::MarkupContent(markup(&h.tooltip, true))
        } else {
            lsp::InlayHintTooltip::String(markdown_to_plain(&h.tooltip))
        }),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

fn symbol_kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::Process => lsp::SymbolKind::CLASS,
        SymbolKind::Hint => lsp::SymbolKind::INTERFACE,
        SymbolKind::Input => lsp::SymbolKind::FIELD,
        SymbolKind::Output => lsp::SymbolKind::PROPERTY,
    }
}

/// The document's symbols: nested, or flat (each with its parent's name as container) for a
/// client without `hierarchicalDocumentSymbolSupport`.
pub fn symbols(
    lines: &LineIndex,
    uri: &lsp::Uri,
    symbols: &[Symbol],
    enc: Encoding,
    shape: &ClientShape,
) -> lsp::DocumentSymbolResponse {
    if shape.hierarchical_symbols {
        return lsp::DocumentSymbolResponse::Nested(
            symbols.iter().map(|s| symbol(lines, s, enc)).collect(),
        );
    }
    let mut flat = Vec::new();
    flatten(lines, uri, symbols, None, enc, &mut flat);
    lsp::DocumentSymbolResponse::Flat(flat)
}

#[allow(deprecated)] // `SymbolInformation::deprecated` must still be written
fn flatten(
    lines: &LineIndex,
    uri: &lsp::Uri,
    symbols: &[Symbol],
    container: Option<&str>,
    enc: Encoding,
    out: &mut Vec<lsp::SymbolInformation>,
) {
    for s in symbols {
        out.push(lsp::SymbolInformation {
            name: s.name.clone(),
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            location: lsp::Location::new(uri.clone(), range(lines, &s.span, enc)),
            container_name: container.map(str::to_string),
        });
        flatten(lines, uri, &s.children, Some(&s.name), enc, out);
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written
pub fn symbol(lines: &LineIndex, s: &Symbol, enc: Encoding) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: s.detail.clone(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: range(lines, &s.span, enc),
        selection_range: range(lines, &s.selection, enc),
        children: (!s.children.is_empty())
            .then(|| s.children.iter().map(|c| symbol(lines, c, enc)).collect()),
    }
}

// Navigation (SPEC §10).

use crate::features::navigation::{Destination, Link};
use crate::features::workspace_symbols::ToolSymbol;

/// Where `d` leads: the target URI, the target's range and its selection range (a file target
/// is the start of the process's line, or of the file).
fn destination(
    lines: &LineIndex,
    uri: &lsp::Uri,
    d: &Destination,
    enc: Encoding,
) -> Option<(lsp::Uri, lsp::Range, lsp::Range)> {
    match d {
        Destination::Here { span, selection } => Some((
            uri.clone(),
            range(lines, span, enc),
            range(lines, selection, enc),
        )),
        Destination::File { path, line, .. } => {
            let at = lsp::Position::new(*line, 0);
            let r = lsp::Range::new(at, at);
            Some((lsp::Uri::from_file_path(path)?, r, r))
        }
    }
}

/// A document link; the target carries `#L<line>` when it is a process, and the tooltip is
/// sent only to clients with `tooltipSupport`.
pub fn document_link(
    lines: &LineIndex,
    uri: &lsp::Uri,
    link: &Link,
    enc: Encoding,
    shape: &ClientShape,
) -> Option<lsp::DocumentLink> {
    let (target, _, selection) = destination(lines, uri, &link.destination, enc)?;
    let line = match &link.destination {
        Destination::Here { .. } => Some(selection.start.line),
        Destination::File { fragment, line, .. } => fragment.as_ref().map(|_| *line),
    };
    let target = match line {
        Some(l) => format!("{}#L{}", target.as_str(), l + 1)
            .parse::<lsp::Uri>()
            .unwrap_or(target),
        None => target,
    };
    Some(lsp::DocumentLink {
        range: range(lines, &link.span, enc),
        target: Some(target),
        tooltip: shape.link_tooltip.then(|| link.tooltip()),
        data: None,
    })
}

/// A definition: a `LocationLink` for clients with `linkSupport`, else a `Location`.
pub fn definition(
    lines: &LineIndex,
    uri: &lsp::Uri,
    link: &Link,
    enc: Encoding,
    shape: &ClientShape,
) -> Option<lsp::GotoDefinitionResponse> {
    let (target, full, selection) = destination(lines, uri, &link.destination, enc)?;
    Some(if shape.definition_links {
        lsp::GotoDefinitionResponse::Link(vec![lsp::LocationLink {
            origin_selection_range: Some(range(lines, &link.span, enc)),
            target_uri: target,
            target_range: full,
            target_selection_range: selection,
        }])
    } else {
        lsp::GotoDefinitionResponse::Scalar(lsp::Location::new(target, selection))
    })
}

/// A workspace symbol: `SymbolInformation` (the baseline every client takes), kind
/// `Function`, the title as container so pickers show it.
#[allow(deprecated)] // `SymbolInformation::deprecated` must still be written
pub fn workspace_symbol(s: &ToolSymbol) -> Option<lsp::SymbolInformation> {
    let at = lsp::Position::new(s.line, 0);
    Some(lsp::SymbolInformation {
        name: s.name.clone(),
        kind: lsp::SymbolKind::FUNCTION,
        tags: None,
        deprecated: None,
        location: lsp::Location::new(s.uri.parse().ok()?, lsp::Range::new(at, at)),
        container_name: s.title.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> ClientShape {
        ClientShape {
            snippets: true,
            completion_markdown: true,
            preselect: true,
            insert_as_is: true,
            hover_markdown: true,
            code_action_literals: true,
            is_preferred: true,
            hierarchical_symbols: true,
            apply_edit: true,
            code_description: true,
            related_information: true,
            link_tooltip: true,
            definition_links: true,
        }
    }

    /// The `annotations` item on the line `    ` (column 4) of `text`.
    fn annotations_item(text: &str) -> Completion {
        let at = text.find("    \n").unwrap() + 4;
        Completion {
            label: "annotations".into(),
            kind: CompletionKind::Field,
            detail: "mapping".into(),
            documentation: "`readOnlyHint` **etc**".into(),
            edit: Edit::new(
                at..at,
                "annotations:\n      readOnlyHint: ${1|false,true|}\n      openWorldHint: ${2|true,false|}",
            ),
            snippet: true,
            as_is: true,
            additional_edits: Vec::new(),
            sort_text: "0".into(),
            preselect: true,
            filter_text: None,
        }
    }

    #[test]
    fn completion_in_each_shape() {
        let text = "hints:\n  mcp:Tool:\n    \n";
        let lines = LineIndex::from_text(text);
        let c = annotations_item(text);
        let rich = completion(&lines, text, &c, Encoding::Utf16, &full());
        assert_eq!(
            rich.insert_text_format,
            Some(lsp::InsertTextFormat::SNIPPET)
        );
        assert_eq!(rich.insert_text_mode, Some(lsp::InsertTextMode::AS_IS));
        assert_eq!(rich.preselect, Some(true));
        assert!(matches!(
            rich.documentation,
            Some(lsp::Documentation::MarkupContent(ref m)) if m.kind == lsp::MarkupKind::Markdown
        ));
        let plain = completion(&lines, text, &c, Encoding::Utf16, &ClientShape::default());
        assert_eq!(
            plain.insert_text_format,
            Some(lsp::InsertTextFormat::PLAIN_TEXT)
        );
        assert_eq!(plain.insert_text_mode, None);
        assert_eq!(plain.preselect, None);
        assert_eq!(
            plain.documentation,
            Some(lsp::Documentation::String("readOnlyHint etc".into()))
        );
        let Some(lsp::CompletionTextEdit::Edit(edit)) = plain.text_edit else {
            panic!("a text edit")
        };
        assert_eq!(
            edit.new_text,
            "annotations:\n  readOnlyHint: false\n  openWorldHint: true"
        );
        // Snippets but no asIs (Neovim 0.11): a snippet, relative indentation.
        let shape = ClientShape {
            insert_as_is: false,
            ..full()
        };
        let nvim = completion(&lines, text, &c, Encoding::Utf16, &shape);
        let Some(lsp::CompletionTextEdit::Edit(edit)) = nvim.text_edit else {
            panic!("a text edit")
        };
        assert_eq!(
            edit.new_text,
            "annotations:\n  readOnlyHint: ${1|false,true|}\n  openWorldHint: ${2|true,false|}"
        );
    }

    #[test]
    fn fixes_and_commands_in_each_shape() {
        let text = "a: yes\n";
        let lines = LineIndex::from_text(text);
        let uri: lsp::Uri = "file:///t.cwl".parse().unwrap();
        let fix = Fix {
            title: "Write `true`".into(),
            diagnostics: vec![],
            edits: vec![Edit::new(3..6, "true")],
            preferred: true,
        };
        let literal = quick_fix(&lines, &uri, &fix, &[], Encoding::Utf16, &full());
        assert!(matches!(
            literal,
            Some(lsp::CodeActionOrCommand::CodeAction(ref a)) if a.is_preferred == Some(true)
        ));
        let shape = ClientShape {
            is_preferred: false,
            ..full()
        };
        let Some(lsp::CodeActionOrCommand::CodeAction(a)) =
            quick_fix(&lines, &uri, &fix, &[], Encoding::Utf16, &shape)
        else {
            panic!("a literal")
        };
        assert_eq!(a.is_preferred, None);
        let shape = ClientShape {
            apply_edit: true,
            ..ClientShape::default()
        };
        let Some(lsp::CodeActionOrCommand::Command(cmd)) =
            quick_fix(&lines, &uri, &fix, &[], Encoding::Utf16, &shape)
        else {
            panic!("a command")
        };
        assert_eq!(cmd.command, APPLY_EDIT_COMMAND);
        let edit: lsp::WorkspaceEdit =
            serde_json::from_value(cmd.arguments.unwrap()[0].clone()).unwrap();
        assert_eq!(edit.changes.unwrap()[&uri][0].new_text, "true");
        assert!(
            quick_fix(
                &lines,
                &uri,
                &fix,
                &[],
                Encoding::Utf16,
                &ClientShape::default()
            )
            .is_none()
        );
        let preview = lsp::Command {
            title: "Preview".into(),
            command: "cwl-mcp.previewTool".into(),
            arguments: None,
        };
        assert!(matches!(
            command_action(preview.clone(), &ClientShape::default()),
            lsp::CodeActionOrCommand::Command(_)
        ));
        assert!(matches!(
            command_action(preview, &full()),
            lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                kind: None,
                command: Some(_),
                ..
            })
        ));
    }

    #[test]
    fn symbols_nested_or_flat() {
        let text = "id: p\ninputs:\n  a: string\n";
        let lines = LineIndex::from_text(text);
        let uri: lsp::Uri = "file:///t.cwl".parse().unwrap();
        let tree = vec![Symbol {
            name: "p".into(),
            detail: None,
            kind: SymbolKind::Process,
            span: 0..text.len(),
            selection: 4..5,
            children: vec![Symbol {
                name: "a".into(),
                detail: Some("string".into()),
                kind: SymbolKind::Input,
                span: 16..25,
                selection: 16..17,
                children: vec![],
            }],
        }];
        let nested = symbols(&lines, &uri, &tree, Encoding::Utf16, &full());
        assert!(
            matches!(nested, lsp::DocumentSymbolResponse::Nested(ref s) if s[0].children.as_ref().unwrap().len() == 1)
        );
        let lsp::DocumentSymbolResponse::Flat(flat) = symbols(
            &lines,
            &uri,
            &tree,
            Encoding::Utf16,
            &ClientShape::default(),
        ) else {
            panic!("flat symbols")
        };
        let names: Vec<(&str, Option<&str>)> = flat
            .iter()
            .map(|s| (s.name.as_str(), s.container_name.as_deref()))
            .collect();
        assert_eq!(names, vec![("p", None), ("a", Some("p"))]);
        assert_eq!(flat[1].location.range.start, lsp::Position::new(2, 2));
    }
}
