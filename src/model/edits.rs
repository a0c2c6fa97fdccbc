//! Builders of text edits shared by completion and quick fixes: binding the namespace and
//! inserting fields into a mapping, in the document's own indentation, line breaks and
//! block/flow style.
use crate::cwl::{CwlView, EXTENSION_NS};
use crate::document::yaml::{Kind, Node, Resolved, Style};

use crate::base::Edit;
use crate::document::outline::{self, Line};

/// The line break the document uses.
pub fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Byte offset of the start of the line holding `at`.
pub fn line_start(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// Byte offset of the end of the line holding `at`, before its line break.
pub fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i)
}

/// Byte offset just past the line break of the line holding `at` (or the end of the text).
pub fn next_line_start(text: &str, at: usize) -> usize {
    let end = line_end(text, at);
    let rest = &text[end..];
    if rest.starts_with("\r\n") {
        end + 2
    } else if rest.starts_with('\n') || rest.starts_with('\r') {
        end + 1
    } else {
        end
    }
}

/// Column (bytes from the line start) of `at`.
pub fn col_of(text: &str, at: usize) -> usize {
    at.min(text.len()) - line_start(text, at)
}

/// `end` moved back over trailing whitespace (block scalars and mappings end after breaks).
pub fn content_end(text: &str, end: usize) -> usize {
    let end = end.min(text.len());
    text[..end].trim_end().len()
}

/// The end of a mapping pair's last content.
pub fn pair_end(text: &str, key: &Node, value: &Node) -> usize {
    content_end(text, value.span.end.max(key.span.end))
}

/// A value to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Scalar(String),
    Map(Vec<(String, String)>),
}

/// Renders `fields` as block lines at `col` (each line preceded by a line break).
pub fn block_lines(fields: &[(String, Value)], col: usize, unit: usize, nl: &str) -> String {
    let mut out = String::new();
    let pad = " ".repeat(col);
    let inner = " ".repeat(col + unit);
    for (key, value) in fields {
        match value {
            Value::Scalar(s) => out.push_str(&format!("{nl}{pad}{key}: {s}")),
            Value::Map(pairs) => {
                out.push_str(&format!("{nl}{pad}{key}:"));
                for (k, v) in pairs {
                    out.push_str(&format!("{nl}{inner}{k}: {v}"));
                }
            }
        }
    }
    out
}

