//! A YAML value tree whose every node knows its byte span: what the CWL view reads.
//!
//! Built from the tree-sitter tree (fast, incremental, and it survives broken YAML while the
//! user types). When tree-sitter reports an error, libyaml gives the verdict: if it accepts the
//! document (tree-sitter-yaml is stricter in places real CWL uses, SPEC §2), the tree is built
//! from libyaml's events instead and there is no syntax error; otherwise the tree-sitter tree,
//! with its error regions, is used as recovered.
use std::collections::HashMap;
use std::ops::Range;

use super::libyaml::{self, EventKind};
use super::text::Snapshot;

pub type Span = Range<usize>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Pairs in written order; `flow` for `{...}`.
    Map {
        pairs: Vec<Pair>,
        flow: bool,
    },
    Seq {
        items: Vec<Node>,
        flow: bool,
    },
    Scalar {
        text: String,
        style: Style,
    },
    Alias(String),
    /// Text that could not be parsed.
    Invalid,
    /// A large subtree (a root process's `inputs` or `outputs`) kept aside and built only when
    /// read through [`YamlDoc::deref`]: diagnostics rarely need it, and its value, JSON form
    /// and syntax errors are memoized by content across edits (see [`memo`]).
    Deferred(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub key: Node,
    pub value: Node,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub kind: Kind,
    pub tag: Option<String>,
}

