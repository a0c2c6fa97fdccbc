//! The tree of a broken text, made without a fresh parse of the whole document (issue 14).
//!
//! tree-sitter's error recovery can take another path when it reuses subtrees than on a fresh
//! parse, so the tree of a text with errors cannot be the incremental parse of whatever the
//! editor's history left (SPEC §9: it must depend on the text only). Before this module it was
//! a fresh parse of the whole text on every broken keystroke (about 120 ms at 50,000 lines).
//!
//! The tree of a broken text is defined instead, for a text with at least one large top-level
//! block, as:
//!
//! 1. split the text into top-level blocks (a block starts at a line whose first byte begins
//!    a key: not a space, tab, line break, `#` or `-`; see [`blocks`]);
//! 2. `S` = the blocks smaller than [`KEPT_BLOCK`] whose own text, parsed alone, has an error
//!    (memoized by that text);
//! 3. `T'` = the text with every byte of the blocks in `S` after the colon of its key, but
//!    the line breaks, made a space (same length, same rows and columns; a block in `S`
//!    whose first line has no `key:` means the fresh parse). The key is kept because
//!    tree-sitter-yaml reparses the whole top-level mapping after any change in the first
//!    column of a top-level line (72–115 ms at 50,000 lines, against 0.1 ms for its value);
//! 4. if the parse of `T'` has an error, the tree is the fresh parse of the text; otherwise it
//!    is the parse of the text reusing the tree of `T'`, with the blocks of `S` edited back.
//!
//! Each step depends on the text only. The tree of `T'` has no error, and an error-free tree
//! reached incrementally is the tree of a fresh parse (`tests/differential_edits.rs` checks it
//! node by node after every step), so `T'`'s tree is reached from whatever tree is at hand
//! (the editor's incremental tree, or the fresh parse when a broken file is opened), and only
//! the broken blocks are parsed again. The same tests compare the document's tree after every
//! edit with [`super::Snapshot::parse`] of its text, which runs this same definition.
use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::{InputEdit, Parser, Point, Tree};

/// Blocks at least this large are kept as parsed (never blanked, never parsed alone); a text
/// with none is parsed fresh when broken (it is small, or has no large section to reuse).
pub const KEPT_BLOCK: usize = 8 * 1024;

/// At most this many block texts keep their verdict (parsed alone: error or not).
const VERDICTS: usize = 64;

thread_local! {
    static VERDICT: RefCell<Vec<(Box<str>, bool)>> = const { RefCell::new(Vec::new()) };
}

/// Whether `tree` is not a whole, error-free parse of `text`: it has an error, or it stops
/// before the end of the text (tree-sitter can return such a tree incrementally).
pub fn is_broken(tree: &Tree, text: &[u8]) -> bool {
    let root = tree.root_node();
    root.has_error()
        || text
            .get(root.end_byte()..)
            .is_some_and(|rest| rest.iter().any(|b| !b.is_ascii_whitespace()))
}

/// One top-level block: its bytes and the points of its ends.
#[derive(Clone, Debug, PartialEq)]
struct Block {
    bytes: Range<usize>,
    start: Point,
    end: Point,
}

/// The top-level blocks of `text`, in order. The bytes before the first block (comments, a
/// `#!` line) belong to none.
fn blocks(text: &str) -> Vec<Block> {
    let bytes = text.as_bytes();
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut row = 0;
    let mut line_start = 0;
    let mut lines = memchr::memchr_iter(b'\n', bytes);
    loop {
        if let Some(&b) = bytes.get(line_start)
            && !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'-')
        {
            starts.push((line_start, row));
        }
        match lines.next() {
            Some(i) => {
                line_start = i + 1;
                row += 1;
            }
            None => break,
        }
    }
    let end_point = Point::new(row, bytes.len() - line_start);
    let mut out = Vec::with_capacity(starts.len());
    for (i, &(start, start_row)) in starts.iter().enumerate() {
        let (end_byte, end) = match starts.get(i + 1) {
            Some(&(next, next_row)) => (next, Point::new(next_row, 0)),
            None => (bytes.len(), end_point),
        };
        out.push(Block {
            bytes: start..end_byte,
            start: Point::new(start_row, 0),
            end,
        });
    }
    out
}

/// Whether `block`, parsed alone, has an error (memoized by its text).
fn broken_alone(block: &str, parser: &mut Parser) -> bool {
    if let Some(verdict) = VERDICT.with(|v| {
        v.borrow()
            .iter()
            .find(|(t, _)| **t == *block)
            .map(|(_, verdict)| *verdict)
    }) {
        return verdict;
    }
    let verdict = parser
        .parse(block, None)
        .is_none_or(|tree| is_broken(&tree, block.as_bytes()));
    VERDICT.with(|v| {
        let mut v = v.borrow_mut();
        if v.len() >= VERDICTS {
            v.remove(0);
        }
        v.push((block.into(), verdict));
    });
    verdict
}

/// The part of `block` after the colon of its key (`key:` then a space, a tab, a line break
/// or the end), as the edit that changes those bytes in place; `None` without such a key.
fn value_of(text: &str, block: &Block) -> Option<InputEdit> {
    let bytes = &text.as_bytes()[block.bytes.clone()];
    let line = &bytes[..memchr::memchr(b'\n', bytes).unwrap_or(bytes.len())];
    let colon = (0..line.len()).find(|&i| {
        line[i] == b':'
            && line
                .get(i + 1)
                .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r'))
    })?;
    let start = block.bytes.start + colon + 1;
    Some(InputEdit {
        start_byte: start,
        old_end_byte: block.bytes.end,
        new_end_byte: block.bytes.end,
        start_position: Point::new(block.start.row, colon + 1),
        old_end_position: block.end,
        new_end_position: block.end,
    })
}

