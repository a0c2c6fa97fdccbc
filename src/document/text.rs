//! An open document: its text (rope and contiguous copy), its tree-sitter tree, and edits.
use std::sync::Arc;

use ropey::Rope;
use tree_sitter::{InputEdit, Tree};

use super::grammar;
use super::interior::keeps_tree;
use super::position::{Encoding, LineIndex, OutOfRange, Position, has_lone_cr, ts_point_after};
use super::settle::{Prior, Settled, Splits, difference, is_broken, settle, settle_after};

/// One change of `textDocument/didChange`: a range (or the whole text) and its replacement.
#[derive(Clone, Debug)]
pub struct Change {
    pub range: Option<(Position, Position)>,
    pub text: String,
}

/// An immutable view of a document at one version: what analysis runs on.
#[derive(Clone)]
pub struct Snapshot {
    pub text: Arc<str>,
    pub tree: Tree,
    pub lines: LineIndex,
    pub version: i32,
    /// For a broken text whose tree is settled ([`settle`]): the error-free text `tree` is
    /// of, the blocks blanked in it, and where libyaml can be asked about the text.
    pub settled: Option<Arc<Settled>>,
}

impl Snapshot {
    /// Parses `text` from scratch (kept for a document opened with the same text while
    /// [`keeping_parses`] runs).
    pub fn parse(text: &str, version: i32) -> Snapshot {
        Snapshot::parse_shared(Arc::from(text), version)
    }

    /// [`Snapshot::parse`] of a text already shared (no copy is made).
    pub fn parse_shared(text: Arc<str>, version: i32) -> Snapshot {
        let keeping = KEEPING.with(|k| k.get());
        // Dropped after the parse is kept (or on a panic): a document opened meanwhile with
        // this text waits for it ([`Document::new`]).
        let _parsing = keeping.then(|| Parsing::start(&text));
        let (tree, settled) = parse_defined(&text);
        let lines = LineIndex::from_text(&text);
        if keeping {
            keep(Kept {
                text: text.clone(),
                parse: (tree.clone(), settled.clone()),
                lines: lines.clone(),
                at: std::time::Instant::now(),
            });
        }
        Snapshot {
            lines,
            text,
            tree,
            version,
            settled,
        }
    }

    /// The tree that holds byte `at` of the text and where that tree's bytes start: the
    /// tree of a settled text's broken block parsed alone when `at` is in its blanked value,
    /// else the document's tree (at 0).
    pub fn tree_at(&self, at: usize) -> (tree_sitter::Node<'_>, usize) {
        if let Some(settled) = &self.settled {
            for blank in &settled.blanks {
                if blank.value.start <= at && at <= blank.value.end {
                    return (blank.tree.root_node(), blank.block.start);
                }
            }
        }
        (self.tree.root_node(), 0)
    }

    /// Whether the text has a YAML error as tree-sitter reads it: its tree is settled (a
    /// broken text, see [`settle`]) or has an error.
    pub fn broken(&self) -> bool {
        self.settled.is_some() || is_broken(&self.tree, self.text.as_bytes())
    }
}

/// A tree and, for a settled broken text, what else [`settle`] defines.
type Defined = (Tree, Option<Arc<Settled>>);

/// The tree of `text` parsed from scratch, as every path must have it (SPEC §9).
#[cfg(test)]
fn parse_full(text: &str) -> Tree {
    parse_defined(text).0
}

/// The tree of `text` parsed from scratch, as every path must have it (SPEC §9), and its
/// scope.
fn parse_defined(text: &str) -> Defined {
    let mut parser = grammar::parser();
    let tree = parser
        .parse(text, None)
        .expect("parsing without a timeout or cancellation flag returns a tree");
    defined_tree(text, tree, &mut parser)
}

/// The tree `text` defines (SPEC §9), given `tree`, its fresh parse: `tree` itself when it
/// covers the text without an error, else the tree [`settle`] defines where it can, else
/// `tree`. [`Document`] computes the same from an incremental parse.
fn defined_tree(text: &str, tree: Tree, parser: &mut tree_sitter::Parser) -> Defined {
    if !is_broken(&tree, text.as_bytes()) {
        return (tree, None);
    }
    match settle(text, (&tree, text), parser) {
        Some((tree, settled)) => (tree, Some(Arc::new(settled))),
        None => (tree, None),
    }
}

#[cfg(test)]
thread_local! {
    /// How many documents this thread opened with a rope of their own (not a kept parse's).
    pub(crate) static ROPES_BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many changes of this thread kept their tree without a parse ([`keeps_tree`]).
    pub(crate) static KEPT_TREES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Texts at least this large have their parses kept only while the index's build runs (a
/// 50,000-line tool's tree is about 36 MB)...
pub const KEEP_MIN_BYTES: usize = 256 * 1024;
/// ...and at most this many of them.
const KEEP_LARGE: usize = 2;
/// The parses of smaller texts outlive the build, for [`KEEP_SMALL_FOR`] (an editor opens the
/// files of its restored tabs just after start-up, often after the index read them): the most
/// recent first, up to this much text in all (their trees take about 15 times as much).
const KEEP_SMALL_BYTES: usize = 512 * 1024;
pub const KEEP_SMALL_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// A parse [`keeping_parses`] kept: the text, its parse, its rope (a document opened with
/// the text shares it with the model the index built: one rope, 2.4 MB at 50,000 lines), and
/// when it was kept.
struct Kept {
    text: Arc<str>,
    parse: Defined,
    lines: LineIndex,
    at: std::time::Instant,
}
/// The parses [`keeping_parses`] kept, most recent first.
static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());

