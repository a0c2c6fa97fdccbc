//! Edits inside one token that leave the tree as it is (issue 14).
//!
//! Typing inside a scalar or a comment changes no token's kind and no boundary but the end of
//! the token typed in. For such an edit, the edited tree (`Tree::edit`, which grows or shrinks
//! the token and every node that ends with it, and shifts the rest) is node for node the tree a
//! parse of the new text gives, and the reparse can be skipped: at 50,000 lines tree-sitter-yaml
//! re-lexes several milliseconds of text after an edit inside a large `inputs`, because its
//! scanner's state at each reused node must match.
//!
//! [`keeps_tree`] is the rule, deliberately conservative: it answers `true` only when the new
//! text of the token lexes as the same token of the same kind, checked on the characters the
//! edit touches and their neighbours (YAML 1.2 and the scanner's rules, see each case). Anything
//! it is not sure of is left to the parser. `tests::interior_edits_give_the_tree_of_a_fresh_parse`
//! (random edits of a varied text), `tests::interior_edits_on_real_cwl_give_the_tree_of_a_fresh_parse`
//! (edits inside the fixtures and the corpus) and tests/differential_edits.rs compare every
//! node with a fresh parse after such edits.
use tree_sitter::{Node, Tree};

/// Whether replacing bytes `a..b` of `text` (whose tree is `tree`, without an error) by `new`
/// keeps every token's kind and every node's boundaries, but for the growth or shrinking of
/// the one token the edit is inside (see the module doc).
pub fn keeps_tree(tree: &Tree, text: &str, a: usize, b: usize, new: &str) -> bool {
    let Some(removed) = text.get(a..b) else {
        return false;
    };
    if a == 0 || tree.root_node().has_error() || !new.chars().all(plain_char) {
        return false;
    }
    if removed.contains(['\n', '\r']) || !removed.chars().all(plain_char) {
        return false;
    }
    let Some(token) = tree.root_node().descendant_for_byte_range(a - 1, b) else {
        return false;
    };
    let (s, e) = (token.start_byte(), token.end_byte());
    if !(s < a && b <= e) {
        return false;
    }
    let kind = token.kind();
    let quoted = matches!(kind, "double_quote_scalar" | "single_quote_scalar");
    // The bytes between the token's delimiters, which the edit must stay within.
    // (After a quote, at least one byte in: `Tree::edit` gives text inserted at a node's end
    // to that node, and the opening quote is a node of its own.)
    let (lo, hi) = if quoted { (s + 2, e - 1) } else { (s + 1, e) };
    if a < lo || b > hi {
        return false;
    }
    let bytes = text.as_bytes();
    // The line of the edit: its start, its first non-blank byte, and its end in the old text
    // (the token's end or the line break, whichever comes first).
    let line_start = bytes[..a].iter().rposition(|&c| c == b'\n' || c == b'\r');
    let line_start = line_start.map_or(0, |i| i + 1);
    let first = line_start
        + bytes[line_start..]
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .unwrap_or(0);
    let line_end = b + bytes[b..e]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r')
        .unwrap_or(e - b);
    // The indentation and the first character of the line stay as they are: they decide where
    // a multi-line token goes on. A line at column 0 starting with `-` or `.` could become a
    // document marker.
    if a <= first || (first == line_start && matches!(bytes[first], b'-' | b'.')) {
        return false;
    }
    // A line continued by the next one, or the token's last, must not end in a blank: a plain
    // scalar's token stops before trailing blanks, and how the scanner splits a quoted or
    // block scalar around them is not assumed.
    let last_new = if b < line_end {
        text[..line_end].chars().next_back()
    } else {
        new.chars()
            .next_back()
            .or_else(|| text[..a].chars().next_back())
    };
    if matches!(last_new, Some(' ' | '\t') | None) {
        return false;
    }
    // The characters the edit touches: the one before, the new ones, the one after (within
    // the token's delimiters).
    let before = text[s..a].chars().next_back();
    let after = text[b..hi].chars().next();
    let mut window = before.into_iter().chain(new.chars()).chain(after);
    match kind {
        "comment" => true,
        "block_scalar" => line_start > s,
        "double_quote_scalar" | "single_quote_scalar" => {
            let delimiters: &[char] = if kind == "double_quote_scalar" {
                &['"', '\\']
            } else {
                &['\'']
            };
            !window.any(|c| delimiters.contains(&c)) && clear_of_children(token, a, b)
        }
        "string_scalar" => {
            let flow = in_flow(token);
            let first_of_token = bytes[s];
            if a == s + 1 && matches!(first_of_token, b'-' | b'?' | b':') {
                return false;
            }
            if window.any(|c| c == ':' || c == '#' || (flow && ",[]{}".contains(c))) {
                return false;
            }
            // A single-line plain scalar's kind is chosen from its whole text (core schema):
            // it stays a string when the new text has a character no other kind has.
            token.start_position().row != token.end_position().row
                || surely_string(&text[s..a], new, &text[b..e])
        }
        "integer_scalar" => {
            let decimal = |t: &str| {
                t.bytes().all(|c| c.is_ascii_digit()) && t.bytes().next().is_some_and(|c| c != b'0')
            };
            let whole = format!("{}{new}{}", &text[s..a], &text[b..e]);
            decimal(&text[s..e]) && decimal(&whole)
        }
        _ => false,
    }
}