/// The tree of the broken `text` as the module doc defines it, from `tree` (any tree of
/// `text`: incremental or fresh); `None` where the definition says the fresh parse.
pub fn settle(text: &str, tree: &Tree, parser: &mut Parser) -> Option<Tree> {
    let all = blocks(text);
    if !all.iter().any(|b| b.bytes.len() >= KEPT_BLOCK) {
        return None;
    }
    let blanked: Vec<InputEdit> = all
        .iter()
        .filter(|b| b.bytes.len() < KEPT_BLOCK && broken_alone(&text[b.bytes.clone()], parser))
        .map(|b| value_of(text, b))
        .collect::<Option<_>>()?;
    if blanked.is_empty() {
        return None;
    }
    let mut valid = text.as_bytes().to_vec();
    for edit in &blanked {
        for b in &mut valid[edit.start_byte..edit.old_end_byte] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
    }
    let mut base = tree.clone();
    for edit in &blanked {
        base.edit(edit);
    }
    let mut base = parser.parse(&valid, Some(&base))?;
    if is_broken(&base, &valid) {
        return None;
    }
    for edit in &blanked {
        base.edit(edit);
    }
    parser.parse(text, Some(&base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::grammar;

    fn big_inputs(n: usize) -> String {
        let mut t = String::from("inputs:\n");
        for i in 0..n {
            t.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: input {i}\n"
            ));
        }
        t
    }

    #[test]
    fn blocks_start_at_keys_in_the_first_column() {
        let text = "#!/usr/bin/env cwl-runner\ncwlVersion: v1.2\nbaseCommand:\n- echo\n# c\n\n\
                    inputs:\n  a: string\r\nhints: {}";
        let got: Vec<&str> = blocks(text)
            .iter()
            .map(|b| &text[b.bytes.clone()])
            .collect();
        assert_eq!(
            got,
            [
                "cwlVersion: v1.2\n",
                "baseCommand:\n- echo\n# c\n\n",
                "inputs:\n  a: string\r\n",
                "hints: {}"
            ]
        );
        let b = blocks(text);
        assert_eq!((b[1].start, b[1].end), (Point::new(2, 0), Point::new(6, 0)));
        assert_eq!(b[3].end, Point::new(8, 9));
        let edit = value_of(text, &b[1]).unwrap();
        assert_eq!(
            &text[edit.start_byte..edit.old_end_byte],
            "\n- echo\n# c\n\n"
        );
        assert_eq!(edit.start_position, Point::new(2, 12));
        let edit = value_of(text, &b[3]).unwrap();
        assert_eq!(&text[edit.start_byte..edit.old_end_byte], " {}");
        let keyed = "s:author: x\n";
        let edit = value_of(keyed, &blocks(keyed)[0]).unwrap();
        assert_eq!(&keyed[edit.start_byte..], " x\n");
        assert!(value_of("std\n", &blocks("std\n")[0]).is_none());
        assert!(blocks("").is_empty());
        assert!(blocks("  indented: only\n").is_empty());
    }

    #[test]
    fn a_break_in_a_small_block_is_parsed_again_around_the_kept_blocks() {
        let text = format!(
            "cwlVersion: v1.2\nbaseCommand: [tool, run\n{}outputs: {{}}\n",
            big_inputs(400)
        );
        let mut parser = grammar::parser();
        let fresh = parser.parse(&text, None).unwrap();
        assert!(is_broken(&fresh, text.as_bytes()));
        let settled = settle(&text, &fresh, &mut parser).expect("settled");
        assert!(settled.root_node().has_error());
        // The kept block is parsed as in a valid document: its mapping holds no error.
        let root = settled.root_node();
        let inputs_at = text.find("inputs:").unwrap();
        let node = root
            .descendant_for_byte_range(inputs_at, inputs_at + 6)
            .unwrap();
        let mut pair = node;
        while pair.kind() != "block_mapping_pair" {
            pair = pair.parent().expect("inputs is a pair");
        }
        assert!(!pair.has_error(), "{}", pair.to_sexp());
        // From another tree of the same text (an incremental one), the same tree.
        let mut edited = parser.parse(text.replace("run\n", "run]\n"), None).unwrap();
        let at = text.find("run\n").unwrap() + 3;
        edited.edit(&InputEdit {
            start_byte: at,
            old_end_byte: at + 1,
            new_end_byte: at,
            start_position: Point::new(1, 22),
            old_end_position: Point::new(1, 23),
            new_end_position: Point::new(1, 22),
        });
        let incremental = parser.parse(&text, Some(&edited)).unwrap();
        let again = settle(&text, &incremental, &mut parser).expect("settled");
        assert_eq!(again.root_node().to_sexp(), settled.root_node().to_sexp());
    }

    #[test]
    fn what_it_cannot_settle_is_left_to_the_fresh_parse() {
        let mut parser = grammar::parser();
        // No large block.
        let small = "a: [1\nb: 2\n";
        let tree = parser.parse(small, None).unwrap();
        assert!(settle(small, &tree, &mut parser).is_none());
        // The break is inside the large block.
        let text = format!("a: 1\n{}", big_inputs(400).replace("in_7:", "in_7: ["));
        let tree = parser.parse(&text, None).unwrap();
        assert!(is_broken(&tree, text.as_bytes()));
        assert!(settle(&text, &tree, &mut parser).is_none());
    }
}
