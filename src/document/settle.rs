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
//! 2. split every block of at least [`KEPT_BLOCK`] bytes whose key has no value on its own
//!    line (a nested mapping or sequence follows) into its entries, the same way one level
//!    down ([`entries`]: lines at the indentation of its first entry that begin a key, or `-`
//!    items), and so on while an entry is that large; other large blocks are kept whole;
//! 3. `S` = the blocks and entries smaller than [`KEPT_BLOCK`] whose own text, parsed alone,
//!    has an error (memoized by a hash of that text, and asked ahead by [`Warming`] in the
//!    server), and those that are not items and whose first line has no `key:` (a key being
//!    typed: alone it may read as a scalar, where it stands it breaks its mapping); first
//!    only the top-level blocks (the large ones kept whole, not split): if some are in `S`
//!    and step 5 gives a tree with them alone, that is the tree; else `S` with the entries of
//!    step 2 too;
//! 4. `T'` = the text with every byte of the blocks in `S` after the colon of its key (after
//!    the `-` of an item), but the line breaks, made a space (same length, same rows and
//!    columns; a block in `S` whose first line has no `key:` is made spaces whole, and an
//!    item without one means the fresh parse). The key is kept because tree-sitter-yaml
//!    reparses the whole mapping after any change in the first column of one of its keys
//!    (72–115 ms at 50,000 lines for a top-level key, against 0.1 ms for its value; a keyless
//!    line made blank holds no key in `T'`: a new input's key typed at 50,000 lines costs
//!    5–7 ms per letter over stdio);
//! 5. if the parse of `T'` has an error, the tree is the fresh parse of the text; otherwise it
//!    is the tree of `T'` ([`Settled`] says so: the text `T'`, and each block of `S` with the
//!    tree of its own text followed by a sibling's first line, [`Blanked`]). The broken
//!    blocks are read from those trees: their values (`YamlDoc`), their error regions, the
//!    hint classes and namespaces found by `features::locate`.
//!
//! Until the thirteenth session step 5 parsed the text again, reusing `T'`'s tree, and that
//! tree was the text's: a third parse per broken keystroke (2–5 ms at 50,000 lines), and
//! tree-sitter's recovery of a break inside a large `inputs` was one flat ERROR that stopped
//! at the break, so the value tree lost every later input and the derivation read the whole
//! JSON. With `T'`'s tree the rest of the document reads as in a valid text, its sections
//! found in the memo (decisions.md).
//!
//! Each step depends on the text only. The tree of `T'` has no error, and an error-free tree
//! reached incrementally is the tree of a fresh parse (`tests/differential_edits.rs` checks it
//! node by node after every step), so `T'`'s tree is reached from whatever tree is at hand:
//! the last error-free tree of the document (`Document` keeps it while the text is broken:
//! the tree of a broken text is a poor base, tree-sitter lexes most of the text again when it
//! reuses a tree whose error recovery flattened the rest of the document), or the fresh parse
//! when a broken file is opened; only the broken blocks are parsed again. The same tests
//! compare the document's tree after every edit with [`super::Snapshot::parse`] of its text,
//! which runs this same definition.
//!
//! Steps 1–3 read every line and hash every part, so a broken keystroke would cost the whole
//! text twice over. A settled version keeps what they found ([`Splits`]), and the next version
//! of the document, one edit away, takes from it the splits and judgements of the lines the
//! edit did not touch, moved by its length ([`settle_after`]); only the edited lines are read
//! again. Both are functions of the text, so the result is the same
//! (`a_settle_after_an_edit_is_the_settle_of_the_text`, and debug builds compare each reused
//! split and judgement with the one made again).
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use tree_sitter::{InputEdit, Parser, Point, Tree};

use super::position::{ts_point_after, ts_point_in};
use crate::base::text_hash;

/// Blocks at least this large are kept as parsed or split into their entries (never blanked,
/// never parsed alone); a text with none is parsed fresh when broken (it is small, or has no
/// large section to reuse).
pub const KEPT_BLOCK: usize = 8 * 1024;

/// Verdicts (parsed alone: error or not) kept per generation; two generations are kept, so a
/// 50,000-line tool's 2,000 inputs keep theirs between keystrokes.
const VERDICTS: usize = 16 * 1024;

/// The verdicts of block texts by the text's hash (`base::text_hash`, 128 bits, trusted as
/// the text): this generation's, the last's.
#[derive(Default)]
struct Verdicts {
    now: HashMap<u128, bool>,
    last: HashMap<u128, bool>,
}

thread_local! {
    static VERDICT: RefCell<Verdicts> = RefCell::new(Verdicts::default());
}

#[cfg(test)]
thread_local! {
    /// Blocks parsed alone on this thread (verdicts not found in the memo).
    static PARSED_ALONE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Splits taken from the version before's on this thread ([`Splitter::reused`]).
    static REUSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
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

/// One block: its bytes and the points of its ends, and how its value starts.
#[derive(Clone, Debug, PartialEq)]
struct Block {
    bytes: Range<usize>,
    start: Point,
    end: Point,
    /// `Some(column)` for a sequence item: its `-` is at that column of its first line.
    dash: Option<usize>,
}

/// Whether the line starting at `at` begins an entry at column `indent`: `indent` spaces, then
/// a `-` item (`dash`) or the first byte of a key (not a space, tab, line break, `#` or `-`).
fn starts_entry(bytes: &[u8], at: usize, indent: usize, dash: bool) -> bool {
    let Some(line) = bytes.get(at..) else {
        return false;
    };
    if line.len() <= indent || line[..indent].iter().any(|&b| b != b' ') {
        return false;
    }
    if dash {
        line[indent] == b'-'
            && line
                .get(indent + 1)
                .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    } else {
        !matches!(line[indent], b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'-')
    }
}

/// The starts (byte, row) of the lines of `lines` (starting at row `row`, at a line start)
/// that [`starts_entry`] accepts in a range ending at `end`, and the point of `lines.end`.
fn scan(
    bytes: &[u8],
    lines: Range<usize>,
    row: usize,
    end: usize,
    indent: usize,
    dash: bool,
) -> (Vec<(usize, usize)>, Point) {
    let mut starts = Vec::new();
    let mut row = row;
    let mut line_start = lines.start;
    let mut breaks = memchr::memchr_iter(b'\n', &bytes[lines.clone()]);
    loop {
        if line_start < lines.end && starts_entry(&bytes[..end], line_start, indent, dash) {
            starts.push((line_start, row));
        }
        match breaks.next() {
            Some(i) => {
                line_start = lines.start + i + 1;
                row += 1;
            }
            None => break,
        }
    }
    (starts, Point::new(row, lines.end - line_start))
}

/// The blocks of `range` that begin at `starts` (byte, row), the last ending at `end`.
fn blocks_at(
    starts: &[(usize, usize)],
    range: &Range<usize>,
    end: Point,
    indent: usize,
    dash: bool,
) -> Vec<Block> {
    let mut out = Vec::with_capacity(starts.len());
    for (i, &(start, start_row)) in starts.iter().enumerate() {
        let (end_byte, end) = match starts.get(i + 1) {
            Some(&(next, next_row)) => (next, Point::new(next_row, 0)),
            None => (range.end, end),
        };
        out.push(Block {
            bytes: start..end_byte,
            start: Point::new(start_row, 0),
            end,
            dash: dash.then_some(indent),
        });
    }
    out
}

/// What one [`settle`] split and asked: each split of a range into the lines that begin its
/// entries, and what step 3 said of each part asked ([`Judged`]), in text order. The next
/// broken version of the document, one edit away, takes from it what lies outside the edited
/// lines ([`Prior`]): without it, every broken keystroke at 50,000 lines split the whole text
/// into its blocks, `inputs` into its 2,800 entries, read each entry's first line and hashed
/// each entry for its verdict (1.4 ms of the 2.1 ms the keystroke's reparse took in process).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Splits {
    runs: Vec<Run>,
    judged: Vec<(Range<usize>, Judged)>,
}

