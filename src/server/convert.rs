//! Conversions between the analysis's plain data and LSP types. Nothing else knows LSP.
use tower_lsp_server::ls_types as lsp;

use crate::analysis::{Diagnostic, Severity};
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

pub fn diagnostic(lines: &LineIndex, d: &Diagnostic, enc: Encoding) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: range(lines, &d.span, enc),
        severity: Some(severity(d.severity)),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        source: Some("cwl-mcp".to_string()),
        message: d.message.clone(),
        ..Default::default()
    }
}
