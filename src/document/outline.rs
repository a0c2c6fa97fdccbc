//! The block structure of a YAML text read from its indentation alone.
//!
//! While the user types, the document is often momentarily invalid YAML (a half-typed key has
//! no `:` yet). The parsers then give up on the region; indentation still says where the cursor
//! is: which mapping, under which keys, in which list item. This module reads that, line by
//! line, for block-style YAML. (Flow collections and JSON are read from the tree instead.)
use std::ops::Range;
use std::sync::Arc;

/// One line of the text, split into its YAML block parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<'t> {
    /// Byte offset of the line start.
    pub start: usize,
    /// The line without its line break.
    pub text: &'t str,
    /// Columns (bytes from the line start) of the `- ` indicators before the content.
    pub dashes: Vec<usize>,
    /// Column of the first character that is neither indentation nor a `- ` indicator.
    pub content_col: usize,
    /// The key written at `content_col` (`key:` followed by a space or the end of the line),
    /// without quotes.
    pub key: Option<&'t str>,
    /// The value written after `key:` on this line, trimmed, without a trailing comment.
    pub value: &'t str,
    /// Empty, whitespace-only or comment-only line.
    pub blank: bool,
    /// In a text's [`lines`], the index of the next non-blank line that is not deeper than
    /// this one ([`Line::indent`] at most this line's), or the number of lines: the lines in
    /// between are inside this line's block, so a walk over a mapping's keys or to its end
    /// jumps over them. 0 when unknown (a line parsed alone; walks then step line by line).
    pub next_not_deeper: usize,
    /// The same backwards: the previous non-blank line not deeper than this one (`None`
    /// when every line before is deeper, or when unknown).
    pub prev_not_deeper: Option<usize>,
}

impl<'t> Line<'t> {
    pub fn parse(start: usize, text: &'t str) -> Line<'t> {
        let mut dashes = Vec::new();
        let i = content_column(text, |dash| dashes.push(dash));
        let content = &text[i..];
        let blank = content.trim().is_empty() && dashes.is_empty() || content.starts_with('#');
        let (key, value) = split_key(content);
        Line {
            start,
            text,
            dashes,
            content_col: i,
            key,
            value,
            blank,
            next_not_deeper: 0,
            prev_not_deeper: None,
        }
    }

    /// The line's indentation as the block structure reads it: the column of its (last) `- `
    /// indicator when it starts a list item, else of its content.
    pub fn indent(&self) -> usize {
        self.item_dash().unwrap_or(self.content_col)
    }

    /// The line's item indicator column, when the line starts a list item.
    pub fn item_dash(&self) -> Option<usize> {
        self.dashes.last().copied()
    }

    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The column of a line's content: past its indentation and its `- ` indicators, each of
/// whose columns is handed to `dash`.
fn content_column(text: &str, mut dash: impl FnMut(usize)) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        if i < bytes.len()
            && bytes[i] == b'-'
            && (i + 1 == bytes.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t')
        {
            dash(i);
            i += 1;
            continue;
        }
        return i;
    }
}

/// Splits `key: value` (or `key:`) written at the start of `content`.
fn split_key(content: &str) -> (Option<&str>, &str) {
    let first = content.chars().next();
    if matches!(
        first,
        None | Some('{' | '[' | '#' | '|' | '>' | '&' | '*' | '!' | '%' | '@' | '`')
    ) {
        return (None, "");
    }
    let (key, rest) = if let Some(q @ ('"' | '\'')) = first {
        let Some(close) = content[1..].find(q) else {
            return (None, "");
        };
        let key = &content[1..1 + close];
        let rest = &content[close + 2..];
        let Some(rest) = rest.strip_prefix(':') else {
            return (None, "");
        };
        (key, rest)
    } else {
        let bytes = content.as_bytes();
        let mut found = None;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t')
            {
                found = Some(i);
                break;
            }
            if b == b'#' && i > 0 && bytes[i - 1] == b' ' {
                break;
            }
        }
        let Some(i) = found else { return (None, "") };
        (content[..i].trim_end(), &content[i + 1..])
    };
    if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
        return (None, "");
    }
    (Some(key), strip_comment(rest).trim())
}

