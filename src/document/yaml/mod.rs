//! A YAML value tree whose every node knows its byte span: what the CWL view reads.
//!
//! Built from the tree-sitter tree (fast, incremental, and it survives broken YAML while the
//! user types). When tree-sitter reports an error, libyaml gives the verdict: if it accepts the
//! document (tree-sitter-yaml is stricter in places real CWL uses, SPEC §2), the tree is built
//! from libyaml's events instead and there is no syntax error; otherwise the tree-sitter tree,
//! with its error regions, is used as recovered. A settled broken text (its tree is that of
//! the text with its broken blocks blanked, `document::settle`) is read from that tree and
//! from each broken block's own tree (`settled_doc`).
//!
//! This file holds that choice ([`YamlDoc::build`]) and the public surface; the rest of the
//! folder, each file using only those listed before it:
//!
//! - `node`: the tree's types ([`Node`], [`Kind`], [`Pair`], [`Style`], [`Span`]) and accessors;
//! - `resolve`: YAML 1.2 core-schema resolution of scalars ([`Resolved`], [`Node::resolve`]);
//! - `errors`: [`SyntaxError`], repeated keys, and where a rejected document's errors are shown;
//! - `memo`: the content-keyed memo of large deferred subtrees ([`DeferredPart`]);
//! - `doc`: [`YamlDoc`] itself and [`YamlDoc::deref`] (aliases, deferred subtrees);
//! - `json`: the JSON form ([`Node::to_json`], [`YamlDoc::to_json`]);
//! - `scalar`: decoding of raw scalar text (quoted, folded, block scalars);
//! - `from_tree`: the builder over tree-sitter's tree;
//! - `from_events`: the builder over libyaml's events (read by
//!   [`document::libyaml`](crate::document::libyaml)).
//!
//! The tests in each file go through [`YamlDoc::parse`], comparing with serde_norway where
//! they can.
mod doc;
mod errors;
mod from_events;
mod from_tree;
mod json;
pub mod memo;
mod node;
mod resolve;
mod scalar;

pub use doc::{Source, YamlDoc};
pub use errors::SyntaxError;
pub use memo::DeferredPart;
pub use node::{Kind, Node, Pair, Span, Style};
pub use resolve::{Resolved, resolve_plain};

use super::libyaml;
use super::text::Snapshot;
use errors::error_regions;
use from_events::from_events;
use from_tree::from_tree;

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
        if let Some(settled) = &snapshot.settled {
            // libyaml asked from the first blanked block on (`VerdictScope`); the events are
            // read when it accepts (tree-sitter-yaml is stricter in places, SPEC §2).
            let scoped = settled.scope.as_ref().and_then(|s| s.verdict(text));
            let verdict = match scoped {
                Some(err) => Err(err),
                None => libyaml::verdict(text),
            };
            return match verdict.and_then(|()| libyaml::events(text)) {
                Ok(events) => from_events(text, &events),
                Err(err) => settled_doc(snapshot, settled, &err),
            };
        }
        if root.has_error() {
            // The verdict first: a document libyaml rejects (the usual case here) is read up
            // to its error without its events copied out; the events are read when it
            // accepts.
            match libyaml::verdict(text).and_then(|()| libyaml::events(text)) {
                Ok(events) => return from_events(text, &events),
                Err(err) => {
                    let mut doc = from_tree(&snapshot.text, root);
                    doc.errors = error_regions(text, root, &err);
                    return doc;
                }
            }
        }
        from_tree(&snapshot.text, root)
    }

    /// Parses a standalone text (CLI, tests) without an incremental tree.
    pub fn parse(text: &str) -> YamlDoc {
        YamlDoc::build(&Snapshot::parse(text, 0))
    }
}

/// The value tree of a settled broken text ([`settle`](crate::document::settle)), whose tree
/// is that of `T'`, the text with its broken blocks' values blanked: `T'`'s value tree (the
/// rest of the document as in a valid text, its large sections found in the memo), with the
/// value of each blanked top-level block read from that block parsed alone (the broken
/// entries of a large block keep no value while broken); its syntax errors are libyaml's
/// first error, then the error regions of the blanked blocks parsed alone after it, as
/// [`error_regions`] places them for a tree with errors.
fn settled_doc(
    snapshot: &Snapshot,
    settled: &crate::document::settle::Settled,
    err: &libyaml::ParseError,
) -> YamlDoc {
    let text: &str = &snapshot.text;
    let mut doc = from_tree(&settled.valid, snapshot.tree.root_node());
    let mut regions = Vec::new();
    for blank in &settled.blanks {
        let (at, len) = (blank.block.start, blank.block.len());
        regions.extend(errors::regions_in(blank.tree.root_node(), at, len));
        // A top-level block (its key in the first column) is a pair of the root mapping.
        if text
            .as_bytes()
            .get(at)
            .is_none_or(|b| matches!(b, b' ' | b'-'))
        {
            continue;
        }
        let part = from_tree(&blank.read, blank.tree.root_node());
        let (
            Some(Node {
                kind: Kind::Map { pairs: read, .. },
                ..
            }),
            Some(Node {
                kind: Kind::Map { pairs, .. },
                ..
            }),
        ) = (part.root, doc.root.as_mut())
        else {
            continue;
        };
        if let Some(i) = pairs.iter().position(|p| p.key.span.start == at) {
            // The block's own pairs: not the sibling line after it, nor a value that runs
            // into it (its spans would point past the block in the text).
            let read = read
                .iter()
                .filter(|p| p.key.span.start < len && p.value.span.end <= len)
                .map(|p| Pair {
                    key: p.key.shifted(at),
                    value: p.value.shifted(at),
                });
            pairs.splice(i..=i, read);
        }
    }
    doc.errors = errors::errors_at(text, regions, err);
    doc
}
