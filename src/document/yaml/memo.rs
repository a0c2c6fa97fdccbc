//! Content-keyed memo of deferred subtrees, shared by every document and version: editing the
//! hint of a 50,000-line tool does not rebuild its unchanged `inputs`. A [`DeferredPart`] is
//! one document's handle on such a memo, behind a [`Kind::Deferred`](super::Kind::Deferred)
//! node.
//!
//! Uses `node` and `errors` (the types a memo holds); `from_tree` fills it.
use std::any::Any;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use super::YamlDoc;
use super::errors::SyntaxError;
use super::node::{Node, Span};
use crate::base::text_hash;

/// Subtrees smaller than this are built in place.
pub const MIN_BYTES: usize = 16 * 1024;
/// Entries kept (least recently used dropped first): at most this many...
const CAPACITY: usize = 32;
/// ...and, beyond the two most recent (the version being edited and the one before it), no
/// more than this much text kept alive in all (a document text its sections share counted
/// once, [`MemoText`]): each entry holds its subtree, several times its text, and typing in a 50,000-line tool's `inputs` makes one entry per keystroke.
/// A 50,000-line tool's `inputs` (2.3 MB) keeps the two most recent only: a third, kept by
/// the 8 MB budget before, cost 2.3 MB of text and its section's lists (about 6 MB of peak
/// RSS with the schema memo's third document text) and served no edit but an undo two steps
/// back, which rebuilds only the entries it changed. The schema memo of `model::tools` keeps
/// its keys' document texts to the same budget.
pub const BUDGET_BYTES: usize = 4 << 20;

/// A memo's key: the text its subtree was built from, or only that text's content hash.
///
/// - A section of at least half the document (a large tool's `inputs`, which held a 2.3 MB
///   copy per kept version) shares the version's text: the most recent one keeps it, as the
///   base the next version's section is built from (`from_tree`'s `most_alike` compares
///   texts); found again in a newer version, it shares that version's text from then on
///   ([`lookup`]). Once a newer section is built from it, it keeps only the hash
///   ([`superseded`]): an undo still finds it, and no older version's text stays alive beside
///   the newest ones.
/// - A smaller section copies its text.
/// - An entry keeps the hash alone: its memo outlives many versions, and the copies of a
///   50,000-line tool's entries were a second 2.3 MB copy of its `inputs` (issue 14). The
///   hash is [`text_hash`]'s 128 bits, trusted as the text.
pub struct MemoText(Keyed);

enum Keyed {
    Own(Arc<str>),
    Shared {
        len: usize,
        at: Mutex<At>,
    },
    Hashed {
        len: usize,
        hash: u128,
        dollar: bool,
    },
}

/// Where a large section's key is: a range of a version's text, or only its hash.
enum At {
    Text(Arc<str>, Range<usize>),
    Hash(u128),
}

/// A memo's key text, read: borrowed from a copy of its own, or the version's text it shares
/// held while it is read.
pub enum KeyText<'a> {
    Borrowed(&'a str),
    Held(Arc<str>, Range<usize>),
}

impl std::ops::Deref for KeyText<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            KeyText::Borrowed(s) => s,
            KeyText::Held(whole, range) => &whole[range.clone()],
        }
    }
}

impl MemoText {
    /// `text[range]`, sharing `text` when the range is at least half of it.
    pub fn of(text: &Arc<str>, range: Range<usize>) -> MemoText {
        if range.len() * 2 >= text.len() {
            MemoText(Keyed::Shared {
                len: range.len(),
                at: Mutex::new(At::Text(text.clone(), range)),
            })
        } else {
            MemoText::copied(&text[range])
        }
    }

    pub fn copied(text: &str) -> MemoText {
        MemoText(Keyed::Own(Arc::from(text)))
    }

    /// An entry's key: `text`'s hash and length, and whether it holds a `$`.
    pub fn hashed(text: &str) -> MemoText {
        MemoText(Keyed::Hashed {
            len: text.len(),
            hash: text_hash(text),
            dollar: memchr::memchr(b'$', text.as_bytes()).is_some(),
        })
    }