fn strip_comment(value: &str) -> &str {
    let bytes = value.as_bytes();
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') => {
                return &value[..i];
            }
            None => {}
        }
    }
    value
}

/// The lines of a text, each with its start: lines end at `\n` (a preceding `\r` is not part
/// of the line), and a text that is empty or ends with `\n` has a last, empty line.
fn line_bodies(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    let tail = (text.is_empty() || text.ends_with('\n')).then_some((text.len(), ""));
    text.split_inclusive('\n')
        .map(move |piece| {
            let at = start;
            start += piece.len();
            let body = piece.strip_suffix('\n').unwrap_or(piece);
            (at, body.strip_suffix('\r').unwrap_or(body))
        })
        .chain(tail)
}

/// The lines of a text. Lines end at `\n` (a preceding `\r` is not part of the line).
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out: Vec<Line<'_>> = line_bodies(text)
        .map(|(start, body)| Line::parse(start, body))
        .collect();
    link(&mut out);
    out
}

/// Whether a line starts a top-level block: content at column 0 (a root key, `---`), not
/// blank, not a comment, not a list item's `- `.
fn starts_block(body: &str) -> bool {
    // Most lines are indented: a leading space means content right of column 0, or none.
    if body.as_bytes().first().is_none_or(|&b| b == b' ') {
        return false;
    }
    let l = Line::parse(0, body);
    !l.blank && l.content_col == 0
}

/// The byte range of the top-level block holding byte `at`: from the start of the last line
/// at or before `at`'s line that starts a block (the text's start when none does) to the start
/// of the next line that does (the text's end when none does).
pub fn block_around(text: &str, at: usize) -> Range<usize> {
    let at = at.min(text.len());
    let body_at = |ls: usize| {
        let end = memchr::memchr(b'\n', &text.as_bytes()[ls..]).map_or(text.len(), |i| ls + i);
        let body = &text[ls..end];
        body.strip_suffix('\r').unwrap_or(body)
    };
    let mut ls = memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1);
    let cursor_line = ls;
    let start = loop {
        if starts_block(body_at(ls)) {
            break ls;
        }
        if ls == 0 {
            break 0;
        }
        ls = memchr::memrchr(b'\n', &text.as_bytes()[..ls - 1]).map_or(0, |i| i + 1);
    };
    let bytes = text.as_bytes();
    let mut end = text.len();
    for nl in memchr::memchr_iter(b'\n', &bytes[cursor_line..]) {
        let next = cursor_line + nl + 1;
        if next < text.len() && bytes[next] != b' ' && starts_block(body_at(next)) {
            end = next;
            break;
        }
    }
    start..end
}

/// The lines a walk from a cursor in the top-level block `block` ([`block_around`]) can
/// reach: every line of that block and of the text before the first block, and of every other
/// block only its first line (the root key). Walks inside a block stop at the next root key
/// (less indented than anything in the block), and walks over the root mapping read only the
/// root keys, jumping over each block: what such walks find is what they find in the whole
/// text's [`lines`] (`tests/outline_scope.rs`), at the cost of one pass of `memchr` over the
/// other blocks instead of parsing each of their lines.
pub fn lines_around(text: &str, block: Range<usize>) -> Vec<Line<'_>> {
    let bytes = text.as_bytes();
    let last = block.end == text.len();
    let inside = |start: usize| start >= block.start && (start < block.end || last);
    let mut out = Vec::new();
    let mut any_block = false;
    let mut start = 0;
    loop {
        if any_block && !inside(start) {
            // Outside `block`, after a block began, only the lines that start with another
            // byte than a space are read: skip to the next (or to `block`).
            let limit = if start < block.start {
                block.start
            } else {
                text.len()
            };
            start = next_unindented(bytes, start, limit);
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(text.len(), |i| start + i);
        let whole = inside(start) || !any_block;
        // Outside `block`, a line starting with a space cannot start a block: not read.
        if whole || bytes.get(start).is_some_and(|&b| b != b' ') {
            let body = &text[start..end];
            let body = body.strip_suffix('\r').unwrap_or(body);
            let starts = starts_block(body);
            if whole || starts {
                out.push(Line::parse(start, body));
            }
            any_block |= starts;
        }
        if end == text.len() {
            break;
        }
        start = end + 1;
    }
    link(&mut out);
    out
}

