//! [`YamlDoc`]: the value tree of one document, its anchors, syntax errors and deferred parts,
//! and [`YamlDoc::deref`], which follows aliases and opens deferred subtrees.
//!
//! Uses `node`, `errors` and `memo`; the builders (`from_tree`, `from_events`) produce it.
use std::collections::HashMap;
use std::sync::Arc;

use super::errors::SyntaxError;
use super::memo::DeferredPart;
use super::node::{Kind, Node};

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
    pub text: Option<Arc<str>>,
}

impl YamlDoc {
    /// The text the tree was built from (`None` for trees built without a snapshot).
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// A document with no root, anchors, errors or deferred parts: what a deferred subtree
    /// (which holds none of these) is read in, on its own.
    pub(super) fn empty() -> YamlDoc {
        YamlDoc {
            root: None,
            anchors: HashMap::new(),
            errors: Vec::new(),
            source: Source::TreeSitter,
            deferred: Vec::new(),
            text: None,
        }
    }

    /// The deferred part behind `node`, when `node` stands for one.
    pub fn deferred_part(&self, node: &Node) -> Option<&DeferredPart> {
        match node.kind {
            Kind::Deferred(i) => self.deferred.get(i),
            _ => None,
        }
    }

    /// Follows an alias to its anchored node (one step; anchors never hold aliases to
    /// themselves since an anchor is defined before its use).
    pub fn deref<'a>(&'a self, node: &'a Node) -> &'a Node {
        match &node.kind {
            Kind::Alias(name) => self.anchors.get(name).unwrap_or(node),
            Kind::Deferred(i) => match self.deferred.get(*i) {
                Some(part) => part.node(),
                None => node,
            },
            _ => node,
        }
    }
}