    /// The text, when the key holds it (not an entry's, nor a section's no longer the most
    /// recent).
    pub fn text(&self) -> Option<KeyText<'_>> {
        match &self.0 {
            Keyed::Own(text) => Some(KeyText::Borrowed(text)),
            Keyed::Shared { at, .. } => match &*at.lock().unwrap_or_else(|p| p.into_inner()) {
                At::Text(whole, range) => Some(KeyText::Held(whole.clone(), range.clone())),
                At::Hash(_) => None,
            },
            Keyed::Hashed { .. } => None,
        }
    }

    /// Whether the text may hold a `$` (always, when the key holds the text: read it).
    pub fn may_hold_dollar(&self) -> bool {
        match &self.0 {
            Keyed::Hashed { dollar, .. } => *dollar,
            _ => true,
        }
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Keyed::Own(text) => text.len(),
            Keyed::Shared { len, .. } | Keyed::Hashed { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is `text` (the lengths compared first).
    pub fn is(&self, text: &str) -> bool {
        self.matches(text, &mut None)
    }

    /// [`MemoText::is`], with `text`'s hash computed at most once over many keys (`hash`).
    pub fn matches(&self, text: &str, hash: &mut Option<u128>) -> bool {
        if self.len() != text.len() {
            return false;
        }
        let mut hashed = |h: u128| *hash.get_or_insert_with(|| text_hash(text)) == h;
        match &self.0 {
            Keyed::Own(own) => **own == *text,
            Keyed::Shared { at, .. } => match &*at.lock().unwrap_or_else(|p| p.into_inner()) {
                At::Text(whole, range) => whole[range.clone()] == *text,
                At::Hash(h) => hashed(*h),
            },
            Keyed::Hashed { hash: h, .. } => hashed(*h),
        }
    }

    /// The text's hash (computed when the key holds the text).
    pub fn hash(&self) -> u128 {
        match &self.0 {
            Keyed::Hashed { hash, .. } => *hash,
            Keyed::Own(text) => text_hash(text),
            Keyed::Shared { at, .. } => match &*at.lock().unwrap_or_else(|p| p.into_inner()) {
                At::Text(whole, range) => text_hash(&whole[range.clone()]),
                At::Hash(h) => *h,
            },
        }
    }

    /// A shared key shares `text[range]` (the same content) from now on; the text it shared
    /// before is returned, to be dropped outside the memo's lock.
    fn rekey(&self, text: &Arc<str>, range: Range<usize>) -> Option<Arc<str>> {
        let Keyed::Shared { at, .. } = &self.0 else {
            return None;
        };
        let mut at = at.lock().unwrap_or_else(|p| p.into_inner());
        if let At::Text(whole, _) = &*at
            && Arc::ptr_eq(whole, text)
        {
            return None;
        }
        match std::mem::replace(&mut *at, At::Text(text.clone(), range.clone())) {
            At::Text(whole, was) => {
                debug_assert_eq!(whole[was], text[range]);
                Some(whole)
            }
            At::Hash(h) => {
                debug_assert_eq!(h, text_hash(&text[range]));
                None
            }
        }
    }

    /// A shared key keeps its text's hash alone from now on; the text it shared is returned,
    /// to be dropped outside the memo's lock.
    fn forget_text(&self) -> Option<Arc<str>> {
        let Keyed::Shared { at, .. } = &self.0 else {
            return None;
        };
        let mut at = at.lock().unwrap_or_else(|p| p.into_inner());
        let At::Text(whole, range) = &*at else {
            return None;
        };
        let hash = text_hash(&whole[range.clone()]);
        match std::mem::replace(&mut *at, At::Hash(hash)) {
            At::Text(whole, _) => Some(whole),
            At::Hash(_) => None,
        }
    }

    /// The allocation this key keeps alive (`None`: none, only a hash) and the bytes counted
    /// for it (the text's length when it keeps only a hash: the memo's subtree is still
    /// about that large).
    fn pins(&self) -> (Option<*const u8>, usize) {
        match &self.0 {
            Keyed::Own(text) => (Some(text.as_ptr()), text.len()),
            Keyed::Shared { at, len } => match &*at.lock().unwrap_or_else(|p| p.into_inner()) {
                At::Text(whole, _) => (Some(whole.as_ptr()), whole.len()),
                At::Hash(_) => (None, *len),
            },
            Keyed::Hashed { len, .. } => (None, *len),
        }
    }
}

impl std::fmt::Debug for MemoText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.text() {
            Some(text) => std::fmt::Debug::fmt(&*text, f),
            None => write!(f, "<{} bytes, hashed>", self.len()),
        }
    }
}

