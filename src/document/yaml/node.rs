//! The value tree's types: [`Node`], [`Kind`], [`Pair`], [`Style`] and byte [`Span`]s, with the
//! accessors everything reads a tree through and span shifting.
//!
//! Uses nothing else in the folder; every other file here builds on it.
use std::ops::Range;

/// A byte range in the document text.
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
        /// Kept inline up to 24 bytes (most keys and values of a CWL document: no
        /// allocation apiece, issue 14).
        text: compact_str::CompactString,
        style: Style,
    },
    Alias(String),
    /// Text that could not be parsed.
    Invalid,
    /// A large subtree (a root process's `inputs` or `outputs`, and each entry of those) kept
    /// aside and built only when read through [`YamlDoc::deref`](super::YamlDoc::deref):
    /// diagnostics rarely need it, and its value, JSON form and syntax errors are memoized by
    /// content across edits (see [`memo`](super::memo)).
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
    /// Its tag as written (`!!str`, `!custom`). Boxed behind a thin pointer: tags are rare,
    /// and every node of a 50,000-line tool's value tree (55,600 of them) is 8 bytes smaller
    /// (issue 14).
    pub tag: Option<Box<String>>,
}

impl Node {
    pub(super) fn new(span: Span, kind: Kind) -> Node {
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
                text: compact_str::CompactString::const_new(""),
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
}

impl Node {
    /// A copy with every span moved by `+by` bytes.
    pub fn shifted(&self, by: usize) -> Node {
        self.map_spans(&|s: &Span| s.start + by..s.end + by, 0)
    }

    /// A copy with every span moved by `+by` bytes and every [`Kind::Deferred`] index by
    /// `+base` (a memoized subtree's own parts, placed in a document's list at `base`).
    pub(super) fn placed(&self, by: usize, base: usize) -> Node {
        self.map_spans(&|s: &Span| s.start + by..s.end + by, base as isize)
    }

    pub(super) fn shifted_back(&self, by: usize) -> Node {
        self.map_spans(&|s: &Span| s.start - by..s.end - by, 0)
    }

    /// A copy with every span moved by `by` bytes and every [`Kind::Deferred`] index by
    /// `base`, either way (the entries of a section after an edit, moved by the length it
    /// added, their parts by the count it added).
    pub(super) fn moved(&self, by: isize, base: isize) -> Node {
        let at = |x: usize| {
            x.checked_add_signed(by)
                .expect("a span moved before the start")
        };
        let span = at(self.span.start)..at(self.span.end);
        let kind = match &self.kind {
            Kind::Map { .. } | Kind::Seq { .. } => {
                return self.map_spans(&|s: &Span| at(s.start)..at(s.end), base);
            }
            Kind::Deferred(i) => Kind::Deferred(
                i.checked_add_signed(base)
                    .expect("a deferred index moved before the first"),
            ),
            other => other.clone(),
        };
        Node {
            span,
            kind,
            tag: self.tag.clone(),
        }
    }

    /// `*self = src.moved(by, base)`, reusing `self`'s string when both are scalars (a
    /// section built from a dropped one reuses its keys' allocations).
    pub(super) fn assign_moved(&mut self, src: &Node, by: isize, base: isize) {
        let at = |x: usize| {
            x.checked_add_signed(by)
                .expect("a span moved before the start")
        };
        match (&mut self.kind, &src.kind) {
            (Kind::Scalar { text, style }, Kind::Scalar { text: t, style: s }) => {
                text.clone_from(t);
                *style = *s;
            }
            (Kind::Deferred(i), Kind::Deferred(j)) => {
                *i = j
                    .checked_add_signed(base)
                    .expect("a deferred index moved before the first");
            }
            _ => {
                *self = src.moved(by, base);
                return;
            }
        }
        self.span = at(src.span.start)..at(src.span.end);
        self.tag.clone_from(&src.tag);
    }

    fn map_spans(&self, f: &dyn Fn(&Span) -> Span, base: isize) -> Node {
        let kind = match &self.kind {
            Kind::Map { pairs, flow } => Kind::Map {
                pairs: pairs
                    .iter()
                    .map(|p| Pair {
                        key: p.key.map_spans(f, base),
                        value: p.value.map_spans(f, base),
                    })
                    .collect(),
                flow: *flow,
            },
            Kind::Seq { items, flow } => Kind::Seq {
                items: items.iter().map(|n| n.map_spans(f, base)).collect(),
                flow: *flow,
            },
            Kind::Deferred(i) => Kind::Deferred(
                i.checked_add_signed(base)
                    .expect("a deferred index moved before the first"),
            ),
            other => other.clone(),
        };
        Node {
            span: f(&self.span),
            kind,
            tag: self.tag.clone(),
        }
    }
}

/// The deepest nesting the builders (and the error-region walk) descend into.
pub(super) const MAX_DEPTH: usize = 512;

#[cfg(test)]
mod tests {
    use super::{Node, Pair};

    /// A 50,000-line tool's value trees hold about 55,600 nodes: their size is memory
    /// (issue 14). A tag behind a thin pointer keeps a node at 56 bytes on 64-bit targets.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_node_is_56_bytes_and_a_pair_two_nodes() {
        assert_eq!(std::mem::size_of::<Node>(), 56);
        assert_eq!(std::mem::size_of::<Pair>(), 2 * 56);
    }
}
