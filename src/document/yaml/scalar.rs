//! Scalar decoding of the raw text tree-sitter gives: plain and quoted scalars (line folding,
//! `''` and backslash escapes) and block scalars (`|`/`>`, chomping, explicit and detected
//! indentation). libyaml's events come decoded already.
//!
//! Uses `node` ([`Style`]).
use super::node::Style;

/// Line folding of flow scalars: a single line break becomes a space, each empty line a `\n`;
/// whitespace around line breaks is dropped.
fn fold_lines(raw: &str) -> String {
    if !raw.contains(['\n', '\r']) {
        return raw.to_string();
    }
    let lines: Vec<&str> = raw.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let mut out = String::with_capacity(raw.len());
    let last = lines.len() - 1;
    let mut pending_breaks = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let mut part: &str = line;
        if i > 0 {
            part = part.trim_start_matches([' ', '\t']);
        }
        if i < last {
            part = part.trim_end_matches([' ', '\t']);
        }
        if i > 0 && part.is_empty() && i < last {
            pending_breaks += 1;
            continue;
        }
        if i > 0 {
            if pending_breaks > 0 {
                out.extend(std::iter::repeat_n('\n', pending_breaks));
            } else {
                out.push(' ');
            }
            pending_breaks = 0;
        }
        out.push_str(part);
    }
    out
}

pub(super) fn fold_plain(raw: &str) -> String {
    fold_lines(raw.trim())
}

pub(super) fn decode_single(raw: &str) -> String {
    let inner = raw
        .strip_prefix('\'')
        .map(|s| s.strip_suffix('\'').unwrap_or(s))
        .unwrap_or(raw);
    fold_lines(inner).replace("''", "'")
}

pub(super) fn decode_double(raw: &str) -> String {
    let inner = raw
        .strip_prefix('"')
        .map(|s| s.strip_suffix('"').unwrap_or(s))
        .unwrap_or(raw);
    // Escaped line breaks join lines without a space; handle them before folding by
    // splitting on unescaped breaks.
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    let mut pending_ws = String::new();
    let mut breaks = 0usize;
    let mut at_line_start = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                flush(&mut out, &mut pending_ws, &mut breaks, &mut at_line_start);
                let Some(e) = chars.next() else { break };
                match e {
                    '0' => out.push('\0'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    't' | '\t' => out.push('\t'),
                    'n' => out.push('\n'),
                    'v' => out.push('\u{b}'),
                    'f' => out.push('\u{c}'),
                    'r' => out.push('\r'),
                    'e' => out.push('\u{1b}'),
                    ' ' => out.push(' '),
                    '"' => out.push('"'),
                    '/' => out.push('/'),
                    '\\' => out.push('\\'),
                    'N' => out.push('\u{85}'),
                    '_' => out.push('\u{a0}'),
                    'L' => out.push('\u{2028}'),
                    'P' => out.push('\u{2029}'),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                        if let Some(ch) =
                            u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                        {
                            out.push(ch);
                        }
                    }
                    '\r' | '\n' => {
                        if e == '\r' && chars.peek() == Some(&'\n') {
                            chars.next();
                        }
                        // An escaped break: skip the next line's leading whitespace.
                        while matches!(chars.peek(), Some(' ' | '\t')) {
                            chars.next();
                        }
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                pending_ws.clear();
                if at_line_start {
                    breaks += 1;
                } else {
                    breaks = 1;
                    at_line_start = true;
                }
                while matches!(chars.peek(), Some(' ' | '\t')) {
                    chars.next();
                }
            }
            ' ' | '\t' => pending_ws.push(c),
            _ => {
                flush(&mut out, &mut pending_ws, &mut breaks, &mut at_line_start);
                out.push(c);
            }
        }
    }
    out.push_str(&pending_ws);
    return out;

    fn flush(out: &mut String, ws: &mut String, breaks: &mut usize, at_line_start: &mut bool) {
        if *at_line_start {
            if *breaks <= 1 {
                out.push(' ');
            } else {
                out.extend(std::iter::repeat_n('\n', *breaks - 1));
            }
            *breaks = 0;
            *at_line_start = false;
            ws.clear();
        } else {
            out.push_str(ws);
            ws.clear();
        }
    }
}