thread_local! {
    static KEEPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` keeping the full parses it makes (until they are taken by a document opened with
/// the same text, or released: [`release_parses`], [`release_parses_kept_before`]): the editor
/// opens files at start-up while, or just after, the workspace index reads the same files from
/// disk, and a document opened with a text just parsed takes that tree (a parse is
/// deterministic) instead of parsing it a second time (issue 14).
pub fn keeping_parses<R>(f: impl FnOnce() -> R) -> R {
    let was = KEEPING.with(|k| k.replace(true));
    let out = f();
    KEEPING.with(|k| k.set(was));
    out
}

/// Keeps a parse, dropping the oldest beyond [`KEEP_LARGE`] large texts and
/// [`KEEP_SMALL_BYTES`] of small ones.
fn keep(parse: Kept) {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.retain(|k| *k.text != *parse.text);
    kept.insert(0, parse);
    let (mut large, mut small) = (0, 0);
    kept.retain(|Kept { text: t, .. }| {
        if t.len() >= KEEP_MIN_BYTES {
            large += 1;
            large <= KEEP_LARGE
        } else {
            small += t.len();
            small <= KEEP_SMALL_BYTES
        }
    });
}

/// Drops the large texts' parses [`keeping_parses`] kept (the index's build is over); the
/// small ones stay until [`release_parses_kept_before`].
pub fn release_parses() {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.retain(|k| k.text.len() < KEEP_MIN_BYTES);
}

/// Drops every parse kept before `instant` (a build that ended then, [`KEEP_SMALL_FOR`] ago).
pub fn release_parses_kept_before(instant: std::time::Instant) {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.retain(|k| k.at >= instant);
}

/// The texts that [`keeping_parses`] runs are parsing now.
static PARSING: std::sync::Mutex<Vec<Arc<str>>> = std::sync::Mutex::new(Vec::new());
/// Notified as each of those parses ends (kept, or abandoned).
static PARSED: std::sync::Condvar = std::sync::Condvar::new();
/// How long a document opened with a text being parsed waits for that parse, at most (a
/// 50,000-line tool's parse takes about 0.1 s; a stalled index must not hold the open).
const WAIT_FOR_PARSE: std::time::Duration = std::time::Duration::from_secs(2);

/// One text [`PARSING`] while it is parsed.
struct Parsing(Arc<str>);

impl Parsing {
    fn start(text: &Arc<str>) -> Parsing {
        let mut parsing = PARSING.lock().unwrap_or_else(|p| p.into_inner());
        parsing.push(text.clone());
        Parsing(text.clone())
    }
}

impl Drop for Parsing {
    fn drop(&mut self) {
        let mut parsing = PARSING.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = parsing.iter().position(|t| Arc::ptr_eq(t, &self.0)) {
            parsing.swap_remove(i);
        }
        PARSED.notify_all();
    }
}

/// Whether `text` is being parsed by a [`keeping_parses`] run (compared as `take_kept` does,
/// the lengths first).
fn being_parsed(parsing: &[Arc<str>], text: &str) -> bool {
    parsing.iter().any(|t| **t == *text)
}

/// Whether `text` is being parsed now.
#[cfg(test)]
fn parsing_now(text: &str) -> bool {
    being_parsed(&PARSING.lock().unwrap_or_else(|p| p.into_inner()), text)
}

/// The parse of exactly `text` that a [`keeping_parses`] run is making now, waited for (at
/// most [`WAIT_FOR_PARSE`]) and taken: an editor that opens a large file while the index
/// parses it got a second tree of it otherwise (36 MB at 50,000 lines, and a second parse).
/// `None` at once when that text is not being parsed.
fn wait_for_parse(text: &str) -> Option<Kept> {
    let mut parsing = PARSING.lock().unwrap_or_else(|p| p.into_inner());
    if !being_parsed(&parsing, text) {
        return None;
    }
    let deadline = std::time::Instant::now() + WAIT_FOR_PARSE;
    while being_parsed(&parsing, text) {
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        parsing = PARSED
            .wait_timeout(parsing, left)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
    drop(parsing);
    take_kept(text)
}

/// The kept parse of exactly `text`, taken out (a document owns and edits its tree), with
/// the parsed text's own `Arc` and rope (a model the index built of it holds those).
fn take_kept(text: &str) -> Option<Kept> {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    let i = kept.iter().position(|k| *k.text == *text)?;
    Some(kept.remove(i))
}

/// The mutable state of one open document. Edits are applied in order, then one incremental
/// reparse brings the tree up to date.
///
/// The text is held once, as the `Arc<str>` every [`Snapshot`] of this version shares: a
/// snapshot per request costs no copy, and no second copy of the text stays in memory. A
/// change builds the next version's text in one pass (the edit spliced in), then moves it into
/// a new `Arc`.
pub struct Document {
    text: Arc<str>,
    rope: Rope,
    tree: Tree,
    version: i32,
    lone_cr: bool,
    /// While the text is broken (`tree` has an error, see [`is_broken`], or is settled): the
    /// last error-free tree of this document and its text, from which the next version is
    /// parsed (a settled tree is of another text, `T'`; it is that base when the document was
    /// opened broken). A tree with errors is a poor base: where tree-sitter's error recovery
    /// flattened the rest of the document, reusing it lexes almost all of the text again
    /// (undoing a space typed at the start of an input's line: 113 ms at 50,000 lines). The
    /// trees share most of their nodes.
    good: Option<Good>,
    /// After a settled version: where its text differs from `good`'s ([`Differs`], with
    /// `good`'s bytes there), so that the next keystroke's edit of `good`'s tree is known
    /// without comparing the whole texts (0.25 ms at 50,000 lines) and without `good`'s text
    /// (2.3 MB at 50,000 lines, kept only for this before). Not `good`'s tree edited: holding
    /// that second tree between keystrokes kept nodes alive whose memory the next parse would
    /// have reused (1 MB of fresh pages per keystroke when a `]` is deleted and restored at
    /// 50,000 lines).
    good_at: Option<Differs>,
    /// What [`settle`] defines besides a settled `tree`.
    settled: Option<Arc<Settled>>,
}