/// A scalar's value under the YAML 1.2 core schema (`yes` is a string).
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl Node {
    fn new(span: Span, kind: Kind) -> Node {
        Node {
            span,
            kind,
            tag: None,
        }
    }

    /// An empty (null) node at `at`.
    pub fn empty(at: usize) -> Node {
        Node::new(
            at..at,
            Kind::Scalar {
                text: String::new(),
                style: Style::Plain,
            },
        )
    }

    pub fn pairs(&self) -> Option<&[Pair]> {
        match &self.kind {
            Kind::Map { pairs, .. } => Some(pairs),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Seq { items, .. } => Some(items),
            _ => None,
        }
    }

    pub fn is_map(&self) -> bool {
        matches!(self.kind, Kind::Map { .. })
    }

    pub fn is_flow(&self) -> bool {
        matches!(
            self.kind,
            Kind::Map { flow: true, .. } | Kind::Seq { flow: true, .. }
        )
    }

    /// The scalar's text, whatever its type.
    pub fn scalar(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The value of the first pair whose key is the scalar `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|p| &p.value)
    }

    pub fn entry(&self, key: &str) -> Option<&Pair> {
        self.pairs()?.iter().find(|p| p.key.scalar() == Some(key))
    }

    /// The scalar resolved under the YAML 1.2 core schema, honouring `!!str`-style tags.
    pub fn resolve(&self) -> Option<Resolved<'_>> {
        let Kind::Scalar { text, style } = &self.kind else {
            return None;
        };
        let tag = self.tag.as_deref().map(short_tag);
        match tag {
            Some("str") => return Some(Resolved::Str(text)),
            Some("null") => return Some(Resolved::Null),
            Some("bool") => {
                return Some(match text.as_str() {
                    "true" | "True" | "TRUE" => Resolved::Bool(true),
                    "false" | "False" | "FALSE" => Resolved::Bool(false),
                    _ => Resolved::Str(text),
                });
            }
            Some("int") => return Some(parse_int(text).map_or(Resolved::Str(text), Resolved::Int)),
            Some("float") => {
                return Some(
                    parse_float(text)
                        .or_else(|| parse_int(text).map(|i| i as f64))
                        .map_or(Resolved::Str(text), Resolved::Float),
                );
            }
            _ => {}
        }
        if *style != Style::Plain {
            return Some(Resolved::Str(text));
        }
        Some(resolve_plain(text))
    }

    /// Converts to JSON. Aliases are expanded from `anchors`; `budget` bounds the number of
    /// nodes produced so that alias bombs stay cheap (`None` when it runs out).
    pub fn to_json(&self, doc: &YamlDoc, budget: &mut usize) -> Option<serde_json::Value> {
        self.to_json_depth(doc, budget, 0, &[])
    }

    /// The JSON of a mapping without the given top-level keys.
    pub fn to_json_without(&self, doc: &YamlDoc, skip: &[&str]) -> Option<serde_json::Value> {
        let mut budget = 2_000_000;
        self.to_json_depth(doc, &mut budget, 0, skip)
    }

    fn to_json_depth(
        &self,
        doc: &YamlDoc,
        budget: &mut usize,
        depth: usize,
        skip: &[&str],
    ) -> Option<serde_json::Value> {
        use serde_json::Value;
        if *budget == 0 || depth > 256 {
            return None;
        }
        *budget -= 1;
        Some(match &self.kind {
            Kind::Map { pairs, .. } => {
                let mut map = serde_json::Map::new();
                for pair in pairs {
                    let key = match pair.key.resolve() {
                        Some(Resolved::Str(s)) => s.to_string(),
                        Some(Resolved::Null) => String::new(),
                        Some(Resolved::Bool(b)) => b.to_string(),
                        Some(Resolved::Int(i)) => i.to_string(),
                        Some(Resolved::Float(_)) => pair.key.scalar().unwrap_or("").to_string(),
                        None => continue,
                    };
                    if skip.contains(&key.as_str()) {
                        continue;
                    }
                    let value = pair.value.to_json_depth(doc, budget, depth + 1, &[])?;
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            Kind::Seq { items, .. } => Value::Array(
                items
                    .iter()
                    .map(|item| item.to_json_depth(doc, budget, depth + 1, &[]))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Kind::Scalar { .. } => match self.resolve()? {
                Resolved::Null => Value::Null,
                Resolved::Bool(b) => Value::Bool(b),
                Resolved::Int(i) => Value::from(i),
                Resolved::Float(f) => serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .unwrap_or_else(|| Value::String(self.scalar().unwrap_or("").to_string())),
                Resolved::Str(s) => Value::String(s.to_string()),
            },
            Kind::Alias(name) => {
                doc.anchors
                    .get(name)?
                    .to_json_depth(doc, budget, depth + 1, &[])?
            }
            Kind::Invalid => Value::Null,
            Kind::Deferred(i) => {
                let part = doc.deferred.get(*i)?;
                let json = part.memo.json.as_ref()?;
                *budget = budget.checked_sub(part.memo.nodes)?;
                json.clone()
            }
        })
    }
}

impl Node {
    /// A copy with every span moved by `+by` bytes.
    pub fn shifted(&self, by: usize) -> Node {
        self.map_spans(&|s: &Span| s.start + by..s.end + by)
    }

    fn shifted_back(&self, by: usize) -> Node {
        self.map_spans(&|s: &Span| s.start - by..s.end - by)
    }

    fn map_spans(&self, f: &dyn Fn(&Span) -> Span) -> Node {
        let kind = match &self.kind {
            Kind::Map { pairs, flow } => Kind::Map {
                pairs: pairs
                    .iter()
                    .map(|p| Pair {
                        key: p.key.map_spans(f),
                        value: p.value.map_spans(f),
                    })
                    .collect(),
                flow: *flow,
            },
            Kind::Seq { items, flow } => Kind::Seq {
                items: items.iter().map(|n| n.map_spans(f)).collect(),
                flow: *flow,
            },
            other => other.clone(),
        };
        Node {
            span: f(&self.span),
            kind,
            tag: self.tag.clone(),
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

/// Content-keyed memo of deferred subtrees, shared by every document and version: editing the
/// hint of a 50,000-line tool does not rebuild its unchanged `inputs`.
pub mod memo {
    use std::sync::{Arc, Mutex};

    use super::{Node, SyntaxError};

    /// Subtrees smaller than this are built in place.
    pub const MIN_BYTES: usize = 16 * 1024;
    /// Entries kept (least recently used dropped first).
    const CAPACITY: usize = 32;

    #[derive(Debug)]
    pub struct Memo {
        pub text: Arc<str>,
        /// The subtree, with spans relative to its start.
        pub node: Node,
        /// Its syntax errors (duplicate keys), relative to its start.
        pub errors: Vec<SyntaxError>,
        pub json: Option<serde_json::Value>,
        /// How many values its JSON holds (for the alias budget).
        pub nodes: usize,
    }

    static MEMO: Mutex<Vec<Arc<Memo>>> = Mutex::new(Vec::new());

    /// The memo of exactly this text, moved to the front.
    pub fn lookup(text: &str) -> Option<Arc<Memo>> {
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        let i = memo.iter().position(|m| &*m.text == text)?;
        let found = memo.remove(i);
        memo.insert(0, found.clone());
        Some(found)
    }

    pub fn store(m: Memo) -> Arc<Memo> {
        let m = Arc::new(m);
        let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
        memo.insert(0, m.clone());
        memo.truncate(CAPACITY);
        m
    }
}

fn short_tag(tag: &str) -> &str {
    tag.strip_prefix("tag:yaml.org,2002:")
        .or_else(|| tag.strip_prefix("!!"))
        .unwrap_or(tag)
}

/// YAML 1.2 core schema resolution of a plain scalar.
pub fn resolve_plain(text: &str) -> Resolved<'_> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        _ => {}
    }
    if let Some(i) = parse_int(text) {
        return Resolved::Int(i);
    }
    if let Some(f) = parse_float(text) {
        return Resolved::Float(f);
    }
    Resolved::Str(text)
}

fn parse_int(text: &str) -> Option<i64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_float(text: &str) -> Option<f64> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let b = text.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse().ok()
}

/// A YAML syntax problem: where, and what libyaml (or tree-sitter) said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// Where the tree came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    TreeSitter,
    Libyaml,
}

/// The value tree of a document, its anchors and its syntax errors.
#[derive(Clone, Debug)]
pub struct YamlDoc {
    pub root: Option<Node>,
    pub anchors: HashMap<String, Node>,
    pub errors: Vec<SyntaxError>,
    pub source: Source,
    /// The subtrees behind [`Kind::Deferred`] nodes.
    pub deferred: Vec<DeferredPart>,
    /// The text the tree was built from.
    pub text: Option<std::sync::Arc<str>>,
}

/// A deferred subtree: where it is, its memoized content, and its nodes once built.
#[derive(Debug)]
pub struct DeferredPart {
    pub span: Span,
    memo: std::sync::Arc<memo::Memo>,
    built: std::sync::OnceLock<Node>,
}

impl Clone for DeferredPart {
    fn clone(&self) -> Self {
        DeferredPart {
            span: self.span.clone(),
            memo: self.memo.clone(),
            built: std::sync::OnceLock::new(),
        }
    }
}

impl YamlDoc {
    /// Builds the tree of a snapshot (see the module doc for the choice of parser).
    pub fn build(snapshot: &Snapshot) -> YamlDoc {
        let mut doc = YamlDoc::build_tree(snapshot);
        doc.text = Some(snapshot.text.clone());
        doc
    }

    fn build_tree(snapshot: &Snapshot) -> YamlDoc {
        let text: &str = &snapshot.text;
        let root = snapshot.tree.root_node();
        if root.has_error() {
            match libyaml::events(text) {
                Ok(events) => return from_events(text, &events),
                Err(err) => {
                    let mut doc = from_tree(text, root);
                    doc.errors = error_regions(text, root, &err);
                    return doc;
                }
            }
        }
        from_tree(text, root)
    }

    /// Parses a standalone text (CLI, tests) without an incremental tree.
    pub fn parse(text: &str) -> YamlDoc {
        YamlDoc::build(&Snapshot::parse(text, 0))
    }

    /// The text the tree was built from (`None` for trees built without a snapshot).
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    pub fn to_json(&self) -> Option<serde_json::Value> {
        let mut budget = 2_000_000;
        match &self.root {
            Some(root) => root.to_json(self, &mut budget),
            None => Some(serde_json::Value::Null),
        }
    }

    /// Follows an alias to its anchored node (one step; anchors never hold aliases to
    /// themselves since an anchor is defined before its use).
    pub fn deref<'a>(&'a self, node: &'a Node) -> &'a Node {
        match &node.kind {
            Kind::Alias(name) => self.anchors.get(name).unwrap_or(node),
            Kind::Deferred(i) => match self.deferred.get(*i) {
                Some(part) => part
                    .built
                    .get_or_init(|| part.memo.node.shifted(part.span.start)),
                None => node,
            },
            _ => node,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// From the tree-sitter tree.

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

fn from_tree(text: &str, root: tree_sitter::Node) -> YamlDoc {
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

const MAX_DEPTH: usize = 512;

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
            let doc = YamlDoc {
                root: None,
                anchors: HashMap::new(),
                errors: Vec::new(),
                source: Source::TreeSitter,
                deferred: Vec::new(),
                text: None,
            };
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
            })
        });
        self.errors.extend(memo.errors.iter().map(|e| SyntaxError {
            span: e.span.start + span.start..e.span.end + span.start,
            message: e.message.clone(),
        }));
        self.deferred.push(DeferredPart {
            span: span.clone(),
            memo,
            built: std::sync::OnceLock::new(),
        });
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

/// A syntax error for each key repeated in one mapping (ruamel.yaml rejects them).
fn duplicate_keys(pairs: &[Pair], errors: &mut Vec<SyntaxError>) {
    let mut seen = std::collections::HashSet::new();
    for pair in pairs {
        if let Some(key) = pair.key.scalar()
            && !seen.insert(key)
        {
            errors.push(SyntaxError {
                span: pair.key.span.clone(),
                message: format!("found duplicate key \"{key}\""),
            });
        }
    }
}

/// The syntax errors of a document libyaml rejects. libyaml's first error is the primary one:
/// it is located where the text stopped making sense, whereas a tree-sitter ERROR node may start
/// far before it (often at the top of the document). Tree-sitter's regions after libyaml's
/// error add the later problems libyaml never reached; regions before it are tree-sitter being
/// stricter than the YAML loaders, and are dropped. Each region is kept to its first line.
fn error_regions(
    text: &str,
    root: tree_sitter::Node,
    err: &libyaml::ParseError,
) -> Vec<SyntaxError> {
    // An unclosed flow collection, quoted scalar or key is best shown where it opened: libyaml
    // notices the problem only on a later line.
    let opened_at = ["flow", "quoted scalar", "simple key"]
        .iter()
        .any(|c| err.message.contains(c))
        .then_some(err.context_offset)
        .flatten();
    let at = opened_at.unwrap_or(err.offset).min(text.len());
    let line_start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
    // Point at the offending token: from the mark to the end of its line (or the line's
    // content when the mark is at its end).
    let span = if at < line_end {
        at..line_end
    } else {
        let content = text[line_start..line_end].trim_start();
        (line_end - content.len())..line_end
    };
    let mut out = vec![SyntaxError {
        span,
        message: format!("YAML syntax error: {}", err.message),
    }];
    let mut regions: Vec<Span> = Vec::new();
    collect_errors(root, &mut regions, 0);
    for region in regions {
        if region.start <= line_end {
            continue;
        }
        out.push(SyntaxError {
            span: trim_region(text, region),
            message: "YAML syntax error".into(),
        });
    }
    out.sort_by_key(|e| e.span.start);
    out.dedup_by(|a, b| a.span.start == b.span.start);
    out
}

fn collect_errors(n: tree_sitter::Node, out: &mut Vec<Span>, depth: usize) {
    if n.is_error() || n.is_missing() {
        out.push(n.start_byte()..n.end_byte());
        return;
    }
    if !n.has_error() || depth > MAX_DEPTH {
        return;
    }
    let mut cursor = n.walk();
    for child in n.children(&mut cursor) {
        collect_errors(child, out, depth + 1);
    }
}

/// Keeps an error region to the line where it starts, so that a region swallowing the rest of
/// the document does not paint every line red.
fn trim_region(text: &str, span: Span) -> Span {
    let start = span.start.min(text.len());
    let mut start_eff = start;
    // Skip leading whitespace/newlines to the first visible character.
    while start_eff < span.end.min(text.len()) && text.as_bytes()[start_eff].is_ascii_whitespace() {
        start_eff += 1;
    }
    if start_eff >= span.end.min(text.len()) {
        start_eff = start;
    }
    let line_end = text[start_eff..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| start_eff + i);
    start_eff..span.end.min(line_end).max(start_eff)
}

// ---------------------------------------------------------------------------------------------
// Scalar decoding (tree-sitter gives raw text).

/// Line folding of flow scalars: a single line break becomes a space, each empty line a `\n`;
/// whitespace around line breaks is dropped.
fn fold_lines(raw: &str) -> String {
    if !raw.contains(['\n', '\r']) {
        return raw.to_string();
    }
    let lines: Vec<&str> = raw.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let mut out = String::with_capacity(raw.len());
    let last = lines.len() - 1;
    let mut pending_breaks = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let mut part: &str = line;
        if i > 0 {
            part = part.trim_start_matches([' ', '\t']);
        }
        if i < last {
            part = part.trim_end_matches([' ', '\t']);
        }
        if i > 0 && part.is_empty() && i < last {
            pending_breaks += 1;
            continue;
        }
        if i > 0 {
            if pending_breaks > 0 {
                out.extend(std::iter::repeat_n('\n', pending_breaks));
            } else {
                out.push(' ');
            }
            pending_breaks = 0;
        }
        out.push_str(part);
    }
    out
}

fn fold_plain(raw: &str) -> String {
    fold_lines(raw.trim())
}

fn decode_single(raw: &str) -> String {
    let inner = raw
        .strip_prefix('\'')
        .map(|s| s.strip_suffix('\'').unwrap_or(s))
        .unwrap_or(raw);
    fold_lines(inner).replace("''", "'")
}

fn decode_double(raw: &str) -> String {
    let inner = raw
        .strip_prefix('"')
        .map(|s| s.strip_suffix('"').unwrap_or(s))
        .unwrap_or(raw);
    // Escaped line breaks join lines without a space; handle them before folding by
    // splitting on unescaped breaks.
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    let mut pending_ws = String::new();
    let mut breaks = 0usize;
    let mut at_line_start = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                flush(&mut out, &mut pending_ws, &mut breaks, &mut at_line_start);
                let Some(e) = chars.next() else { break };
                match e {
                    '0' => out.push('\0'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    't' | '\t' => out.push('\t'),
                    'n' => out.push('\n'),
                    'v' => out.push('\u{b}'),
                    'f' => out.push('\u{c}'),
                    'r' => out.push('\r'),
                    'e' => out.push('\u{1b}'),
                    ' ' => out.push(' '),
                    '"' => out.push('"'),
                    '/' => out.push('/'),
                    '\\' => out.push('\\'),
                    'N' => out.push('\u{85}'),
                    '_' => out.push('\u{a0}'),
                    'L' => out.push('\u{2028}'),
                    'P' => out.push('\u{2029}'),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                        if let Some(ch) =
                            u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                        {
                            out.push(ch);
                        }
                    }
                    '\r' | '\n' => {
                        if e == '\r' && chars.peek() == Some(&'\n') {
                            chars.next();
                        }
                        // An escaped break: skip the next line's leading whitespace.
                        while matches!(chars.peek(), Some(' ' | '\t')) {
                            chars.next();
                        }
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                pending_ws.clear();
                if at_line_start {
                    breaks += 1;
                } else {
                    breaks = 1;
                    at_line_start = true;
                }
                while matches!(chars.peek(), Some(' ' | '\t')) {
                    chars.next();
                }
            }
            ' ' | '\t' => pending_ws.push(c),
            _ => {
                flush(&mut out, &mut pending_ws, &mut breaks, &mut at_line_start);
                out.push(c);
            }
        }
    }
    out.push_str(&pending_ws);
    return out;

    fn flush(out: &mut String, ws: &mut String, breaks: &mut usize, at_line_start: &mut bool) {
        if *at_line_start {
            if *breaks <= 1 {
                out.push(' ');
            } else {
                out.extend(std::iter::repeat_n('\n', *breaks - 1));
            }
            *breaks = 0;
            *at_line_start = false;
            ws.clear();
        } else {
            out.push_str(ws);
            ws.clear();
        }
    }
}

/// Decodes a literal (`|`) or folded (`>`) block scalar from its raw text (header included).
fn decode_block(raw: &str, parent_indent: usize) -> (String, Style) {
    let mut lines = raw.split('\n');
    let header = lines.next().unwrap_or("").trim_end_matches('\r');
    let header = header.split(" #").next().unwrap_or(header).trim();
    let style = if header.starts_with('>') {
        Style::Folded
    } else {
        Style::Literal
    };
    let mut chomp = 'c';
    let mut explicit = None;
    for c in header.chars().skip(1) {
        match c {
            '-' => chomp = '-',
            '+' => chomp = '+',
            d if d.is_ascii_digit() => explicit = d.to_digit(10).map(|d| d as usize),
            _ => {}
        }
    }
    let mut body: Vec<&str> = lines.map(|l| l.trim_end_matches('\r')).collect();
    // Without a final line break (end of file) the last line has no break to keep.
    let final_break = raw.ends_with('\n');
    if final_break {
        body.pop();
    }
    let indent = match explicit {
        Some(d) => parent_indent + d,
        None => body
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| l.len() - l.trim_start_matches(' ').len()),
    };
    // Content lines with the indentation removed; blank lines become empty.
    let content: Vec<&str> = body
        .iter()
        .map(|l| {
            // Only leading spaces are indentation: a shorter indentation followed by a
            // multi-byte character must not be cut inside it (found by fuzzing).
            let spaces = l.len() - l.trim_start_matches(' ').len();
            if spaces >= indent {
                &l[indent..]
            } else {
                l.trim_start_matches(' ')
            }
        })
        .collect();
    // Trailing empty lines belong to chomping.
    let last_text = content.iter().rposition(|l| !l.is_empty());
    let (text_lines, trailing) = match last_text {
        Some(i) => (&content[..=i], content.len() - i - 1),
        None => (&content[..0], content.len()),
    };
    let mut out = String::new();
    match style {
        Style::Literal => {
            for (i, line) in text_lines.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(line);
            }
        }
        _ => {
            let mut prev_more_indented = false;
            let mut prev_empty = false;
            let mut first = true;
            let mut empties = 0;
            for line in text_lines.iter() {
                if line.is_empty() {
                    empties += 1;
                    prev_empty = true;
                    continue;
                }
                let more = line.starts_with([' ', '\t']);
                if !first {
                    if empties > 0 {
                        if more || prev_more_indented {
                            out.push('\n');
                        }
                        out.extend(std::iter::repeat_n('\n', empties));
                    } else if more || prev_more_indented {
                        out.push('\n');
                    } else {
                        out.push(' ');
                    }
                } else if empties > 0 {
                    out.extend(std::iter::repeat_n('\n', empties));
                }
                let _ = prev_empty;
                empties = 0;
                prev_empty = false;
                first = false;
                prev_more_indented = more;
                out.push_str(line);
            }
        }
    }
    let has_text = !text_lines.is_empty();
    // `body` ends with the text after the last `\n` (empty when the scalar ends at a break):
    // the number of line breaks after the content is `trailing` for a scalar ending in `\n`.
    match chomp {
        '-' => {}
        '+' => out.extend(std::iter::repeat_n(
            '\n',
            (usize::from(has_text) + trailing).saturating_sub(usize::from(!final_break)),
        )),
        _ => {
            if has_text && (final_break || trailing > 0) {
                out.push('\n');
            }
        }
    }
    (out, style)
}

// ---------------------------------------------------------------------------------------------
// From libyaml events.

fn from_events(text: &str, events: &[libyaml::Event]) -> YamlDoc {
    let mut anchors = HashMap::new();
    let mut errors = Vec::new();
    let mut documents = 0;
    let mut root = None;
    let mut i = 0;
    while i < events.len() {
        match &events[i].kind {
            EventKind::DocumentStart => {
                documents += 1;
                i += 1;
                let (node, next) = event_node(text, events, i, &mut anchors, &mut errors, 0);
                if documents == 1 {
                    root = node;
                } else if documents == 2 {
                    errors.push(SyntaxError {
                        span: events[i.saturating_sub(1)].start..events[i.saturating_sub(1)].end,
                        message:
                            "expected a single document in the stream but found another document"
                                .into(),
                    });
                }
                i = next;
            }
            _ => i += 1,
        }
    }
    YamlDoc {
        root,
        anchors,
        errors,
        source: Source::Libyaml,
        deferred: Vec::new(),
        text: None,
    }
}

/// Sets a node's tag and records it under its anchor.
fn tagged(
    mut node: Node,
    tag: &Option<String>,
    anchor: &Option<String>,
    anchors: &mut HashMap<String, Node>,
) -> Node {
    node.tag = tag.clone();
    if let Some(a) = anchor {
        anchors.insert(a.clone(), node.clone());
    }
    node
}

fn event_node(
    text: &str,
    events: &[libyaml::Event],
    mut i: usize,
    anchors: &mut HashMap<String, Node>,
    errors: &mut Vec<SyntaxError>,
    depth: usize,
) -> (Option<Node>, usize) {
    let Some(event) = events.get(i) else {
        return (None, i);
    };
    if depth > MAX_DEPTH {
        // Too deep to be CWL: stop building here (the rest of the stream is skipped).
        return (None, events.len());
    }
    match &event.kind {
        EventKind::Scalar {
            anchor,
            tag,
            value,
            style,
        } => {
            let style = match style {
                libyaml::ScalarStyle::Plain => Style::Plain,
                libyaml::ScalarStyle::SingleQuoted => Style::SingleQuoted,
                libyaml::ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                libyaml::ScalarStyle::Literal => Style::Literal,
                libyaml::ScalarStyle::Folded => Style::Folded,
            };
            let node = Node::new(
                event.start..event.end,
                Kind::Scalar {
                    text: value.clone(),
                    style,
                },
            );
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        EventKind::Alias(name) => (
            Some(Node::new(event.start..event.end, Kind::Alias(name.clone()))),
            i + 1,
        ),
        EventKind::SequenceStart { anchor, tag, flow } => {
            let start = event.start;
            i += 1;
            let mut items = Vec::new();
            while i < events.len() && events[i].kind != EventKind::SequenceEnd {
                let (node, next) = event_node(text, events, i, anchors, errors, depth + 1);
                if next == i {
                    break;
                }
                if let Some(n) = node {
                    items.push(n);
                }
                i = next;
            }
            let end = events.get(i).map_or(text.len(), |e| e.end);
            let node = Node::new(start..end, Kind::Seq { items, flow: *flow });
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        EventKind::MappingStart { anchor, tag, flow } => {
            let start = event.start;
            i += 1;
            let mut pairs = Vec::new();
            while i < events.len() && events[i].kind != EventKind::MappingEnd {
                let (key, next) = event_node(text, events, i, anchors, errors, depth + 1);
                if next == i {
                    break;
                }
                let (value, next2) = event_node(text, events, next, anchors, errors, depth + 1);
                if let (Some(key), Some(value)) = (key, value) {
                    pairs.push(Pair { key, value });
                }
                if next2 == next {
                    i = next;
                    break;
                }
                i = next2;
            }
            duplicate_keys(&pairs, errors);
            let end = events.get(i).map_or(text.len(), |e| e.end);
            let node = Node::new(start..end, Kind::Map { pairs, flow: *flow });
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        _ => (None, i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> serde_json::Value {
        YamlDoc::parse(text).to_json().unwrap()
    }

    fn norway(text: &str) -> serde_json::Value {
        serde_norway::from_str(text).unwrap()
    }

    #[test]
    fn scalars_decode_like_libyaml() {
        let cases = [
            "a: plain text\nb: 'it''s'\nc: \"tab\\there \\u00e9\"\n",
            "a: |\n  line one\n  line two\n\nb: x\n",
            "a: >\n  folded\n  text\n\n  para\nb: |-\n  strip\nc: |+\n  keep\n\nd: 1\n",
            "a: multi\n  line plain\n\n  scalar\nb: 'multi\n  line'\n",
            "a: \"esc\\\n   aped\"\nb: [1, 2.5, true, null, yes, ~, 0x1F]\n",
            "k: {x: 1, y: [a, b]}\nl:\n  - a\n  -\n  - c: d\n",
            "a: >-\n  one\n    indented\n  two\n",
            "a: |2\n    two extra\n  base\n",
            "a: !!str 123\nb: &x {c: 1}\nd: *x\n",
        ];
        for text in cases {
            assert_eq!(json(text), norway(text), "{text:?}");
        }
    }

    #[test]
    fn yes_and_on_are_strings_and_json_form_with_tabs_parses() {
        assert_eq!(
            json("a: yes\nb: on\nc: true\n"),
            serde_json::json!({"a": "yes", "b": "on", "c": true})
        );
        let j = "{\n\t\"class\": \"CommandLineTool\",\n\t\"inputs\": []\n}\n";
        let doc = YamlDoc::parse(j);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(
            doc.to_json().unwrap(),
            serde_json::json!({"class": "CommandLineTool", "inputs": []})
        );
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

    #[test]
    fn libyaml_tree_is_used_where_tree_sitter_is_stricter() {
        let text = "class: CommandLineTool\narguments:\n  - valueFrom: '${\n    return 1;\n  }'\nhints:\n  mcp:Tool:\n    name: t\n";
        let doc = YamlDoc::parse(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(doc.to_json().unwrap(), norway(text));
        let root = doc.root.unwrap();
        let name = root
            .get("hints")
            .unwrap()
            .get("mcp:Tool")
            .unwrap()
            .entry("name")
            .unwrap();
        assert_eq!(&text[name.value.span.clone()], "t");
    }

    #[test]
    fn broken_yaml_keeps_the_rest_and_reports_a_local_error() {
        let text = "class: CommandLineTool\nhints:\n  mcp:Tool:\n    name: ok\n    title: [unclosed\nlabel: after\n";
        let doc = YamlDoc::parse(text);
        assert!(!doc.errors.is_empty());
        let line_of = |b: usize| text[..b].matches('\n').count();
        for e in &doc.errors {
            assert!(line_of(e.span.start) >= 4, "{e:?}");
        }
    }

    #[test]
    fn duplicate_keys_and_second_documents_are_errors() {
        let doc = YamlDoc::parse("a: 1\nb: 2\na: 3\n");
        assert_eq!(doc.errors.len(), 1);
        assert!(doc.errors[0].message.contains("duplicate key \"a\""));
        let doc = YamlDoc::parse("a: 1\n---\nb: 2\n");
        assert_eq!(doc.errors.len(), 1);
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..30 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let start = std::time::Instant::now();
        let doc = YamlDoc::parse(&text);
        assert!(doc.to_json().is_none());
        assert!(start.elapsed().as_secs() < 5);
    }
}