/// Decodes a literal (`|`) or folded (`>`) block scalar from its raw text (header included).
pub(super) fn decode_block(raw: &str, parent_indent: usize) -> (String, Style) {
    let mut lines = raw.split('\n');
    let header = lines.next().unwrap_or("").trim_end_matches('\r');
    let header = header.split(" #").next().unwrap_or(header).trim();
    let style = if header.starts_with('>') {
        Style::Folded
    } else {
        Style::Literal
    };
    let mut chomp = 'c';
    let mut explicit = None;
    for c in header.chars().skip(1) {
        match c {
            '-' => chomp = '-',
            '+' => chomp = '+',
            d if d.is_ascii_digit() => explicit = d.to_digit(10).map(|d| d as usize),
            _ => {}
        }
    }
    let mut body: Vec<&str> = lines.map(|l| l.trim_end_matches('\r')).collect();
    // Without a final line break (end of file) the last line has no break to keep.
    let final_break = raw.ends_with('\n');
    if final_break {
        body.pop();
    }
    let indent = match explicit {
        Some(d) => parent_indent + d,
        None => body
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| l.len() - l.trim_start_matches(' ').len()),
    };
    // Content lines with the indentation removed; blank lines become empty.
    let content: Vec<&str> = body
        .iter()
        .map(|l| {
            // Only leading spaces are indentation: a shorter indentation followed by a
            // multi-byte character must not be cut inside it (found by fuzzing).
            let spaces = l.len() - l.trim_start_matches(' ').len();
            if spaces >= indent {
                &l[indent..]
            } else {
                l.trim_start_matches(' ')
            }
        })
        .collect();
    // Trailing empty lines belong to chomping.
    let last_text = content.iter().rposition(|l| !l.is_empty());
    let (text_lines, trailing) = match last_text {
        Some(i) => (&content[..=i], content.len() - i - 1),
        None => (&content[..0], content.len()),
    };
    let mut out = String::new();
    match style {
        Style::Literal => {
            for (i, line) in text_lines.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(line);
            }
        }
        _ => {
            let mut prev_more_indented = false;
            let mut prev_empty = false;
            let mut first = true;
            let mut empties = 0;
            for line in text_lines.iter() {
                if line.is_empty() {
                    empties += 1;
                    prev_empty = true;
                    continue;
                }
                let more = line.starts_with([' ', '\t']);
                if !first {
                    if empties > 0 {
                        if more || prev_more_indented {
                            out.push('\n');
                        }
                        out.extend(std::iter::repeat_n('\n', empties));
                    } else if more || prev_more_indented {
                        out.push('\n');
                    } else {
                        out.push(' ');
                    }
                } else if empties > 0 {
                    out.extend(std::iter::repeat_n('\n', empties));
                }
                let _ = prev_empty;
                empties = 0;
                prev_empty = false;
                first = false;
                prev_more_indented = more;
                out.push_str(line);
            }
        }
    }
    let has_text = !text_lines.is_empty();
    // `body` ends with the text after the last `\n` (empty when the scalar ends at a break):
    // the number of line breaks after the content is `trailing` for a scalar ending in `\n`.
    match chomp {
        '-' => {}
        '+' => out.extend(std::iter::repeat_n(
            '\n',
            (usize::from(has_text) + trailing).saturating_sub(usize::from(!final_break)),
        )),
        _ => {
            if has_text && (final_break || trailing > 0) {
                out.push('\n');
            }
        }
    }
    (out, style)
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

    fn json(text: &str) -> serde_json::Value {
        YamlDoc::parse(text).to_json().unwrap()
    }

    fn norway(text: &str) -> serde_json::Value {
        serde_norway::from_str(text).unwrap()
    }

    #[test]
    fn scalars_decode_like_libyaml() {
        let cases = [
            "a: plain text\nb: 'it''s'\nc: \"tab\\there \\u00e9\"\n",
            "a: |\n  line one\n  line two\n\nb: x\n",
            "a: >\n  folded\n  text\n\n  para\nb: |-\n  strip\nc: |+\n  keep\n\nd: 1\n",
            "a: multi\n  line plain\n\n  scalar\nb: 'multi\n  line'\n",
            "a: \"esc\\\n   aped\"\nb: [1, 2.5, true, null, yes, ~, 0x1F]\n",
            "k: {x: 1, y: [a, b]}\nl:\n  - a\n  -\n  - c: d\n",
            "a: >-\n  one\n    indented\n  two\n",
            "a: |2\n    two extra\n  base\n",
            "a: !!str 123\nb: &x {c: 1}\nd: *x\n",
        ];
        for text in cases {
            assert_eq!(json(text), norway(text), "{text:?}");
        }
    }
}
