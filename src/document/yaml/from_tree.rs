//! The tree built from tree-sitter's tree: the fast path, incremental, and the one that
//! survives broken YAML (an ERROR node's pairs are salvaged). Large `inputs`/`outputs` of the
//! root mapping are deferred through the memo, entry by entry (each entry memoized by its own
//! text, [`TreeBuilder::section`]), also while the YAML is broken outside them. A section
//! edited in a few entries takes the others from its previous version without walking them.
//! While it is broken inside one of its entries, the others, which tree-sitter's recovery
//! holds as pairs of an ERROR node, take their memos from it ([`TreeBuilder::salvaged`]).
//!
//! Uses `node`, `scalar` (decoding raw scalar text), `errors` (repeated keys), `memo`, `doc`
//! and `json` (a deferred subtree's JSON form is memoized with it).
use std::collections::HashMap;
use std::sync::Arc;

use super::doc::{Source, YamlDoc};
use super::errors::{SyntaxError, duplicate_keys};
use super::memo::{self, DeferredPart};
use super::node::{Kind, MAX_DEPTH, Node, Pair, Style};
use super::scalar::{decode_block, decode_double, decode_single, fold_plain};

struct TreeBuilder<'t> {
    text: &'t str,
    /// `text`, shared: what a large section's memo keeps as its key ([`memo::MemoText`]).
    shared: &'t Arc<str>,
    anchors: HashMap<String, Node>,
    errors: Vec<SyntaxError>,
    documents: usize,
    /// The tree-sitter id of the root mapping, whose large `inputs`/`outputs` are deferred;
    /// `None` when nothing may be deferred (anchors anywhere, or a nested build).
    defer_in: Option<usize>,
    deferred: Vec<DeferredPart>,
    /// Where the pairs an ERROR node holds may find their values' memos (the root builder of
    /// a document that may defer, [`TreeBuilder::salvaged`]); read on first use.
    salvage: Option<Salvage>,
}

/// The entries of the recently memoized sections, by the hash of their text: a document
/// broken inside a large `inputs` is recovered by tree-sitter as a flat ERROR node holding
/// the section's entries as pairs, whose values are these entries' texts unchanged.
#[derive(Default)]
struct Salvage {
    /// The recent sections and their indexes, read on the first pair looked for.
    sections: Option<Vec<(Arc<memo::Memo>, Arc<EntryIndex>)>>,
}

/// A section's entries by the hash of their memo text (kept with the section's memo).
struct EntryIndex(HashMap<u128, Vec<u32>>);

impl EntryIndex {
    /// The index of `section`, built once per section memo.
    fn of(section: &memo::Memo) -> Arc<EntryIndex> {
        let lock = || section.derived.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = crate::base::held_of::<EntryIndex>(&lock()) {
            return found;
        }
        let mut index: HashMap<u128, Vec<u32>> = HashMap::new();
        for (i, part) in section.view.deferred.iter().enumerate() {
            index
                .entry(part.memo().text.hash())
                .or_default()
                .push(i as u32);
        }
        let made = Arc::new(EntryIndex(index));
        let mut held = lock();
        if let Some(found) = crate::base::held_of::<EntryIndex>(&held) {
            return found;
        }
        held.push(made.clone());
        made
    }
}

impl Salvage {
    /// The memo of an entry of a recent section whose text is `text`.
    fn find(&mut self, text: &str) -> Option<Arc<memo::Memo>> {
        let sections = self.sections.get_or_insert_with(|| {
            memo::recent_sections()
                .into_iter()
                .filter(|s| s.layout.is_some())
                .map(|s| {
                    let index = EntryIndex::of(&s);
                    (s, index)
                })
                .collect()
        });
        let mut h = Some(crate::base::text_hash(text));
        sections.iter().find_map(|(section, index)| {
            index.0.get(&h?)?.iter().find_map(|&i| {
                let memo = section.view.deferred.get(i as usize)?.memo();
                memo.text.matches(text, &mut h).then(|| memo.clone())
            })
        })
    }
}

pub(super) fn from_tree(shared: &Arc<str>, root: tree_sitter::Node) -> YamlDoc {
    let text: &str = shared;
    let mut b = TreeBuilder {
        text,
        shared,
        anchors: HashMap::new(),
        errors: Vec::new(),
        documents: 0,
        defer_in: None,
        deferred: Vec::new(),
        salvage: None,
    };
    // Anchors inside a deferred subtree would be invisible to aliases outside it.
    let may_defer = !has_ampersand(text) && memo::enabled();
    if may_defer && root.has_error() {
        b.salvage = Some(Salvage::default());
    }
    let mut first = None;
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() != "document" {
            continue;
        }
        let mut c2 = child.walk();
        let content = child
            .named_children(&mut c2)
            .find(|n| matches!(n.kind(), "block_node" | "flow_node" | "ERROR"));
        let Some(content) = content else { continue };
        b.documents += 1;
        if b.documents == 1 {
            // Also while the YAML is broken elsewhere: a section without an error inside is
            // built as in a valid document (the text it reads is the same).
            if may_defer {
                b.defer_in = root_mapping_id(content);
            }
            first = Some(b.node(content, 0));
        } else if b.documents == 2 {
            b.errors.push(SyntaxError {
                span: child.start_byte()..child.end_byte(),
                message: "expected a single document in the stream but found another document"
                    .into(),
            });
        }
    }
    if first.is_none() && root.kind() == "ERROR" {
        first = Some(b.node(root, 0));
    }
    YamlDoc {
        root: first,
        anchors: b.anchors,
        errors: b.errors,
        source: Source::TreeSitter,
        deferred: b.deferred,
        text: None,
    }
}