/// The first line start in `start..limit` of `bytes` (`start` is one) whose first byte is not
/// a space, else `limit`. Lines that start with a space are passed over 64 bytes at a time (a
/// loop the compiler vectorizes: the 2,800 inputs of a 50,000-line tool are one block, read
/// on the first completion after each keystroke in another).
fn next_unindented(bytes: &[u8], start: usize, limit: usize) -> usize {
    let limit = limit.min(bytes.len());
    if start >= limit || bytes[start] != b' ' {
        return start.min(limit);
    }
    let mut at = start;
    // A line break at `i` followed by anything but a space starts such a line at `i + 1`.
    while at + 65 <= limit {
        let (Ok(here), Ok(next)) = (
            <&[u8; 64]>::try_from(&bytes[at..at + 64]),
            <&[u8; 64]>::try_from(&bytes[at + 1..at + 65]),
        ) else {
            break;
        };
        let mut any = 0u8;
        for k in 0..64 {
            any |= u8::from(here[k] == b'\n') & u8::from(next[k] != b' ');
        }
        if any != 0 {
            break;
        }
        at += 64;
    }
    while let Some(i) = memchr::memchr(b'\n', &bytes[at..limit]) {
        let next = at + i + 1;
        if next >= limit || bytes[next] != b' ' {
            return next.min(limit);
        }
        at = next;
    }
    limit
}

/// The end of the last non-blank line in `range` of `text` (its start when every line is
/// blank).
pub fn content_end(text: &str, range: Range<usize>) -> usize {
    let mut end = range.start;
    for (start, body) in line_bodies(&text[range.clone()]) {
        if !Line::parse(start, body).blank {
            end = range.start + start + body.len();
        }
    }
    end
}

