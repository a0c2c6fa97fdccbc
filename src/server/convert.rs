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
        code_description: d
            .code
            .doc_url()
            .parse()
            .ok()
            .map(|href| lsp::CodeDescription { href }),
        source: Some("cwl-mcp".to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
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

pub fn text_edit(lines: &LineIndex, edit: &Edit, enc: Encoding) -> lsp::TextEdit {
    lsp::TextEdit {
        range: range(lines, &edit.span, enc),
        new_text: edit.new_text.clone(),
    }
}

fn markdown(value: &str) -> lsp::MarkupContent {
    lsp::MarkupContent {
        kind: lsp::MarkupKind::Markdown,
        value: value.to_string(),
    }
}

pub fn completion(lines: &LineIndex, c: &Completion, enc: Encoding) -> lsp::CompletionItem {
    lsp::CompletionItem {
        label: c.label.clone(),
        kind: Some(match c.kind {
            CompletionKind::Class => lsp::CompletionItemKind::CLASS,
            CompletionKind::Field => lsp::CompletionItemKind::FIELD,
            CompletionKind::Value => lsp::CompletionItemKind::VALUE,
            CompletionKind::Namespace => lsp::CompletionItemKind::MODULE,
        }),
        detail: Some(c.detail.clone()),
        documentation: Some(lsp::Documentation::MarkupContent(markdown(
            &c.documentation,
        ))),
        preselect: c.preselect.then_some(true),
        sort_text: Some(c.sort_text.clone()),
        filter_text: Some(c.filter_text.clone().unwrap_or_else(|| c.label.clone())),
        insert_text_format: Some(if c.snippet {
            lsp::InsertTextFormat::SNIPPET
        } else {
            lsp::InsertTextFormat::PLAIN_TEXT
        }),
        insert_text_mode: c.as_is.then_some(lsp::InsertTextMode::AS_IS),
        text_edit: Some(lsp::CompletionTextEdit::Edit(text_edit(
            lines, &c.edit, enc,
        ))),
        additional_text_edits: (!c.additional_edits.is_empty()).then(|| {
            c.additional_edits
                .iter()
                .map(|e| text_edit(lines, e, enc))
                .collect()
        }),
        ..Default::default()
    }
}

pub fn hover(lines: &LineIndex, h: &Hover, enc: Encoding) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(markdown(&h.markdown)),
        range: Some(range(lines, &h.span, enc)),
    }
}

/// A quick fix as a code action on `uri`, attached to the client's diagnostics it resolves
/// (matched by code and range).
pub fn quick_fix(
    lines: &LineIndex,
    uri: &lsp::Uri,
    fix: &Fix,
    client_diagnostics: &[lsp::Diagnostic],
    enc: Encoding,
) -> lsp::CodeAction {
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
    let edits = fix.edits.iter().map(|e| text_edit(lines, e, enc)).collect();
    lsp::CodeAction {
        title: fix.title.clone(),
        kind: Some(lsp::CodeActionKind::QUICKFIX),
        diagnostics: (!attached.is_empty()).then_some(attached),
        edit: Some(lsp::WorkspaceEdit {
            changes: Some([(uri.clone(), edits)].into_iter().collect()),
            ..Default::default()
        }),
        is_preferred: fix.preferred.then_some(true),
        ..Default::default()
    }
}

pub fn inlay_hint(lines: &LineIndex, h: &InlayHint, enc: Encoding) -> lsp::InlayHint {
    lsp::InlayHint {
        position: position(lines.position(h.at, enc)),
        label: lsp::InlayHintLabel::String(h.label.clone()),
        kind: None,
        text_edits: None,
        tooltip: Some(lsp::InlayHintTooltip::MarkupContent(markdown(&h.tooltip))),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written
pub fn symbol(lines: &LineIndex, s: &Symbol, enc: Encoding) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: s.detail.clone(),
        kind: match s.kind {
            SymbolKind::Process => lsp::SymbolKind::CLASS,
            SymbolKind::Hint => lsp::SymbolKind::INTERFACE,
            SymbolKind::Input => lsp::SymbolKind::FIELD,
            SymbolKind::Output => lsp::SymbolKind::PROPERTY,
        },
        tags: None,
        deprecated: None,
        range: range(lines, &s.span, enc),
        selection_range: range(lines, &s.selection, enc),
        children: (!s.children.is_empty())
            .then(|| s.children.iter().map(|c| symbol(lines, c, enc)).collect()),
    }
}