impl Document {
    pub fn new(text: String, version: i32) -> Document {
        // A parse the index made is taken with its text and rope: they are equal to this
        // document's, and the model the index builds of them (`model::shared`) then holds this
        // document's very text and rope.
        let (text, (tree, settled), rope) = match take_kept(&text).or_else(|| wait_for_parse(&text))
        {
            Some(kept) => (kept.text, kept.parse, kept.lines.rope().clone()),
            None => {
                let parse = parse_defined(&text);
                #[cfg(test)]
                ROPES_BUILT.with(|n| n.set(n.get() + 1));
                let rope = Rope::from_str(&text);
                (Arc::from(text), parse, rope)
            }
        };
        let (good, good_at) = match &settled {
            Some(s) => {
                let (good, at) = Good::of_settled(&tree, s, &text);
                (Some(good), at)
            }
            None => (None, None),
        };
        Document {
            settled,
            rope,
            lone_cr: has_lone_cr(&text),
            text,
            tree,
            version,
            good,
            good_at,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Applies the changes of one `didChange` notification and reparses incrementally.
    /// On an out-of-range position nothing is changed.
    pub fn apply_changes(
        &mut self,
        changes: &[Change],
        version: i32,
        encoding: Encoding,
    ) -> Result<(), OutOfRange> {
        self.apply_changes_then(changes, version, encoding, || {})
    }

    /// [`Document::apply_changes`], calling `before_fresh_parse` when the text must be parsed
    /// from scratch (the incremental tree has errors, see [`Document::reparse`]): the caller
    /// can release what holds the previous tree first, so that the fresh parse reuses its
    /// memory instead of adding a second tree to the peak.
    pub fn apply_changes_then(
        &mut self,
        changes: &[Change],
        version: i32,
        encoding: Encoding,
        before_fresh_parse: impl FnOnce(),
    ) -> Result<(), OutOfRange> {
        // Validate every change against the text it applies to before mutating anything.
        // Only the rope is needed for that (its clone is cheap and copy-on-write); copying the
        // contiguous text here cost a full copy of the document per notification.
        let mut staged = Vec::with_capacity(changes.len());
        {
            let mut rope = self.rope.clone();
            for change in changes {
                let Some((start, end)) = change.range else {
                    rope = Rope::from_str(&change.text);
                    staged.push(None);
                    continue;
                };
                let index = LineIndex::new(rope.clone());
                let a = index.offset(start, encoding)?;
                let b = index.offset(end, encoding)?;
                let (a, b) = (a.min(b), a.max(b));
                staged.push(Some((a, b)));
                let (ca, cb) = (rope.byte_to_char(a), rope.byte_to_char(b));
                rope.remove(ca..cb);
                rope.insert(ca, &change.text);
            }
        }
        // This version's tree is error-free (not the last error-free one kept beside a
        // broken tree).
        let whole = self.good.is_none()
            && self.settled.is_none()
            && !is_broken(&self.tree, self.text.as_bytes());
        // Whether every change so far is inside one token and keeps the tree
        // ([`keeps_tree`]): then the edited tree is the new text's, without a parse.
        let mut kept = whole;
        // The base of the next parse.
        if whole {
            self.good = Some(Good {
                tree: self.tree.clone(),
                text: Some(self.text.clone()),
                len: self.text.len(),
            });
            self.good_at = None;
        }
        // The text being edited; `None` while it is still `self.text`.
        let mut edited: Option<Arc<str>> = None;
        let base = self.text.clone();
        // The version this one is made of, and the edits that made it (`Made::edit`, the one
        // edit or the changes' `difference`, is set below when the text is parsed).
        let mut made = Some(Made {
            base: text_id(&base),
            edit: None,
            each: Vec::with_capacity(changes.len()),
            splits: self.settled.as_ref().map(|s| s.splits.clone()),
        });
        for (change, staged) in changes.iter().zip(staged) {
            match staged {
                None => {
                    made = None;
                    kept = false;
                    let text: Arc<str> = Arc::from(change.text.as_str());
                    self.rope = Rope::from_str(&text);
                    self.good = None;
                    self.good_at = None;
                    (self.tree, self.settled) = parse_defined(&text);
                    if let Some(s) = &self.settled {
                        let (good, at) = Good::of_settled(&self.tree, s, &text);
                        (self.good, self.good_at) = (Some(good), at);
                    }
                    self.lone_cr = has_lone_cr(&text);
                    edited = Some(text);
                }
                Some((a, b)) => {
                    let current = edited.as_deref().unwrap_or(&base);
                    kept = kept && keeps_tree(&self.tree, current, a, b, &change.text);
                    let (next, edit) = self.edit_bytes(current, a, b, &change.text);
                    if let Some(made) = &mut made {
                        made.each.push((edit, current.as_bytes()[a..b].into()));
                    }
                    edited = Some(next);
                }
            }
        }
        if let Some(text) = edited {
            self.text = text;
        }
        self.version = version;
        if kept {
            self.good = None;
            self.good_at = None;
            #[cfg(test)]
            KEPT_TREES.with(|k| k.set(k.get() + 1));
        } else {
            if let Some(made) = &mut made {
                made.edit = match made.each[..] {
                    [(edit, _)] => Some(edit),
                    _ => difference(&base, &self.text),
                };
            }
            // Neither the text before nor its settled `T'` is kept through the parse: their
            // memory is free for this version's (2.3 MB each at 50,000 lines, in fresh pages
            // when they are still held).
            drop(base);
            self.reparse_then(before_fresh_parse, made);
        }
        Ok(())
    }

    /// The text with bytes `start..end` of `text` replaced by `new_text` (built in one pass),
    /// and that edit; records it in the rope and the tree.
    fn edit_bytes(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        new_text: &str,
    ) -> (Arc<str>, InputEdit) {
        let index = LineIndex::new(self.rope.clone());
        let start_position = index.ts_point(start, self.lone_cr, text);
        let old_end_position = index.ts_point(end, self.lone_cr, text);
        let text = concat(&[&text[..start], new_text, &text[end..]]);
        let (ca, cb) = (self.rope.byte_to_char(start), self.rope.byte_to_char(end));
        self.rope.remove(ca..cb);
        self.rope.insert(ca, new_text);
        // A lone `\r` may appear or disappear at the edit's edges: recheck cheaply.
        self.lone_cr = self.lone_cr || new_text.contains('\r') || {
            let lo = start.saturating_sub(1);
            let hi = (start + new_text.len() + 1).min(text.len());
            text.get(lo..hi).is_some_and(has_lone_cr)
        };
        let new_end = start + new_text.len();
        let index = LineIndex::new(self.rope.clone());
        let new_end_position = index.ts_point(new_end, self.lone_cr, &text);
        let edit = InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position,
        };
        self.tree.edit(&edit);
        (text, edit)
    }

    /// Brings the tree up to date with the text, reusing the edited old tree.
    pub fn reparse(&mut self) {
        self.reparse_then(|| {}, None);
    }

    /// Where the text differs from `good`'s (`Some(None)`: nowhere): from the edits that
    /// made the text of the version before, one by one (several changes far apart in one
    /// notification stay apart), when that version's text is `good`'s or with
    /// [`Document::good_at`], what made that version's text of it; else, while `good`'s text
    /// is held, the difference of the two texts (a scan of the whole text). `None`: not
    /// known (`good`'s text is no longer held, and the edits do not say it).
    /// `good_at` is [`Document::good_at`], taken (the next one replaces it): its spans, with
    /// their bytes, are not copied on every keystroke.
    fn differs(
        &self,
        good: &Good,
        good_at: Option<Differs>,
        made: Option<&Made>,
    ) -> Option<Option<Differs>> {
        let text = &self.text;
        let known = made.and_then(|made| {
            // The version before is `good`'s text (no span), or `good_at` says where they
            // differ.
            let before = match &good.text {
                Some(t) if made.base == text_id(t) => Differs::default(),
                _ => good_at.filter(|at| at.text == made.base)?,
            };
            let d = (made.each.iter())
                .try_fold(before, |d, (edit, removed)| d.then(edit, removed))?
                .merged(text.as_bytes())?;
            d.fits(text.len(), good.len).then_some(d)
        });
        match known {
            Some(mut d) => {
                let t = text.as_bytes();
                debug_assert!(
                    good.text.as_ref().is_none_or(|g| {
                        let g = g.as_bytes();
                        let (mut i, mut j) = (0, 0);
                        d.spans.iter().all(|s| {
                            let same = t[i..s.start] == g[j..s.old_start]
                                && *s.old == g[s.old_start..s.old_end];
                            (i, j) = (s.new_end, s.old_end);
                            same
                        }) && t[i..] == g[j..]
                    }),
                    "the texts differ only where `Differs` says, and it holds the good bytes"
                );
                // A span whose bytes are the same in both is no longer a difference (a break
                // undone); none left: the texts are the same.
                d.spans.retain(|s| t[s.start..s.new_end] != *s.old);
                Some((!d.spans.is_empty()).then_some(d))
            }
            // `None` inside when they are the same.
            None => {
                let g = good.text.as_ref()?;
                Some(difference(g, text).map(|edit| Differs::of(&edit, g.as_bytes())))
            }
        }
    }

    /// `good` edited to stand for the text where it differs from `good`'s text (`differs`),
    /// one edit per span, in text order: once the spans before one are edited, the tree's
    /// positions up to it are the text's.
    fn good_edited(&self, good: &Tree, differs: Option<&Differs>) -> Tree {
        let mut tree = good.clone();
        let index = LineIndex::new(self.rope.clone());
        for s in differs.map_or(&[][..], |d| &d.spans) {
            let start_position = index.ts_point(s.start, self.lone_cr, &self.text);
            let new_end_position = index.ts_point(s.new_end, self.lone_cr, &self.text);
            let old_end_position = ts_point_after(start_position, &s.old);
            tree.edit(&InputEdit {
                start_byte: s.start,
                old_end_byte: s.start + (s.old_end - s.old_start),
                new_end_byte: s.new_end,
                start_position,
                old_end_position,
                new_end_position,
            });
        }
        tree
    }

    /// The incremental parse of the text, from the last error-free tree while the text is
    /// broken, else from the edited tree; then, as [`defined_tree`] for a fresh parse, the
    /// tree the text defines (SPEC §9): that parse when it covers the text without an error,
    /// else the tree [`settle`] defines, else a fresh parse. tree-sitter's error recovery can
    /// take another path when it reuses an old tree than on a fresh parse of the same text
    /// (found by tests/differential_edits.rs, reproduced with plain tree-sitter in
    /// tests/robust_incremental.rs), and incrementally it can return a tree without errors
    /// that stops before the end of the text (seed 777, step 22031 of the same test): so an
    /// incremental tree is kept only when whole and error-free. `before_fresh_parse` runs
    /// once the old trees are dropped, before a fresh parse, so that the caller can free what
    /// holds older trees first (with them alive the parse peaked at one tree more, about
    /// 40 MB at 50,000 lines).
    /// `made`: the version this one was made of, when it was edited (a settled one's splits
    /// are reused by [`settle_after`]).
    fn reparse_then(&mut self, before_fresh_parse: impl FnOnce(), made: Option<Made>) {
        let mut parser = grammar::parser();
        let text = self.text.clone();
        let mut good = self.good.take();
        // Where the text differs from the last error-free one.
        let good_at = self.good_at.take();
        let known = good
            .as_ref()
            .map(|g| self.differs(g, good_at, made.as_ref()));
        let differs = match known {
            None => None,
            Some(Some(differs)) => differs,
            Some(None) => {
                // Not known without `good`'s text (an edit `Differs` cannot follow): the text
                // is read as a document opened with it reads it.
                drop(good);
                self.tree = grammar::parser()
                    .parse("", None)
                    .expect("parsing without a timeout returns a tree");
                before_fresh_parse();
                (self.tree, self.settled) = parse_defined(&text);
                if let Some(s) = &self.settled {
                    let (good, at) = Good::of_settled(&self.tree, s, &text);
                    (self.good, self.good_at) = (Some(good), at);
                }
                return;
            }
        };
        // The last error-free tree edited to the text, kept as settle's base.
        let edited = good
            .as_ref()
            .map(|g| self.good_edited(&g.tree, differs.as_ref()));
        let tree = parser
            .parse(text.as_bytes(), Some(edited.as_ref().unwrap_or(&self.tree)))
            .expect("parsing without a timeout returns a tree");
        self.settled = None;
        if !is_broken(&tree, text.as_bytes()) {
            self.tree = tree;
            return;
        }
        let base = (edited.as_ref().unwrap_or(&tree), &*text);
        let prior = made.as_ref().and_then(|made| {
            Some(Prior {
                splits: made.splits.as_ref()?,
                edit: made.edit?,
            })
        });
        if let Some((tree, settled)) = settle_after(&text, base, &mut parser, prior) {
            // Still broken: the next version is parsed from the same error-free tree (with
            // where this text differs from its, `good_at`, which holds its bytes there: its
            // text is let go), or from the settled one, the tree of `T'`, when there was none.
            match good.take() {
                Some(g) => {
                    self.good = Some(Good { text: None, ..g });
                    self.good_at = Some(Differs {
                        text: text_id(&text),
                        ..differs.unwrap_or_default()
                    });
                }
                None => {
                    let (g, at) = Good::of_settled(&tree, &settled, &text);
                    (self.good, self.good_at) = (Some(g), at);
                }
            }
            self.tree = tree;
            self.settled = Some(Arc::new(settled));
            return;
        }
        // The old trees are not needed for a fresh parse: free them first (an empty parse
        // stands in for the document's).
        drop((tree, good, edited));
        self.tree = grammar::parser()
            .parse("", None)
            .expect("parsing without a timeout returns a tree");
        before_fresh_parse();
        self.tree = parser
            .parse(text.as_bytes(), None)
            .expect("parsing without a timeout returns a tree");
    }

    /// The current version, sharing the text (no copy).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            text: self.text.clone(),
            tree: self.tree.clone(),
            lines: LineIndex::new(self.rope.clone()),
            version: self.version,
            settled: self.settled.clone(),
        }
    }
}