/// One split: its range, the row of its start, the indentation and kind of its entries, the
/// starts found and the point of the range's end.
#[derive(Clone, Debug, PartialEq)]
struct Run {
    range: Range<usize>,
    row: usize,
    indent: usize,
    dash: bool,
    starts: Vec<(usize, usize)>,
    end: Point,
}

/// The splits of the document's last version ([`Settled::splits`]) and the one edit that made
/// this text of it (`start_byte..old_end_byte` replaced by `start_byte..new_end_byte`, with
/// the points tree-sitter counts).
#[derive(Clone, Copy, Debug)]
pub struct Prior<'a> {
    pub splits: &'a Splits,
    pub edit: InputEdit,
}

/// The lines an edit touched: the text is the same before `from` (the start of the edit's
/// first line, at row `from_row`), and from `to` on (the line after its last one, in the
/// new text) it is the old text's from `to_old`, rows `rows` apart.
#[derive(Clone, Copy, Debug)]
struct Touched {
    from: usize,
    from_row: usize,
    to: usize,
    to_old: usize,
    rows: isize,
}

impl Touched {
    fn of(text: &[u8], edit: &InputEdit) -> Option<Touched> {
        let (at, end) = (edit.start_byte, edit.new_end_byte);
        if at > end || end > text.len() || edit.old_end_byte < at {
            return None;
        }
        let from = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
        let to = memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |i| end + i + 1);
        Some(Touched {
            from,
            from_row: edit.start_position.row,
            to,
            to_old: to - end + edit.old_end_byte,
            rows: edit.new_end_position.row as isize - edit.old_end_position.row as isize,
        })
    }

    /// The new byte of an old byte at or after `to_old`.
    fn moved(&self, old: usize) -> usize {
        old + self.to - self.to_old
    }

    /// The old byte of a new byte at or after `to`.
    fn old(&self, new: usize) -> usize {
        new + self.to_old - self.to
    }

    fn moved_row(&self, old: usize) -> usize {
        old.saturating_add_signed(self.rows)
    }

    /// An old edit of bytes from `to_old` on, moved.
    fn moved_edit(&self, old: &InputEdit) -> InputEdit {
        let point = |p: Point| Point::new(self.moved_row(p.row), p.column);
        InputEdit {
            start_byte: self.moved(old.start_byte),
            old_end_byte: self.moved(old.old_end_byte),
            new_end_byte: self.moved(old.new_end_byte),
            start_position: point(old.start_position),
            old_end_position: point(old.old_end_position),
            new_end_position: point(old.new_end_position),
        }
    }

    /// The old bytes of `range` of the new text when they are the same text: before `from`,
    /// or from `to` on.
    fn same(&self, range: &Range<usize>) -> Option<Range<usize>> {
        if range.end <= self.from {
            Some(range.clone())
        } else if range.start >= self.to {
            Some(self.old(range.start)..self.old(range.end))
        } else {
            None
        }
    }
}

/// The splits and judgements of one [`settle`], from those of the version before where the edit
/// left them as they were.
#[derive(Default)]
struct Splitter<'a> {
    prior: Option<(&'a Splits, Touched)>,
    made: Splits,
    /// Where the search for the next judgement in the prior's goes on.
    next_judged: usize,
}

