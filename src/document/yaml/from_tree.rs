//! The tree built from tree-sitter's tree: the fast path, incremental, and the one that
//! survives broken YAML (an ERROR node's pairs are salvaged). Large `inputs`/`outputs` of the
//! root mapping are deferred through the memo.
//!
//! Uses `node`, `scalar` (decoding raw scalar text), `errors` (repeated keys), `memo`, `doc`
//! and `json` (a deferred subtree's JSON form is memoized with it).
use std::collections::HashMap;

use super::doc::{Source, YamlDoc};
use super::errors::{SyntaxError, duplicate_keys};
use super::memo::{self, DeferredPart};
use super::node::{Kind, MAX_DEPTH, Node, Pair, Style};
use super::scalar::{decode_block, decode_double, decode_single, fold_plain};

struct TreeBuilder<'t> {
    text: &'t str,
    anchors: HashMap<String, Node>,
    errors: Vec<SyntaxError>,
    documents: usize,
    /// The tree-sitter id of the root mapping, whose large `inputs`/`outputs` are deferred;
    /// `None` when nothing may be deferred (anchors anywhere, or a nested build).
    defer_in: Option<usize>,
    deferred: Vec<DeferredPart>,
}

pub(super) fn from_tree(text: &str, root: tree_sitter::Node) -> YamlDoc {
    let mut b = TreeBuilder {
        text,
        anchors: HashMap::new(),
        errors: Vec::new(),
        documents: 0,
        defer_in: None,
        deferred: Vec::new(),
    };
    // Anchors inside a deferred subtree would be invisible to aliases outside it.
    let may_defer = !text.contains('&');
    let mut first = None;
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() != "document" {
            continue;
        }
        let mut c2 = child.walk();
        let content = child
            .named_children(&mut c2)
            .find(|n| matches!(n.kind(), "block_node" | "flow_node" | "ERROR"));
        let Some(content) = content else { continue };
        b.documents += 1;
        if b.documents == 1 {
            if may_defer && !root.has_error() {
                b.defer_in = root_mapping_id(content);
            }
            first = Some(b.node(content, 0));
        } else if b.documents == 2 {
            b.errors.push(SyntaxError {
                span: child.start_byte()..child.end_byte(),
                message: "expected a single document in the stream but found another document"
                    .into(),
            });
        }
    }
    if first.is_none() && root.kind() == "ERROR" {
        first = Some(b.node(root, 0));
    }
    YamlDoc {
        root: first,
        anchors: b.anchors,
        errors: b.errors,
        source: Source::TreeSitter,
        deferred: b.deferred,
        text: None,
    }
}

