//! Text, syntax tree and positions of one document.
pub mod grammar;
mod interior;
pub mod libyaml;
pub mod outline;
pub mod position;
mod settle;
pub mod text;
pub mod yaml;

pub use position::{Encoding, LineIndex, OutOfRange, Position};
pub use settle::Warming;
pub use text::{Change, Document, Snapshot};

/// Calls `f` on every node of `tree` in document order (tests compare and sample trees).
#[cfg(test)]
pub(crate) fn visit_nodes(tree: &tree_sitter::Tree, mut f: impl FnMut(tree_sitter::Node)) {
    let mut cursor = tree.walk();
    'walk: loop {
        f(cursor.node());
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        while cursor.goto_parent() {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
        }
        break;
    }
}

/// One node of a tree as tests compare it: kind, byte range and points.
#[cfg(test)]
pub(crate) type TreeNode = (
    &'static str,
    std::ops::Range<usize>,
    tree_sitter::Point,
    tree_sitter::Point,
);

/// Every node of `tree` in document order (tests compare trees with it; nothing is
/// formatted, so comparing large trees many times stays cheap).
#[cfg(test)]
pub(crate) fn tree_nodes(tree: &tree_sitter::Tree) -> Vec<TreeNode> {
    let mut out = Vec::new();
    visit_nodes(tree, |n| {
        out.push((
            n.kind(),
            n.byte_range(),
            n.start_position(),
            n.end_position(),
        ))
    });
    out
}