impl<'a> Splitter<'a> {
    fn after(text: &str, prior: Option<Prior<'a>>) -> Splitter<'a> {
        let prior = prior.and_then(|p| Some((p.splits, Touched::of(text.as_bytes(), &p.edit)?)));
        let made = Splits {
            runs: Vec::new(),
            judged: Vec::with_capacity(prior.map_or(0, |(p, _)| p.judged.len() + 1)),
        };
        Splitter {
            prior,
            made,
            next_judged: 0,
        }
    }

    /// The blocks of `range` of `text` (starting at row `row`, at a line start) that begin at
    /// lines [`starts_entry`] accepts, in order; the bytes before the first belong to none.
    fn split(
        &mut self,
        text: &str,
        range: Range<usize>,
        row: usize,
        indent: usize,
        dash: bool,
    ) -> Vec<Block> {
        let bytes = text.as_bytes();
        let scanned = || scan(bytes, range.clone(), row, range.end, indent, dash);
        let (starts, end) = match self.reused(bytes, &range, row, indent, dash) {
            Some(reused) => {
                debug_assert_eq!(reused, scanned(), "a reused split is the text's");
                #[cfg(test)]
                REUSED.with(|n| n.set(n.get() + 1));
                reused
            }
            None => scanned(),
        };
        let out = blocks_at(&starts, &range, end, indent, dash);
        self.made.runs.push(Run {
            range,
            row,
            indent,
            dash,
            starts,
            end,
        });
        out
    }

    /// The starts and end of a split the version before made of the same lines, moved, and
    /// the lines the edit touched scanned again; `None` when it made none.
    fn reused(
        &self,
        bytes: &[u8],
        range: &Range<usize>,
        row: usize,
        indent: usize,
        dash: bool,
    ) -> Option<(Vec<(usize, usize)>, Point)> {
        let (old, t) = self.prior.as_ref()?;
        let find = |range: Range<usize>, row: usize| {
            old.runs
                .iter()
                .find(|r| r.range == range && r.row == row && r.indent == indent && r.dash == dash)
        };
        if range.end <= t.from {
            let run = find(range.clone(), row)?;
            return Some((run.starts.clone(), run.end));
        }
        let moved = |&(byte, row): &(usize, usize)| (t.moved(byte), t.moved_row(row));
        let end = |run: &Run| Point::new(t.moved_row(run.end.row), run.end.column);
        if range.start >= t.to {
            let old_row = (row as isize - t.rows) as usize;
            let run = find(t.old(range.start)..t.old(range.end), old_row)?;
            return Some((run.starts.iter().map(moved).collect(), end(run)));
        }
        if range.start > t.from || range.end < t.to {
            return None;
        }
        let run = find(range.start..t.old(range.end), row)?;
        let before = run.starts.partition_point(|&(b, _)| b < t.from);
        let after = run.starts.partition_point(|&(b, _)| b < t.to_old);
        let (touched, touched_end) = scan(bytes, t.from..t.to, t.from_row, range.end, indent, dash);
        let mut starts = Vec::with_capacity(run.starts.len() + touched.len());
        starts.extend_from_slice(&run.starts[..before]);
        starts.extend(touched);
        starts.extend(run.starts[after..].iter().map(moved));
        let end = if range.end == t.to {
            touched_end
        } else {
            end(run)
        };
        Some((starts, end))
    }

    /// What step 3 says of `part` ([`Judged`]): the version before's judgement of the same
    /// text, moved, else [`judged`] (its first line read, and its verdict asked).
    fn judge(&mut self, text: &str, part: &Block, parser: &mut Parser) -> Judged {
        let known = self.prior.as_ref().and_then(|(old, t)| {
            let same = t.same(&part.bytes)?;
            // Parts are asked in text order (twice: the small blocks, then every part), so
            // the search goes on from the last one found.
            let judged = &old.judged;
            let mut i = self.next_judged.min(judged.len());
            if i > 0 && judged[i - 1].0.start >= same.start {
                i = judged.partition_point(|(r, _)| r.start < same.start);
            }
            while judged.get(i).is_some_and(|(r, _)| r.start < same.start) {
                i += 1;
            }
            self.next_judged = i;
            let (range, judgement) = judged.get(i)?;
            if *range != same {
                return None;
            }
            Some(match judgement {
                Judged::Blank(value) if part.bytes.start >= t.to => {
                    Judged::Blank(t.moved_edit(value))
                }
                other => other.clone(),
            })
        });
        let judgement = match known {
            Some(known) => {
                debug_assert_eq!(
                    known,
                    judged(text, part, parser),
                    "a reused judgement is the text's"
                );
                known
            }
            None => judged(text, part, parser),
        };
        self.made
            .judged
            .push((part.bytes.clone(), judgement.clone()));
        judgement
    }

    /// What this settle made, its judgements in text order (those of its last pass).
    fn finish(self) -> Splits {
        debug_assert!(
            self.made.judged.is_sorted_by_key(|(r, _)| r.start),
            "judged in text order"
        );
        self.made
    }

    /// The top-level blocks of `text`, in order. The bytes before the first block (comments,
    /// a `#!` line) belong to none.
    fn blocks(&mut self, text: &str) -> Vec<Block> {
        self.split(text, 0..text.len(), 0, 0, false)
    }

    /// The entries of a large keyed `block` whose key has no value on its line (a comment
    /// aside): the lines at the indentation of its first entry that begin a key, or `-` items
    /// if the first entry is one; `None` for another block (an item, a scalar, a flow
    /// collection), which is kept whole.
    fn entries(&mut self, text: &str, block: &Block) -> Option<Vec<Block>> {
        if block.dash.is_some() {
            return None;
        }
        let value = value_of(text, block)?;
        let bytes = text.as_bytes();
        let first_line_end = memchr::memchr(b'\n', &bytes[value.start_byte..block.bytes.end])
            .map(|i| value.start_byte + i + 1)?;
        let rest = &text[value.start_byte..first_line_end].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            return None;
        }
        let own = bytes[block.bytes.start..]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        // The first line after the key that is not blank or a comment.
        let mut at = first_line_end;
        while at < block.bytes.end {
            let line_end = memchr::memchr(b'\n', &bytes[at..block.bytes.end])
                .map_or(block.bytes.end, |i| at + i + 1);
            let line = &bytes[at..line_end];
            let indent = line.iter().take_while(|&&b| b == b' ').count();
            match line.get(indent) {
                None | Some(b'\r' | b'\n' | b'#') => at = line_end,
                Some(_) => {
                    let dash = starts_entry(bytes, at, indent, true);
                    if indent < own || (indent == own && !dash) {
                        return None;
                    }
                    let row = block.start.row
                        + memchr::memchr_iter(b'\n', &bytes[block.bytes.start..at]).count();
                    return Some(self.split(text, at..block.bytes.end, row, indent, dash));
                }
            }
        }
        None
    }

    /// The parts of `block` whose verdicts step 3 asks for, in text order: the block itself when
    /// it is smaller than [`KEPT_BLOCK`], else its entries, split again while an entry is that
    /// large.
    fn asked_of(&mut self, text: &str, block: &Block, out: &mut Vec<Block>) {
        if block.bytes.len() < KEPT_BLOCK {
            out.push(block.clone());
            return;
        }
        let entries = self.entries(text, block).unwrap_or_default();
        out.reserve(entries.len());
        for entry in &entries {
            self.asked_of(text, entry, out);
        }
    }
}

/// What step 3 says of a part: not in `S`; in `S`, with the edit that blanks its value (or
/// the whole of a keyless entry); or the fresh parse (an item without its `-`).
#[derive(Clone, Debug, PartialEq)]
enum Judged {
    Kept,
    Blank(InputEdit),
    Fresh,
}

/// [`Judged`] of `part`, read from `text`.
fn judged(text: &str, part: &Block, parser: &mut Parser) -> Judged {
    // An entry of a mapping whose first line is no `key:` (a key being typed) is broken where
    // it stands, though alone it may read as a valid scalar: it is blanked whole.
    let value = value_of(text, part);
    let keyless = value.is_none() && part.dash.is_none();
    if !keyless && !broken_alone(&text[part.bytes.clone()], parser) {
        return Judged::Kept;
    }
    match value {
        Some(value) => Judged::Blank(value),
        None if keyless => Judged::Blank(whole_of(part)),
        None => Judged::Fresh,
    }
}

/// Whether `block`, parsed alone, has an error (memoized by its text's hash).
fn broken_alone(block: &str, parser: &mut Parser) -> bool {
    let hash = text_hash(block);
    if let Some(verdict) = VERDICT.with(|v| {
        let v = v.borrow();
        v.now.get(&hash).or_else(|| v.last.get(&hash)).copied()
    }) {
        return verdict;
    }
    #[cfg(test)]
    PARSED_ALONE.with(|n| n.set(n.get() + 1));
    let verdict = parser
        .parse(block, None)
        .is_none_or(|tree| is_broken(&tree, block.as_bytes()));
    VERDICT.with(|v| {
        let mut v = v.borrow_mut();
        if v.now.len() >= VERDICTS {
            v.last = std::mem::take(&mut v.now);
        }
        v.now.insert(hash, verdict);
    });
    verdict
}

