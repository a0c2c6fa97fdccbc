//! The tree built from tree-sitter's tree: the fast path, incremental, and the one that
//! survives broken YAML (an ERROR node's pairs are salvaged). Large `inputs`/`outputs` of the
//! root mapping are deferred through the memo, entry by entry (each entry memoized by its own
//! text, [`TreeBuilder::section`]), also while the YAML is broken outside them.
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
    let may_defer = !text.contains('&') && memo::enabled();
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
            // Also while the YAML is broken elsewhere: a section without an error inside is
            // built as in a valid document (the text it reads is the same).
            if may_defer {
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
                        "block_sequence_item" => items.push(match item_content(child) {
                            Some(inner) => self.node(inner, depth + 1),
                            None => Node::empty(child.end_byte()),
                        }),
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
                let end = blank_lines_end(self.text, n.end_byte());
                let raw = &self.text[n.start_byte()..end];
                let line_start = line_start(self.text, n.start_byte());
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

    /// A deferred subtree: its memo (found by content, or built now), its errors, and a
    /// [`Kind::Deferred`] node standing for it; its parts (the entries of a mapping or list)
    /// follow it in the document's list.
    fn defer(&mut self, v: tree_sitter::Node, depth: usize) -> Node {
        let span = v.start_byte()..v.end_byte();
        let key = &self.text[memo_key(self.text, &span)];
        let memo = memo::lookup(key).unwrap_or_else(|| memo::store(self.section(v, depth, key)));
        self.errors.extend(memo.errors.iter().map(|e| SyntaxError {
            span: e.span.start + span.start..e.span.end + span.start,
            message: e.message.clone(),
        }));
        let base = self.deferred.len() + 1;
        self.deferred
            .push(DeferredPart::new(span.clone(), memo.clone(), base));
        for part in &memo.view.deferred {
            let at = part.span.start + span.start..part.span.end + span.start;
            self.deferred
                .push(DeferredPart::new(at, part.memo().clone(), 0));
        }
        Node::new(span, Kind::Deferred(base - 1))
    }

    /// A builder for a subtree read on its own (no anchors, nothing deferred at its level).
    fn nested(&self) -> TreeBuilder<'t> {
        TreeBuilder {
            text: self.text,
            anchors: HashMap::new(),
            errors: Vec::new(),
            documents: 0,
            defer_in: None,
            deferred: Vec::new(),
        }
    }

    /// The memo of a section whose text is new. A block mapping or list is built with each
    /// entry's value deferred to a memo of its own, taken from the most alike memoized section
    /// when its text is unchanged (the previous version of this `inputs`, usually): typing in
    /// one input of a 50,000-line tool builds that input, not all of them. Anything else is
    /// built whole.
    fn section(&self, v: tree_sitter::Node, depth: usize, key: &str) -> memo::Memo {
        let start = v.start_byte();
        let mut sub = self.nested();
        let content = block_content(v);
        let mut parts = Vec::new();
        let node = match content {
            Some(c) => {
                let slots = entry_slots(c);
                let found = reusable(self.text, &slots, &memo::recent_sections());
                let mut next = found.into_iter();
                let mut entry = |sub: &mut TreeBuilder, value: tree_sitter::Node| {
                    let old = next.next().flatten();
                    sub.entry(value, depth + 2, start, old, &mut parts)
                };
                // As `node` builds a block mapping or list, entry values aside.
                let span = c.start_byte()..c.end_byte();
                if c.kind() == "block_mapping" {
                    let mut pairs = Vec::new();
                    let mut cursor = c.walk();
                    for child in c.named_children(&mut cursor) {
                        if child.kind() != "block_mapping_pair" {
                            sub.collect_pair(child, &mut pairs, depth + 1);
                            continue;
                        }
                        let key = match child.child_by_field_name("key") {
                            Some(k) => sub.node(k, depth + 2),
                            None => Node::empty(child.start_byte()),
                        };
                        let value = match child.child_by_field_name("value") {
                            Some(value) => entry(&mut sub, value),
                            None => Node::empty(child.end_byte()),
                        };
                        pairs.push(Pair { key, value });
                    }
                    duplicate_keys(&pairs, &mut sub.errors);
                    Node::new(span, Kind::Map { pairs, flow: false })
                } else {
                    let mut items = Vec::new();
                    let mut cursor = c.walk();
                    for child in c.named_children(&mut cursor) {
                        match child.kind() {
                            "block_sequence_item" => items.push(match item_content(child) {
                                Some(inner) => entry(&mut sub, inner),
                                None => Node::empty(child.end_byte()),
                            }),
                            "comment" => {}
                            _ => items.push(sub.node(child, depth + 2)),
                        }
                    }
                    Node::new(span, Kind::Seq { items, flow: false })
                }
            }
            None => sub.node(v, depth),
        };
        memo::Memo::new(
            key.into(),
            node.shifted_back(start),
            shifted_back(sub.errors, start),
            parts,
            0,
        )
    }

    /// One entry of a section: its memo (`old` when its text is unchanged, else built now),
    /// its errors, and a deferred node for it; the part's span is relative to `section`.
    fn entry(
        &mut self,
        v: tree_sitter::Node,
        depth: usize,
        section: usize,
        old: Option<std::sync::Arc<memo::Memo>>,
        parts: &mut Vec<DeferredPart>,
    ) -> Node {
        let span = v.start_byte()..v.end_byte();
        let memo = old.unwrap_or_else(|| {
            let mut sub = self.nested();
            let node = sub.node(v, depth);
            std::sync::Arc::new(memo::Memo::new(
                self.text[memo_key(self.text, &span)].into(),
                node.shifted_back(span.start),
                shifted_back(sub.errors, span.start),
                Vec::new(),
                1,
            ))
        });
        self.errors.extend(memo.errors.iter().map(|e| SyntaxError {
            span: e.span.start + span.start..e.span.end + span.start,
            message: e.message.clone(),
        }));
        parts.push(DeferredPart::new(
            span.start - section..span.end - section,
            memo,
            0,
        ));
        Node::new(span, Kind::Deferred(parts.len() - 1))
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
                    Some(v)
                        if deferrable
                            && v.end_byte() - v.start_byte() >= memo::MIN_BYTES
                            && !v.has_error() =>
                    {
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

/// The start of the line `at` is on.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// `end` moved past the rest of its line when that is blank, then past the blank lines after
/// it (a block scalar's trailing blank lines, which matter for `|+`).
fn blank_lines_end(text: &str, mut end: usize) -> usize {
    if !text[..end].ends_with('\n')
        && let Some(i) = text[end..].find('\n')
        && text[end..end + i].trim().is_empty()
    {
        end += i + 1;
    }
    loop {
        let rest = &text[end..];
        match rest.find('\n') {
            Some(i) if rest[..i].trim().is_empty() => end += i + 1,
            _ => break,
        }
    }
    end
}

/// The text a subtree's build reads, its memo key: from the start of its first line (a block
/// scalar's indentation is read there) to the end of the blank lines after it.
fn memo_key(text: &str, span: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    line_start(text, span.start)..blank_lines_end(text, span.end)
}

fn shifted_back(errors: Vec<SyntaxError>, by: usize) -> Vec<SyntaxError> {
    errors
        .into_iter()
        .map(|e| SyntaxError {
            span: e.span.start - by..e.span.end - by,
            message: e.message,
        })
        .collect()
}

/// What a block list's item holds (its first child that is not a comment).
fn item_content(item: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let mut cursor = item.walk();
    item.named_children(&mut cursor)
        .find(|c| c.kind() != "comment")
}

/// The block mapping or list a section's value is, when it is nothing more (no tag).
fn block_content(v: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if v.kind() != "block_node" {
        return None;
    }
    let mut cursor = v.walk();
    let mut content = None;
    for child in v.named_children(&mut cursor) {
        match child.kind() {
            "comment" => {}
            "block_mapping" | "block_sequence" if content.is_none() => content = Some(child),
            _ => return None,
        }
    }
    content
}

/// The entry values of a block mapping or list, in order, as [`TreeBuilder::section`] defers
/// them.
fn entry_slots(c: tree_sitter::Node) -> Vec<tree_sitter::Node> {
    let mut out = Vec::new();
    let mut cursor = c.walk();
    for child in c.named_children(&mut cursor) {
        match child.kind() {
            "block_mapping_pair" => out.extend(child.child_by_field_name("value")),
            "block_sequence_item" => out.extend(item_content(child)),
            _ => {}
        }
    }
    out
}

/// For each entry, the memo of an entry with the same text in the most alike of `sections`
/// (the entries before and after an edit, matched from both ends), else `None`.
fn reusable(
    text: &str,
    slots: &[tree_sitter::Node],
    sections: &[std::sync::Arc<memo::Memo>],
) -> Vec<Option<std::sync::Arc<memo::Memo>>> {
    let keys: Vec<&str> = slots
        .iter()
        .map(|v| &text[memo_key(text, &(v.start_byte()..v.end_byte()))])
        .collect();
    let n = keys.len();
    let mut best: Option<(usize, usize, &[DeferredPart])> = None;
    for section in sections {
        let old = &section.view.deferred[..];
        let same = |i: usize, j: usize| *old[j].memo().text == *keys[i];
        let front = (0..n.min(old.len())).take_while(|&i| same(i, i)).count();
        let back = (0..(n - front).min(old.len() - front))
            .take_while(|&k| same(n - 1 - k, old.len() - 1 - k))
            .count();
        if best.is_none_or(|(f, b, _)| front + back > f + b) {
            best = Some((front, back, old));
        }
        if front + back + 1 >= n {
            break;
        }
    }
    let mut out = vec![None; n];
    if let Some((front, back, old)) = best {
        for i in 0..front {
            out[i] = Some(old[i].memo().clone());
        }
        for k in 0..back {
            out[n - 1 - k] = Some(old[old.len() - 1 - k].memo().clone());
        }
    }
    out
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
    use crate::document::yaml::{Kind, Node, Pair, YamlDoc, memo};

    /// `node` with every deferred subtree read in place.
    fn expanded(doc: &YamlDoc, node: &Node) -> Node {
        let node = match node.kind {
            Kind::Deferred(_) => doc.deref(node),
            _ => node,
        };
        let kind = match &node.kind {
            Kind::Map { pairs, flow } => Kind::Map {
                pairs: pairs
                    .iter()
                    .map(|p| Pair {
                        key: expanded(doc, &p.key),
                        value: expanded(doc, &p.value),
                    })
                    .collect(),
                flow: *flow,
            },
            Kind::Seq { items, flow } => Kind::Seq {
                items: items.iter().map(|n| expanded(doc, n)).collect(),
                flow: *flow,
            },
            other => other.clone(),
        };
        Node {
            span: node.span.clone(),
            kind,
            tag: node.tag.clone(),
        }
    }

    /// Each text in turn is built with the memos on (its `inputs` from the entries of the one
    /// before where unchanged) and off: the same tree, JSON and errors.
    fn same_as_unmemoized(texts: &[String]) {
        for (i, text) in texts.iter().enumerate() {
            let got = YamlDoc::parse(text);
            let want = memo::unmemoized(|| YamlDoc::parse(text));
            assert!(!got.deferred.is_empty(), "text {i}: `inputs` is deferred");
            assert!(want.deferred.is_empty(), "text {i}: nothing deferred");
            let root = got.root.as_ref().map(|r| expanded(&got, r));
            assert!(root == want.root, "text {i}: the trees differ");
            assert_eq!(got.to_json(), want.to_json(), "text {i}");
            assert_eq!(got.errors, want.errors, "text {i}");
        }
    }

    fn entries(n: usize, list: bool) -> String {
        let mut t = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        for i in 0..n {
            let (head, pad) = if list {
                (format!("  - id: in_{i}\n"), "    ")
            } else {
                (format!("  in_{i}:\n"), "    ")
            };
            t.push_str(&head);
            t.push_str(&format!(
                "{pad}type: string\n{pad}doc: |\n{pad}  Text of input {i},\n{pad}  on two lines.\n"
            ));
        }
        t
    }

    #[test]
    fn a_section_built_from_the_entries_of_the_last_equals_one_built_whole() {
        for list in [false, true] {
            let base = entries(300, list);
            let outputs = "outputs: {}\n";
            let at = base.find("input 150,").unwrap() + "input".len();
            let mut texts = vec![format!("{base}{outputs}")];
            // Typing in one entry's block scalar, one character at a time.
            for k in 1..4 {
                let mut t = base.clone();
                t.insert_str(at, &"xyz"[..k]);
                texts.push(format!("{t}{outputs}"));
            }
            // A repeated key inside one entry (an error relative to the entry), then a
            // repeated input name (an error of the section's own keys) in map form.
            let mut t = base.clone();
            let doc = t.find("    doc: |\n      Text of input 150,").unwrap();
            t.insert_str(doc, "    type: int\n");
            texts.push(format!("{t}{outputs}"));
            if !list {
                texts.push(format!("{base}  in_7:\n    type: int\n{outputs}"));
            }
            // The last entry's `|+` block scalar keeps the blank lines after it: adding one
            // changes that entry alone.
            let keep = base.replace(
                &format!("doc: |\n{}Text of input 299", "      "),
                &format!("doc: |+\n{}Text of input 299", "      "),
            );
            texts.push(format!("{keep}\n{outputs}"));
            texts.push(format!("{keep}\n\n{outputs}"));
            // Entries added and removed at both ends.
            texts.push(format!(
                "{}{outputs}",
                base.replacen("  in_0:", "  in_new:\n    type: int\n  in_0:", 1)
                    .replacen("  - id: in_0", "  - id: in_new\n  - id: in_0", 1)
            ));
            texts.push(format!("{}{outputs}", entries(299, list)));
            same_as_unmemoized(&texts);
            // The typed text reused every other entry of the text before it.
            let (before, after) = (YamlDoc::parse(&texts[1]), YamlDoc::parse(&texts[2]));
            let reused = |i: usize| {
                std::sync::Arc::ptr_eq(before.deferred[i].memo(), after.deferred[i].memo())
            };
            assert_eq!(after.deferred.len(), 301, "the section and its 300 entries");
            assert_eq!(
                (1..=300).filter(|&i| !reused(i)).count(),
                1,
                "one entry built"
            );
            assert!(!reused(151), "the edited entry is built");
        }
    }

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