impl<'t> TreeBuilder<'t> {
    fn slice(&self, n: tree_sitter::Node) -> &'t str {
        &self.text[n.start_byte()..n.end_byte()]
    }

    fn node(&mut self, n: tree_sitter::Node, depth: usize) -> Node {
        let span = n.start_byte()..n.end_byte();
        if depth > MAX_DEPTH {
            return Node::new(span, Kind::Invalid);
        }
        match n.kind() {
            "block_node" | "flow_node" => {
                let mut tag = None;
                let mut anchor = None;
                let mut content = None;
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    match child.kind() {
                        "tag" => tag = Some(self.slice(child).to_string()),
                        "anchor" => {
                            anchor = Some(self.slice(child).trim_start_matches('&').to_string())
                        }
                        "comment" => {}
                        _ if content.is_none() => content = Some(child),
                        _ => {}
                    }
                }
                let mut node = match content {
                    Some(c) => self.node(c, depth + 1),
                    None => Node::empty(n.end_byte()),
                };
                if content.is_some() {
                    // Keep the node's own span (without tag/anchor) for precise ranges.
                } else {
                    node.span = n.end_byte()..n.end_byte();
                }
                node.tag = tag.map(Box::new);
                if let Some(name) = anchor {
                    self.anchors.insert(name, node.clone());
                }
                node
            }
            "block_mapping" | "flow_mapping" => {
                let flow = n.kind() == "flow_mapping";
                let mut pairs = Vec::new();
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    self.collect_pair(child, &mut pairs, depth);
                }
                duplicate_keys(&pairs, &mut self.errors);
                Node::new(span, Kind::Map { pairs, flow })
            }
            "block_sequence" | "flow_sequence" => {
                let flow = n.kind() == "flow_sequence";
                let mut items = Vec::new();
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor) {
                    match child.kind() {
                        "block_sequence_item" => items.push(match item_content(child) {
                            Some(inner) => self.node(inner, depth + 1),
                            None => Node::empty(child.end_byte()),
                        }),
                        "flow_pair" => {
                            let mut pairs = Vec::new();
                            self.collect_pair(child, &mut pairs, depth);
                            items.push(Node::new(
                                child.start_byte()..child.end_byte(),
                                Kind::Map { pairs, flow: true },
                            ));
                        }
                        "comment" => {}
                        _ => items.push(self.node(child, depth + 1)),
                    }
                }
                Node::new(span, Kind::Seq { items, flow })
            }
            "plain_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: fold_plain(self.slice(n)).into(),
                    style: Style::Plain,
                },
            ),
            "single_quote_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: decode_single(self.slice(n)).into(),
                    style: Style::SingleQuoted,
                },
            ),
            "double_quote_scalar" => Node::new(
                span,
                Kind::Scalar {
                    text: decode_double(self.slice(n)).into(),
                    style: Style::DoubleQuoted,
                },
            ),
            "block_scalar" => {
                // Trailing blank lines belong to the scalar (they matter for `|+`).
                let end = blank_lines_end(self.text, n.end_byte());
                let raw = &self.text[n.start_byte()..end];
                let line_start = line_start(self.text, n.start_byte());
                let parent_indent = self.text[line_start..]
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
                let (text, style) = decode_block(raw, parent_indent);
                Node::new(
                    span,
                    Kind::Scalar {
                        text: text.into(),
                        style,
                    },
                )
            }
            "alias" => Node::new(
                span,
                Kind::Alias(self.slice(n).trim_start_matches('*').to_string()),
            ),
            "ERROR" => self.recover(n, depth),
            _ => Node::new(span, Kind::Invalid),
        }
    }

    /// A deferred subtree: its memo (found by content, or built now), its errors, and a
    /// [`Kind::Deferred`] node standing for it; its parts (the entries of a mapping or list)
    /// follow it in the document's list.
    fn defer(&mut self, v: tree_sitter::Node, depth: usize) -> Node {
        let span = v.start_byte()..v.end_byte();
        let range = memo_key(self.text, &span);
        let key = &self.text[range.clone()];
        #[cfg(test)]
        if FRESH.with(|f| f.get()) {
            // A test's reference: walked whole, every entry built, nothing memoized.
            let memo = Arc::new(self.section_whole(v, depth, key, &[]));
            return self.deferred_node(span, memo);
        }
        let memo = memo::lookup(self.shared, range)
            .unwrap_or_else(|| memo::store(self.section(v, depth, key)));
        self.deferred_node(span, memo)
    }

    /// The key of a section's memo: `key`, a part of this builder's text.
    fn memo_text(&self, key: &str) -> memo::MemoText {
        let start = key.as_ptr() as usize - self.text.as_ptr() as usize;
        debug_assert!(
            start + key.len() <= self.text.len(),
            "a key outside the text"
        );
        memo::MemoText::of(self.shared, start..start + key.len())
    }

    /// A memo's errors, relative to its subtree, added where that subtree starts (`at`).
    fn add_errors(&mut self, memo: &memo::Memo, at: usize) {
        self.errors.extend(memo.errors.iter().map(|e| SyntaxError {
            span: e.span.start + at..e.span.end + at,
            message: e.message.clone(),
        }));
    }

    /// The node standing for a deferred subtree, its errors and parts added to the document's.
    fn deferred_node(&mut self, span: std::ops::Range<usize>, memo: Arc<memo::Memo>) -> Node {
        self.deferred.reserve(1 + memo.view.deferred.len());
        self.add_errors(&memo, span.start);
        let base = self.deferred.len() + 1;
        self.deferred
            .push(DeferredPart::new(span.clone(), memo.clone(), base));
        for part in &memo.view.deferred {
            let at = part.span.start + span.start..part.span.end + span.start;
            self.deferred
                .push(DeferredPart::new(at, part.memo().clone(), 0));
        }
        Node::new(span, Kind::Deferred(base - 1))
    }

    /// A builder for a subtree read on its own (no anchors, nothing deferred at its level).
    fn nested(&self) -> TreeBuilder<'t> {
        TreeBuilder {
            text: self.text,
            shared: self.shared,
            anchors: HashMap::new(),
            errors: Vec::new(),
            documents: 0,
            defer_in: None,
            deferred: Vec::new(),
            salvage: None,
        }
    }

    /// The memo of a section whose text is new. A block mapping or list is built with each
    /// entry's value deferred to a memo of its own: typing in one input of a 50,000-line tool
    /// builds that input, not all of them. When the text differs from a memoized section's
    /// in a few entries (the previous version of this `inputs`, usually), the entries before
    /// and after the change are taken from that section as they are (those after moved by
    /// the length the edit added), and only the changed ones are walked in tree-sitter and
    /// built ([`TreeBuilder::section_edited`]); else every entry is walked, and those whose
    /// text is unchanged take their memo from the most alike memoized section. Anything else
    /// is built whole.
    fn section(&self, v: tree_sitter::Node, depth: usize, key: &str) -> memo::Memo {
        let mut recent = memo::recent_sections();
        if let Some(c) = block_content(v)
            && let Some(m) = self.section_edited(v, c, depth, key, &mut recent)
        {
            return m;
        }
        self.section_whole(v, depth, key, &recent)
    }

    /// A section built walking every entry.
    fn section_whole(
        &self,
        v: tree_sitter::Node,
        depth: usize,
        key: &str,
        recent: &[Arc<memo::Memo>],
    ) -> memo::Memo {
        #[cfg(test)]
        WORK.with(|w| {
            w.set(Work {
                whole: w.get().whole + 1,
                ..w.get()
            })
        });
        let start = v.start_byte();
        let mut sub = self.nested();
        let Some(c) = block_content(v) else {
            let node = sub.node(v, depth);
            return memo::Memo::new(
                self.memo_text(key),
                node.shifted_back(start),
                shifted_back(sub.errors, start),
                Vec::new(),
                0,
            );
        };
        let list = c.kind() != "block_mapping";
        let found = reusable(self.text, &entry_slots(c), recent);
        let mut next = found.into_iter();
        let mut old = |_: &str| next.next().flatten();
        // As `node` builds a block mapping or list, entry values aside.
        let lead = start - line_start(self.text, start);
        let mut out = Entries::new(start, lead);
        let mut described = true;
        let mut cursor = c.walk();
        for child in c.named_children(&mut cursor) {
            if !sub.slot(child, depth, list, &mut old, &mut out) {
                described = false;
                if list {
                    out.items.push(sub.node(child, depth + 2));
                } else {
                    sub.collect_pair(child, &mut out.pairs, depth + 1);
                }
            }
        }
        let end = out.counts(sub.errors.len());
        let (mut keys, mut repeated) = (HashMap::new(), 0);
        for slot in &out.slots {
            if let Some(h) = slot.key {
                count_key(&mut keys, &mut repeated, h, true);
            }
        }
        let span = c.start_byte()..c.end_byte();
        let kind = if list {
            Kind::Seq {
                items: out.items,
                flow: false,
            }
        } else {
            duplicate_keys(&out.pairs, &mut sub.errors);
            Kind::Map {
                pairs: out.pairs,
                flow: false,
            }
        };
        let mut m = memo::Memo::new(
            self.memo_text(key),
            Node::new(span, kind).shifted_back(start),
            shifted_back(sub.errors, start),
            out.parts,
            0,
        );
        m.layout = described.then_some(Box::new(memo::Layout {
            list,
            lead,
            slots: out.slots,
            end,
            keys,
            repeated,
        }));
        m
    }

    /// A section whose text differs from a memoized section's (the most alike of `recent`)
    /// between a common prefix and suffix: the slots (entries, comments) wholly inside the
    /// prefix are taken as they are, those wholly inside the suffix moved by the length
    /// added, and only those between are walked in tree-sitter (from the last slot of the
    /// prefix, found by byte offset) and built, each entry taking the memo of an entry of the
    /// old middle with the same text. The tree is checked where the reuse meets it (the last
    /// slot of the prefix and the first of the suffix are where they were, and the count of
    /// children adds up); `None` when it does not (then the section is walked whole).
    /// Repeated keys: a count per key hash, updated with the keys removed and added; only
    /// while some hash occurs twice are the keys compared, all of them (as a whole build).
    fn section_edited(
        &self,
        v: tree_sitter::Node,
        c: tree_sitter::Node,
        depth: usize,
        key: &str,
        recent: &mut Vec<Arc<memo::Memo>>,
    ) -> Option<memo::Memo> {
        let start = v.start_byte();
        let list = c.kind() != "block_mapping";
        let lead = start - line_start(self.text, start);
        let (old, p, s) = most_alike(recent, key, list, lead)?;
        let layout = old.layout.as_ref()?;
        let old_text = old.text.text()?;
        let old_len = old_text.len();
        let d = key.len() as isize - old_len as isize;
        let slots = &layout.slots;
        let n = slots.len();
        let at = |i: usize| slots.get(i).map_or(layout.end, |s| s.at);
        // The slots whose build reads the common prefix alone, and the common suffix alone.
        // Where a read ends depends on the next line (the blank lines after it are read): its
        // first visible character must be in the prefix too. Where a read starts depends on
        // the line break before it: in the suffix too, or in the new text as well.
        let mut head = slots.partition_point(|sl| sl.read.end <= p);
        let mut tail = n - slots.partition_point(|sl| sl.read.start < old_len - s);
        if slots.last().is_some_and(|sl| sl.read.end > old_len) {
            tail = 0;
        }
        if let Some(sl) = slots.get(n - tail)
            && sl.read.start == old_len - s
            && (sl.read.start + key.len())
                .checked_sub(old_len + 1)
                .is_none_or(|i| key.as_bytes()[i] != b'\n')
        {
            tail -= 1;
        }
        tail = tail.min(n - head);
        // The last slot of the prefix where it was in the new tree (one or two slots before
        // it when an edit just after it changed it: indentation or a blank line typed on the
        // next line).
        let same = |n: tree_sitter::Node, sl: &memo::Slot, by: isize| {
            n.is_named()
                && n.kind_id() == sl.kind
                && n.start_byte() as isize == sl.span.start as isize + by
                && n.end_byte() as isize == sl.span.end as isize + by
        };
        let mut cursor = c.walk();
        let mut tries = 0;
        while head > 0 {
            let sl = &slots[head - 1];
            let next_line = old_text[sl.read.end..].find(|c: char| !c.is_whitespace());
            cursor.reset(c);
            if next_line.is_some_and(|i| sl.read.end + i < p)
                && cursor
                    .goto_first_child_for_byte(start + sl.span.start)
                    .is_some()
                && same(cursor.node(), sl, start as isize)
            {
                break;
            }
            tries += 1;
            if tries == 3 {
                return None;
            }
            head -= 1;
        }
        tail = tail.min(n - head);
        let mut first = head == 0;
        if first {
            cursor.reset(c);
            if !cursor.goto_first_child() {
                return None;
            }
        }
        // The slots between, walked and built.
        let (pre, suf) = (at(head), at(n - tail));
        let by_hash: HashMap<u128, &Arc<memo::Memo>> = old.view.deferred[pre.parts..suf.parts]
            .iter()
            .map(|part| (part.memo().text.hash(), part.memo()))
            .collect();
        let mut find = |text: &str| {
            let mut h = Some(crate::base::text_hash(text));
            by_hash
                .get(&h?)
                .filter(|m| m.text.matches(text, &mut h))
                .map(|m| Arc::clone(m))
        };
        let mut sub = self.nested();
        let mut middle = Entries::new(start, lead);
        let mut reached = tail == 0;
        let suffix_at = start as isize + d;
        loop {
            if !first && !cursor.goto_next_sibling() {
                break;
            }
            first = false;
            let child = cursor.node();
            if !child.is_named() {
                continue;
            }
            if tail > 0
                && child.start_byte() as isize >= slots[n - tail].span.start as isize + suffix_at
            {
                if !same(child, &slots[n - tail], suffix_at) {
                    return None;
                }
                reached = true;
                break;
            }
            if !sub.slot(child, depth, list, &mut find, &mut middle) {
                return None;
            }
        }
        if !reached || c.named_child_count() != head + middle.slots.len() + tail {
            return None;
        }
        // The new section: the prefix's output as it was, the middle's, the suffix's moved,
        // in the buffers of a section the memo is about to drop when there is one.
        let (old_pairs, old_items): (&[Pair], &[Node]) = match &old.node.kind {
            Kind::Map { pairs, .. } if !list => (pairs, &[]),
            Kind::Seq { items, .. } if list => (&[], items),
            _ => return None,
        };
        // What is moved lies in the common suffix, so it stays inside the section; were the
        // lowest of it to move before the section, the whole walk decides (no panic).
        let lowest = slots[n - tail..]
            .first()
            .map(|sl| sl.read.start.min(sl.span.start))
            .into_iter()
            .chain(old.view.deferred[suf.parts..].first().map(|p| p.span.start))
            .min();
        if lowest.is_some_and(|x| x.checked_add_signed(d).is_none()) {
            return None;
        }
        recent.clear();
        let key_text = self.memo_text(key);
        let mut spare = Spare::of(memo::take_spare(&key_text));
        let mid = middle.counts(sub.errors.len());
        let after = |old: usize, suf: usize, pre: usize, mid: usize| old - suf + pre + mid;
        let end = memo::Counts {
            items: after(layout.end.items, suf.items, pre.items, mid.items),
            parts: after(layout.end.parts, suf.parts, pre.parts, mid.parts),
            errors: after(layout.end.errors, suf.errors, pre.errors, mid.errors),
        };
        let parts_by = (pre.parts + mid.parts) as isize - suf.parts as isize;
        let back = -(start as isize);
        let kind = if list {
            let mut new = std::mem::take(&mut spare.items);
            new.clear();
            new.reserve(end.items);
            new.extend_from_slice(&old_items[..pre.items]);
            new.extend(
                middle
                    .items
                    .iter()
                    .map(|i| i.moved(back, pre.parts as isize)),
            );
            new.extend(old_items[suf.items..].iter().map(|i| i.moved(d, parts_by)));
            Kind::Seq {
                items: new,
                flow: false,
            }
        } else {
            let mut new = std::mem::take(&mut spare.pairs);
            let mut k = 0;
            let mut put = |p: &Pair, by: isize, base: isize| {
                match new.get_mut(k) {
                    Some(to) => {
                        to.key.assign_moved(&p.key, by, 0);
                        to.value.assign_moved(&p.value, by, base);
                    }
                    None => new.push(Pair {
                        key: p.key.moved(by, 0),
                        value: p.value.moved(by, base),
                    }),
                }
                k += 1;
            };
            old_pairs[..pre.items].iter().for_each(|p| put(p, 0, 0));
            middle
                .pairs
                .iter()
                .for_each(|p| put(p, back, pre.parts as isize));
            old_pairs[suf.items..]
                .iter()
                .for_each(|p| put(p, d, parts_by));
            new.truncate(end.items);
            Kind::Map {
                pairs: new,
                flow: false,
            }
        };
        let node = Node::new(c.start_byte() - start..c.end_byte() - start, kind);
        let moved = |x: usize| x.wrapping_add_signed(d);
        let mut parts = std::mem::take(&mut spare.parts);
        parts.clear();
        parts.reserve(end.parts);
        parts.extend_from_slice(&old.view.deferred[..pre.parts]);
        parts.append(&mut middle.parts);
        parts.extend(old.view.deferred[suf.parts..].iter().map(|part| {
            let span = moved(part.span.start)..moved(part.span.end);
            DeferredPart::new(span, part.memo().clone(), 0)
        }));
        let moved_error = |e: &SyntaxError, by: isize| SyntaxError {
            span: e.span.start.wrapping_add_signed(by)..e.span.end.wrapping_add_signed(by),
            message: e.message.clone(),
        };
        let mut errors = Vec::with_capacity(end.errors);
        errors.extend_from_slice(&old.errors[..pre.errors]);
        errors.extend(sub.errors.iter().map(|e| moved_error(e, back)));
        errors.extend(
            old.errors[suf.errors..layout.end.errors]
                .iter()
                .map(|e| moved_error(e, d)),
        );
        let mut new_slots = std::mem::take(&mut spare.slots);
        new_slots.clear();
        new_slots.reserve(head + middle.slots.len() + tail);
        new_slots.extend_from_slice(&slots[..head]);
        let rebased = |c: memo::Counts, from: memo::Counts, to: memo::Counts| memo::Counts {
            items: c.items - from.items + to.items,
            parts: c.parts - from.parts + to.parts,
            errors: c.errors - from.errors + to.errors,
        };
        let zero = memo::Counts::default();
        new_slots.extend(middle.slots.iter().map(|sl| memo::Slot {
            at: rebased(sl.at, zero, pre),
            ..sl.clone()
        }));
        let to = rebased(mid, zero, pre);
        new_slots.extend(slots[n - tail..].iter().map(|sl| memo::Slot {
            span: moved(sl.span.start)..moved(sl.span.end),
            read: moved(sl.read.start)..moved(sl.read.end),
            at: rebased(sl.at, suf, to),
            ..sl.clone()
        }));
        let mut keys = std::mem::take(&mut spare.keys);
        keys.clone_from(&layout.keys);
        let mut repeated = layout.repeated;
        if !list {
            for h in slots[head..n - tail].iter().filter_map(|sl| sl.key) {
                count_key(&mut keys, &mut repeated, h, false);
            }
            for h in middle.slots.iter().filter_map(|sl| sl.key) {
                count_key(&mut keys, &mut repeated, h, true);
            }
            if repeated > 0
                && let Kind::Map { pairs, .. } = &node.kind
            {
                duplicate_keys(pairs, &mut errors);
            }
        }
        #[cfg(test)]
        WORK.with(|w| {
            w.set(Work {
                edited: w.get().edited + 1,
                ..w.get()
            })
        });
        let mut m = memo::Memo::new(key_text, node, errors, parts, 0);
        m.layout = Some(Box::new(memo::Layout {
            list,
            lead,
            slots: new_slots,
            end,
            keys,
            repeated,
        }));
        drop(old_text);
        memo::superseded(&old);
        Some(m)
    }

    /// Builds one named child of a section's block mapping or list as `node` builds it, an
    /// entry's value deferred to the memo `old` gives for its text (else to one built now),
    /// and records its slot; `false` (nothing added) for a child a [`memo::Slot`] does not
    /// describe.
    fn slot(
        &mut self,
        child: tree_sitter::Node,
        depth: usize,
        list: bool,
        old: &mut dyn FnMut(&str) -> Option<Arc<memo::Memo>>,
        out: &mut Entries,
    ) -> bool {
        let at = out.counts(self.errors.len());
        let start = out.start;
        let mut key_hash = None;
        match (list, child.kind()) {
            (_, "comment") => {}
            (false, "block_mapping_pair") => {
                let key = match child.child_by_field_name("key") {
                    Some(k) => self.node(k, depth + 2),
                    None => Node::empty(child.start_byte()),
                };
                let value = match child.child_by_field_name("value") {
                    Some(value) => self.entry(value, depth + 2, start, old, &mut out.parts),
                    None => Node::empty(child.end_byte()),
                };
                key_hash = key.scalar().map(hash_key);
                out.pairs.push(Pair { key, value });
            }
            (true, "block_sequence_item") => out.items.push(match item_content(child) {
                Some(inner) => self.entry(inner, depth + 2, start, old, &mut out.parts),
                None => Node::empty(child.end_byte()),
            }),
            _ => return false,
        }
        #[cfg(test)]
        WORK.with(|w| {
            w.set(Work {
                walked: w.get().walked + 1,
                ..w.get()
            })
        });
        let span = child.start_byte()..child.end_byte();
        let read = memo_key(self.text, &span);
        let (start, key) = (out.start, out.key);
        out.slots.push(memo::Slot {
            kind: child.kind_id(),
            span: span.start - start..span.end - start,
            read: read.start - key..read.end - key,
            at,
            key: key_hash,
        });
        true
    }

    /// One entry of a section: its memo (the one `old` gives for its text, else built now),
    /// its errors, and a deferred node for it; the part's span is relative to `section`.
    fn entry(
        &mut self,
        v: tree_sitter::Node,
        depth: usize,
        section: usize,
        old: &mut dyn FnMut(&str) -> Option<Arc<memo::Memo>>,
        parts: &mut Vec<DeferredPart>,
    ) -> Node {
        let span = v.start_byte()..v.end_byte();
        let text = &self.text[memo_key(self.text, &span)];
        let memo = old(text).unwrap_or_else(|| {
            #[cfg(test)]
            WORK.with(|w| {
                w.set(Work {
                    built: w.get().built + 1,
                    ..w.get()
                })
            });
            let mut sub = self.nested();
            let node = sub.node(v, depth);
            Arc::new(memo::Memo::new(
                memo::MemoText::hashed(text),
                node.shifted_back(span.start),
                shifted_back(sub.errors, span.start),
                Vec::new(),
                1,
            ))
        });
        self.add_errors(&memo, span.start);
        parts.push(DeferredPart::new(
            span.start - section..span.end - section,
            memo,
            0,
        ));
        Node::new(span, Kind::Deferred(parts.len() - 1))
    }

    /// Salvages what an ERROR node holds: the pairs of a mapping cut short, for instance.
    fn recover(&mut self, n: tree_sitter::Node, depth: usize) -> Node {
        let span = n.start_byte()..n.end_byte();
        let mut pairs = Vec::new();
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "block_mapping_pair" if self.salvage.is_some() => {
                    match self.salvaged(child, depth) {
                        Some(pair) => pairs.push(pair),
                        None => self.collect_pair(child, &mut pairs, depth),
                    }
                }
                "block_mapping_pair" | "flow_pair" => self.collect_pair(child, &mut pairs, depth),
                "block_node" | "flow_node" | "block_mapping" => {
                    let inner = self.node(child, depth + 1);
                    if let Kind::Map { pairs: inner, .. } = inner.kind {
                        pairs.extend(inner);
                    }
                }
                _ => {}
            }
        }
        if pairs.is_empty() {
            Node::new(span, Kind::Invalid)
        } else {
            Node::new(span, Kind::Map { pairs, flow: false })
        }
    }

    /// A pair an ERROR node holds whose value's text is an entry of a recently memoized
    /// section (the other inputs of an `inputs` broken in one of them): its value deferred to
    /// that entry's memo, as in the section, instead of built again. The value tree reads the
    /// same through [`YamlDoc::deref`] and the JSON form; `None` for any other pair.
    fn salvaged(&mut self, child: tree_sitter::Node, depth: usize) -> Option<Pair> {
        let v = child.child_by_field_name("value")?;
        if v.has_error() {
            return None;
        }
        let span = v.start_byte()..v.end_byte();
        let text = &self.text[memo_key(self.text, &span)];
        let memo = self.salvage.as_mut()?.find(text)?;
        let key = match child.child_by_field_name("key") {
            Some(k) => self.node(k, depth + 1),
            None => Node::empty(child.start_byte()),
        };
        self.add_errors(&memo, span.start);
        self.deferred.push(DeferredPart::new(span.clone(), memo, 0));
        Some(Pair {
            key,
            value: Node::new(span, Kind::Deferred(self.deferred.len() - 1)),
        })
    }

    fn collect_pair(&mut self, child: tree_sitter::Node, pairs: &mut Vec<Pair>, depth: usize) {
        match child.kind() {
            "block_mapping_pair" | "flow_pair" => {
                let key = child.child_by_field_name("key");
                let value = child.child_by_field_name("value");
                let key_node = match key {
                    Some(k) => self.node(k, depth + 1),
                    None => Node::empty(child.start_byte()),
                };
                // The key first: `Node::parent` walks down from the root (O(depth × width)).
                let deferrable = self.defer_in.is_some()
                    && matches!(key_node.scalar(), Some("inputs" | "outputs"))
                    && child.parent().map(|p| p.id()) == self.defer_in;
                let value_node = match value {
                    Some(v)
                        if deferrable
                            && v.end_byte() - v.start_byte() >= memo::MIN_BYTES
                            && !v.has_error() =>
                    {
                        self.defer(v, depth + 1)
                    }
                    Some(v) => self.node(v, depth + 1),
                    None => Node::empty(child.end_byte()),
                };
                pairs.push(Pair {
                    key: key_node,
                    value: value_node,
                });
            }
            // A flow mapping entry written without `: value`.
            "flow_node" => {
                let key = self.node(child, depth + 1);
                let at = key.span.end;
                pairs.push(Pair {
                    key,
                    value: Node::empty(at),
                });
            }
            "ERROR" => {
                let recovered = self.recover(child, depth + 1);
                if let Kind::Map { pairs: inner, .. } = recovered.kind {
                    pairs.extend(inner);
                }
            }
            _ => {}
        }
    }
}