/// Two keys of the same text (compared by hash when either keeps only a hash).
impl PartialEq for MemoText {
    fn eq(&self, other: &MemoText) -> bool {
        if self.len() != other.len() {
            return false;
        }
        match (self.text(), other.text()) {
            (Some(a), Some(b)) => *a == *b,
            _ => self.hash() == other.hash(),
        }
    }
}

/// The bytes each of `texts` keeps alive that no text before it keeps (memos of one version
/// share its text), or counts as its size when it keeps only a hash: what the budget counts.
fn pinned<'a>(texts: impl Iterator<Item = &'a MemoText>) -> impl Iterator<Item = usize> {
    let mut seen: Vec<*const u8> = Vec::new();
    texts.map(move |t| match t.pins() {
        (Some(p), _) if seen.contains(&p) => 0,
        (Some(p), len) => {
            seen.push(p);
            len
        }
        (None, len) => len,
    })
}

#[derive(Debug)]
pub struct Memo {
    /// The key: the subtree's text from the start of its first line to the end of the blank
    /// lines after it, all the text its build reads (a block scalar's indentation and trailing
    /// blank lines).
    pub text: MemoText,
    /// The subtree, with spans relative to its start; its [`Kind::Deferred`](super::Kind)
    /// nodes index `view`'s parts.
    pub node: Node,
    /// Its syntax errors (duplicate keys), relative to its start.
    pub errors: Vec<SyntaxError>,
    /// What `node` is read in: its own parts (the entries of a large `inputs`, each memoized
    /// by its content, so that an edit in one entry builds that entry alone), spans relative to
    /// the subtree's start.
    ///
    /// An entry has no parts: its view is one empty document shared by all ([`Memo::new`]),
    /// not 184 bytes in each of a large `inputs`' thousands of entries.
    pub view: Arc<YamlDoc>,
    /// The nesting depth its JSON is built at (the entries of a section are one level down).
    pub(super) depth: usize,
    /// What the layers above computed from the subtree, one value per type
    /// ([`DeferredPart::derived`]).
    pub derived: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
    /// How a section built entry by entry lies in `text`: what the next version of the
    /// section reuses where its text is unchanged.
    /// (Boxed: an entry has none.)
    pub(super) layout: Option<Box<Layout>>,
}

/// The named children of a section's block mapping or list, one [`Slot`] each, in order, and
/// its keys: the build of a section whose text differs from a memoized one in a few entries
/// takes the others from here, shifted, and walks and builds those few alone.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Layout {
    /// A block list (else a block mapping).
    pub list: bool,
    /// Where the section starts in the memo's text (past its first line's indentation).
    pub lead: usize,
    pub slots: Vec<Slot>,
    /// How many pairs (or items), parts and errors the slots hold in all (the errors after
    /// those are the section's repeated keys).
    pub end: Counts,
    /// How many times each key (its hash) occurs in a mapping, and how many of these hashes
    /// occur more than once: while none does, no key is repeated.
    pub keys: HashMap<u64, u32>,
    pub repeated: usize,
}

/// Where a slot's output starts in the section's pairs (or items), parts and errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub items: usize,
    pub parts: usize,
    pub errors: usize,
}

/// One named child of a section's block mapping or list (a pair, a list item, a comment).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Slot {
    /// Its tree-sitter kind.
    pub kind: u16,
    /// Its span, relative to the section's start.
    pub span: Range<usize>,
    /// The text its build reads: from the start of its first line to the end of the blank
    /// lines after it, relative to the section's start.
    pub read: Range<usize>,
    /// The section's pairs (or items), parts and errors before it (it adds at most one
    /// pair or item and one part).
    pub at: Counts,
    /// The hash of its key, when it is a pair with a scalar key.
    pub key: Option<u64>,
}

