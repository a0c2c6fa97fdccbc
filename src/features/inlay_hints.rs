//! Inlay hints (SPEC §6): for each of the four annotations a recognised hint leaves out, the
//! value MCP clients will assume, shown at the end of the line after which it would be written
//! (the last annotation, the `annotations` key, or the hint's last field).
use crate::hint::fields;
use crate::hint::validate::process_hints;
use crate::model::Model;

use crate::model::edits::{line_end, pair_end};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Byte offset the hint is shown at.
    pub at: usize,
    pub label: String,
    /// Markdown.
    pub tooltip: String,
}

/// The inlay hints of the document (none when `settings.inlay_hints` is false).
pub fn inlay_hints(model: &Model) -> Vec<InlayHint> {
    if !model.settings.inlay_hints {
        return Vec::new();
    }
    let text = model.text();
    let yaml = model.yaml();
    let view = model.view();
    let mut out = Vec::new();
    for process in &view.processes {
        let Some(hint) = process_hints(view, process).hint else {
            continue;
        };
        let body = yaml.deref(hint.body);
        let annotations = hint
            .fields()
            .find(|p| p.key.scalar() == Some("annotations"));
        let (anchor, written): (usize, Vec<&str>) = match annotations {
            Some(pair) => {
                let value = yaml.deref(&pair.value);
                if !(value.is_map() || value.scalar() == Some("")) {
                    continue; // not a mapping: `invalid-type` says so
                }
                let keys: Vec<&str> = value
                    .pairs()
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|p| p.key.scalar())
                    .collect();
                (pair_end(text, &pair.key, value), keys)
            }
            None => {
                let end = match body.pairs().and_then(|p| p.last()) {
                    Some(last) => pair_end(text, &last.key, &last.value),
                    None => hint
                        .class_node
                        .map_or(hint.span.end, |c| c.span.end.max(hint.span.end)),
                };
                (end, Vec::new())
            }
        };
        let at = line_end(text, anchor);
        for field in fields::boolean_annotations() {
            if written.contains(&field.key) {
                continue;
            }
            let value = field.mcp_default.unwrap_or_default();
            out.push(InlayHint {
                at,
                label: format!("{}: {value} (MCP default)", field.key),
                tooltip: format!(
                    "`{}` is left out: MCP clients assume `{value}` ({}).\n\n{}",
                    field.key, field.default_meaning, field.doc
                ),
            });
        }
    }
    out.sort_by_key(|h| h.at);
    out
}