/// What a section's build adds up: its pairs (or items), parts and slots (its errors are the
/// builder's), with where the section starts and its text (its first line's start).
struct Entries {
    start: usize,
    key: usize,
    pairs: Vec<Pair>,
    items: Vec<Node>,
    parts: Vec<DeferredPart>,
    slots: Vec<memo::Slot>,
}

impl Entries {
    fn new(start: usize, lead: usize) -> Entries {
        Entries {
            start,
            key: start - lead,
            pairs: Vec::new(),
            items: Vec::new(),
            parts: Vec::new(),
            slots: Vec::new(),
        }
    }

    fn counts(&self, errors: usize) -> memo::Counts {
        memo::Counts {
            items: self.pairs.len() + self.items.len(),
            parts: self.parts.len(),
            errors,
        }
    }
}

/// The buffers of a section the memo drops, for the one built now.
#[derive(Default)]
struct Spare {
    pairs: Vec<Pair>,
    items: Vec<Node>,
    parts: Vec<DeferredPart>,
    slots: Vec<memo::Slot>,
    keys: HashMap<u64, u32>,
}

impl Spare {
    fn of(memo: Option<memo::Memo>) -> Spare {
        let Some(mut m) = memo else {
            return Spare::default();
        };
        #[cfg(test)]
        WORK.with(|w| {
            w.set(Work {
                spared: w.get().spared + 1,
                ..w.get()
            })
        });
        let mut spare = Spare::default();
        match std::mem::replace(&mut m.node.kind, Kind::Invalid) {
            Kind::Map { pairs, .. } => spare.pairs = pairs,
            Kind::Seq { items, .. } => spare.items = items,
            _ => {}
        }
        if let Some(view) = Arc::get_mut(&mut m.view) {
            spare.parts = std::mem::take(&mut view.deferred);
        }
        if let Some(layout) = m.layout.take() {
            spare.slots = layout.slots;
            spare.keys = layout.keys;
        }
        spare
    }
}

