//! Syntax errors: the [`SyntaxError`] type, repeated keys (both builders report them), and
//! where the errors of a document libyaml rejects are shown (libyaml's first error plus
//! tree-sitter's later error regions, each kept to one line).
//!
//! Uses `node` and libyaml's [`ParseError`](crate::document::libyaml::ParseError).
use super::super::libyaml;
use super::node::{MAX_DEPTH, Pair, Span};

/// A YAML syntax problem: where, and what libyaml (or tree-sitter) said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// A syntax error for each key repeated in one mapping (ruamel.yaml rejects them).
pub(super) fn duplicate_keys(pairs: &[Pair], errors: &mut Vec<SyntaxError>) {
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
pub(super) fn error_regions(
    text: &str,
    root: tree_sitter::Node,
    err: &libyaml::ParseError,
) -> Vec<SyntaxError> {
    let mut regions: Vec<Span> = Vec::new();
    collect_errors(root, &mut regions, 0);
    errors_at(text, regions, err)
}

/// The error regions of `root`, the tree of a settled broken text's block (its first `len`
/// bytes are the block, placed at byte `at` of the document; a sibling's line follows): those
/// that start in the block, kept to it, in the document's bytes.
pub(super) fn regions_in(root: tree_sitter::Node, at: usize, len: usize) -> Vec<Span> {
    let mut regions: Vec<Span> = Vec::new();
    collect_errors(root, &mut regions, 0);
    regions
        .into_iter()
        .filter(|r| r.start < len)
        .map(|r| r.start + at..r.end.min(len) + at)
        .collect()
}

/// [`error_regions`] with tree-sitter's error `regions` given.
pub(super) fn errors_at(
    text: &str,
    regions: Vec<Span>,
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

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

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
}