/// A character that may be typed inside a token without ending a line or the token: a tab,
/// a printable ASCII character, or a printable non-ASCII one (YAML's `ns-char`, less the
/// characters some editors or ropey count as line breaks).
fn plain_char(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fefe}' | '\u{ff00}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether the edit `a..b` keeps one byte away from every named child of `token` (the escape
/// sequences of a quoted scalar), so that none of them changes or takes the new text.
fn clear_of_children(token: Node, a: usize, b: usize) -> bool {
    let mut cursor = token.walk();
    token
        .named_children(&mut cursor)
        .all(|c| c.end_byte() < a || c.start_byte() > b)
}

/// Whether `node` is inside a flow collection, where `,[]{}` end a plain scalar.
fn in_flow(node: Node) -> bool {
    let mut up = node.parent();
    while let Some(n) = up {
        match n.kind() {
            "flow_sequence" | "flow_mapping" => return true,
            "block_node" | "document" => return false,
            _ => up = n.parent(),
        }
    }
    false
}

/// Whether a plain scalar with the text `head`, `new`, `tail` is a string in the YAML 1.2
/// core schema whatever else it holds: it has a character that no null, boolean, integer or
/// float has (those are made of digits, `+-.~` and the letters of `true`, `false`, `null`,
/// `.inf`, `.nan`, `0x`, `0o` and hexadecimal digits).
fn surely_string(head: &str, new: &str, tail: &str) -> bool {
    let other = |c: char| {
        c.is_ascii_digit() || "+-.~".contains(c) || "abcdefABCDEFtrueTRUElsLSnNiIxo".contains(c)
    };
    [head, new, tail]
        .iter()
        .any(|t| t.chars().any(|c| !other(c)))
}

#[cfg(test)]
mod tests {
    use super::super::{grammar, tree_nodes, visit_nodes};
    use super::*;

    fn parse(text: &str) -> Tree {
        grammar::parser().parse(text, None).unwrap()
    }

    /// A seeded xorshift: each call gives a number below its argument.
    fn rng(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
        }
    }

    /// What the random edits insert: characters that matter to YAML among plain ones.
    const ALPHABET: [&str; 41] = [
        "x", "é", "日", "😀", " ", "\t", ":", ": ", "#", " #", ",", "[", "]", "{", "}", "\"", "'",
        "\\", "-", "- ", "?", "0", "7", "e", ".", "~", "&a", "*", "!", "|", ">", "%", "@", "`",
        "ab cd", "", "true", "null", "x:y", "\u{85}", "a",
    ];

    /// Applies the edit to `tree` (`Tree::edit` alone) and `text`, checks that the tree is,
    /// node for node, the fresh parse of the new text, and returns that text. `text` has no
    /// lone `\r` (points are counted by `\n`).
    fn edited_as_parsed(
        tree: &mut Tree,
        text: &str,
        a: usize,
        b: usize,
        new: &str,
        what: &str,
    ) -> String {
        let point = |t: &str, at: usize| {
            let line = t[..at].matches('\n').count();
            let col = at - t[..at].rfind('\n').map_or(0, |i| i + 1);
            tree_sitter::Point::new(line, col)
        };
        let mut edited = text.to_string();
        edited.replace_range(a..b, new);
        tree.edit(&tree_sitter::InputEdit {
            start_byte: a,
            old_end_byte: b,
            new_end_byte: a + new.len(),
            start_position: point(text, a),
            old_end_position: point(text, b),
            new_end_position: point(&edited, a + new.len()),
        });
        let fresh = parse(&edited);
        assert_eq!(
            tree_nodes(tree),
            tree_nodes(&fresh),
            "{what}: {:?} replaced by {new:?} at {a} in\n{text}",
            &text[a..b]
        );
        edited
    }

    fn check(text: &str, at: &str, removed: usize, new: &str) -> bool {
        let a = text.find(at).unwrap() + at.len();
        keeps_tree(&parse(text), text, a, a + removed, new)
    }

    #[test]
    fn what_keeps_the_tree_and_what_does_not() {
        let text = "a: hello world\nb: \"quo\\nted\"\nc: 'it''s'\nd: |\n  block line\n  two\ne: [one, two] # note\nf: 123\ng: true\n";
        // Kept: letters inside a plain scalar, a quoted one, a block scalar, a comment, digits
        // in a decimal integer.
        let kept = [
            ("a: hel", 0, "x"),
            ("a: hello world", 0, "s"),
            ("a: hello", 1, ""),
            ("b: \"q", 0, "x"),
            ("d: |\n  blo", 0, "x y"),
            ("# no", 0, " : x"),
            ("e: [one, tw", 0, "e"),
            ("f: 12", 0, "7"),
        ];
        for (at, removed, new) in kept {
            assert!(check(text, at, removed, new), "kept: {new:?} after {at:?}");
        }
        // Not kept: what starts a mapping, a comment or a flow item; a trailing blank; an
        // escape touched; a quote; the header of a block scalar; a kind that changes.
        let parsed = [
            ("a: hello", 0, ":"),
            ("a: hello", 0, " #"),
            ("a: hello world", 0, " "),
            ("b: \"quo", 0, "x"),
            ("b: \"quo\\", 0, "x"),
            ("b: \"q", 0, "\""),
            ("c: 'it", 0, "x"),
            ("d: ", 1, "|"),
            ("d: |\n ", 0, "x"),
            ("e: [on", 0, ","),
            ("f: 12", 0, "x"),
            ("g: tru", 1, "x"),
            ("a: hel", 0, "\n"),
        ];
        for (at, removed, new) in parsed {
            assert!(
                !check(text, at, removed, new),
                "parsed: {new:?} after {at:?}"
            );
        }
    }

    /// Random edits inside scalars and comments of varied YAML, with characters that matter
    /// to YAML: wherever [`keeps_tree`] answers `true`, the edited tree is node for node the
    /// tree of a fresh parse of the new text.
    #[test]
    fn interior_edits_give_the_tree_of_a_fresh_parse() {
        let base = concat!(
            "#!/usr/bin/env cwl-runner\ncwlVersion: v1.2\nclass: CommandLineTool\n",
            "doc: |\n  A long doc,\n    more indented: yes # not a comment\n  end.\n",
            "label: plain words here, and more\nbaseCommand: [tool, sub-cmd, \"q x\", 'sq']\n",
            "inputs:\n  in_1:\n    type: int?\n    default: 16\n    doc: >-\n      folded\n      text\n",
            "  in_2: {type: string, doc: \"dq \\t esc\", label: 'it''s'}  # trailing\n",
            "  in_4: {type: int, default: 4096, position: 12}\n  in_5:\n    default: 98765\n",
            "  in_3:\n    - item\n    - -not a seq\n  key with spaces: value:no\n",
            "hints:\n  mcp:Tool:\n    description: Does\n      a multi-line plain\n      scalar.\n",
            "    annotations: {readOnlyHint: true, title: x}\n--x: y\n..z: w\nn: null\nf: 1.5\nsizes: [1, 22, 333, 4444]\n",
        );
        let alphabet = ALPHABET;
        let mut next = rng(0x2545_f491_4f6c_dd1d);
        let (mut kept, mut tried) = (0, 0);
        let mut kinds = std::collections::BTreeMap::new();
        for round in 0..200 {
            let mut text = base.to_string();
            let mut tree = parse(&text);
            for _ in 0..100 {
                let mut a = next(text.len());
                while !text.is_char_boundary(a) {
                    a -= 1;
                }
                let mut b = a + [0, 0, 1, 2, 3][next(5)];
                while b > text.len() || !text.is_char_boundary(b) {
                    b -= 1;
                }
                let new = alphabet[next(alphabet.len())];
                tried += 1;
                if !keeps_tree(&tree, &text, a, b, new) {
                    // Applied anyway (with a parse) when the YAML stays valid, so that later
                    // edits meet varied texts.
                    let mut other = text.clone();
                    other.replace_range(a..b, new);
                    let parsed = parse(&other);
                    if next(3) == 0 && !parsed.root_node().has_error() {
                        (text, tree) = (other, parsed);
                    }
                    continue;
                }
                kept += 1;
                let token = tree
                    .root_node()
                    .descendant_for_byte_range(a - 1, b)
                    .unwrap();
                *kinds.entry(token.kind()).or_insert(0) += 1;
                text = edited_as_parsed(&mut tree, &text, a, b, new, &format!("round {round}"));
            }
        }
        assert!(kept > 3_000, "only {kept} of {tried} edits kept the tree");
        for kind in [
            "string_scalar",
            "integer_scalar",
            "double_quote_scalar",
            "single_quote_scalar",
            "block_scalar",
            "comment",
        ] {
            let n = kinds.get(kind).copied().unwrap_or(0);
            assert!(n >= 20, "{kind}: {n} edits kept ({kinds:?})");
        }
    }

    /// Second tier, on real CWL: edits inside the scalars and comments of the project's
    /// fixtures and of every file of `../shared/corpus` (when it is there): wherever the rule
    /// keeps the tree, it is the fresh parse's.
    #[test]
    fn interior_edits_on_real_cwl_give_the_tree_of_a_fresh_parse() {
        const KINDS: [&str; 6] = [
            "string_scalar",
            "integer_scalar",
            "double_quote_scalar",
            "single_quote_scalar",
            "block_scalar",
            "comment",
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("tests/fixtures"), root.join("examples")];
        let corpus = root.join("../shared/corpus");
        let min_files = if corpus.is_dir() { 1_000 } else { 20 };
        if corpus.is_dir() {
            dirs.push(corpus);
        } else {
            eprintln!(
                "SKIPPED the corpus part: {} is not there; only the fixtures were edited",
                corpus.display()
            );
        }
        let mut files = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "cwl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let (mut edited_files, mut kept) = (0, 0);
        for path in &files {
            let Ok(mut text) = std::fs::read_to_string(path) else {
                continue;
            };
            let mut tree = parse(&text);
            if tree.root_node().has_error() || text.replace("\r\n", "").contains('\r') {
                continue;
            }
            edited_files += 1;
            for _ in 0..8 {
                // A random token of the kinds the rule knows, and a place inside it.
                let mut tokens = Vec::new();
                visit_nodes(&tree, |n| {
                    if KINDS.contains(&n.kind()) {
                        tokens.push(n.byte_range());
                    }
                });
                let Some(range) = tokens.get(next(tokens.len())).cloned() else {
                    break;
                };
                let mut a = range.start + 1 + next(range.len());
                while a > text.len() || !text.is_char_boundary(a) {
                    a -= 1;
                }
                let mut b = (a + [0, 0, 1, 2][next(4)]).min(range.end.max(a));
                while !text.is_char_boundary(b) {
                    b -= 1;
                }
                let new = ALPHABET[next(ALPHABET.len())];
                if a == 0 || !keeps_tree(&tree, &text, a, b, new) {
                    continue;
                }
                kept += 1;
                text = edited_as_parsed(&mut tree, &text, a, b, new, &path.display().to_string());
            }
        }
        eprintln!("{kept} edits kept the tree in {edited_files} files");
        assert!(edited_files > min_files, "only {edited_files} files edited");
        assert!(
            kept > edited_files * 3,
            "only {kept} edits kept in {edited_files} files"
        );
    }
}