impl Memo {
    pub fn new(
        text: MemoText,
        node: Node,
        errors: Vec<SyntaxError>,
        parts: Vec<DeferredPart>,
        depth: usize,
    ) -> Memo {
        static EMPTY: std::sync::LazyLock<Arc<YamlDoc>> =
            std::sync::LazyLock::new(|| Arc::new(YamlDoc::empty()));
        let view = if parts.is_empty() {
            EMPTY.clone()
        } else {
            let mut view = YamlDoc::empty();
            view.deferred = parts;
            Arc::new(view)
        };
        Memo {
            text,
            node,
            errors,
            view,
            depth,
            derived: Default::default(),
            layout: None,
        }
    }
}

static MEMO: Mutex<Vec<Arc<Memo>>> = Mutex::new(Vec::new());

thread_local! {
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the content memos off on this thread (nothing deferred, no memoized
/// schemas): the full recomputation that tests compare the memoized paths with.
pub fn unmemoized<R>(f: impl FnOnce() -> R) -> R {
    let was = OFF.with(|off| off.replace(true));
    let out = f();
    OFF.with(|off| off.set(was));
    out
}

/// Whether the content memos are on for this thread ([`unmemoized`]).
pub fn enabled() -> bool {
    !OFF.with(|off| off.get())
}

/// The memo of exactly the text `shared[range]`, moved to the front, its key sharing
/// `shared` from now on ([`MemoText`]).
pub fn lookup(shared: &Arc<str>, range: Range<usize>) -> Option<Arc<Memo>> {
    let text = &shared[range.clone()];
    let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    let mut hash = None;
    let i = memo.iter().position(|m| m.text.matches(text, &mut hash))?;
    let found = memo.remove(i);
    memo.insert(0, found.clone());
    drop(memo);
    drop(found.text.rekey(shared, range));
    Some(found)
}

/// `old`, the section a new version's section was just built from, keeps only its text's
/// hash from now on ([`MemoText`]): the newest section is the base of the next version's.
pub(super) fn superseded(old: &Memo) {
    drop(old.text.forget_text());
}

/// The memoized sections with parts, most recent first: where the entries of a section whose
/// text is new are looked for (the previous version of the same `inputs`, usually).
pub fn recent_sections() -> Vec<Arc<Memo>> {
    let memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    memo.iter()
        .filter(|m| !m.view.deferred.is_empty())
        .cloned()
        .collect()
}

pub fn store(m: Memo) -> Arc<Memo> {
    let m = Arc::new(m);
    let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    memo.insert(0, m.clone());
    let kept = kept(pinned(memo.iter().map(|e| &e.text)), BUDGET_BYTES, CAPACITY);
    memo.truncate(kept);
    m
}

/// A section memo that storing one keyed by `incoming` would drop (among the least recently
/// used) and that nothing else holds, taken out of the memo: the section built now reuses its
/// buffers (its keys' strings, its lists), saving as many allocations and frees as it has
/// entries on every keystroke in a large `inputs`.
pub(super) fn take_spare(incoming: &MemoText) -> Option<Memo> {
    let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    let sizes = pinned(std::iter::once(incoming).chain(memo.iter().map(|m| &m.text)));
    let dropped = kept(sizes, BUDGET_BYTES, CAPACITY).saturating_sub(1);
    let i = (dropped..memo.len()).rev().find(|&i| {
        memo[i].layout.is_some()
            && Arc::strong_count(&memo[i]) == 1
            && Arc::weak_count(&memo[i]) == 0
    })?;
    Arc::try_unwrap(memo.remove(i)).ok()
}

/// How many entries of a most-recent-first memo to keep, given their sizes: the two most
/// recent always, then as many as fit in `budget` bytes in all, at most `capacity`.
pub fn kept(sizes: impl Iterator<Item = usize>, budget: usize, capacity: usize) -> usize {
    let mut bytes = 0;
    let mut n = 0;
    for size in sizes {
        bytes += size;
        if n >= 2 && (bytes > budget || n >= capacity) {
            break;
        }
        n += 1;
    }
    n
}

/// A deferred subtree: where it is, its memoized content, and its nodes once built.
#[derive(Debug)]
pub struct DeferredPart {
    pub span: Span,
    pub(super) memo: Arc<Memo>,
    /// Where the memo's own parts are in the document's list (they follow this one).
    base: usize,
    /// (Boxed: most parts are never read shifted.)
    built: OnceLock<Box<Node>>,
}

impl Clone for DeferredPart {
    fn clone(&self) -> Self {
        DeferredPart::new(self.span.clone(), self.memo.clone(), self.base)
    }
}

impl DeferredPart {
    pub(super) fn new(span: Span, memo: Arc<Memo>, base: usize) -> DeferredPart {
        DeferredPart {
            span,
            memo,
            base,
            built: OnceLock::new(),
        }
    }

    /// Where the subtree starts in the document: add it to the spans of
    /// [`DeferredPart::derived`] values.
    pub fn offset(&self) -> usize {
        self.span.start
    }

    /// A value computed by `f` from the subtree with spans relative to its start (and the
    /// document it is read in: a deferred subtree holds no anchors, and its own parts are
    /// relative to its start too), once per memoized content and type `T`, and shared by every
    /// version and document with the same content: a rule reads a large `inputs` without
    /// building it shifted (and its entries through their own [`DeferredPart::derived`]).
    pub fn derived<T: Any + Send + Sync>(
        &self,
        f: impl FnOnce(&super::YamlDoc, &Node) -> T,
    ) -> Arc<T> {
        let find = crate::base::held_of::<T>;
        if let Some(found) = find(&self.memo.derived.lock().unwrap_or_else(|p| p.into_inner())) {
            return found;
        }
        let value = Arc::new(f(&self.memo.view, &self.memo.node));
        let mut held = self.memo.derived.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = find(&held) {
            return found;
        }
        held.push(value.clone());
        value
    }

    /// For each of this section's entries (its memo's parts, in order), a value computed by
    /// `f` from the entry: `f` must depend on the entry's content alone (it usually reads the
    /// entry's own [`DeferredPart::derived`]). The list is kept once per section content, and
    /// a section whose text is new takes each unchanged entry's value from the list of a
    /// recent section, by the address of the entry's memo: typing in one input of a
    /// 50,000-line tool reads one list instead of a value in each of 2,800 entries' memos
    /// (a lock and three allocations apiece, issue 14). Addresses are compared only while
    /// that section holds its entries, so the same address is the same memo.
    pub fn entries_derived<T: Clone + Send + Sync + 'static>(
        &self,
        f: impl Fn(&DeferredPart) -> T,
    ) -> Arc<Vec<T>> {
        /// Values of a section's entries with the addresses of their memos.
        struct PerEntry<T> {
            values: Arc<Vec<T>>,
            memos: Vec<usize>,
        }
        let address = |part: &DeferredPart| Arc::as_ptr(&part.memo) as usize;
        let found = self.derived(|_, _| {
            let parts = &self.memo.view.deferred;
            let recent = recent_sections();
            let last = recent
                .iter()
                .filter(|m| !Arc::ptr_eq(m, &self.memo))
                .find_map(|m| {
                    let held = m.derived.lock().unwrap_or_else(|p| p.into_inner());
                    crate::base::held_of::<PerEntry<T>>(&held)
                });
            // `recent` holds the last list's section, hence its entries, until the end.
            let mut places = crate::base::InOrder::default();
            let mut values = Vec::with_capacity(parts.len());
            for part in parts {
                let carried = last.as_ref().and_then(|last| {
                    let at = places.find(&last.memos, |&a| a, address(part))?;
                    places.matched(at);
                    last.values.get(at).cloned()
                });
                values.push(carried.unwrap_or_else(|| f(part)));
            }
            PerEntry {
                values: Arc::new(values),
                memos: parts.iter().map(address).collect(),
            }
        });
        found.values.clone()
    }

    /// The memoized content.
    pub fn memo(&self) -> &Arc<Memo> {
        &self.memo
    }

    /// Whether the subtree was built ([`DeferredPart::node`]).
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.built.get().is_some()
    }

    /// The subtree with its spans in document offsets, built on first read (a section's
    /// entries stay deferred: each is built when read).
    pub(super) fn node(&self) -> &Node {
        self.built
            .get_or_init(|| Box::new(self.memo.node.placed(self.span.start, self.base)))
    }
}

