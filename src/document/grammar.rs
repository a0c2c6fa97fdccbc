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
}