/// The part of `block` after the colon of its key (`key:` then a space, a tab, a line break
/// or the end), or after the `-` of an item, as the edit that changes those bytes in place;
/// `None` for a keyed block without such a key.
fn value_of(text: &str, block: &Block) -> Option<InputEdit> {
    let bytes = &text.as_bytes()[block.bytes.clone()];
    let line = &bytes[..memchr::memchr(b'\n', bytes).unwrap_or(bytes.len())];
    let colon = match block.dash {
        Some(dash) => dash,
        None => (0..line.len()).find(|&i| {
            line[i] == b':'
                && line
                    .get(i + 1)
                    .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r'))
        })?,
    };
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

/// One block or entry whose text, parsed alone, has an error: its bytes, and the edit that
/// stands for its value made spaces (after its key's colon, or its item's `-`).
#[derive(Clone, Debug, PartialEq)]
struct Blank {
    block: Range<usize>,
    value: InputEdit,
}

/// Adds to `out` the values to blank of `block` and, for a large one, of its entries (step 3
/// of the module doc); `None` where the definition says the fresh parse.
fn blanks(
    split: &mut Splitter<'_>,
    text: &str,
    block: &Block,
    parser: &mut Parser,
    out: &mut Vec<Blank>,
) -> Option<()> {
    let mut asked = Vec::new();
    split.asked_of(text, block, &mut asked);
    for part in &asked {
        match split.judge(text, part, parser) {
            Judged::Kept => {}
            Judged::Blank(value) => out.push(Blank {
                block: part.bytes.clone(),
                value,
            }),
            Judged::Fresh => return None,
        }
    }
    Some(())
}

/// The whole of a keyless `block` (from its line's start), as the edit that changes those
/// bytes in place.
fn whole_of(block: &Block) -> InputEdit {
    InputEdit {
        start_byte: block.bytes.start,
        old_end_byte: block.bytes.end,
        new_end_byte: block.bytes.end,
        start_position: block.start,
        old_end_position: block.end,
        new_end_position: block.end,
    }
}

/// The verdicts a first break would ask of a text, asked ahead, a slice at a time, on the
/// thread that will settle its edits (the memo is per thread): the server runs it while the
/// editor is idle after a document is opened. Without it, the first break inside a large
/// block of a 50,000-line tool parses each of its 2,800 entries alone while the user waits
/// (130–190 ms); later breaks find those verdicts memoized.
pub struct Warming {
    text: Arc<str>,
    parts: Vec<Range<usize>>,
    next: usize,
    parser: Parser,
}

impl Warming {
    /// The verdicts to ask of `text` (every part of every block, as the second pass of
    /// [`settle`] would); `None` for a text without a large block, which is never settled.
    pub fn of(text: Arc<str>) -> Option<Warming> {
        let mut split = Splitter::default();
        let all = split.blocks(&text);
        if !all.iter().any(|b| b.bytes.len() >= KEPT_BLOCK) {
            return None;
        }
        let mut asked = Vec::new();
        for block in &all {
            split.asked_of(&text, block, &mut asked);
        }
        Some(Warming {
            parts: asked.into_iter().map(|b| b.bytes).collect(),
            text,
            next: 0,
            parser: super::grammar::parser(),
        })
    }

    /// Asks verdicts until `budget` has passed (at least one); `true` once every one is known.
    pub fn step(&mut self, budget: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        while let Some(part) = self.parts.get(self.next) {
            broken_alone(&self.text[part.clone()], &mut self.parser);
            self.next += 1;
            if start.elapsed() >= budget {
                break;
            }
        }
        self.next >= self.parts.len()
    }
}

/// The point of `byte` in `text`, as tree-sitter counts them (rows end at `\n`).
/// The one edit that turns `old` into `new`: their common prefix and suffix kept, at
/// character boundaries; `None` when they are equal.
pub fn difference(old: &str, new: &str) -> Option<InputEdit> {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let n = a.len().min(b.len());
    let mut prefix = 0;
    while prefix + 64 <= n && a[prefix..prefix + 64] == b[prefix..prefix + 64] {
        prefix += 64;
    }
    while prefix < n && a[prefix] == b[prefix] {
        prefix += 1;
    }
    if prefix == n && a.len() == b.len() {
        return None;
    }
    while !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = n - prefix;
    let mut suffix = 0;
    while suffix + 64 <= room
        && a[a.len() - suffix - 64..a.len() - suffix] == b[b.len() - suffix - 64..b.len() - suffix]
    {
        suffix += 64;
    }
    while suffix < room && a[a.len() - suffix - 1] == b[b.len() - suffix - 1] {
        suffix += 1;
    }
    while !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    let (old_end, new_end) = (a.len() - suffix, b.len() - suffix);
    let start_position = ts_point_in(b, prefix);
    let end_of = |text: &[u8], end: usize| ts_point_after(start_position, &text[prefix..end]);
    Some(InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position,
        old_end_position: end_of(a, old_end),
        new_end_position: end_of(b, new_end),
    })
}

/// `tree`, a tree of `tree_text`, edited (a copy) to stand for `text`.
pub fn edited_to(tree: &Tree, tree_text: &str, text: &str) -> Tree {
    let mut tree = tree.clone();
    if !std::ptr::eq(tree_text, text)
        && let Some(edit) = difference(tree_text, text)
    {
        tree.edit(&edit);
    }
    tree
}

/// Where libyaml's verdict on a settled broken text can be asked from (issue 14): libyaml
/// reads a text from its start, about 70 MB/s, so a break halfway down a 50,000-line tool
/// costs it 17 ms to reach. The first blanked block of [`settle`] starts at `from`, a line
/// that begins an entry of block mappings nested as `prefix` reproduces (one `a:` line at each
/// enclosing pair's column); the text before it is that of the error-free `T'`. libyaml reads
/// `T'`, hence the text, through to `from` in the state it is in after reading `prefix`: in a
/// block mapping (or sequence) at the entry's indentation, at a line start, no flow
/// collection, quoted scalar or key open. So where libyaml rejects `prefix + text[from..]`,
/// it rejects the text with the same first error, moved back ([`VerdictScope::verdict`]);
/// where it accepts, so does it the text, whose events the caller then reads whole. The tests
/// compare both verdicts on broken texts (`verdicts_from_the_scope_are_the_whole_texts`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictScope {
    prefix: String,
    from: usize,
}

impl VerdictScope {
    /// libyaml's first error in `text` (the text this scope was made for) read from `from`,
    /// its offsets in `text`; `None` when libyaml accepts that part (the whole text must be
    /// read to know) or the error cannot be placed in `text`.
    pub fn verdict(&self, text: &str) -> Option<super::libyaml::ParseError> {
        let rest = text.get(self.from..)?;
        let err = super::libyaml::verdict_of(&self.prefix, rest).err()?;
        let n = self.prefix.len();
        let placed = |at: usize| (at >= n).then(|| at - n + self.from);
        Some(super::libyaml::ParseError {
            offset: placed(err.offset)?,
            context_offset: err.context_offset.and_then(placed),
            message: err.message,
        })
    }

    /// The scope of the text whose blanked values start at `first` (after its block's key or
    /// `-`), from `valid`'s error-free tree; `None` unless the block is an entry (a pair, or
    /// an item of a block sequence) nested in block mappings only (no enclosing sequence item
    /// or flow collection), in the stream's first document, with no directive or `---`.
    fn of(tree: &Tree, text: &[u8], first: usize, keyless: Option<usize>) -> Option<VerdictScope> {
        let from = memchr::memrchr(b'\n', &text[..first]).map_or(0, |i| i + 1);
        let indent = match keyless {
            Some(indent) => indent,
            None => text[from..].iter().take_while(|&&b| b == b' ').count(),
        };
        let at = from + indent;
        let mut node;
        if keyless.is_some() {
            // A keyless entry, blank in `T'`: libyaml reaches its line inside the block
            // mapping at that column, after a whole entry of it; the prefix ends with one
            // (`_: _`), its ancestors read from the mapping's first pair. The mapping is the
            // one holding the end of the line before (an entry of it, or in one); a keyless
            // first entry has none before it (libyaml may read it as the start of a scalar):
            // no scope.
            let before = from.checked_sub(2)?;
            node = tree
                .root_node()
                .descendant_for_byte_range(before, before + 1)?;
            while !(node.kind() == "block_mapping" && node.start_position().column == indent) {
                node = node.parent()?;
            }
            if node.start_byte() >= from || node.end_byte() < before {
                return None;
            }
            node = node.named_child(0)?;
        } else {
            node = tree.root_node().descendant_for_byte_range(at, at + 1)?;
            while !(matches!(node.kind(), "block_mapping_pair" | "block_sequence_item")
                && node.start_byte() == at)
            {
                node = node.parent()?;
            }
        }
        let mut columns = Vec::new();
        let mut collection = true;
        while let Some(parent) = node.parent() {
            match parent.kind() {
                "block_mapping" => {}
                "block_sequence" if collection => {}
                "block_node" => collection = false,
                "block_mapping_pair" => {
                    columns.push(parent.start_position().column);
                    collection = true;
                }
                "document" => {
                    // Only comments before the content (no directive, no `---`), in the
                    // stream's first document.
                    let mut cursor = parent.walk();
                    let plain = parent
                        .children(&mut cursor)
                        .take_while(|c| c.id() != node.id())
                        .all(|c| c.kind() == "comment");
                    let mut before = parent.prev_named_sibling();
                    let mut first_document = true;
                    while let Some(p) = before {
                        first_document &= p.kind() == "comment";
                        before = p.prev_named_sibling();
                    }
                    if !plain || !first_document {
                        return None;
                    }
                }
                "stream" => {}
                _ => return None,
            }
            node = parent;
        }
        let mut prefix = String::new();
        for column in columns.iter().rev() {
            prefix.extend(std::iter::repeat_n(' ', *column));
            prefix.push_str("a:\n");
        }
        if keyless.is_some() {
            prefix.extend(std::iter::repeat_n(' ', indent));
            prefix.push_str("_: _\n");
        }
        Some(VerdictScope { prefix, from })
    }
}

