//! Runs `queries/mcp.scm` over the tree-sitter tree: the `$namespaces` bindings and the
//! candidate hint classes, found even while other parts of the document are broken.
use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::{Query, QueryCursor, StreamingIterator};

use crate::cwl::EXTENSION_NS;
use crate::document::Snapshot;
use crate::document::grammar;

/// The query source, shipped in `queries/` for editors too.
pub const MCP_QUERY: &str = include_str!("../../queries/mcp.scm");
/// The highlight query (grammar captures plus the MCP ones).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

fn query() -> Option<&'static Query> {
    static QUERY: OnceLock<Option<Query>> = OnceLock::new();
    QUERY
        .get_or_init(|| Query::new(&grammar::language(), MCP_QUERY).ok())
        .as_ref()
}

/// A `$namespaces` entry as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub prefix: String,
    pub uri: String,
}

/// What the query found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Located {
    pub bindings: Vec<Binding>,
    /// Spans of candidate hint classes (`class: X:Tool` values and `X:Tool:` keys).
    pub classes: Vec<(Range<usize>, String)>,
}

impl Located {
    /// The prefix bound to the extension's namespace.
    pub fn extension_prefix(&self) -> Option<&str> {
        self.bindings
            .iter()
            .find(|b| b.uri == EXTENSION_NS)
            .map(|b| b.prefix.as_str())
    }

    pub fn namespace(&self, prefix: &str) -> Option<&str> {
        self.bindings
            .iter()
            .find(|b| b.prefix == prefix)
            .map(|b| b.uri.as_str())
    }

    /// Whether `class` names the extension's Tool: `P:Tool` with `P` bound to the extension,
    /// or the full URI.
    pub fn is_tool(&self, class: &str) -> bool {
        if class.strip_suffix("Tool") == Some(EXTENSION_NS) {
            return true;
        }
        match class.split_once(':') {
            Some((prefix, "Tool")) => self.namespace(prefix) == Some(EXTENSION_NS),
            _ => false,
        }
    }
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Runs the query over the whole tree.
pub fn locate(snapshot: &Snapshot) -> Located {
    locate_in(snapshot, 0..snapshot.text.len())
}

/// Runs the query over the part of the tree that intersects `range` (bytes): on a large
/// document, only where the answer can be.
pub fn locate_in(snapshot: &Snapshot, range: Range<usize>) -> Located {
    let mut out = Located::default();
    locate_range(snapshot, range, &mut out);
    out.classes.sort_by_key(|(s, _)| s.start);
    out.classes.dedup();
    out
}

fn locate_range(snapshot: &Snapshot, range: Range<usize>, out: &mut Located) {
    locate_tree(
        snapshot.tree.root_node(),
        &snapshot.text,
        0,
        range.clone(),
        out,
    );
    // A settled broken text's blanked blocks, read from their trees parsed alone.
    if let Some(settled) = &snapshot.settled {
        for blank in &settled.blanks {
            let block = &blank.block;
            if block.start < range.end && range.start < block.end {
                let within = range.start.saturating_sub(block.start)
                    ..(range.end - block.start).min(block.len());
                let root = blank.tree.root_node();
                locate_tree(root, &blank.read, block.start, within, out);
            }
        }
    }
}

/// The query's finds in the tree `root` of `text`, placed at byte `at` of the document, over
/// `range` of `text`.
fn locate_tree(
    root: tree_sitter::Node,
    text: &str,
    at: usize,
    range: Range<usize>,
    out: &mut Located,
) {
    let Some(query) = query() else { return };
    let text = text.as_bytes();
    let names = query.capture_names();
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(range);
    let mut matches = cursor.matches(query, root, text);
    while let Some(m) = matches.next() {
        let mut prefix = None;
        let mut uri = None;
        for c in m.captures {
            let Ok(slice) = c.node.utf8_text(text) else {
                continue;
            };
            match names[c.index as usize] {
                "namespace.prefix" => prefix = Some(unquote(slice).to_string()),
                "namespace.uri" => uri = Some(unquote(slice).to_string()),
                "hint.class" => out.classes.push((
                    c.node.start_byte() + at..c.node.end_byte() + at,
                    unquote(slice).to_string(),
                )),
                _ => {}
            }
        }
        if let (Some(prefix), Some(uri)) = (prefix, uri)
            && !out.bindings.iter().any(|b| b.prefix == prefix)
        {
            out.bindings.push(Binding { prefix, uri });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_compile_against_the_grammar() {
        assert!(query().is_some());
        let q = Query::new(&grammar::language(), HIGHLIGHTS_QUERY);
        assert!(q.is_ok(), "{:?}", q.err());
    }

    #[test]
    fn finds_bindings_and_classes_in_every_form_even_near_errors() {
        let text = "$namespaces:\n  agent: https://eoap.github.io/cwl-mcp-extension#\n  s: https://schema.org/\nhints:\n  - class: agent:Tool\n    nam\n  agent:Tool:\n    x: [\n";
        let found = locate(&Snapshot::parse(text, 0));
        assert_eq!(found.extension_prefix(), Some("agent"));
        assert_eq!(found.namespace("s"), Some("https://schema.org/"));
        assert!(found.is_tool("agent:Tool"));
        assert!(!found.is_tool("s:Tool"));
        assert!(found.classes.iter().any(|(_, c)| c == "agent:Tool"));
        // Restricted to the `hints` block: the same classes, no bindings.
        let snapshot = Snapshot::parse(text, 0);
        let hints = text.find("hints:").unwrap();
        let part = locate_in(&snapshot, hints..text.len());
        assert!(part.bindings.is_empty());
        assert_eq!(part.classes, found.classes);
        let json = "{\"$namespaces\": {\"m\": \"https://eoap.github.io/cwl-mcp-extension#\"}}";
        let found = locate(&Snapshot::parse(json, 0));
        assert_eq!(found.extension_prefix(), Some("m"));
        let flow = "$namespaces: {mcp: 'https://eoap.github.io/cwl-mcp-extension#'}\n";
        assert_eq!(
            locate(&Snapshot::parse(flow, 0)).extension_prefix(),
            Some("mcp")
        );
    }
}
