//! The bottom layer: plain types every other layer shares. Nothing here knows YAML, CWL or LSP.
//!
//! - [`diagnostic`]: spans, severities, the [`Code`](diagnostic::Code) table, edits;
//! - [`context`]: where a document lives and the one read-boundary rule (SPEC §9);
//! - [`settings`]: profiles, protocol versions and effective settings;
//! - [`project`]: settings layers and `cwl-mcp.toml` (SPEC §1);
//! - [`alloc`]: the process's allocator (large blocks rounded up to a size class).
pub mod alloc;
pub mod context;
pub mod diagnostic;
pub mod project;
pub mod settings;
pub mod severity;

pub use context::{BoundaryRule, DocumentContext, read_boundary};
pub use diagnostic::{Code, Diagnostic, Edit, Related, Severity, apply_edits};
pub use settings::{Profile, ProtocolVersion, Settings};

/// The stack size of every thread that analyses a document (the server's runtime threads; the
/// CLI runs on the 8 MiB main thread). Deeply nested YAML is bounded by depth, not by stack:
/// 512 levels of flow nesting need more than the 2 MiB default in unoptimised builds.
pub const ANALYSIS_STACK_BYTES: usize = 16 << 20;

/// A value computed once and kept beside what it was computed from, whatever its type.
pub type Held = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// The value of type `T` among `held`. Types are compared before anything is cloned: cloning
/// each value to try its downcast cost two atomic operations per value tried, per input and
/// per keystroke in a large `inputs` (bench/notes.md, issue 14).
pub fn held_of<T: std::any::Any + Send + Sync>(held: &[Held]) -> Option<std::sync::Arc<T>> {
    held.iter()
        .find(|v| v.is::<T>())
        .and_then(|v| v.clone().downcast::<T>().ok())
}

/// A text's content key: 128 bits of XXH3, the same in every thread and process, trusted as
/// the text itself by every memo keyed by content that keeps no copy of it
/// (`document::settle`'s verdicts, the YAML memo's entries and older sections, the schema
/// memo's keys, the rendered schemas; issue 14). `parts` are hashed as one text, each
/// followed by its length, after their count (no two lists of parts give the same stream).
pub fn content_hash(parts: &[&[u8]]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    h.update(&(parts.len() as u64).to_le_bytes());
    for part in parts {
        h.update(part);
        h.update(&(part.len() as u64).to_le_bytes());
    }
    h.digest128()
}

/// The 128-bit XXH3 of one text, in one call (no streaming state: the settle verdicts hash
/// many short blocks per keystroke). Not [`content_hash`] of `[text]`: a memo uses one of
/// the two for all its keys.
pub fn text_hash(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// `bytes` as an `Arc<str>`, without a copy or a check.
///
/// # Safety
///
/// `bytes` must be UTF-8. (`str` and `[u8]` have the same layout, and the pointer comes from
/// `Arc::into_raw` of the same allocation.)
pub unsafe fn arc_str_unchecked(bytes: std::sync::Arc<[u8]>) -> std::sync::Arc<str> {
    debug_assert!(std::str::from_utf8(&bytes).is_ok());
    // SAFETY: the caller's contract; see the doc.
    unsafe { std::sync::Arc::from_raw(std::sync::Arc::into_raw(bytes) as *const str) }
}

/// Where the keys of a new list are in the previous version of that list (the memo addresses
/// of a section's entries, or of a renderer's parameters): at the place after the last match
/// when they are there (a list edited in a few places), else through a map of the previous
/// list, built on first need.
#[derive(Default)]
pub struct InOrder {
    next: usize,
    /// Hashed with foldhash: built on every keystroke in a large `inputs` (2,800 entries).
    map: Option<std::collections::HashMap<usize, usize, foldhash::fast::RandomState>>,
}

impl InOrder {
    /// Where `key` is among the keys of `items` (`key_of` each; the first place of a key
    /// that occurs twice). Call [`InOrder::matched`] once a place is used.
    pub fn find<T>(
        &mut self,
        items: &[T],
        key_of: impl Fn(&T) -> usize,
        key: usize,
    ) -> Option<usize> {
        if items.get(self.next).is_some_and(|i| key_of(i) == key) {
            return Some(self.next);
        }
        let map = self.map.get_or_insert_with(|| {
            let mut m = std::collections::HashMap::with_capacity_and_hasher(
                items.len(),
                foldhash::fast::RandomState::default(),
            );
            for (i, item) in items.iter().enumerate() {
                m.entry(key_of(item)).or_insert(i);
            }
            m
        });
        map.get(&key).copied()
    }

    /// The place `at` was used: the next key is looked for after it first.
    pub fn matched(&mut self, at: usize) {
        self.next = at + 1;
    }
}

/// Frees `value` on a background thread (started on first use): what a keystroke replaces in a
/// large document (the previous version's model, the Tool parts a memo evicts) takes about as
/// long to free as the new one to build (perf: 23 % of a 50,000-line editing session).
pub fn free_later<T: Send + 'static>(value: T) {
    type Garbage = Box<dyn Send>;
    static FREER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Garbage>>> =
        std::sync::OnceLock::new();
    let freer = FREER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Garbage>();
        std::thread::Builder::new()
            .name("cwl-mcp-free".into())
            // Dropping a value tree recurses as deep as the tree (bounded, see the constant).
            .stack_size(crate::base::ANALYSIS_STACK_BYTES)
            .spawn(move || rx.into_iter().for_each(drop))
            .ok()
            .map(|_| tx)
    });
    match freer {
        Some(tx) => {
            // A closed channel hands the value back: freed here, as before.
            let _ = tx.send(Box::new(value));
        }
        None => drop(value),
    }
}