impl<'t> TreeBuilder<'t> {
    fn slice(&self, n: tree_sitter::Node) -> &'t str {
        &self.text[n.start_byte()..n.end_byte()]
    }

    fn node(&mut self, n: tree_sitter::Node, depth: usize) -> Node {
        let span = n.start_byte()..n.end_byte();
        if depth > MAX_DEPTH {
            return Node::new(span, Kind::Invalid);
        }
        match n.kind() {
            "block_node" | "flow_node" => {
                let mut tag = None;
                let mut anchor = None;
                let mut content = None;
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    match child.kind() {
                        "tag" => tag = Some(self.slice(child).to_string()),
                        "anchor" => {
                            anchor = Some(self.slice(child).trim_start_matches('&').to_string())
                        }
                        "comment" => {}
                        _ if content.is_none() => content = Some(child),
                        _ => {}
                    }
                }
                let mut node = match content {
                    Some(c) => self.node(c, depth + 1),
                    None => Node::empty(n.end_byte()),
                };
                if content.is_some() {
                    // Keep the node's own span (without tag/anchor) for precise ranges.
                } else {
                    node.span = n.end_byte()..n.end_byte();
                }
                node.tag = tag;
                if let Some(name) = anchor {
                    self.anchors.insert(name, node.clone());
                }
                node
            }
            "block_mapping" | "flow_mapping" => {
                let flow = n.kind() == "flow_mapping";
                let mut pairs = Vec::new();
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    self.collect_pair(child, &mut pairs, depth);
                }
                duplicate_keys(&pairs, &mut self.errors);
                Node::new(span, Kind::Map { pairs, flow })
            }
            "block_sequence" | "flow_sequence" => {
                let flow = n.kind() == "flow_sequence";
                let mut items = Vec::new();
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    match child.kind() {
                        "block_sequence_item" => {
                            let mut c2 = child.walk();
                            let inner = child
                                .named_children(&mut c2)
                                .find(|c| c.kind() != "comment");
                            items.push(match inner {
                                Some(inner) => self.node(inner, depth + 1),
                                None => Node::empty(child.end_byte()),
                            });
                        }
                        "flow_pair" => {
                            let mut pairs = Vec::new();
                            self.collect_pair(child, &mut pairs, depth);
                            items.push(Node::new(
                                child.start_byte()..child.end_byte(),
                                Kind::Map { pairs, flow: true },
                            ));
                        }
                        "comment" => {}
                        _ => items.push(self.node(child, depth + 1)),
                    }
                }
                Node::new(span, Kind::Seq { items, flow })
            }
            "plain_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: fold_plain(self.slice(n)),
                    style: Style::Plain,
                },
            ),
            "single_quote_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: decode_single(self.slice(n)),
                    style: Style::SingleQuoted,
                },
            ),
            "double_quote_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: decode_double(self.slice(n)),
                    style: Style::DoubleQuoted,
                },
            ),
            "block_scalar" => {
                // Trailing blank lines belong to the scalar (they matter for `|+`).
                let mut end = n.end_byte();
                if !self.text[..end].ends_with('\n')
                    && let Some(i) = self.text[end..].find('\n')
                    && self.text[end..end + i].trim().is_empty()
                {
                    end += i + 1;
                }
                loop {
                    let rest = &self.text[end..];
                    match rest.find('\n') {
                        Some(i) if rest[..i].trim().is_empty() => end += i + 1,
                        _ => break,
                    }
                }
                let raw = &self.text[n.start_byte()..end];
                let line_start = self.text[..n.start_byte()].rfind('\n').map_or(0, |i| i + 1);
                let parent_indent = self.text[line_start..]
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
                let (text, style) = decode_block(raw, parent_indent);
                Node::new(span, Kind::Scalar { text, style })
            }
            "alias" => Node::new(
                span,
                Kind::Alias(self.slice(n).trim_start_matches('*').to_string()),
            ),
            "ERROR" => self.recover(n, depth),
            _ => Node::new(span, Kind::Invalid),
        }
    }

    /// A deferred subtree: its memo (built now when the content is new), its errors, and a
    /// [`Kind::Deferred`] node standing for it.
    fn defer(&mut self, v: tree_sitter::Node, depth: usize) -> Node {
        let span = v.start_byte()..v.end_byte();
        let content = &self.text[span.clone()];
        let memo = memo::lookup(content).unwrap_or_else(|| {
            let mut sub = TreeBuilder {
                text: self.text,
                anchors: HashMap::new(),
                errors: Vec::new(),
                documents: 0,
                defer_in: None,
                deferred: Vec::new(),
            };
            let node = sub.node(v, depth);
            let doc = YamlDoc::empty();
            let mut budget = 2_000_000;
            let json = node.to_json(&doc, &mut budget);
            memo::store(memo::Memo {
                text: content.into(),
                nodes: 2_000_000 - budget,
                node: node.shifted_back(span.start),
                errors: sub
                    .errors
                    .into_iter()
                    .map(|e| SyntaxError {
                        span: e.span.start - span.start..e.span.end - span.start,
                        message: e.message,
                    })
                    .collect(),
                json,
                derived: Default::default(),
            })
        });
        self.errors.extend(memo.errors.iter().map(|e| SyntaxError {
            span: e.span.start + span.start..e.span.end + span.start,
            message: e.message.clone(),
        }));
        self.deferred.push(DeferredPart::new(span.clone(), memo));
        Node::new(span, Kind::Deferred(self.deferred.len() - 1))
    }

    /// Salvages what an ERROR node holds: the pairs of a mapping cut short, for instance.
    fn recover(&mut self, n: tree_sitter::Node, depth: usize) -> Node {
        let span = n.start_byte()..n.end_byte();
        let mut pairs = Vec::new();
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "block_mapping_pair" | "flow_pair" => self.collect_pair(child, &mut pairs, depth),
                "block_node" | "flow_node" | "block_mapping" => {
                    let inner = self.node(child, depth + 1);
                    if let Kind::Map { pairs: inner, .. } = inner.kind {
                        pairs.extend(inner);
                    }
                }
                _ => {}
            }
        }
        if pairs.is_empty() {
            Node::new(span, Kind::Invalid)
        } else {
            Node::new(span, Kind::Map { pairs, flow: false })
        }
    }

    fn collect_pair(&mut self, child: tree_sitter::Node, pairs: &mut Vec<Pair>, depth: usize) {
        match child.kind() {
            "block_mapping_pair" | "flow_pair" => {
                let key = child.child_by_field_name("key");
                let value = child.child_by_field_name("value");
                let key_node = match key {
                    Some(k) => self.node(k, depth + 1),
                    None => Node::empty(child.start_byte()),
                };
                let deferrable = self.defer_in.is_some()
                    && child.parent().map(|p| p.id()) == self.defer_in
                    && matches!(key_node.scalar(), Some("inputs" | "outputs"));
                let value_node = match value {
                    Some(v) if deferrable && v.end_byte() - v.start_byte() >= memo::MIN_BYTES => {
                        self.defer(v, depth + 1)
                    }
                    Some(v) => self.node(v, depth + 1),
                    None => Node::empty(child.end_byte()),
                };
                pairs.push(Pair {
                    key: key_node,
                    value: value_node,
                });
            }
            // A flow mapping entry written without `: value`.
            "flow_node" => {
                let key = self.node(child, depth + 1);
                let at = key.span.end;
                pairs.push(Pair {
                    key,
                    value: Node::empty(at),
                });
            }
            "ERROR" => {
                let recovered = self.recover(child, depth + 1);
                if let Kind::Map { pairs: inner, .. } = recovered.kind {
                    pairs.extend(inner);
                }
            }
            _ => {}
        }
    }
}

/// The tree-sitter id of the block mapping a document's content is, if it is one.
fn root_mapping_id(content: tree_sitter::Node) -> Option<usize> {
    if content.kind() != "block_node" {
        return None;
    }
    let mut cursor = content.walk();
    content
        .named_children(&mut cursor)
        .find(|c| c.kind() == "block_mapping")
        .map(|c| c.id())
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "hints:\n  mcp:Tool:\n    name: x y\n";
        let doc = YamlDoc::parse(text);
        let root = doc.root.unwrap();
        let name = root
            .get("hints")
            .unwrap()
            .get("mcp:Tool")
            .unwrap()
            .entry("name")
            .unwrap();
        assert_eq!(&text[name.key.span.clone()], "name");
        assert_eq!(&text[name.value.span.clone()], "x y");
    }
}