/// What the section builds of this thread did (tests count it): sections walked whole and
/// built from an edited one, slots walked, entries built.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Work {
    whole: usize,
    edited: usize,
    walked: usize,
    built: usize,
    /// Sections built in the buffers of one the memo dropped.
    spared: usize,
}

#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<Work> = const {
        std::cell::Cell::new(Work { whole: 0, edited: 0, walked: 0, built: 0, spared: 0 })
    };
    /// Sections built whole from scratch, not memoized (a test's reference).
    static FRESH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The hash a mapping key is counted by ([`memo::Layout::keys`]).
fn hash_key(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// One more (`add`) or one less occurrence of the key hash `h`, and how many hashes occur
/// more than once.
fn count_key(keys: &mut HashMap<u64, u32>, repeated: &mut usize, h: u64, add: bool) {
    let count = keys.entry(h).or_insert(0);
    if add {
        *count += 1;
        if *count == 2 {
            *repeated += 1;
        }
    } else {
        if *count == 2 {
            *repeated -= 1;
        }
        *count -= 1;
        if *count == 0 {
            keys.remove(&h);
        }
    }
}

/// Of the memoized sections with a layout of the same form and first-line indentation, the
/// one whose text differs least from `key` between their common prefix and suffix, with the
/// lengths of those.
fn most_alike(
    recent: &[Arc<memo::Memo>],
    key: &str,
    list: bool,
    lead: usize,
) -> Option<(Arc<memo::Memo>, usize, usize)> {
    let mut best: Option<(&Arc<memo::Memo>, usize, usize)> = None;
    for m in recent {
        let Some(layout) = &m.layout else { continue };
        if layout.list != list || layout.lead != lead {
            continue;
        }
        let Some(a) = m.text.text() else { continue };
        let (a, b) = (a.as_bytes(), key.as_bytes());
        let p = common_prefix(a, b);
        let s = common_suffix(&a[p..], &b[p..]);
        if best.is_none_or(|(_, bp, bs)| p + s > bp + bs) {
            best = Some((m, p, s));
        }
        // Close enough: the previous version of the section, usually.
        if a.len().max(b.len()) - p - s <= 16 * 1024 {
            break;
        }
    }
    best.map(|(m, p, s)| (m.clone(), p, s))
}

/// The length of the common prefix of `a` and `b` (compared a block at a time).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    for block in [4096, 64] {
        while i + block <= n && a[i..i + block] == b[i..i + block] {
            i += block;
        }
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    for block in [4096, 64] {
        while i + block <= n && a[n - i - block..n - i] == b[n - i - block..n - i] {
            i += block;
        }
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// Whether `text` holds a `&` (`memchr`: a 50,000-line text is read on every build; the
/// 64-byte loop it replaced took 0.15 ms there).
fn has_ampersand(text: &str) -> bool {
    memchr::memchr(b'&', text.as_bytes()).is_some()
}

/// The start of the line `at` is on.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// `end` moved past the rest of its line when that is blank, then past the blank lines after
/// it (a block scalar's trailing blank lines, which matter for `|+`).
fn blank_lines_end(text: &str, mut end: usize) -> usize {
    if !text[..end].ends_with('\n')
        && let Some(i) = text[end..].find('\n')
        && text[end..end + i].trim().is_empty()
    {
        end += i + 1;
    }
    loop {
        let rest = &text[end..];
        match rest.find('\n') {
            Some(i) if rest[..i].trim().is_empty() => end += i + 1,
            _ => break,
        }
    }
    end
}

/// The text a subtree's build reads, its memo key: from the start of its first line (a block
/// scalar's indentation is read there) to the end of the blank lines after it.
fn memo_key(text: &str, span: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    line_start(text, span.start)..blank_lines_end(text, span.end)
}

fn shifted_back(errors: Vec<SyntaxError>, by: usize) -> Vec<SyntaxError> {
    errors
        .into_iter()
        .map(|e| SyntaxError {
            span: e.span.start - by..e.span.end - by,
            message: e.message,
        })
        .collect()
}

/// What a block list's item holds (its first child that is not a comment).
fn item_content(item: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let mut cursor = item.walk();
    item.named_children(&mut cursor)
        .find(|c| c.kind() != "comment")
}

/// The block mapping or list a section's value is, when it is nothing more (no tag).
fn block_content(v: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if v.kind() != "block_node" {
        return None;
    }
    let mut cursor = v.walk();
    let mut content = None;
    for child in v.named_children(&mut cursor) {
        match child.kind() {
            "comment" => {}
            "block_mapping" | "block_sequence" if content.is_none() => content = Some(child),
            _ => return None,
        }
    }
    content
}

/// The entry values of a block mapping or list, in order, as [`TreeBuilder::section`] defers
/// them.
fn entry_slots(c: tree_sitter::Node) -> Vec<tree_sitter::Node> {
    let mut out = Vec::new();
    let mut cursor = c.walk();
    for child in c.named_children(&mut cursor) {
        match child.kind() {
            "block_mapping_pair" => out.extend(child.child_by_field_name("value")),
            "block_sequence_item" => out.extend(item_content(child)),
            _ => {}
        }
    }
    out
}

/// For each entry, the memo of an entry with the same text in the most alike of `sections`
/// (the entries before and after an edit, matched from both ends), else `None`.
fn reusable(
    text: &str,
    slots: &[tree_sitter::Node],
    sections: &[std::sync::Arc<memo::Memo>],
) -> Vec<Option<std::sync::Arc<memo::Memo>>> {
    let keys: Vec<&str> = slots
        .iter()
        .map(|v| &text[memo_key(text, &(v.start_byte()..v.end_byte()))])
        .collect();
    let n = keys.len();
    let mut hashes: Vec<Option<u128>> = vec![None; n];
    let mut best: Option<(usize, usize, &[DeferredPart])> = None;
    for section in sections {
        let old = &section.view.deferred[..];
        let mut same = |i: usize, j: usize| old[j].memo().text.matches(keys[i], &mut hashes[i]);
        let front = (0..n.min(old.len())).take_while(|&i| same(i, i)).count();
        let back = (0..(n - front).min(old.len() - front))
            .take_while(|&k| same(n - 1 - k, old.len() - 1 - k))
            .count();
        if best.is_none_or(|(f, b, _)| front + back > f + b) {
            best = Some((front, back, old));
        }
        if front + back + 1 >= n {
            break;
        }
    }
    let mut out = vec![None; n];
    if let Some((front, back, old)) = best {
        for i in 0..front {
            out[i] = Some(old[i].memo().clone());
        }
        for k in 0..back {
            out[n - 1 - k] = Some(old[old.len() - 1 - k].memo().clone());
        }
    }
    out
}

/// The tree-sitter id of the block mapping a document's content is, if it is one.
fn root_mapping_id(content: tree_sitter::Node) -> Option<usize> {
    if content.kind() != "block_node" {
        return None;
    }
    let mut cursor = content.walk();
    content
        .named_children(&mut cursor)
        .find(|c| c.kind() == "block_mapping")
        .map(|c| c.id())
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::{Kind, Node, Pair, YamlDoc, memo};

    /// `node` with every deferred subtree read in place.
    fn expanded(doc: &YamlDoc, node: &Node) -> Node {
        let node = match node.kind {
            Kind::Deferred(_) => doc.deref(node),
            _ => node,
        };
        let kind = match &node.kind {
            Kind::Map { pairs, flow } => Kind::Map {
                pairs: pairs
                    .iter()
                    .map(|p| Pair {
                        key: expanded(doc, &p.key),
                        value: expanded(doc, &p.value),
                    })
                    .collect(),
                flow: *flow,
            },
            Kind::Seq { items, flow } => Kind::Seq {
                items: items.iter().map(|n| expanded(doc, n)).collect(),
                flow: *flow,
            },
            other => other.clone(),
        };
        Node {
            span: node.span.clone(),
            kind,
            tag: node.tag.clone(),
        }
    }

    /// Held by the tests that count what a section's build reuses: the memo is shared by every
    /// thread, and one test's sections would evict the other's.
    static SECTIONS: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn sections() -> std::sync::MutexGuard<'static, ()> {
        SECTIONS.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Each text in turn is built with the memos on (its `inputs` from the entries of the one
    /// before where unchanged) and off: the same tree, JSON and errors.
    fn same_as_unmemoized(texts: &[String]) {
        for (i, text) in texts.iter().enumerate() {
            same_as_built_whole(&YamlDoc::parse(text), text, &format!("text {i}"));
        }
    }

    /// `got`, built from `text` with the memos on, equals a build with the memos off (the
    /// same tree, JSON and errors), and a build of its sections walked whole, every entry
    /// built, nothing memoized: the same tree with its deferred nodes, and deferred parts of
    /// the same spans, content (subtree, errors, and a section's layout) and memo keys.
    fn same_as_built_whole(got: &YamlDoc, text: &str, what: &str) {
        let want = memo::unmemoized(|| YamlDoc::parse(text));
        assert!(!got.deferred.is_empty(), "{what}: `inputs` is deferred");
        assert!(want.deferred.is_empty(), "{what}: nothing deferred");
        let root = got.root.as_ref().map(|r| expanded(got, r));
        assert!(root == want.root, "{what}: the trees differ");
        assert_eq!(got.to_json(), want.to_json(), "{what}");
        assert_eq!(got.errors, want.errors, "{what}");
        super::FRESH.with(|f| f.set(true));
        let whole = YamlDoc::parse(text);
        super::FRESH.with(|f| f.set(false));
        assert!(got.root == whole.root, "{what}: the deferred nodes differ");
        assert_eq!(got.deferred.len(), whole.deferred.len(), "{what}: parts");
        for (i, (g, w)) in got.deferred.iter().zip(&whole.deferred).enumerate() {
            assert_eq!(g.span, w.span, "{what}: part {i}'s span");
            let (g, w) = (g.memo(), w.memo());
            assert_eq!(g.text, w.text, "{what}: part {i}'s memo key");
            assert!(g.node == w.node, "{what}: part {i}'s subtree");
            assert_eq!(g.errors, w.errors, "{what}: part {i}'s errors");
            assert!(g.layout == w.layout, "{what}: part {i}'s layout");
            let spans = |m: &memo::Memo| {
                m.view
                    .deferred
                    .iter()
                    .map(|p| p.span.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(spans(g), spans(w), "{what}: part {i}'s own parts");
        }
    }

    fn entries(n: usize, list: bool) -> String {
        let mut t = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        for i in 0..n {
            let (head, pad) = if list {
                (format!("  - id: in_{i}\n"), "    ")
            } else {
                (format!("  in_{i}:\n"), "    ")
            };
            t.push_str(&head);
            t.push_str(&format!(
                "{pad}type: string\n{pad}doc: |\n{pad}  Text of input {i},\n{pad}  on two lines.\n"
            ));
        }
        t
    }

    #[test]
    fn a_section_built_from_the_entries_of_the_last_equals_one_built_whole() {
        let _sections = sections();
        for list in [false, true] {
            let base = entries(300, list);
            let outputs = "outputs: {}\n";
            let at = base.find("input 150,").unwrap() + "input".len();
            let mut texts = vec![format!("{base}{outputs}")];
            // Typing in one entry's block scalar, one character at a time.
            for k in 1..4 {
                let mut t = base.clone();
                t.insert_str(at, &"xyz"[..k]);
                texts.push(format!("{t}{outputs}"));
            }
            // A repeated key inside one entry (an error relative to the entry), then a
            // repeated input name (an error of the section's own keys) in map form.
            let mut t = base.clone();
            let doc = t.find("    doc: |\n      Text of input 150,").unwrap();
            t.insert_str(doc, "    type: int\n");
            texts.push(format!("{t}{outputs}"));
            if !list {
                texts.push(format!("{base}  in_7:\n    type: int\n{outputs}"));
            }
            // The last entry's `|+` block scalar keeps the blank lines after it: adding one
            // changes that entry alone.
            let keep = base.replace(
                &format!("doc: |\n{}Text of input 299", "      "),
                &format!("doc: |+\n{}Text of input 299", "      "),
            );
            texts.push(format!("{keep}\n{outputs}"));
            texts.push(format!("{keep}\n\n{outputs}"));
            // Entries added and removed at both ends.
            texts.push(format!(
                "{}{outputs}",
                base.replacen("  in_0:", "  in_new:\n    type: int\n  in_0:", 1)
                    .replacen("  - id: in_0", "  - id: in_new\n  - id: in_0", 1)
            ));
            texts.push(format!("{}{outputs}", entries(299, list)));
            same_as_unmemoized(&texts);
            // The typed text reused every other entry of the text before it.
            let (before, after) = (YamlDoc::parse(&texts[1]), YamlDoc::parse(&texts[2]));
            let reused = |i: usize| {
                std::sync::Arc::ptr_eq(before.deferred[i].memo(), after.deferred[i].memo())
            };
            assert_eq!(after.deferred.len(), 301, "the section and its 300 entries");
            assert_eq!(
                (1..=300).filter(|&i| !reused(i)).count(),
                1,
                "one entry built"
            );
            assert!(!reused(151), "the edited entry is built");
        }
    }

    /// What this thread's section builds did while `f` ran.
    fn work<R>(f: impl FnOnce() -> R) -> (R, super::Work) {
        super::WORK.with(|w| w.set(super::Work::default()));
        let out = f();
        (out, super::WORK.with(|w| w.get()))
    }

    /// One step of an edited section: what it does, and at most how many slots (entries,
    /// comments) its build walks and how many entries it builds.
    struct Step {
        what: &'static str,
        text: String,
        walked: usize,
        built: usize,
    }

    /// A text edited in steps, each step's `inputs` built from the one before (the slots
    /// before and after the edit reused, those it touched walked and built): no more work
    /// than the step allows, and the same tree, JSON and errors as a build with the memos off
    /// and as one walked whole. The memo is first filled with versions of `base` (built and
    /// dropped): each step's section is built in the buffers of one the memo drops, as when
    /// typing in a large `inputs`; how many were is returned.
    fn walks_only_the_change(base: String, steps: &[Step]) -> usize {
        for k in 0..40 {
            YamlDoc::parse(&edit(&base, "input 5,", &format!("input 5 ({k}),")));
        }
        same_as_unmemoized(std::slice::from_ref(&base));
        let mut before = &base;
        let mut spared = 0;
        for step in steps {
            let what = step.what;
            // The text before is memoized (a lookup, unless another thread's builds evicted it).
            YamlDoc::parse(before);
            let (got, w) = work(|| YamlDoc::parse(&step.text));
            same_as_built_whole(&got, &step.text, what);
            if step.walked == 0 {
                // The edit is outside the section's text (a comment before its first entry).
                assert_eq!(w, super::Work::default(), "{what}: the section looked up");
                before = &step.text;
                continue;
            }
            assert_eq!(
                (w.whole, w.edited),
                (0, 1),
                "{what}: built from the section before"
            );
            assert!(w.walked <= step.walked, "{what}: {} slots walked", w.walked);
            assert!(w.built <= step.built, "{what}: {} entries built", w.built);
            assert!(!got.deferred.is_empty());
            spared += w.spared;
            before = &step.text;
        }
        spared
    }

    /// `t` with the first `find` replaced by `by`.
    fn edit(t: &str, find: &str, by: &str) -> String {
        assert!(t.contains(find), "{find:?}");
        t.replacen(find, by, 1)
    }

    #[test]
    fn an_edited_section_walks_and_builds_only_the_entries_the_edit_touched() {
        let _sections = sections();
        for list in [false, true] {
            let head = |i: usize| {
                if list {
                    format!("  - id: in_{i}\n")
                } else {
                    format!("  in_{i}:\n")
                }
            };
            let base = format!("{}outputs: []\n", entries(320, list));
            let mut steps = Vec::new();
            let mut t = base.clone();
            let mut step = |what, text: String, walked, built| {
                steps.push(Step {
                    what,
                    text: text.clone(),
                    walked,
                    built,
                });
                text
            };
            t = step("typing", edit(&t, "input 160,", "input 160x,"), 1, 1);
            let at = head(161);
            let blank = format!("\n{at}");
            t = step(
                "a blank line between two entries",
                edit(&t, &at, &blank),
                1,
                1,
            );
            let comment = format!("\n  # about in_161\n{at}");
            t = step(
                "a comment between two entries",
                edit(&t, &blank, &comment),
                2,
                1,
            );
            t = step(
                "the comment edited",
                edit(&t, "# about in_161", "# about in_161!"),
                2,
                1,
            );
            t = step("the first entry", edit(&t, "input 0,", "input 0y,"), 1, 1);
            t = step(
                "the last entry",
                edit(&t, "input 319,", "input 319z,"),
                1,
                1,
            );
            let doc = "    doc: |\n      Text of input 200,";
            let split = format!("{}{doc}", head(1200));
            t = step("an entry split in two", edit(&t, doc, &split), 2, 2);
            // The second half takes the next entry's `type` and `doc` in: a repeated key
            // inside an entry, an error relative to it, moved with it by the steps below.
            t = step("two entries merged", edit(&t, &head(201), ""), 1, 1);
            // An entry's first line joined to the last line of the one before: the text
            // after the edit starts with that entry, but not on a line of its own.
            let joined = format!("on two lines.  {}", head(171).trim_start());
            t = step(
                "two lines joined",
                edit(&t, &format!("on two lines.\n{}", head(171)), &joined),
                1,
                1,
            );
            if !list {
                t = step(
                    "a key edited into a repeated one",
                    edit(&t, "  in_250:", "  in_249:"),
                    1,
                    0,
                );
                t = step(
                    "an edit while a key is repeated",
                    edit(&t, "input 100,", "input 100x,"),
                    1,
                    1,
                );
                t = step(
                    "a key edited into a repeated one again",
                    edit(&t, "  in_251:", "  in_249:"),
                    1,
                    0,
                );
                t = step(
                    "the second repeated key removed",
                    edit(
                        &t,
                        "  in_249:\n    type: string\n    doc: |\n      Text of input 251,",
                        "  in_251x:\n    type: string\n    doc: |\n      Text of input 251,",
                    ),
                    1,
                    0,
                );
                t = step(
                    "the repeated key edited away",
                    edit(
                        &t,
                        "  in_249:\n    type: string\n    doc: |\n      Text of input 250,",
                        "  in_250y:\n    type: string\n    doc: |\n      Text of input 250,",
                    ),
                    1,
                    0,
                );
                // An entry indented into the one before it.
                let entry = "  in_300:\n    type: string\n    doc: |\n      Text of input 300,\n      on two lines.\n";
                let indented = "    in_300:\n      type: string\n      doc: |\n        Text of input 300,\n        on two lines.\n";
                t = step("an entry indented", edit(&t, entry, indented), 1, 1);
            }
            // An entry indented into the block scalar of the one before it.
            let entry = format!(
                "{}    type: string\n    doc: |\n      Text of input 290,\n",
                head(290)
            );
            let indented = entry
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>();
            t = step(
                "an entry indented into a scalar",
                edit(&t, &entry, &indented),
                1,
                1,
            );
            // The block scalar keeps the blank lines after it: one typed after it changes
            // that entry (the entry before the blank line would take the prefix otherwise).
            let keep = "doc: |\n      Text of input 150,";
            t = step(
                "a kept block scalar",
                edit(&t, keep, "doc: |+\n      Text of input 150,"),
                1,
                1,
            );
            let at = head(151);
            t = step(
                "a blank line after a kept block scalar",
                edit(&t, &at, &format!("\n{at}")),
                1,
                1,
            );
            // The very start and end of the section.
            let first = head(0);
            let renamed = first.replace("in_0", "in_0a");
            // (A list item's `id` is in the entry.)
            let built = usize::from(list);
            t = step("the first key", edit(&t, &first, &renamed), 1, built);
            let added = format!("{}    type: int\n{renamed}", head(1000));
            t = step("an entry added first", edit(&t, &renamed, &added), 2, 1);
            let comment = format!("  # the first\n{}", head(1000));
            // A comment before the first entry is not in the section's text (walked 0: looked
            // up); one after the last is.
            t = step("a comment first", edit(&t, &head(1000), &comment), 0, 0);
            t = step(
                "the first comment edited",
                edit(&t, "# the first", "# the very first"),
                0,
                0,
            );
            t = step(
                "a comment last",
                edit(&t, "outputs: []", "  # the last\noutputs: []"),
                2,
                1,
            );
            t = step(
                "the last comment edited",
                edit(&t, "# the last", "# the very last"),
                2,
                1,
            );
            t = step(
                "a blank line after the last entry",
                edit(&t, "outputs: []", "\noutputs: []"),
                1,
                1,
            );
            let last = format!("{}    type: int\noutputs: []", head(1001));
            // The entry before it walked too (its read ran to the end of the section).
            t = step("an entry added last", edit(&t, "outputs: []", &last), 2, 1);
            let before_last = format!(
                "{}    type: string\n    doc: |\n      Text of input 319z,\n      on two lines.\n",
                head(319)
            );
            // The comment the removed entry held goes to the entry before it.
            step(
                "the entry before the last removed",
                edit(&t, &before_last, ""),
                1,
                1,
            );
            let spared = walks_only_the_change(base, &steps);
            assert!(spared > 0, "sections built in the buffers of dropped ones");
        }
    }

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "hints:\n  mcp:Tool:\n    name: x y\n";
        let doc = YamlDoc::parse(text);
        let root = doc.root.unwrap();
        let name = root
            .get("hints")
            .unwrap()
            .get("mcp:Tool")
            .unwrap()
            .entry("name")
            .unwrap();
        assert_eq!(&text[name.key.span.clone()], "name");
        assert_eq!(&text[name.value.span.clone()], "x y");
    }
}
