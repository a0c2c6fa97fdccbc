//! Editor features over an immutable snapshot: completion, hover, quick fixes, inlay hints and
//! document symbols (SPEC §6, issue 3).
//!
//! Every entry point is a plain function of a [`Snapshot`](crate::document::Snapshot), the
//! effective [`Settings`](crate::settings::Settings) and, where names fall back to the file,
//! the [`DocumentContext`](crate::analysis::DocumentContext). They return plain data with byte
//! spans; `server/convert.rs` turns it into LSP types. Nothing here knows LSP.
//!
//! The "Preview derived MCP Tool" code action (command `cwl-mcp.previewTool`) is not here: it
//! belongs to the derivation (branch `derive`), and plugs into `server/backend.rs` at the place
//! marked `PREVIEW-TOOL`.
pub mod code_actions;
pub mod completion;
pub mod edits;
pub mod effective;
pub mod hover;
pub mod inlay_hints;
pub mod locate;
pub mod outline;
pub mod symbols;

use std::ops::Range;

/// A text edit: replace the bytes `span` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Range<usize>,
    pub new_text: String,
}

impl Edit {
    pub fn new(span: Range<usize>, new_text: impl Into<String>) -> Edit {
        Edit {
            span,
            new_text: new_text.into(),
        }
    }

    pub fn insert(at: usize, new_text: impl Into<String>) -> Edit {
        Edit::new(at..at, new_text)
    }
}

/// Applies non-overlapping edits to `text` (as an editor does with one workspace edit).
/// Returns `None` when two edits overlap or one is out of the text.
pub fn apply_edits(text: &str, edits: &[Edit]) -> Option<String> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in sorted {
        if edit.span.start < at
            || edit.span.end > text.len()
            || edit.span.start > edit.span.end
            || !text.is_char_boundary(edit.span.start)
            || !text.is_char_boundary(edit.span.end)
        {
            return None;
        }
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.new_text);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_and_overlaps_are_refused() {
        let text = "a: 1\nb: 2\n";
        let edits = [Edit::new(8..9, "3"), Edit::insert(0, "# x\n")];
        assert_eq!(apply_edits(text, &edits).unwrap(), "# x\na: 1\nb: 3\n");
        assert!(apply_edits(text, &[Edit::new(0..3, ""), Edit::new(2..4, "")]).is_none());
        assert!(apply_edits(text, &[Edit::new(9..99, "")]).is_none());
    }
}
