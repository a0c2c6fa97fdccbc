//! Quick fixes at a range: the model's fixes (computed once per model, attached to the
//! diagnostics they resolve) whose diagnostics touch the range or its lines.
use std::ops::Range;

use crate::model::Model;
pub use crate::model::fixes::Fix;

/// The quick fixes offered for a request over `range` (bytes): those of every diagnostic that
/// overlaps the range, or that lies on a line the range touches (so that a cursor in a line's
/// indentation, or after its end, still finds the fixes of that line).
pub fn quick_fixes(model: &Model, range: Range<usize>) -> Vec<Fix> {
    let text = model.text();
    let start = text[..range.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[range.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| range.end.min(text.len()) + i);
    let touched = |span: &Range<usize>| {
        (span.start <= range.end && range.start <= span.end)
            || (span.start <= end && start <= span.end)
    };
    model
        .fixes()
        .iter()
        .filter(|f| f.diagnostics.iter().any(|(_, s)| touched(s)))
        .cloned()
        .collect()
}