/// What [`settle`] defines for a broken text besides its tree: the error-free text that tree
/// is of, the blocks blanked in it, and where libyaml can be asked about the text.
#[derive(Clone, Debug)]
pub struct Settled {
    /// `T'`: the text with the values of `blanks` made spaces (same length, same rows and
    /// columns, line breaks kept); the tree is its parse.
    pub valid: Arc<str>,
    /// The blocks and entries whose text, parsed alone, has an error, in text order.
    pub blanks: Vec<Blanked>,
    /// Where libyaml can be asked about the text ([`VerdictScope`]).
    pub scope: Option<VerdictScope>,
    /// What was split and asked to settle it, for the next version's [`Prior`].
    pub splits: Arc<Splits>,
}

/// A block or entry of a settled text whose text, parsed alone, has an error: its value is
/// blanked in the tree, and the block is read from its own parse (`read`, `tree`).
#[derive(Clone, Debug)]
pub struct Blanked {
    /// The block's bytes in the text.
    pub block: Range<usize>,
    /// Its blanked value's bytes (after its key's colon or its item's `-`).
    pub value: Range<usize>,
    /// The block's text followed by a line that begins a sibling (`_:` or `-` at the block's
    /// indentation): alone, tree-sitter's error recovery swallows a broken block's last
    /// lines whole, whereas with a sibling after it, as in the text, the error stays where
    /// it is.
    pub read: Arc<str>,
    /// The parse of `read` (its bytes counted from the block's start).
    pub tree: Tree,
}

impl Blanked {
    fn of(text: &str, blank: &Blank, parser: &mut Parser) -> Option<Blanked> {
        let block = &text[blank.block.clone()];
        let indent = block.bytes().take_while(|&b| b == b' ').count();
        let item = block.as_bytes().get(indent) == Some(&b'-');
        let mut read = String::with_capacity(block.len() + indent + 4);
        read.push_str(block);
        if !block.ends_with('\n') {
            read.push('\n');
        }
        read.extend(std::iter::repeat_n(' ', indent));
        read.push_str(if item { "-\n" } else { "_:\n" });
        let tree = parser.parse(&read, None)?;
        Some(Blanked {
            block: blank.block.clone(),
            value: blank.value.start_byte..blank.value.old_end_byte,
            read: Arc::from(read),
            tree,
        })
    }
}

/// The tree of the broken `text` as the module doc defines it, from `base`: any tree and its
/// text (the document's last error-free tree, or a tree of `text` itself), with what else it
/// defines ([`Settled`]); `None` where the definition says the fresh parse.
pub fn settle(text: &str, base: (&Tree, &str), parser: &mut Parser) -> Option<(Tree, Settled)> {
    settle_after(text, base, parser, None)
}

/// [`settle`], the text's lines split and its parts judged only around the edit
/// that made it of the version before, whose [`Splits`] are in `prior` (the rest is theirs,
/// moved: the same splits and judgements as without them).
pub fn settle_after(
    text: &str,
    base: (&Tree, &str),
    parser: &mut Parser,
    prior: Option<Prior<'_>>,
) -> Option<(Tree, Settled)> {
    let mut split = Splitter::after(text, prior);
    let all = split.blocks(text);
    if !all.iter().any(|b| b.bytes.len() >= KEPT_BLOCK) {
        return None;
    }
    // Step 3, first with the large blocks kept whole: a break in a small block (the usual
    // case) then asks no verdict of the large blocks' entries, which a first break in a
    // 50,000-line tool paid for every input (about 2,800 parses alone, 100–150 ms).
    let mut small = Vec::new();
    for block in all.iter().filter(|b| b.bytes.len() < KEPT_BLOCK) {
        blanks(&mut split, text, block, parser, &mut small)?;
    }
    if !small.is_empty()
        && let Some(settled) = settle_blanked(text, base, parser, &small)
    {
        return Some(with_splits(settled, split));
    }
    // The second pass judges every part again, the small blocks too, in text order: the
    // judgements kept are its own.
    split.made.judged.clear();
    split.next_judged = 0;
    let mut blanked = Vec::new();
    for block in &all {
        blanks(&mut split, text, block, parser, &mut blanked)?;
    }
    if blanked.is_empty() || blanked == small {
        return None;
    }
    settle_blanked(text, base, parser, &blanked).map(|s| with_splits(s, split))
}

/// `settled` with what `split` split and asked to settle it.
fn with_splits(mut settled: (Tree, Settled), split: Splitter<'_>) -> (Tree, Settled) {
    settled.1.splits = Arc::new(split.finish());
    settled
}