/// Sets the links of each line ([`Line::next_not_deeper`], [`Line::prev_not_deeper`]).
fn link(out: &mut [Line<'_>]) {
    // The next line not deeper than each line: a stack, from the end, of the non-blank lines
    // whose indentation only grows towards the top (the nearest smaller-or-equal on top).
    let mut stack: Vec<usize> = Vec::new();
    for i in (0..out.len()).rev() {
        if out[i].blank {
            out[i].next_not_deeper = i + 1;
            continue;
        }
        let indent = out[i].indent();
        while stack.last().is_some_and(|&j| out[j].indent() > indent) {
            stack.pop();
        }
        out[i].next_not_deeper = stack.last().copied().unwrap_or(out.len());
        stack.push(i);
    }
    stack.clear();
    for i in 0..out.len() {
        if out[i].blank {
            continue;
        }
        let indent = out[i].indent();
        while stack.last().is_some_and(|&j| out[j].indent() > indent) {
            stack.pop();
        }
        out[i].prev_not_deeper = stack.last().copied();
        stack.push(i);
    }
}

/// Whether a walk at column `col` may jump over the block of line `i`: the line is at least
/// as deep as `col` (so is every line of its block) and its links are known.
fn jumps(lines: &[Line<'_>], i: usize, col: usize) -> bool {
    let l = &lines[i];
    !l.blank && l.indent() >= col && l.next_not_deeper > i
}

/// The line after `i` that a walk over the mapping at column `col` must look at: past the
/// block of a line at least as deep as `col` (every line in it has its content right of
/// `col`), else the next line.
fn step(lines: &[Line<'_>], i: usize, col: usize) -> usize {
    if jumps(lines, i, col) {
        lines[i].next_not_deeper
    } else {
        i + 1
    }
}

/// [`step`] backwards: the line before `i` a walk up at column `col` must look at (`None`:
/// no line before is worth looking at).
fn step_back(lines: &[Line<'_>], i: usize, col: usize) -> Option<usize> {
    if jumps(lines, i, col) {
        lines[i].prev_not_deeper
    } else {
        i.checked_sub(1)
    }
}

type Lines<'t> = Vec<Line<'t>>;

/// What an [`Outline`] reads: (a share of) the text, and the top-level block its walks start
/// in (`None`: every line of the text).
pub struct OutlineText {
    text: Arc<str>,
    block: Option<Range<usize>>,
}

self_cell::self_cell!(
    /// The lines of one text (all of them, or those a cursor's walks reach: [`lines_around`]),
    /// owning (a share of) the text: built for a document version and read by the
    /// completion requests of that version.
    pub struct Outline {
        owner: OutlineText,
        #[covariant]
        dependent: Lines,
    }
);

impl Outline {
    /// The outline of every line of `text` ([`lines`]).
    pub fn of(text: Arc<str>) -> Outline {
        Outline::new(OutlineText { text, block: None }, |t| lines(&t.text))
    }

    /// The outline a cursor at byte `at` reads ([`lines_around`] the block holding it).
    pub fn around(text: Arc<str>, at: usize) -> Outline {
        let block = block_around(&text, at);
        Outline::of_block(text, block)
    }

    /// The outline a cursor in the top-level block `block` ([`block_around`]) reads.
    pub fn of_block(text: Arc<str>, block: Range<usize>) -> Outline {
        Outline::new(
            OutlineText {
                text,
                block: Some(block),
            },
            |t| lines_around(&t.text, t.block.clone().unwrap_or_default()),
        )
    }

    /// The block this outline was built around (`None`: every line).
    pub fn block(&self) -> Option<&Range<usize>> {
        self.borrow_owner().block.as_ref()
    }

    /// Whether this outline serves a cursor at byte `at` of the same text.
    pub fn serves(&self, at: usize) -> bool {
        self.block()
            .is_none_or(|b| *b == block_around(&self.borrow_owner().text, at))
    }

    pub fn lines(&self) -> &[Line<'_>] {
        self.borrow_dependent()
    }
}

impl std::fmt::Debug for Outline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Outline({} lines)", self.lines().len())
    }
}

/// The index of the line holding byte `at`.
pub fn line_of(lines: &[Line<'_>], at: usize) -> usize {
    match lines.binary_search_by(|l| l.start.cmp(&at)) {
        Ok(i) => i,
        Err(i) => i.saturating_sub(1),
    }
}

/// One step of the path from the document root to a block mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// The mapping is the value of this key (written on line `line` at column `col`).
    Key {
        key: String,
        line: usize,
        col: usize,
    },
    /// The mapping is a list item whose `-` is on line `line` at column `dash`.
    Item { line: usize, dash: usize },
}

impl Seg {
    pub fn key(&self) -> Option<&str> {
        match self {
            Seg::Key { key, .. } => Some(key),
            Seg::Item { .. } => None,
        }
    }
}

/// A block mapping located by indentation: its path from the root, the column of its keys,
/// and the range of lines it spans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// From the root down to this mapping.
    pub path: Vec<Seg>,
    /// Column of the mapping's keys.
    pub col: usize,
    /// Lines that belong to the mapping (its first key line to its last content line).
    pub lines: Range<usize>,
}

impl Mapping {
    /// The keys written in this mapping (at its column), with their line indexes.
    pub fn keys<'t>(&self, lines: &[Line<'t>]) -> Vec<(&'t str, usize)> {
        let mut out = Vec::new();
        let mut i = self.lines.start;
        while i < self.lines.end.min(lines.len()) {
            let line = &lines[i];
            if !line.blank
                && line.content_col == self.col
                && let Some(k) = line.key
            {
                out.push((k, i));
            }
            i = step(lines, i, self.col);
        }
        out
    }

    /// The value written inline after `key` in this mapping.
    pub fn value_of<'t>(&self, lines: &[Line<'t>], key: &str) -> Option<&'t str> {
        let (_, i) = self.keys(lines).into_iter().find(|(k, _)| *k == key)?;
        Some(lines[i].value)
    }
}

