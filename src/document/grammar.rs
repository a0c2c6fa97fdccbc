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

    /// Tokens lexed by reparsing `text` edited at `at` (a character inserted, so typing the
    /// first letter of something), and whether that tree is the fresh parse's.
    fn lexed_again(text: &str, at: usize, row: usize, column: usize) -> (usize, bool) {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let mut parser = parser();
        let mut tree = parser.parse(text, None).expect("tree");
        let edited = format!("{}x{}", &text[..at], &text[at..]);
        tree.edit(&tree_sitter::InputEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: at + 1,
            start_position: tree_sitter::Point::new(row, column),
            old_end_position: tree_sitter::Point::new(row, column),
            new_end_position: tree_sitter::Point::new(row, column + 1),
        });
        let lexed = Arc::new(AtomicUsize::new(0));
        let counter = lexed.clone();
        parser.set_logger(Some(Box::new(move |_, message: &str| {
            if message.starts_with("lexed_lookahead") {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        })));
        let incremental = parser.parse(&edited, Some(&tree)).expect("tree");
        parser.set_logger(None);
        let fresh = parser.parse(&edited, None).expect("tree");
        let same = incremental.root_node().to_sexp() == fresh.root_node().to_sexp();
        (lexed.load(Ordering::Relaxed), same)
    }

    /// The vendored tree-sitter's patch (vendor/tree-sitter/PATCHED.md): a character typed in
    /// the first input's name leaves the later inputs reused (upstream lexed all of them
    /// again, about 6,000 tokens here), and a character typed in `inputs` itself the whole
    /// section; either tree is the fresh parse's.
    #[test]
    fn a_key_typed_in_leaves_the_later_entries_reused() {
        let text = long_document(2_000);
        let first = text.find("  in_0:").unwrap() + 4;
        let row = text[..first].matches('\n').count();
        for (at, row, column) in [(first, row, 4), (text.find("inputs").unwrap() + 2, 2, 2)] {
            let (lexed, same) = lexed_again(&text, at, row, column);
            assert!(same, "the reparse at {at} differs from a fresh parse");
            assert!(
                lexed < 40,
                "{lexed} tokens lexed again after an edit at {at}"
            );
        }
    }
}