/// What a version was made of: the text before (its address, [`text_id`]), the edit that
/// made this text of it, and the splits that settled it when it was broken.
struct Made {
    base: usize,
    /// The one edit from the text before to this one (several changes: their
    /// [`difference`]): what `settle_after` moves the splits by.
    edit: Option<InputEdit>,
    /// Each change's edit, in order (each in the text the ones before it made), with the
    /// bytes it removed from that text (what [`Differs::then`] reads the good text's bytes
    /// from, where the edit meets them).
    each: Vec<(InputEdit, Box<[u8]>)>,
    splits: Option<Arc<Splits>>,
}

/// The document's last error-free tree while its text is broken ([`Document::good`]): the
/// tree, the length of its text, and its text while a version of the document holds it (the
/// version before the break); after that, [`Document::good_at`] holds its bytes where they
/// differ from the version's text, the only ones the next keystroke reads.
struct Good {
    tree: Tree,
    text: Option<Arc<str>>,
    len: usize,
}

impl Good {
    /// The tree of `T'` of a settled text `text` (`tree`, `settled`) as the good tree, and
    /// where `text` differs from `T'`: its blanked values (`T'`'s bytes there are spaces).
    /// (`None` for the second when the blanks are not in order in `text`: the next keystroke
    /// then parses afresh.)
    fn of_settled(tree: &Tree, settled: &Settled, text: &Arc<str>) -> (Good, Option<Differs>) {
        let valid = settled.valid.as_bytes();
        let spans = (settled.blanks.iter())
            .map(|b| Span {
                start: b.value.start,
                new_end: b.value.end,
                old_start: b.value.start,
                old_end: b.value.end,
                old: valid[b.value.clone()].into(),
            })
            .collect();
        let good = Good {
            tree: tree.clone(),
            text: None,
            len: valid.len(),
        };
        let at = Differs {
            spans,
            text: text_id(text),
        }
        .merged(text.as_bytes());
        (good, at)
    }
}