fn flow_entries(fields: &[(String, Value)], json: bool) -> Vec<String> {
    let q = |s: &str| {
        if json {
            format!("\"{s}\"")
        } else {
            s.to_string()
        }
    };
    fields
        .iter()
        .map(|(key, value)| match value {
            Value::Scalar(s) => format!("{}: {s}", q(key)),
            Value::Map(pairs) => format!(
                "{}: {{{}}}",
                q(key),
                pairs
                    .iter()
                    .map(|(k, v)| format!("{}: {v}", q(k)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
        .collect()
}

/// Whether a flow mapping is written JSON-style (double-quoted keys).
fn json_style(map: &Node) -> bool {
    map.pairs().is_some_and(|pairs| {
        pairs.first().is_some_and(|p| {
            matches!(
                p.key.kind,
                Kind::Scalar {
                    style: Style::DoubleQuoted,
                    ..
                }
            )
        })
    })
}

/// Inserts `fields` into the mapping `body`, whose owner (the key it is the value of, or the
/// list item's first key) starts at `owner_at`. Block mappings get new lines after their last
/// pair, at their keys' column; flow mappings get entries before their `}`; an empty value
/// gets a nested block. Returns `None` for shapes that cannot take fields (a scalar).
pub fn insert_fields(
    text: &str,
    body: &Node,
    owner_at: usize,
    fields: &[(String, Value)],
    unit: usize,
) -> Option<Edit> {
    let nl = newline(text);
    match &body.kind {
        Kind::Map { pairs, flow: false } if !pairs.is_empty() => {
            let col = col_of(text, pairs[0].key.span.start);
            let last = pairs.last()?;
            let at = line_end(text, pair_end(text, &last.key, &last.value));
            Some(Edit::insert(at, block_lines(fields, col, unit, nl)))
        }
        Kind::Map { pairs, flow: true } => {
            let close = content_end(text, body.span.end).checked_sub(1)?;
            if text.as_bytes().get(close) != Some(&b'}') {
                return None;
            }
            let json = json_style(body);
            let entries = flow_entries(fields, json).join(", ");
            let sep = if pairs.is_empty() { "" } else { ", " };
            Some(Edit::insert(close, format!("{sep}{entries}")))
        }
        Kind::Scalar { .. } if body.resolve() == Some(Resolved::Null) && body.tag.is_none() => {
            let col = col_of(text, owner_at) + unit;
            let at = line_end(text, owner_at);
            Some(Edit::insert(at, block_lines(fields, col, unit, nl)))
        }
        _ => None,
    }
}

/// The edit that binds `prefix` to the extension's namespace: a new entry in `$namespaces`
/// (block or flow, JSON quoting kept), or a new `$namespaces` at the top of the root mapping.
/// Works from indentation when the tree lost the region.
pub fn bind_namespace(text: &str, view: &CwlView, prefix: &str, unit: usize) -> Option<Edit> {
    let nl = newline(text);
    if let Some(ns) = view.namespaces_node {
        let fields = [(prefix.to_string(), Value::Scalar(EXTENSION_NS.to_string()))];
        return match &ns.value.kind {
            Kind::Map { flow: true, .. } => {
                let json = json_style(&ns.value) || json_style(view.root?);
                let mut edit = insert_fields(text, &ns.value, ns.key.span.start, &fields, unit)?;
                if json {
                    // The key may already be quoted (`insert_fields` quotes it in a JSON-style
                    // mapping): quote what is not, so that the document stays JSON.
                    for key in [format!("\"{prefix}\""), prefix.to_string()] {
                        edit.new_text = edit.new_text.replace(
                            &format!("{key}: {EXTENSION_NS}"),
                            &format!("\"{prefix}\": \"{EXTENSION_NS}\""),
                        );
                    }
                }
                Some(edit)
            }
            _ => insert_fields(text, &ns.value, ns.key.span.start, &fields, unit),
        };
    }
    let lines = outline::lines(text);
    // A `$namespaces:` block the tree did not give (broken YAML elsewhere).
    if let Some((i, l)) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.content_col == 0 && l.key == Some("$namespaces"))
    {
        if !l.value.is_empty() {
            return None;
        }
        let mut last = i;
        let mut col = unit;
        for (j, e) in lines.iter().enumerate().skip(i + 1) {
            if e.blank {
                continue;
            }
            if e.content_col == 0 {
                break;
            }
            if last == i {
                col = e.content_col;
            }
            last = j;
        }
        let at = lines[last].end();
        return Some(Edit::insert(
            at,
            format!("{nl}{}{prefix}: {EXTENSION_NS}", " ".repeat(col)),
        ));
    }
    match view.root.map(|r| &r.kind) {
        Some(Kind::Map { flow: true, pairs }) => {
            let root = view.root?;
            let open = root.span.start;
            if text.as_bytes().get(open) != Some(&b'{') {
                return None;
            }
            let json = json_style(root);
            let entry = if json {
                format!("\"$namespaces\": {{\"{prefix}\": \"{EXTENSION_NS}\"}}")
            } else {
                format!("$namespaces: {{{prefix}: {EXTENSION_NS}}}")
            };
            let sep = if pairs.is_empty() { "" } else { ", " };
            Some(Edit::insert(open + 1, format!("{entry}{sep}")))
        }
        _ => {
            // Before the root mapping's first key (after a shebang or leading comments).
            let first: Option<&Line> = lines
                .iter()
                .find(|l| !l.blank && l.content_col == 0 && l.key.is_some());
            let at = first.map_or(0, |l| l.start);
            Some(Edit::insert(
                at,
                format!(
                    "$namespaces:{nl}{}{prefix}: {EXTENSION_NS}{nl}",
                    " ".repeat(unit)
                ),
            ))
        }
    }
}

/// The prefix to write for the extension: the one the document binds, else `mcp` (with the
/// binding to add), else a free variant when `mcp` is taken by another namespace.
pub fn extension_prefix(bound: Option<&str>, is_taken: impl Fn(&str) -> bool) -> (String, bool) {
    if let Some(p) = bound {
        return (p.to_string(), false);
    }
    for candidate in ["mcp", "cwlmcp", "mcpext"] {
        if !is_taken(candidate) {
            return (candidate.to_string(), true);
        }
    }
    ("mcp".to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::apply_edits;
    use crate::document::yaml::YamlDoc;

    fn bind(text: &str) -> String {
        let doc = YamlDoc::parse(text);
        let view = CwlView::new(&doc);
        let edit = bind_namespace(text, &view, "mcp", 2).expect("an edit");
        apply_edits(text, &[edit]).unwrap()
    }

    #[test]
    fn binds_in_each_form_of_namespaces() {
        assert_eq!(
            bind("class: CommandLineTool\n$namespaces:\n    s: https://schema.org/\nhints: []\n"),
            format!(
                "class: CommandLineTool\n$namespaces:\n    s: https://schema.org/\n    mcp: {EXTENSION_NS}\nhints: []\n"
            )
        );
        assert_eq!(
            bind("#!/usr/bin/env cwl-runner\nclass: CommandLineTool\n"),
            format!(
                "#!/usr/bin/env cwl-runner\n$namespaces:\n  mcp: {EXTENSION_NS}\nclass: CommandLineTool\n"
            )
        );
        assert_eq!(
            bind("$namespaces: {s: x}\nclass: Workflow\n"),
            format!("$namespaces: {{s: x, mcp: {EXTENSION_NS}}}\nclass: Workflow\n")
        );
        assert_eq!(
            bind("{\"class\": \"CommandLineTool\"}"),
            format!(
                "{{\"$namespaces\": {{\"mcp\": \"{EXTENSION_NS}\"}}, \"class\": \"CommandLineTool\"}}"
            )
        );
        assert_eq!(
            bind("{\"$namespaces\": {}, \"class\": \"CommandLineTool\"}"),
            format!(
                "{{\"$namespaces\": {{\"mcp\": \"{EXTENSION_NS}\"}}, \"class\": \"CommandLineTool\"}}"
            )
        );
        assert_eq!(
            bind("class: CommandLineTool\r\n$namespaces:\r\nlabel: x\r\n"),
            format!(
                "class: CommandLineTool\r\n$namespaces:\r\n  mcp: {EXTENSION_NS}\r\nlabel: x\r\n"
            )
        );
    }
}