#[cfg(test)]
mod tests {
    use super::{MemoText, kept, pinned};
    use crate::document::yaml::YamlDoc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Each entry's text through [`super::DeferredPart::entries_derived`] of the deferred
    /// `inputs` of `text`, and how many entries `f` was called for.
    fn entry_texts(text: &str) -> (Vec<String>, usize) {
        let doc = YamlDoc::parse(text);
        let inputs = doc.root.as_ref().unwrap().get("inputs").unwrap();
        let part = doc.deferred_part(inputs).expect("a deferred `inputs`");
        let (source, at) = (doc.text().unwrap(), part.offset());
        let calls = AtomicUsize::new(0);
        let texts = part.entries_derived(|entry| {
            calls.fetch_add(1, Ordering::Relaxed);
            let memo = entry.memo();
            assert!(
                memo.text.text().is_none(),
                "an entry keeps its text's hash alone"
            );
            // The key: the entry's text from the start of its first line.
            let line = source[..at + entry.span.start]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            assert!(memo.text.is(&source[line..][..memo.text.len()]));
            source[at + entry.span.start..at + entry.span.end].to_string()
        });
        (texts.to_vec(), calls.into_inner())
    }

    /// A section whose text is new takes the values of its unchanged entries from the list of
    /// the section before, and computes the changed ones: the same list as computed afresh.
    #[test]
    fn entries_values_are_carried_from_the_section_before_by_memo() {
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id());
        let text = |changed: &str| {
            let inputs: String = (0..400)
                .map(|i| {
                    let doc = if i == 200 { changed } else { "plain" };
                    format!("  in_{i}:\n    type: string\n    doc: input {i} {doc} {tag}\n")
                })
                .collect();
            format!("class: CommandLineTool\ninputs:\n{inputs}outputs: []\n")
        };
        let entries = |t: &str| -> Vec<String> {
            let start = t.find("  in_0:").unwrap();
            let end = t.find("outputs:").unwrap();
            t[start..end]
                .split_inclusive("\n")
                .collect::<Vec<_>>()
                .chunks(3)
                .map(|c| c[1..].concat().trim().to_string())
                .collect()
        };
        let (first, calls) = entry_texts(&text("plain"));
        assert!(
            first == entries(&text("plain")),
            "each entry's body text, in order: {:?}",
            &first[..2]
        );
        assert_eq!(calls, 400);
        // Other tests' builds may evict the section before from the shared memo: a few tries.
        let mut fewest = usize::MAX;
        for k in 0..5 {
            entry_texts(&text(&format!("typed {}", k)));
            let next = text(&format!("typed {}", k + 1));
            let (got, calls) = entry_texts(&next);
            assert!(got == entries(&next), "the values of the new entries");
            fewest = fewest.min(calls);
        }
        assert_eq!(fewest, 1, "only the changed entry is computed");
    }

    /// A section of at least half the document shares the document's text (no copy per
    /// version), a smaller one copies its own; the budget counts a shared text once.
    #[test]
    fn a_large_section_shares_the_text_and_is_counted_once() {
        let doc: Arc<str> = Arc::from("inputs:\n  a: string\n  b: File\nid: x\n");
        let inputs = MemoText::of(&doc, 0..doc.len() - 6);
        let small = MemoText::of(&doc, doc.len() - 6..doc.len());
        assert_eq!(&*inputs.text().unwrap(), &doc[..doc.len() - 6]);
        assert_eq!(&*small.text().unwrap(), "id: x\n");
        assert_eq!(
            Arc::strong_count(&doc),
            2,
            "the large section shares, the small copies"
        );
        let outputs = MemoText::of(&doc, 8..doc.len());
        let other: Arc<str> = Arc::from(&*doc);
        let next = MemoText::of(&other, 0..other.len());
        let sizes: Vec<usize> = pinned([&inputs, &small, &outputs, &next].into_iter()).collect();
        assert_eq!(sizes, vec![doc.len(), 6, 0, other.len()]);
    }

    #[test]
    fn the_memo_keeps_two_entries_then_what_fits_the_budget() {
        assert_eq!(kept([].into_iter(), 10, 4), 0);
        assert_eq!(kept([50].into_iter(), 10, 4), 1);
        // Two always, however large.
        assert_eq!(kept([50, 50, 1].into_iter(), 10, 4), 2);
        assert_eq!(kept([3, 3, 3, 3, 3].into_iter(), 10, 8), 3);
        assert_eq!(kept([1, 1, 1, 1, 1, 1].into_iter(), 100, 4), 4);
    }
}