/// Where a version's text (`text`, its [`text_id`]) differs from the text of the document's
/// last error-free tree: disjoint spans in text order ([`Span`]), each with the good text's
/// bytes; the texts agree around and between them. Kept apart, an edit far from the break
/// (typing in the hint while an input is broken) does not make one span of everything
/// between them: `good`'s tree edited over half a 50,000-line tool was cloned and parsed
/// again over that half on every keystroke (120 ms against 0.4 ms for a break in a small
/// block, issue 14).
#[derive(Clone, Debug, Default)]
struct Differs {
    spans: Vec<Span>,
    text: usize,
}

/// One place where the texts differ: this text's bytes `start..new_end` stand for the good
/// text's `old_start..old_end`, which are `old`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    new_end: usize,
    old_start: usize,
    old_end: usize,
    old: Box<[u8]>,
}

/// Spans kept apart at most; beyond, the two closest are joined (the text between them is the
/// same in both texts, so the joined span is still where they differ).
const MAX_SPANS: usize = 8;

impl Differs {
    /// Where `edit` made a text of the good text `good`.
    fn of(edit: &InputEdit, good: &[u8]) -> Differs {
        Differs {
            spans: vec![Span {
                start: edit.start_byte,
                new_end: edit.new_end_byte,
                old_start: edit.start_byte,
                old_end: edit.old_end_byte,
                old: good[edit.start_byte..edit.old_end_byte].into(),
            }],
            text: 0,
        }
    }

    /// Where the text that `edit` made of this one's text differs from the good text: the
    /// spans the edit touches joined with it into one, the others as they were (those after
    /// it moved by its length). The joined span's good bytes are the touched spans' and,
    /// between them, this text's, which the edit `removed`. More than [`MAX_SPANS`] may
    /// result ([`Differs::merged`] joins them, with the text the edits made). `None` when a
    /// position falls before the good text's start (the caller checks the result against
    /// both texts' lengths, [`Differs::fits`], and compares the texts when it does not fit,
    /// or parses afresh when the good text is no longer held).
    fn then(self, edit: &InputEdit, removed: &[u8]) -> Option<Differs> {
        let (a, b, c) = (edit.start_byte, edit.old_end_byte, edit.new_end_byte);
        // A position of this text outside the spans, in the good text: as far from the end
        // of the last span before it (`last`) in both.
        let good_at = |p: usize, last: Option<&Span>| {
            last.map_or(Some(p), |s| (p + s.old_end).checked_sub(s.new_end))
        };
        let mut spans = self.spans;
        let first = spans.partition_point(|s| s.new_end < a);
        let past = first + spans[first..].partition_point(|s| s.start <= b);
        let after: Vec<Span> = spans.split_off(past);
        let touched: Vec<Span> = spans.split_off(first);
        let before = spans;
        let (start, old_start) = match touched.first() {
            Some(first) if first.start <= a => (first.start, first.old_start),
            _ => (a, good_at(a, before.last())?),
        };
        let (end, old_end) = match touched.last() {
            Some(last) if last.new_end >= b => (last.new_end, last.old_end),
            last => (b, good_at(b, last.or(before.last()))?),
        };
        // The good text's bytes of the joined span: each touched span's, and between them
        // this text's, which the edit removed (the texts agree outside the spans).
        let between = |from: usize, to: usize| match from < to {
            true => removed.get(from.checked_sub(a)?..to.checked_sub(a)?),
            false => Some(&[][..]),
        };
        let mut old = Vec::with_capacity(old_end.saturating_sub(old_start));
        let mut at = start;
        for s in &touched {
            old.extend_from_slice(between(at, s.start)?);
            old.extend_from_slice(&s.old);
            at = s.new_end;
        }
        old.extend_from_slice(between(at, end)?);
        let mut spans = before;
        spans.push(Span {
            start,
            new_end: end - b + c,
            old_start,
            old_end,
            old: old.into(),
        });
        spans.extend(after.into_iter().map(|s| Span {
            start: s.start - b + c,
            new_end: s.new_end - b + c,
            ..s
        }));
        Some(Differs { spans, text: 0 })
    }

    /// The spans joined until at most [`MAX_SPANS`] are left, the two closest first (the
    /// text between them, `text`'s, is the good text's there).
    /// `None` when the spans are not in order inside `text` (the caller then parses afresh).
    fn merged(mut self, text: &[u8]) -> Option<Differs> {
        let spans = &mut self.spans;
        while spans.len() > MAX_SPANS {
            let gap = |i: usize| spans[i + 1].start.checked_sub(spans[i].new_end);
            let i = (0..spans.len() - 1).try_fold(0, |best, i| {
                Some(if gap(i)? < gap(best)? { i } else { best })
            })?;
            let next = spans.remove(i + 1);
            let s = &mut spans[i];
            let mut old = std::mem::take(&mut s.old).into_vec();
            old.extend_from_slice(text.get(s.new_end..next.start)?);
            old.extend_from_slice(&next.old);
            (s.new_end, s.old_end, s.old) = (next.new_end, next.old_end, old.into());
        }
        Some(self)
    }

    /// Whether the spans lie in order inside a text of `len` bytes and a good text of
    /// `good_len` bytes, with the same length of text after the last.
    fn fits(&self, len: usize, good_len: usize) -> bool {
        let spans = &self.spans;
        spans.iter().all(|s| {
            s.start <= s.new_end
                && s.new_end <= len
                && s.old_start <= s.old_end
                && s.old_end <= good_len
        }) && spans.windows(2).all(|w| w[0].new_end <= w[1].start)
            && spans
                .last()
                .is_none_or(|s| len - s.new_end == good_len - s.old_end)
    }
}

/// The address of a version's shared text: the same `Arc` (a text held by `good` or
/// `good_at` and by the version an edit was made of) has the same one while either holds it.
fn text_id(text: &Arc<str>) -> usize {
    Arc::as_ptr(text).cast::<u8>() as usize
}

/// `parts` one after the other, as the shared text of a version: copied once, straight into
/// the `Arc` (a `String` made first and then turned into an `Arc<str>` copied the whole
/// document twice per keystroke: 2 × 2.3 MB at 50,000 lines).
fn concat(parts: &[&str]) -> Arc<str> {
    let len = parts.iter().map(|p| p.len()).sum();
    let mut bytes: Arc<[std::mem::MaybeUninit<u8>]> = Arc::new_uninit_slice(len);
    let out = Arc::get_mut(&mut bytes).expect("a new Arc has no other owner");
    let mut at = 0;
    for part in parts {
        for (slot, byte) in out[at..at + part.len()].iter_mut().zip(part.as_bytes()) {
            slot.write(*byte);
        }
        at += part.len();
    }
    // SAFETY: the `len` bytes were all written just above.
    let bytes: Arc<[u8]> = unsafe { bytes.assume_init() };
    // SAFETY: the bytes are `&str`s one after the other, so UTF-8.
    unsafe { crate::base::arc_str_unchecked(bytes) }
}

#[cfg(test)]
mod tests {
    use super::super::tree_nodes;
    use super::*;