/// The block mapping whose keys sit at column `col` and which holds line `line` (the cursor's
/// line). `starts_item` says the cursor's line itself begins a list item (`- ` before `col`).
pub fn mapping_at(lines: &[Line<'_>], line: usize, col: usize, starts_item: bool) -> Mapping {
    let first = first_line_of(lines, line, col, starts_item);
    let last = last_line_of(lines, first, line, col);
    let mut path = Vec::new();
    parents(lines, first, col, &mut path, 0);
    path.reverse();
    Mapping {
        path,
        col,
        lines: first..last + 1,
    }
}

/// The first line of the mapping at `col` holding `line`.
fn first_line_of(lines: &[Line<'_>], line: usize, col: usize, starts_item: bool) -> usize {
    if starts_item {
        return line;
    }
    let mut first = line;
    let mut at = line;
    while let Some(i) = step_back(lines, at, col) {
        at = i;
        let l = &lines[i];
        if l.blank {
            continue;
        }
        if l.content_col > col {
            continue;
        }
        if l.content_col < col {
            break;
        }
        first = i;
        if l.item_dash().is_some() {
            break; // the item (and so the mapping) starts here
        }
    }
    first
}

/// The mapping's last content line: the last non-blank line before the first line after the
/// cursor that is less indented than `col` (a key left of it, or an item indicator left of
/// it or at it), jumping over the blocks of deeper lines.
fn last_line_of(lines: &[Line<'_>], first: usize, cursor: usize, col: usize) -> usize {
    let from = cursor.max(first);
    let mut i = from + 1;
    while i < lines.len() && (lines[i].blank || lines[i].indent() >= col) {
        i = step(lines, i, col);
    }
    let end = i.min(lines.len());
    (from + 1..end)
        .rev()
        .find(|&j| !lines[j].blank)
        .unwrap_or(from)
}

/// Pushes, innermost first, the segments leading to the mapping whose first line is `first`.
fn parents(lines: &[Line<'_>], first: usize, col: usize, out: &mut Vec<Seg>, depth: usize) {
    if depth > 64 {
        return;
    }
    let l = &lines[first];
    // The mapping is a list item: `- key: …` with its `-` before `col`.
    if let Some(dash) = l.item_dash().filter(|&d| d < col) {
        out.push(Seg::Item { line: first, dash });
        // The sequence's owner: the nearest line above, less indented than the dash, or a key
        // at the dash's column (`key:\n- item` is allowed).
        let mut i = first;
        // Items written as `- - x` are nested sequences: not followed.
        if l.dashes.len() > 1 {
            return;
        }
        while i > 0 {
            i -= 1;
            let p = &lines[i];
            if p.blank {
                continue;
            }
            if p.content_col > dash {
                continue;
            }
            if p.content_col == dash && p.item_dash().is_none() && p.key.is_none() {
                return;
            }
            if p.content_col == dash && p.item_dash().is_some() {
                continue; // an earlier item of the same sequence
            }
            if let Some(d) = p.item_dash()
                && d == dash
            {
                continue;
            }
            return owner(lines, i, out, depth);
        }
        return;
    }
    // A plain mapping: owned by the nearest less-indented key line above.
    let mut at = first;
    while let Some(i) = step_back(lines, at, col) {
        at = i;
        let p = &lines[i];
        if p.blank || p.content_col >= col {
            continue;
        }
        return owner(lines, i, out, depth);
    }
}

/// Line `i` is a key line that owns a nested collection: record it and go on up.
fn owner(lines: &[Line<'_>], i: usize, out: &mut Vec<Seg>, depth: usize) {
    let p = &lines[i];
    let Some(key) = p.key else { return };
    if !p.value.is_empty() && !p.value.starts_with('&') && !p.value.starts_with('!') {
        return; // `key: value` cannot own an indented block
    }
    out.push(Seg::Key {
        key: key.to_string(),
        line: i,
        col: p.content_col,
    });
    let first = first_line_of(lines, i, p.content_col, p.item_dash().is_some());
    parents(lines, first, p.content_col, out, depth + 1);
}

/// The indentation unit of the text: the smallest positive step between a key line and the
/// first line of its nested block mapping; 2 when none is found.
pub fn indent_unit(lines: &[Line<'_>]) -> usize {
    let mut scan = UnitScan::default();
    for l in lines {
        scan.push(l);
    }
    scan.unit()
}

/// [`indent_unit`] of a whole text, read line by line without keeping the lines. A line is
/// parsed in full ([`Line::parse`]) only when it may be a key without a value (it ends with
/// `:` or holds a `#`); for the others the indentation is all the pass reads.
pub fn indent_unit_of(text: &str) -> usize {
    let mut scan = UnitScan::default();
    for (start, body) in line_bodies(text) {
        let mut dash = false;
        let i = content_column(body, |_| dash = true);
        let content = &body[i..];
        if content.contains('#') || content.trim_end().ends_with(':') {
            scan.push(&Line::parse(start, body));
        } else {
            // Not blank unless whitespace only without an item indicator; no key without a
            // value (a value with neither a comment nor a final `:` is not empty).
            let blank = content.trim().is_empty() && !dash;
            scan.push_facts(blank, i, dash, false);
        }
    }
    scan.unit()
}

/// [`indent_unit`]'s pass: the smallest step so far, and the previous non-blank line (whether
/// it is a key without a value, its content column).
#[derive(Default)]
struct UnitScan {
    best: Option<usize>,
    prev: Option<(bool, usize)>,
}

impl UnitScan {
    fn push(&mut self, l: &Line<'_>) {
        self.push_facts(
            l.blank,
            l.content_col,
            l.item_dash().is_some(),
            l.key.is_some() && l.value.is_empty(),
        );
    }

    /// A line: blank, its content column, whether it starts a list item, whether it is a key
    /// without a value.
    fn push_facts(&mut self, blank: bool, content_col: usize, item: bool, owns: bool) {
        if blank {
            return;
        }
        if let Some((prev_owns, col)) = self.prev
            && prev_owns
            && content_col > col
            && !item
        {
            let step = content_col - col;
            self.best = Some(self.best.map_or(step, |b| b.min(step)));
        }
        self.prev = Some((owns, content_col));
    }

    fn unit(&self) -> usize {
        self.best.filter(|&b| b > 0 && b <= 8).unwrap_or(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `next_unindented` is the first line start from `start` whose first byte is not a space,
    /// or `limit`: compared with a line-by-line walk on texts of long indented runs (across
    /// the 64-byte chunks it passes over) with unindented, blank and `\r\n` lines among them.
    #[test]
    fn the_next_unindented_line_is_found_across_chunks() {
        let mut seed: u64 = 7;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        let pieces = [
            "    indented: line\n",
            "  x\n",
            "key: v\n",
            "\n",
            "# c\n",
            "  y\r\n",
            "\r\n",
        ];
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..next(60) {
                let piece = if next(8) == 0 {
                    pieces[2 + next(5)]
                } else {
                    pieces[next(2)]
                };
                text.push_str(piece);
            }
            let bytes = text.as_bytes();
            let starts: Vec<usize> = std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
                .filter(|&s| s <= bytes.len())
                .collect();
            for &start in &starts {
                let limit = start + next(bytes.len() - start + 1);
                let walked = starts
                    .iter()
                    .copied()
                    .find(|&s| s >= start && (s >= limit || bytes.get(s) != Some(&b' ')))
                    .map_or(limit, |s| s.min(limit));
                assert_eq!(
                    next_unindented(bytes, start, limit),
                    walked,
                    "{text:?} {start} {limit}"
                );
            }
        }
    }

    fn keys(path: &[Seg]) -> Vec<String> {
        path.iter()
            .map(|s| match s {
                Seg::Key { key, .. } => key.clone(),
                Seg::Item { .. } => "-".into(),
            })
            .collect()
    }

    #[test]
    fn lines_split_keys_values_and_item_indicators() {
        let l = Line::parse(0, "  - class: mcp:Tool # the hint");
        assert_eq!(l.dashes, vec![2]);
        assert_eq!(l.content_col, 4);
        assert_eq!(l.key, Some("class"));
        assert_eq!(l.value, "mcp:Tool");
        let l = Line::parse(0, "  mcp:Tool:");
        assert_eq!((l.key, l.value), (Some("mcp:Tool"), ""));
        let l = Line::parse(0, "    ann");
        assert_eq!((l.key, l.content_col), (None, 4));
        let l = Line::parse(0, "  \"$namespaces\": {}");
        assert_eq!(l.key, Some("$namespaces"));
        assert!(Line::parse(0, "   # note").blank);
        assert!(!Line::parse(0, "  -").blank);
    }

    #[test]
    fn paths_follow_indentation_through_maps_and_items() {
        let text = "class: CommandLineTool\nhints:\n  - class: DockerRequirement\n  - class: mcp:Tool\n    name: x\n    annotations:\n      readOnlyHint: true\n      \n    \nlabel: l\n";
        let ls = lines(text);
        // Cursor on the blank line inside `annotations`.
        let m = mapping_at(&ls, 7, 6, false);
        assert_eq!(keys(&m.path), vec!["hints", "-", "annotations"]);
        assert_eq!(m.keys(&ls), vec![("readOnlyHint", 6)]);
        // The blank line at column 4: the list item's mapping.
        let m = mapping_at(&ls, 8, 4, false);
        assert_eq!(keys(&m.path), vec!["hints", "-"]);
        let ks: Vec<_> = m.keys(&ls).into_iter().map(|(k, _)| k).collect();
        assert_eq!(ks, vec!["class", "name", "annotations"]);
        assert_eq!(m.value_of(&ls, "class"), Some("mcp:Tool"));
        assert_eq!(indent_unit(&ls), 2);
    }

    #[test]
    fn sequences_at_their_keys_column_and_map_form() {
        let text = "hints:\n- class: mcp:Tool\n  nam\nrequirements:\n  mcp:Tool:\n    name: x\n";
        let ls = lines(text);
        let m = mapping_at(&ls, 2, 2, false);
        assert_eq!(keys(&m.path), vec!["hints", "-"]);
        let m = mapping_at(&ls, 5, 4, false);
        assert_eq!(keys(&m.path), vec!["requirements", "mcp:Tool"]);
        assert_eq!(line_of(&ls, text.find("nam").unwrap()), 2);
    }

    /// Every `.cwl` file of the project (examples, test fixtures) and a few hand-made shapes.
    fn texts() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out: Vec<String> = [
            "a:\n  b:\n    c: 1\n\n  # note\n  d:\n  - x: 1\n    y: 2\n  - - z\n    - w: 3\ne: 4\n",
            "- a: 1\n  b:\n    - c: 2\n      d: 3\n\n- e: 4\n",
            "k:\n- 1\n- m: 2\n  n: 3\nl: |\n  text\n\n  more\nz:\n",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut dirs = vec![root.join("examples"), root.join("tests")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "cwl")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    out.push(text);
                }
            }
        }
        assert!(out.len() > 20, "the project's .cwl files were not found");
        // Random shapes (a fixed LCG): any indentation from 0 to 5, items, nested items,
        // keys with and without values, scalars, blank and comment lines.
        let mut seed: u64 = 14;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..400 {
            let mut text = String::new();
            for _ in 0..14 {
                let indent = " ".repeat(next(6) as usize);
                let line = match next(8) {
                    0 => String::new(),
                    1 => format!("{indent}# c"),
                    2 => format!("{indent}- k{}: v", next(3)),
                    3 => format!("{indent}- - x"),
                    4 => format!("{indent}-"),
                    5 => format!("{indent}k{}:", next(3)),
                    6 => format!("{indent}k{}: v", next(3)),
                    _ => format!("{indent}text"),
                };
                text.push_str(&line);
                text.push('\n');
            }
            out.push(text);
        }
        out
    }

    #[test]
    fn walks_that_jump_over_deeper_blocks_find_what_line_by_line_walks_find() {
        for text in texts() {
            let linked = lines(&text);
            // The same lines without their jumps: every walk then steps line by line.
            let plain: Vec<Line<'_>> = linked
                .iter()
                .map(|l| Line {
                    next_not_deeper: 0,
                    prev_not_deeper: None,
                    ..l.clone()
                })
                .collect();
            for li in 0..linked.len() {
                for col in 0..=linked[li].content_col + 2 {
                    for starts_item in [false, true] {
                        let a = mapping_at(&linked, li, col, starts_item);
                        let b = mapping_at(&plain, li, col, starts_item);
                        assert_eq!(a, b, "line {li}, column {col} of:\n{text}");
                        assert_eq!(a.keys(&linked), b.keys(&plain), "line {li} of:\n{text}");
                    }
                }
            }
        }
    }

    #[test]
    fn blocks_start_at_root_keys() {
        let text = "# c\ncwlVersion: v1.2\n$namespaces:\n  s: x\n  mcp: y\n\n# note\nbaseCommand:\n- echo\n---\nhints:\n  a: 1\n";
        let ns = text.find("$namespaces").unwrap();
        let b = block_around(text, ns + 3);
        assert_eq!(
            &text[b.clone()],
            "$namespaces:\n  s: x\n  mcp: y\n\n# note\n"
        );
        assert_eq!(
            &text[b.start..content_end(text, b)],
            "$namespaces:\n  s: x\n  mcp: y"
        );
        // A list item at column 0 belongs to the key above; `---` starts a block.
        let b = block_around(text, text.find("- echo").unwrap() + 3);
        assert_eq!(&text[b], "baseCommand:\n- echo\n");
        assert_eq!(
            &text[block_around(text, text.find("---").unwrap())],
            "---\n"
        );
        // Before the first root key: the comment.
        assert_eq!(block_around(text, 1), 0..text.find("cwlVersion").unwrap());
        assert_eq!(&text[block_around(text, text.len())], "hints:\n  a: 1\n");
        // Around the `$namespaces` block: its lines, and the first line of every other block.
        let around: Vec<&str> = lines_around(text, block_around(text, ns))
            .iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(
            around,
            [
                "# c",
                "cwlVersion: v1.2",
                "$namespaces:",
                "  s: x",
                "  mcp: y",
                "",
                "# note",
                "baseCommand:",
                "---",
                "hints:"
            ]
        );
        assert_eq!(indent_unit_of(text), indent_unit(&lines(text)));
        // Keys without a value (one with a comment) own the step; list items do not.
        for (text, unit) in [
            ("a:\n    b:\n        c: 1\n", 4),
            ("a:  # note\n   b: 1\n", 3),
            ("a:\n- b: 1\nd:\n      e: 1\n", 6),
            ("a:\n- b:\n   c: 1\n", 1),
            ("a: x\n  b: 1\n", 2),
        ] {
            assert_eq!(indent_unit_of(text), unit, "{text:?}");
            assert_eq!(indent_unit(&lines(text)), unit, "{text:?}");
        }
    }
}
