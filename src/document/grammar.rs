//! The YAML grammar: tree-sitter-yaml 0.7.2 compiled by `build.rs` with 32-bit scanner rows.
use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_yaml() -> *const ();
}

/// The tree-sitter language function of the patched grammar.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_yaml) };

/// A `tree_sitter::Language` for the patched YAML grammar.
pub fn language() -> tree_sitter::Language {
    LANGUAGE.into()
}

/// A parser already set to the YAML language.
pub fn parser() -> tree_sitter::Parser {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&language())
        .expect("the vendored grammar matches the tree-sitter ABI");
    parser
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::tree_nodes;

    fn long_document(lines: usize) -> String {
        let mut text = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        let mut n = 3;
        let mut i = 0;
        while n < lines - 8 {
            text.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: input {i}\n"
            ));
            n += 3;
            i += 1;
        }
        text.push_str("outputs: {}\nhints:\n  mcp:Tool:\n    name: long_tool\n");
        text
    }

    #[test]
    fn parses_documents_past_the_16_bit_row_limit() {
        for lines in [1_000, 40_000, 70_000] {
            let text = long_document(lines);
            let tree = parser().parse(&text, None).expect("tree");
            assert!(
                !tree.root_node().has_error(),
                "{lines}-line document parsed with an error"
            );
            let hints_row = text.lines().position(|l| l == "hints:").unwrap();
            let last = tree.root_node().descendant_for_point_range(
                tree_sitter::Point::new(hints_row, 0),
                tree_sitter::Point::new(hints_row, 3),
            );
            assert_eq!(last.unwrap().utf8_text(text.as_bytes()).unwrap(), "hints");
        }
    }

    /// The log messages starting with `counted` while the parser reparses `text` after `ins`
    /// is inserted at `at`, and whether that tree is the fresh parse's, node for node.
    fn reparse_logging(text: &str, at: usize, ins: &str, counted: &'static str) -> (usize, bool) {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let mut parser = parser();
        let mut tree = parser.parse(text, None).expect("tree");
        let edited = format!("{}{ins}{}", &text[..at], &text[at..]);
        reparsed_as(&mut tree, text, &edited);
        let count = Arc::new(AtomicUsize::new(0));
        let counter = count.clone();
        parser.set_logger(Some(Box::new(move |_, message: &str| {
            if message.starts_with(counted) {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        })));
        let incremental = parser.parse(&edited, Some(&tree)).expect("tree");
        parser.set_logger(None);
        let fresh = parser.parse(&edited, None).expect("tree");
        (
            count.load(Ordering::Relaxed),
            tree_nodes(&incremental) == tree_nodes(&fresh),
        )
    }

    /// The vendored tree-sitter's patch (vendor/tree-sitter/PATCHED.md): a character typed in
    /// the first input's name leaves the later inputs reused (upstream lexed all of them
    /// again, about 6,000 tokens here), and a character typed in `inputs` itself the whole
    /// section; either tree is the fresh parse's.
    #[test]
    fn a_key_typed_in_leaves_the_later_entries_reused() {
        let text = long_document(2_000);
        let first = text.find("  in_0:").unwrap() + 4;
        for at in [first, text.find("inputs").unwrap() + 2] {
            let (lexed, same) = reparse_logging(&text, at, "x", "lexed_lookahead");
            assert!(same, "the reparse at {at} differs from a fresh parse");
            assert!(
                lexed < 40,
                "{lexed} tokens lexed again after an edit at {at}"
            );
        }
    }

    /// A document with large repetitions of every kind: block mapping pairs, block sequence
    /// items, block scalar lines, flow sequence and flow mapping entries.
    fn repetitions(entries: usize) -> String {
        let mut text = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        for i in 0..entries {
            text.push_str(&format!(
                "  in_{i}:\n    type:\n      - \"null\"\n      - type: enum\n        symbols: [a{i}, b, 'c']\n    \
                 doc: |\n      Line one of {i}.\n      Line two.\n    inputBinding: {{prefix: --in-{i}}}\n"
            ));
        }
        text.push_str("outputs:\n  - id: out\n    type: File\n# a comment\nhints: {}\n");
        // Long lists of the other kinds: a block scalar's lines, a block sequence's items, a
        // flow sequence's and a flow mapping's entries over many lines.
        type List = (&'static str, fn(usize) -> String, &'static str);
        let lists: [List; 4] = [
            ("doc: |\n", |i| format!("  Line {i} of the prose.\n"), ""),
            ("baseCommand:\n", |i| format!("  - word_{i}\n"), ""),
            (
                "arguments: [\n",
                |i| format!("  --flag-{i}, \"v{i}\",\n"),
                "]\n",
            ),
            ("requirements: {\n", |i| format!("  key_{i}: {i},\n"), "}\n"),
        ];
        for (head, line, tail) in lists {
            text.push_str(head);
            for i in 0..entries {
                text.push_str(&line(i));
            }
            text.push_str(tail);
        }
        text
    }

    /// Edits `tree` (of `old`) to stand for `new` (the one edit between them, as the
    /// document computes it).
    fn reparsed_as(tree: &mut tree_sitter::Tree, old: &str, new: &str) {
        if let Some(edit) = crate::document::settle::difference(old, new) {
            tree.edit(&edit);
        }
    }

    /// The vendored tree-sitter's second and third patches (vendor/tree-sitter/PATCHED.md): a
    /// keystroke in one entry of a large block mapping, block scalar or flow mapping reuses
    /// the repetition nodes around it whole; upstream rebuilt them one entry at a time (about
    /// one reduction per entry of the mapping, here 2,000), which cost 2–5 ms per keystroke
    /// inside a 50,000-line tool's `inputs`. (Block and flow sequences are still rebuilt item
    /// by item: their items' first token fails tree-sitter's first-leaf check, see
    /// PATCHED.md.)
    #[test]
    fn a_keystroke_inside_a_large_mapping_reuses_the_entries_around_it() {
        let text = repetitions(2_000);
        for (needle, ins) in [
            ("Line one of 1000.", "x"),
            ("symbols: [a1000", "x"),
            ("  in_1000:\n    type:", " "),
            ("prefix: --in-1500", "y"),
            ("Line 1000 of the prose", "x"),
            ("key_1000: 1000", "1"),
        ] {
            let at = text.find(needle).unwrap() + needle.len();
            let (reduced, same) = reparse_logging(&text, at, ins, "reduce ");
            assert!(
                same,
                "the reparse after {needle:?} differs from a fresh parse"
            );
            assert!(reduced < 200, "{reduced} reductions after {needle:?}");
        }
    }

    /// Random edits (typing, deleting, YAML's structural characters, whole lines) over large
    /// repetitions, each reparsed from the previous tree: whenever the edited text parses
    /// without an error, every node of the incremental tree is the fresh parse's; an edit that
    /// breaks the text is undone, and the tree reparsed from the broken one is the tree of the
    /// text before it (as is a quarter of the valid edits' undos).
    #[test]
    fn incremental_trees_over_large_repetitions_are_the_fresh_parse() {
        const PIECES: &[&str] = &[
            "x",
            " ",
            "\n",
            ":",
            "- ",
            "-",
            "[",
            "]",
            "{",
            "}",
            ",",
            "\"",
            "'",
            "|",
            "#",
            "  ",
            "\n  in_new:\n    type: File\n",
            "\n      - b\n",
            "? ",
            "&a ",
            "*a",
            "\t",
            "é",
        ];
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            (rng.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
        };
        let mut parser = parser();
        let mut text = repetitions(100);
        let mut tree = parser.parse(&text, None).expect("tree");
        let mut compared = 0;
        for step in 0..1_500 {
            let before = text.clone();
            let before_tree = tree.clone();
            let mut start = next(text.len() + 1);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut old_end = (start + next(4) * next(3)).min(text.len());
            while !text.is_char_boundary(old_end) {
                old_end += 1;
            }
            let ins = if next(3) == 0 {
                ""
            } else {
                PIECES[next(PIECES.len())]
            };
            let new = format!("{}{ins}{}", &text[..start], &text[old_end..]);
            reparsed_as(&mut tree, &text, &new);
            tree = parser.parse(&new, Some(&tree)).expect("tree");
            text = new;
            let fresh = parser.parse(&text, None).expect("tree");
            if !fresh.root_node().has_error() {
                compared += 1;
                assert!(
                    tree_nodes(&tree) == tree_nodes(&fresh),
                    "step {step}: {start}..{old_end} replaced by {ins:?}: the incremental tree differs"
                );
            }
            if fresh.root_node().has_error() || next(4) == 0 {
                // The undo, reparsed from the edited tree (always when it is broken, so that
                // the walk stays among valid texts).
                let mut undo = tree.clone();
                reparsed_as(&mut undo, &text, &before);
                let undone = parser.parse(&before, Some(&undo)).expect("tree");
                if !before_tree.root_node().has_error() {
                    assert!(
                        tree_nodes(&undone) == tree_nodes(&before_tree),
                        "step {step}: undoing {start}..{old_end} replaced by {ins:?} differs"
                    );
                }
                text = before;
                tree = undone;
            }
        }
        assert!(compared > 300, "only {compared} edits left the text valid");
    }
}