    /// A tool with `n` inputs `in_0`... (each a string with a `doc`).
    fn tool_with_inputs(n: usize) -> String {
        let mut text = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        for i in 0..n {
            text.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: input {i}\n"
            ));
        }
        text.push_str("outputs: {}\nbaseCommand: echo\n");
        text
    }

    /// Bytes `a..b` of `t` replaced by `new`, as a change.
    fn replaced(t: &str, a: usize, b: usize, new: &str) -> Change {
        let index = LineIndex::from_text(t);
        let at = |byte| index.position(byte, Encoding::Utf16);
        Change {
            range: Some((at(a), at(b))),
            text: new.into(),
        }
    }

    /// While an input stays broken, one notification with two changes far apart (the top of
    /// the file and its end) keeps three spans where the text differs from the last
    /// error-free one, not one from the first change to the last; the tree is a fresh
    /// parse's, and the next keystroke's too.
    #[test]
    fn changes_far_apart_in_one_notification_keep_their_spans() {
        let mut text = tool_with_inputs(600);
        let mut doc = Document::new(text.clone(), 1);
        // A space at the start of a `type:` line in the middle breaks the YAML in `inputs`.
        let line = text.find("  in_300:\n").unwrap() + "  in_300:\n".len();
        doc.apply_changes(&[replaced(&text, line, line, " ")], 2, Encoding::Utf16)
            .unwrap();
        text.insert(line, ' ');
        assert!(doc.snapshot().broken());
        // Two changes: `v1.2` -> `v1.x` at the top, `echo` -> `echoo` at the end.
        let top = text.find("1.2").unwrap() + 2;
        let changes = [replaced(&text, top, top + 1, "x")];
        text.replace_range(top..top + 1, "x");
        let end = text.rfind("echo").unwrap() + 4;
        let changes = [changes[0].clone(), replaced(&text, end, end, "o")];
        text.insert(end, 'o');
        doc.apply_changes(&changes, 3, Encoding::Utf16).unwrap();
        assert_eq!(doc.text(), text);
        assert!(tree_nodes(doc.tree()) == tree_nodes(&Snapshot::parse(&text, 3).tree));
        let spans = &doc.good_at.as_ref().expect("still broken").spans;
        assert_eq!(spans.len(), 3, "{spans:?}");
        assert!(spans.iter().all(|s| s.new_end - s.start <= 2), "{spans:?}");
        // The next keystroke, in the middle of the file.
        let mid = text.find("input 100").unwrap() + 5;
        doc.apply_changes(&[replaced(&text, mid, mid, "z")], 4, Encoding::Utf16)
            .unwrap();
        text.insert(mid, 'z');
        assert!(tree_nodes(doc.tree()) == tree_nodes(&Snapshot::parse(&text, 4).tree));
        assert_eq!(doc.good_at.as_ref().unwrap().spans.len(), 4);
    }

    /// While an input stays broken, the document keeps no copy of its last error-free text
    /// (the next keystroke reads `good`'s bytes from `good_at`), and each version's tree is
    /// a fresh parse's: typed at the break, far from it, and for a document opened broken,
    /// whose good tree is `T'`'s.
    #[test]
    fn a_broken_text_keeps_no_copy_of_the_last_error_free_one() {
        let mut text = tool_with_inputs(400);
        let mut doc = Document::new(text.clone(), 1);
        let valid = doc.snapshot().text;
        // A space at the start of a `type:` line breaks `inputs`; then a word in that input's
        // `doc`, a change near the top and one at the end.
        let line = text.find("  in_200:\n").unwrap() + "  in_200:\n".len();
        let word = text.find("input 200").unwrap() + 5;
        let top = text.find("1.2").unwrap();
        let end = text.len() - 1;
        let edits = [
            (line, line, " "),
            (word + 1, word + 1, "xy"),
            (top, top + 1, "9"),
            (end, end, "o"),
        ];
        for (version, (a, b, new)) in (2..).zip(edits) {
            doc.apply_changes(&[replaced(&text, a, b, new)], version, Encoding::Utf16)
                .unwrap();
            text.replace_range(a..b, new);
            assert_eq!(doc.text(), text);
            assert!(doc.snapshot().broken(), "version {version}");
            let fresh = Snapshot::parse(&text, version);
            assert!(
                tree_nodes(doc.tree()) == tree_nodes(&fresh.tree),
                "version {version}"
            );
            assert_eq!(Arc::strong_count(&valid), 1, "version {version}");
        }
        // Opened broken: the good tree is `T'`'s, and `good_at` says where the text differs
        // from `T'` (the blanked value), with `T'`'s bytes there.
        let mut doc = Document::new(text.clone(), 1);
        let spans = doc.good_at.as_ref().expect("opened broken").spans.clone();
        let valid = doc.snapshot().settled.expect("settled").valid.clone();
        assert!(!spans.is_empty());
        for s in &spans {
            assert_eq!(*s.old, valid.as_bytes()[s.old_start..s.old_end]);
            assert_ne!(*s.old, text.as_bytes()[s.start..s.new_end]);
        }
        for (version, at) in (2..).zip([word + 3, 5]) {
            doc.apply_changes(&[replaced(&text, at, at, "q")], version, Encoding::Utf16)
                .unwrap();
            text.insert(at, 'q');
            let fresh = Snapshot::parse(&text, version);
            assert!(
                tree_nodes(doc.tree()) == tree_nodes(&fresh.tree),
                "version {version}"
            );
        }
        assert_eq!(Arc::strong_count(&valid), 1);
    }

    /// `Differs::then` over random edits of a text that starts as the good text: after each,
    /// the texts agree outside the spans, the spans are in order, and each span's position
    /// in the good text is where its text is (checked by the bytes around it); the spans a
    /// far edit makes stay apart (at most `MAX_SPANS`), and their total length stays that of
    /// the edits, not of the distance between them.
    #[test]
    fn spans_where_a_text_differs_follow_every_edit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let good: String = (0..2_000).map(|i| format!("line {i}\n")).collect();
        for round in 0..40 {
            let mut text = good.clone();
            let mut d: Option<Differs> = None;
            for step in 0..60 {
                // Edits near a few places, as typing in a few places of a file is.
                let place = [100, 5_000, 9_000, 14_000][next(4)] + next(300);
                let a = place.min(text.len());
                let b = (a + next(4)).min(text.len());
                let insert = ["", "x", "yz", "\n"][next(4)];
                let c = a + insert.len();
                let edit = InputEdit {
                    start_byte: a,
                    old_end_byte: b,
                    new_end_byte: c,
                    start_position: tree_sitter::Point::new(0, 0),
                    old_end_position: tree_sitter::Point::new(0, 0),
                    new_end_position: tree_sitter::Point::new(0, 0),
                };
                let len = text.len();
                let removed: Box<[u8]> = text.as_bytes()[a..b].into();
                text.replace_range(a..b, insert);
                d = Some(match d {
                    None => Differs::of(&edit, good.as_bytes()),
                    Some(d) => d
                        .then(&edit, &removed)
                        .and_then(|d| d.merged(text.as_bytes()))
                        .filter(|d| d.fits(text.len(), good.len()))
                        .unwrap_or_else(|| panic!("round {round} step {step}: {a}..{b} of {len}")),
                });
                let spans = &d.as_ref().unwrap().spans;
                assert!(spans.len() <= MAX_SPANS);
                let (t, g) = (text.as_bytes(), good.as_bytes());
                let (mut i, mut j) = (0, 0);
                for s in spans {
                    assert!(
                        i <= s.start && j <= s.old_start,
                        "round {round} step {step}: {spans:?}"
                    );
                    assert_eq!(
                        t[i..s.start],
                        g[j..s.old_start],
                        "round {round} step {step}"
                    );
                    assert_eq!(
                        *s.old,
                        g[s.old_start..s.old_end],
                        "round {round} step {step}"
                    );
                    (i, j) = (s.new_end, s.old_end);
                }
                assert_eq!(t[i..], g[j..], "round {round} step {step}: {spans:?}");
                let covered: usize = spans.iter().map(|s| s.new_end - s.start).sum();
                assert!(covered < 2_000, "round {round} step {step}: {spans:?}");
            }
        }
    }

    /// In a settled broken text, the tree at a byte of a blanked value is that block's own
    /// (where the value is), elsewhere the document's (`T'`'s, blank there).
    #[test]
    fn the_tree_at_a_broken_block_is_its_own() {
        let mut text = String::from("hints:\n  a:\n    aliases: [tool, run]\n     b: 1\ninputs:\n");
        for i in 0..400 {
            text.push_str(&format!("  in_{i}:\n    type: string\n"));
        }
        let snapshot = Snapshot::parse(&text, 0);
        assert!(snapshot.broken() && snapshot.settled.is_some());
        let at = text.find("run").unwrap();
        let flow = |(root, start): (tree_sitter::Node<'_>, usize)| {
            let mut node = root.descendant_for_byte_range(at - start, at - start);
            while let Some(n) = node {
                if n.kind() == "flow_sequence" {
                    return Some(start + n.start_byte());
                }
                node = n.parent();
            }
            None
        };
        assert_eq!(flow(snapshot.tree_at(at)), text.find('['));
        assert_eq!(flow((snapshot.tree.root_node(), 0)), None);
        let (root, start) = snapshot.tree_at(text.find("in_3").unwrap());
        assert_eq!((root.id(), start), (snapshot.tree.root_node().id(), 0));
        assert!(!Snapshot::parse("a: 1\n", 0).broken());
    }

    #[test]
    fn concat_puts_the_parts_one_after_the_other() {
        assert_eq!(&*concat(&[]), "");
        assert_eq!(&*concat(&["", "", ""]), "");
        assert_eq!(&*concat(&["ab", "", "é€𝄞", "\r\n"]), "abé€𝄞\r\n");
        let big = "x".repeat(100_000);
        let joined = concat(&[&big[..3], "yz", &big[3..]]);
        assert_eq!(joined.len(), 100_002);
        assert_eq!(&joined[..6], "xxxyzx");
        assert!(joined[5..].bytes().all(|b| b == b'x'));
    }

    #[test]
    fn a_document_opened_with_a_text_the_index_just_parsed_takes_that_parse() {
        let text: String = (0..16_000)
            .map(|i| format!("key_{i}_{}: [a, b]\n", std::process::id()))
            .collect();
        assert!(text.len() >= KEEP_MIN_BYTES);
        // Not kept outside `keeping_parses`: a document opened then builds its own rope.
        let _ = Snapshot::parse(&text, 0);
        assert!(take_kept(&text).is_none());
        let ropes = ROPES_BUILT.with(|n| n.get());
        drop(Document::new(text.clone(), 1));
        assert_eq!(ROPES_BUILT.with(|n| n.get()), ropes + 1);
        let indexed = keeping_parses(|| Snapshot::parse(&text, 0));
        let ropes = ROPES_BUILT.with(|n| n.get());
        let mut doc = Document::new(text.clone(), 1);
        assert_eq!(
            ROPES_BUILT.with(|n| n.get()),
            ropes,
            "the index's rope, not one of its own"
        );
        assert!(doc.snapshot().lines.rope() == indexed.lines.rope());
        assert!(
            tree_nodes(doc.tree()) == tree_nodes(&indexed.tree),
            "the same tree"
        );
        assert!(take_kept(&text).is_none(), "taken by the document");
        // With the index's text: a model the index built of it holds this very text.
        assert!(Arc::ptr_eq(&doc.snapshot().text, &indexed.text), "one text");
        // The document edits its own copy; the snapshot's tree is unchanged.
        let change = Change {
            range: Some((Position::new(0, 0), Position::new(0, 3))),
            text: "kez".into(),
        };
        doc.apply_changes(&[change], 2, Encoding::Utf16).unwrap();
        assert!(tree_nodes(doc.tree()) == tree_nodes(&parse_full(doc.text())));
        assert!(tree_nodes(&indexed.tree) == tree_nodes(&parse_full(&text)));
        // Dropped when the build ends.
        keeping_parses(|| Snapshot::parse(&text, 0));
        release_parses();
        assert!(take_kept(&text).is_none());
    }

    /// A document opened while the index parses the same text waits for that parse and
    /// takes it (the very tree, not a second parse of its own).
    #[test]
    fn a_document_opened_while_the_index_parses_its_text_takes_that_parse() {
        let text: String = (0..60_000)
            .map(|i| format!("wait_{i}_{}: [a, b]\n", std::process::id()))
            .collect();
        let index = {
            let text = text.clone();
            std::thread::spawn(move || keeping_parses(|| Snapshot::parse(&text, 0)))
        };
        while !parsing_now(&text) {
            assert!(!index.is_finished(), "the parse was not seen running");
            std::thread::yield_now();
        }
        let ropes = ROPES_BUILT.with(|n| n.get());
        let doc = Document::new(text.clone(), 1);
        assert_eq!(ROPES_BUILT.with(|n| n.get()), ropes, "the index's rope");
        let indexed = index.join().unwrap();
        assert!(doc.snapshot().lines.rope() == indexed.lines.rope());
        // A node's id is its place in memory (the root's is in each `Tree`: a child's).
        let first = |tree: &Tree| tree.root_node().child(0).map(|n| n.id());
        assert!(first(doc.tree()).is_some());
        assert_eq!(
            first(doc.tree()),
            first(&indexed.tree),
            "the index's tree, not a second parse"
        );
        assert!(Arc::ptr_eq(&doc.snapshot().text, &indexed.text), "one text");
        assert!(!parsing_now(&text));
        assert!(take_kept(&text).is_none(), "taken by the document");
    }

    fn is_kept(text: &str) -> bool {
        let kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
        kept.iter().any(|k| *k.text == *text)
    }

    #[test]
    fn a_small_text_s_parse_outlives_the_build_to_a_budget_until_released() {
        let pid = std::process::id();
        let text: String = (0..200)
            .map(|i| format!("small_{i}_{pid}: [a, b]\n"))
            .collect();
        assert!(text.len() < KEEP_MIN_BYTES);
        let indexed = keeping_parses(|| Snapshot::parse(&text, 0));
        // The build ends: a small text's parse stays for a document opened just after.
        release_parses();
        assert!(is_kept(&text));
        let doc = Document::new(text.clone(), 1);
        assert!(
            tree_nodes(doc.tree()) == tree_nodes(&indexed.tree),
            "the same tree"
        );
        assert!(!is_kept(&text), "taken by the document");
        // Dropped `KEEP_SMALL_FOR` after the build ended.
        keeping_parses(|| Snapshot::parse(&text, 0));
        release_parses_kept_before(std::time::Instant::now());
        assert!(!is_kept(&text));
        // At most `KEEP_SMALL_BYTES` of small texts, the most recent first.
        let texts: Vec<String> = (0..3)
            .map(|k| format!("budget_{k}_{pid}: {}\n", "x".repeat(200 * 1024)))
            .collect();
        assert!(texts.iter().all(|t| t.len() < KEEP_MIN_BYTES));
        assert!(texts.iter().map(String::len).sum::<usize>() > KEEP_SMALL_BYTES);
        keeping_parses(|| {
            for t in &texts {
                Snapshot::parse(t, 0);
            }
        });
        assert!(!is_kept(&texts[0]), "the oldest dropped");
        assert!(is_kept(&texts[1]) && is_kept(&texts[2]));
        for t in &texts {
            take_kept(t);
        }
    }

    fn change(l1: u32, c1: u32, l2: u32, c2: u32, text: &str) -> Change {
        Change {
            range: Some((Position::new(l1, c1), Position::new(l2, c2))),
            text: text.to_string(),
        }
    }

    fn assert_same_as_full_parse(doc: &Document) {
        let fresh = parse_full(doc.text());
        assert_eq!(
            doc.tree().root_node().to_sexp(),
            fresh.root_node().to_sexp()
        );
        assert!(
            tree_nodes(doc.tree()) == tree_nodes(&fresh),
            "the same nodes at the same bytes"
        );
        assert_eq!(doc.rope.to_string(), doc.text());
    }

    #[test]
    fn snapshots_share_the_text_of_their_version() {
        let mut doc = Document::new("a: 1\nb: 2\n".into(), 1);
        let (s1, s1_again) = (doc.snapshot(), doc.snapshot());
        assert!(Arc::ptr_eq(&s1.text, &s1_again.text));
        doc.apply_changes(&[change(1, 3, 1, 4, "3")], 2, Encoding::Utf16)
            .unwrap();
        let s2 = doc.snapshot();
        assert!(Arc::ptr_eq(&s2.text, &doc.snapshot().text));
        assert_eq!((&*s1.text, &*s2.text), ("a: 1\nb: 2\n", "a: 1\nb: 3\n"));
        assert_same_as_full_parse(&doc);
    }

    #[test]
    fn utf16_edits_on_non_ascii_crlf_text_match_a_full_parse() {
        let mut doc = Document::new("a: é日本\r\nb: 😀\r\nc: 3\r\n".into(), 1);
        // Insert after the emoji (2 UTF-16 units) on line 1.
        doc.apply_changes(&[change(1, 5, 1, 5, " x")], 2, Encoding::Utf16)
            .unwrap();
        assert_eq!(doc.text(), "a: é日本\r\nb: 😀 x\r\nc: 3\r\n");
        // Replace across lines.
        doc.apply_changes(&[change(0, 4, 2, 1, "Z\r\nd")], 3, Encoding::Utf16)
            .unwrap();
        assert_eq!(doc.text(), "a: éZ\r\nd: 3\r\n");
        assert_eq!(doc.version(), 3);
        assert_same_as_full_parse(&doc);
    }

    #[test]
    fn several_changes_apply_in_order_and_bad_ranges_change_nothing() {
        let mut doc = Document::new("k: v\n".into(), 1);
        let changes = [change(0, 4, 0, 4, "1"), change(0, 5, 0, 5, "2")];
        doc.apply_changes(&changes, 2, Encoding::Utf16).unwrap();
        assert_eq!(doc.text(), "k: v12\n");
        let bad = [change(0, 0, 0, 0, "x"), change(7, 0, 7, 0, "y")];
        assert!(doc.apply_changes(&bad, 3, Encoding::Utf16).is_err());
        assert_eq!(doc.text(), "k: v12\n");
        assert_eq!(doc.version(), 2);
        let full = [Change {
            range: None,
            text: "new: text\r".into(),
        }];
        doc.apply_changes(&full, 4, Encoding::Utf8).unwrap();
        assert_eq!(doc.text(), "new: text\r");
        assert_same_as_full_parse(&doc);
    }

    #[test]
    fn typing_inside_a_scalar_keeps_the_edited_tree_without_a_parse() {
        let mut doc = Document::new("a:\n  doc: |\n    some text\n  b: [x, y]\n".into(), 1);
        let kept = || KEPT_TREES.with(|k| k.get());
        let before = kept();
        // A word typed in the block scalar, one change per notification, then two at once.
        for (i, c) in "more".chars().enumerate() {
            let at = 8 + i as u32;
            doc.apply_changes(
                &[change(2, at, 2, at, &c.to_string())],
                2 + i as i32,
                Encoding::Utf16,
            )
            .unwrap();
            assert_same_as_full_parse(&doc);
        }
        let two = [change(2, 4, 2, 4, "x"), change(3, 7, 3, 7, "z")];
        doc.apply_changes(&two, 7, Encoding::Utf16).unwrap();
        assert_eq!(
            doc.text(),
            "a:\n  doc: |\n    xsomemore text\n  b: [xz, y]\n"
        );
        assert_same_as_full_parse(&doc);
        // The two changes at once are parsed: `x` is typed before the line's first letter.
        assert_eq!(kept() - before, 4);
        // A `:` typed in the flow sequence is parsed (a mapping in the sequence), and so is
        // the next edit's tree, from the tree the parse gave.
        doc.apply_changes(&[change(3, 8, 3, 8, ": ")], 8, Encoding::Utf16)
            .unwrap();
        assert_same_as_full_parse(&doc);
        assert_eq!(kept() - before, 4);
    }

    #[test]
    fn lone_carriage_returns_keep_the_tree_consistent() {
        let mut doc = Document::new("a: 1\nb: 2\n".into(), 1);
        doc.apply_changes(&[change(0, 4, 0, 4, "\rz: 9")], 2, Encoding::Utf16)
            .unwrap();
        assert_eq!(doc.text(), "a: 1\rz: 9\nb: 2\n");
        // Line 2 for LSP (the `\r` broke a line) is `b: 2`.
        doc.apply_changes(&[change(2, 3, 2, 4, "7")], 3, Encoding::Utf16)
            .unwrap();
        assert_eq!(doc.text(), "a: 1\rz: 9\nb: 7\n");
        assert_same_as_full_parse(&doc);
    }
}