/// Steps 4 and 5 of the module doc for the blocks `blanked` (in text order).
fn settle_blanked(
    text: &str,
    base: (&Tree, &str),
    parser: &mut Parser,
    blanked: &[Blank],
) -> Option<(Tree, Settled)> {
    // Copied once, into the `Arc` the settled text keeps.
    let mut valid: Arc<[u8]> = Arc::from(text.as_bytes());
    let bytes = Arc::get_mut(&mut valid).expect("a new Arc has no other owner");
    for blank in blanked {
        for b in &mut bytes[blank.value.start_byte..blank.value.old_end_byte] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
    }
    let mut tree = edited_to(base.0, base.1, text);
    for blank in blanked {
        tree.edit(&blank.value);
    }
    let tree = parser.parse(&valid, Some(&tree))?;
    if is_broken(&tree, &valid) {
        return None;
    }
    let first = &blanked[0];
    let keyless = (first.value.start_byte == first.block.start).then(|| {
        text[first.block.clone()]
            .bytes()
            .take_while(|&b| b == b' ')
            .count()
    });
    let scope = VerdictScope::of(&tree, &valid, first.value.start_byte, keyless);
    // SAFETY: `valid` is `text` (UTF-8) with whole characters made spaces: each blanked
    // value runs from after an ASCII `:` or `-`, or from its block's line start (a keyless
    // block), to the end of its block (a line start or the end of the text), so no
    // multi-byte character is cut.
    let valid = unsafe { crate::base::arc_str_unchecked(valid) };
    let blanks = blanked
        .iter()
        .map(|b| Blanked::of(text, b, parser))
        .collect::<Option<Vec<Blanked>>>()?;
    Some((
        tree,
        Settled {
            valid,
            blanks,
            scope,
            splits: Arc::default(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::grammar;

    /// [`Splitter::blocks`] without a version before.
    fn blocks(text: &str) -> Vec<Block> {
        Splitter::default().blocks(text)
    }

    /// [`Splitter::entries`] without a version before.
    fn entries(text: &str, block: &Block) -> Option<Vec<Block>> {
        Splitter::default().entries(text, block)
    }

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

    /// The tree `settle` gives is the fresh parse of `T'` (the text with the broken blocks'
    /// values made spaces), whose text it gives too; the blanked blocks' and values' bytes.
    fn is_the_tree_of_its_valid_text(
        tree: &Tree,
        settled: &Settled,
        text: &str,
    ) -> Vec<(Range<usize>, Range<usize>)> {
        assert_eq!(settled.valid.len(), text.len());
        let fresh = grammar::parser().parse(&*settled.valid, None).unwrap();
        assert!(!is_broken(&fresh, settled.valid.as_bytes()));
        assert_eq!(tree.root_node().to_sexp(), fresh.root_node().to_sexp());
        for blank in &settled.blanks {
            let (block, value) = (&blank.block, &blank.value);
            assert!(block.start < value.start && value.end == block.end);
            assert!(settled.valid[value.clone()].trim().is_empty());
            assert_ne!(text[value.clone()].trim(), "");
            // Read from the block followed by a sibling's first line.
            assert!(blank.read.starts_with(&text[block.clone()]));
            let fresh = grammar::parser().parse(&*blank.read, None).unwrap();
            assert_eq!(
                blank.tree.root_node().to_sexp(),
                fresh.root_node().to_sexp()
            );
        }
        let kept = |s: &str| {
            let mut s = s.as_bytes().to_vec();
            for blank in &settled.blanks {
                s[blank.value.clone()].fill(b' ');
            }
            s
        };
        assert_eq!(kept(text), kept(&settled.valid));
        settled
            .blanks
            .iter()
            .map(|b| (b.block.clone(), b.value.clone()))
            .collect()
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
        let (settled, what) = settle(&text, (&fresh, &text), &mut parser).expect("settled");
        let blanks = is_the_tree_of_its_valid_text(&settled, &what, &text);
        let at = text.find("baseCommand").unwrap();
        assert_eq!(
            blanks,
            [(at..at + "baseCommand: [tool, run\n".len(), at + 12..at + 24)]
        );
        assert_eq!(&*what.blanks[0].read, "baseCommand: [tool, run\n_:\n");
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
        let again = settle(&text, (&incremental, &text), &mut parser)
            .expect("settled")
            .0;
        assert_eq!(again.root_node().to_sexp(), settled.root_node().to_sexp());
    }

    #[test]
    fn what_it_cannot_settle_is_left_to_the_fresh_parse() {
        let mut parser = grammar::parser();
        // No large block.
        let small = "a: [1\nb: 2\n";
        let tree = parser.parse(small, None).unwrap();
        assert!(settle(small, (&tree, small), &mut parser).is_none());
        // A break in the key of a large block: the blank text is broken too.
        let text = format!("a: 1\n{}", big_inputs(400).replace("inputs:", "inputs: ["));
        let tree = parser.parse(&text, None).unwrap();
        assert!(is_broken(&tree, text.as_bytes()));
        assert!(settle(&text, (&tree, &text), &mut parser).is_none());
        // A large block whose value is a scalar is kept whole: nothing to blank.
        let text = format!("a: [1\nb: |\n{}", "  line: of prose\n".repeat(600));
        let tree = parser.parse(&text, None).unwrap();
        assert!(is_broken(&tree, text.as_bytes()));
        assert!(entries(&text, &blocks(&text)[1]).is_none());
    }

    /// The entries of a large block: its keys at the indentation of the first, or its `-`
    /// items; the comment and blank lines before the first belong to none.
    #[test]
    fn a_large_block_splits_into_its_entries() {
        let text = "inputs:  # the inputs\n\n  # first\n  a:\n    type: string\n  b: [1]\n\
                    # a comment at column 0 inside\n  c: 2\nsteps:\n- x: 1\n  y: 2\n-\n- z\n";
        let all = blocks(text);
        let names = |v: Vec<Block>| -> Vec<String> {
            v.iter()
                .map(|b| text[b.bytes.clone()].to_string())
                .collect()
        };
        assert_eq!(
            names(entries(text, &all[0]).unwrap()),
            [
                "  a:\n    type: string\n",
                "  b: [1]\n# a comment at column 0 inside\n",
                "  c: 2\n"
            ]
        );
        let items = entries(text, &all[1]).unwrap();
        assert_eq!(names(items.clone()), ["- x: 1\n  y: 2\n", "-\n", "- z\n"]);
        assert_eq!(items[0].start, Point::new(9, 0));
        assert_eq!(items[2].end, Point::new(13, 0));
        // An item's value starts after its `-`; an item is not split further.
        let edit = value_of(text, &items[0]).unwrap();
        assert_eq!(&text[edit.start_byte..edit.old_end_byte], " x: 1\n  y: 2\n");
        assert_eq!(edit.start_position, Point::new(9, 1));
        assert!(entries(text, &items[0]).is_none());
        // Entries are split again at their own indentation.
        let a = &entries(text, &all[0]).unwrap()[0];
        assert_eq!(names(entries(text, a).unwrap()), ["    type: string\n"]);
        // A key with a value on its line is not split.
        assert!(entries("a: 1\n  b: 2\n", &blocks("a: 1\n  b: 2\n")[0]).is_none());
    }

    /// A break inside the large block: its entry is parsed again around the others, from the
    /// fresh parse, from an incremental tree and from the tree of the text before the break
    /// (the document's last error-free tree), with the same tree; from the last, only the
    /// broken entry is lexed again.
    #[test]
    fn a_break_inside_a_large_block_is_parsed_again_around_its_other_entries() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let valid = format!("cwlVersion: v1.2\n{}outputs: {{}}\n", big_inputs(400));
        // A space typed at the start of an input's first line below its key.
        let at = valid.find("  in_7:\n").unwrap() + 8;
        let text = format!("{} {}", &valid[..at], &valid[at..]);
        let mut parser = grammar::parser();
        let fresh = parser.parse(&text, None).unwrap();
        assert!(is_broken(&fresh, text.as_bytes()));
        let (settled, what) = settle(&text, (&fresh, &text), &mut parser).expect("settled");
        let blanks = is_the_tree_of_its_valid_text(&settled, &what, &text);
        let entry = text.find("  in_7:").unwrap();
        let next = text.find("  in_8:").unwrap();
        assert_eq!(blanks, [(entry..next, entry + 7..next)]);
        assert!(what.blanks[0].read.ends_with("\n  _:\n"));
        let good = parser.parse(&valid, None).unwrap();
        let lexed = Arc::new(AtomicUsize::new(0));
        let counter = lexed.clone();
        parser.set_logger(Some(Box::new(move |_, message: &str| {
            if message.starts_with("lexed_lookahead") {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        })));
        let from_good = settle(&text, (&good, &valid), &mut parser)
            .expect("settled")
            .0;
        parser.set_logger(None);
        assert!(
            lexed.load(Ordering::Relaxed) < 100,
            "{} tokens lexed",
            lexed.load(Ordering::Relaxed)
        );
        assert_eq!(
            from_good.root_node().to_sexp(),
            settled.root_node().to_sexp()
        );
        let mut incremental = good.clone();
        incremental.edit(&difference(&valid, &text).unwrap());
        let incremental = parser.parse(&text, Some(&incremental)).unwrap();
        let again = settle(&text, (&incremental, &text), &mut parser)
            .expect("settled")
            .0;
        assert_eq!(again.root_node().to_sexp(), settled.root_node().to_sexp());
    }

    #[test]
    fn the_difference_of_two_texts_is_one_edit_with_their_points() {
        assert!(difference("same", "same").is_none());
        let e = difference("a\nbc\nd", "a\nbXYc\nd").unwrap();
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 3, 5));
        assert_eq!(e.start_position, Point::new(1, 1));
        assert_eq!(e.new_end_position, Point::new(1, 3));
        let e = difference("a\nb\nc\nd", "a\nd").unwrap();
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (2, 6, 2));
        assert_eq!(e.old_end_position, Point::new(3, 0));
        assert_eq!(e.new_end_position, Point::new(1, 0));
        // At character boundaries: é and è share their first byte.
        let e = difference("xé", "xè").unwrap();
        assert_eq!((e.start_byte, e.old_end_byte), (1, 3));
        // Long texts (the 64-byte steps) and a change at either end.
        let long = "line of text\n".repeat(100);
        let e = difference(&long, &format!("{long}x")).unwrap();
        assert_eq!((e.start_byte, e.new_end_byte), (long.len(), long.len() + 1));
        assert_eq!(e.start_position, Point::new(100, 0));
        let e = difference(&long, &format!("x{long}")).unwrap();
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (0, 0, 1));
        assert_eq!(e.new_end_position, Point::new(0, 1));
    }

    /// A key being typed (its line has no `:` yet) breaks the mapping it is in, though alone
    /// it reads as a scalar: it is blanked whole and the text settles around it, with
    /// libyaml's verdict asked from its line (the same first error as on the whole text),
    /// instead of a fresh parse of the whole text on every letter (300 ms at 50,000 lines).
    #[test]
    fn a_key_being_typed_is_blanked_whole() {
        use crate::document::libyaml;
        use crate::document::{Snapshot, yaml::YamlDoc};
        let valid = format!(
            "cwlVersion: v1.2\nclass: CommandLineTool\n{}outputs: {{}}\n",
            big_inputs(400)
        );
        let at_input = |i: usize| valid.find(&format!("  in_{i}:")).unwrap();
        let cases = [
            (at_input(200), "  new_inp\n"),
            (at_input(0), "  n\n"),
            (valid.find("outputs:").unwrap(), "  last_one\n"),
            (valid.find("outputs:").unwrap(), "newkey\n"),
            (valid.find("class:").unwrap(), "k\n"),
        ];
        for (at, typed) in cases {
            let mut text = valid.clone();
            text.insert_str(at, typed);
            let snapshot = Snapshot::parse(&text, 0);
            let settled = snapshot
                .settled
                .clone()
                .unwrap_or_else(|| panic!("{typed:?} settles"));
            assert_eq!(settled.blanks.len(), 1, "{typed:?}");
            let blank = &settled.blanks[0];
            assert_eq!(blank.block, at..at + typed.len(), "{typed:?}");
            assert_eq!(
                &settled.valid[at..at + typed.len() - 1],
                " ".repeat(typed.len() - 1)
            );
            // A scope where an entry of the same mapping comes before the typed line.
            let first = at == at_input(0);
            assert_eq!(settled.scope.is_none(), first, "{typed:?}");
            if let Some(scope) = settled.scope.clone() {
                let got = scope.verdict(&text).expect("rejected from the scope");
                let want = libyaml::verdict(&text).expect_err("the text is broken");
                assert_eq!(
                    (&got.message, got.offset),
                    (&want.message, want.offset),
                    "{typed:?}"
                );
            }
            let doc = YamlDoc::build(&snapshot);
            assert_eq!(doc.errors.len(), 1, "{typed:?}: {:?}", doc.errors);
            // The other inputs read as in the valid text.
            let inputs = doc
                .root
                .as_ref()
                .unwrap()
                .get("inputs")
                .map(|n| doc.deref(n));
            assert!(inputs.is_some(), "{typed:?}");
        }
    }

    /// A large tool of varied entries (block and flow collections, block scalars, quoted
    /// scalars, comments), with an entry large enough to be split one level further.
    /// A seeded walk's numbers: each call, one below its argument.
    fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        }
    }

    fn varied() -> String {
        let mut t = String::from("#!/usr/bin/env cwl-runner\n# a comment\ncwlVersion: v1.2\n");
        t.push_str("class: CommandLineTool\nbaseCommand: [echo, \"x\"]\ninputs:\n");
        for i in 0..60 {
            t.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: |\n      text {i}\n      more: text\n    \
                 default: \"q{i}\"\n    inputBinding: {{position: {i}, prefix: '-a'}}\n  \
                 list_{i}:\n    type:\n    - \"null\"\n    - File\n    # between\n    \
                 label: plain scalar {i}\n"
            ));
        }
        t.push_str("outputs:\n  big:\n    type: File\n    nested:\n");
        for i in 0..400 {
            t.push_str(&format!("      k_{i}: value {i}\n"));
        }
        t.push_str("  small: {type: File}\nhints:\n  mcp:Tool:\n    name: x\n");
        t
    }

    /// A settle after the version before's ([`settle_after`], its splits and judgements reused
    /// around each edit) is the settle of the text alone: the same `T'`, blanked blocks, scope,
    /// splits and judgements, along a seeded walk of edits (typing, breaks, line breaks, deletions)
    /// through a large tool, some of them reused on both sides of the edit.
    #[test]
    fn a_settle_after_an_edit_is_the_settle_of_the_text() {
        let base = varied();
        let pieces = [
            " ",
            "  ",
            ":",
            "[",
            "]",
            "\"",
            "- ",
            "#",
            "\n",
            "x:\n",
            "  newk\n",
            "newk",
            "q",
            "w",
            "    doc: more\n",
        ];
        let mut next = seeded(0xd1ff);
        let view = |s: &Settled| {
            let blanks: Vec<_> = s
                .blanks
                .iter()
                .map(|b| (b.block.clone(), b.value.clone(), b.read.clone()))
                .collect();
            (s.valid.clone(), blanks, s.scope.clone(), s.splits.clone())
        };
        let mut parser = grammar::parser();
        let (mut text, mut last): (String, Option<Settled>) = (base.clone(), None);
        let (mut settled, mut reused) = (0, 0);
        for step in 0..400 {
            // A text the definition leaves to the fresh parse is left for the base again.
            if step % 40 == 0 || last.is_none() {
                text = base.clone();
            }
            let old = text.clone();
            let mut at = next(text.len());
            if next(2) == 0 {
                at = text[..at].rfind('\n').map_or(0, |i| i + 1);
            }
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            // Typing goes on where the last edit was, half the time.
            for _ in 0..1 + next(3) {
                if next(5) == 0 && at < text.len() {
                    text.remove(at);
                } else {
                    let piece = pieces[next(pieces.len())];
                    text.insert_str(at, piece);
                    at += piece.len();
                }
            }
            let Some(edit) = difference(&old, &text) else {
                continue;
            };
            let tree = parser.parse(&text, None).unwrap();
            let alone = settle(&text, (&tree, &text), &mut parser);
            let prior = last.as_ref().map(|s| Prior {
                splits: &s.splits,
                edit,
            });
            let before = REUSED.with(|n| n.get());
            let after = settle_after(&text, (&tree, &text), &mut parser, prior);
            reused += usize::from(REUSED.with(|n| n.get()) > before);
            assert_eq!(
                alone
                    .as_ref()
                    .map(|(t, s)| (t.root_node().to_sexp(), view(s))),
                after
                    .as_ref()
                    .map(|(t, s)| (t.root_node().to_sexp(), view(s))),
                "step {step}"
            );
            settled += usize::from(after.is_some());
            last = after.map(|(_, s)| s);
        }
        assert!(
            settled > 150 && reused > 100,
            "{settled} settled, {reused} reused"
        );
    }

    /// Where `VerdictScope` answers, libyaml's verdict on the whole text is the same first
    /// error, and the value tree's syntax errors are those of the whole read, for breaks of
    /// every kind at random places in a large tool (a seeded walk).
    #[test]
    fn verdicts_from_the_scope_are_the_whole_texts() {
        use crate::document::Snapshot;
        use crate::document::libyaml;
        use crate::document::yaml::YamlDoc;
        let base = varied();
        let breaks = [
            " ",
            "  ",
            ":",
            "[",
            "{",
            "]",
            "\"",
            "'",
            "- ",
            "#",
            "&a ",
            "*a ",
            "|",
            ">",
            "? ",
            "%",
            "---\n",
            "\t",
            "a: b: c",
            "\n",
            "x:\n",
            "  - y\n",
            "newk\n",
            "  newk\n",
            "    newk\n",
            "newk",
        ];
        let mut next = seeded(0x5eed);
        let (mut scoped, mut fell_back) = (0, 0);
        for _ in 0..300 {
            let mut text = base.clone();
            // A break at a line start (the usual place of an indentation slip) or anywhere.
            let mut at = next(text.len());
            if next(2) == 0 {
                at = text[..at].rfind('\n').map_or(0, |i| i + 1);
            }
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if next(4) == 0 {
                text.remove(at);
            } else {
                text.insert_str(at, breaks[next(breaks.len())]);
            }
            let snapshot = Snapshot::parse(&text, 0);
            let Some(settled) = snapshot.settled.clone() else {
                continue;
            };
            let Some(scope) = settled.scope.clone() else {
                continue;
            };
            let whole = libyaml::verdict(&text);
            match (scope.verdict(&text), &whole) {
                (Some(got), Err(want)) => {
                    assert_eq!(
                        (&got.message, got.offset),
                        (&want.message, want.offset),
                        "{text}"
                    );
                    scoped += 1;
                }
                (Some(got), Ok(())) => panic!("the scope rejects ({got:?}) what libyaml accepts"),
                (None, _) => fell_back += 1,
            }
            let unscoped = Snapshot {
                settled: Some(std::sync::Arc::new(Settled {
                    scope: None,
                    ..(*settled).clone()
                })),
                ..snapshot.clone()
            };
            assert_eq!(
                YamlDoc::build(&snapshot).errors,
                YamlDoc::build(&unscoped).errors,
                "{text}"
            );
        }
        assert!(
            scoped >= 50,
            "{scoped} scoped verdicts, {fell_back} read whole"
        );
    }

    /// A break in a small block of a document with a large one settles with the large block
    /// kept whole: none of its entries is parsed alone (a first break in a 50,000-line tool
    /// parsed every input alone); a break inside the large block still splits it.
    #[test]
    fn a_break_in_a_small_block_asks_nothing_of_the_large_blocks_entries() {
        let valid = format!(
            "cwlVersion: v1.2\nbaseCommand: [tool, run]\n{}",
            big_inputs(400)
        );
        let text = valid.replace("[tool, run]", "[tool, run");
        let mut parser = grammar::parser();
        let fresh = parser.parse(&text, None).unwrap();
        let ((settled, what), parsed) =
            parsed_alone(|| settle(&text, (&fresh, &text), &mut parser).expect("settled"));
        assert!(parsed <= 2, "{parsed} blocks parsed alone");
        is_the_tree_of_its_valid_text(&settled, &what, &text);
        assert_eq!(what.scope.map(|s| s.from), text.find("baseCommand"));
        // Broken inside `inputs`: its entries are asked.
        let text = valid.replace("  in_200:\n    type", "  in_200:\n     type");
        let fresh = parser.parse(&text, None).unwrap();
        let (_, parsed) = parsed_alone(|| settle(&text, (&fresh, &text), &mut parser));
        assert!(parsed >= 400, "{parsed} blocks parsed alone");
    }

    /// What `f` returns, and how many blocks it parsed alone (verdicts not memoized).
    fn parsed_alone<R>(f: impl FnOnce() -> R) -> (R, usize) {
        let before = PARSED_ALONE.with(|n| n.get());
        let out = f();
        (out, PARSED_ALONE.with(|n| n.get()) - before)
    }

    /// After [`Warming`] of a text, a first break inside its large block parses only the
    /// broken entry alone, and settles as without it; a text without a large block has none.
    #[test]
    fn warming_asks_ahead_the_verdicts_of_a_first_break() {
        // Entries no other test parses alone (the memo is per thread, and a thread may run
        // several tests).
        let inputs = big_inputs(500).replace("doc: input", "doc: warmed input");
        let valid = format!("cwlVersion: v1.2\n{inputs}outputs: {{}}\n");
        let mut warming = Warming::of(Arc::from(valid.as_str())).expect("a large block");
        let (steps, warmed) = parsed_alone(|| {
            let mut steps = 1;
            while !warming.step(std::time::Duration::from_micros(200)) {
                steps += 1;
            }
            steps
        });
        // Every input, and the two small top-level blocks (memoized from earlier tests or not).
        assert!((500..=502).contains(&warmed), "{warmed} parsed alone");
        assert!(steps > 1, "a 200 µs budget took one step");
        let text = valid.replace("  in_321:\n    type", "  in_321:\n     type");
        let mut parser = grammar::parser();
        let good = parser.parse(&valid, None).unwrap();
        let ((settled, what), parsed) =
            parsed_alone(|| settle(&text, (&good, &valid), &mut parser).expect("settled"));
        assert_eq!(parsed, 1, "{parsed} parsed alone after warming");
        is_the_tree_of_its_valid_text(&settled, &what, &text);
        let blanked: Vec<&str> = what.blanks.iter().map(|b| &text[b.block.clone()]).collect();
        assert_eq!(
            blanked,
            ["  in_321:\n     type: string\n    doc: warmed input 321\n"]
        );
        assert!(Warming::of(Arc::from("cwlVersion: v1.2\ninputs: {}\n")).is_none());
    }
}
