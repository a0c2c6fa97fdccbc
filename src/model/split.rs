//! Derivation of a root process whose large `inputs` is deferred entry by entry (issue 14):
//! from the process's JSON without `inputs` and each input's own memoized JSON, each input's
//! schema rendered once per input text and surroundings ([`ParamMemo`], kept with the input's
//! memo). Typing in one input of a 50,000-line tool renders that input's schema; the others
//! are taken as they were. The result is the derivation from the whole document's JSON
//! (`tests/incremental_sites.rs` compares the two at every benchmark site); documents this
//! path does not cover return `None` and take that one.
use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::cwl::Process;
use crate::derive::view::{Location, derive_process_parted};
use crate::derive::{
    Derivation, DeriveOptions, GivenInputs, Listed, ParamMemo, ToolSchemas, item_id,
    params_of_entries,
};
use crate::document::yaml::memo::Memo;
use crate::document::yaml::{Kind, Node, Resolved};
use crate::hint::values::HintValues;

use super::Model;

/// An input's rendered schemas, by surroundings, kept with its memoized text.
struct Rendered(Mutex<Vec<(String, Arc<dyn Any + Send + Sync>)>>);

/// How many surroundings (settings, what rendering reads outside the inputs:
/// `TypeEnv::identity`, renderer pass) an input keeps: the current and the one before (an
/// edit in a type definition or in `$namespaces` makes new surroundings, and each kept set is
/// one copy of every input's schema; edits elsewhere outside `inputs` keep them).
const KEPT: usize = 2;

impl Memo {
    fn rendered(&self) -> Option<Arc<Rendered>> {
        let held = self.derived.lock().unwrap_or_else(|p| p.into_inner());
        crate::base::held_of::<Rendered>(&held)
    }
}

impl ParamMemo for Memo {
    fn get(&self, key: &str) -> Option<Arc<dyn Any + Send + Sync>> {
        let rendered = self.rendered()?;
        let held = rendered.0.lock().unwrap_or_else(|p| p.into_inner());
        held.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    fn put(&self, key: String, value: Arc<dyn Any + Send + Sync>) {
        let rendered = self.rendered().unwrap_or_else(|| {
            let mut held = self.derived.lock().unwrap_or_else(|p| p.into_inner());
            let made = Arc::new(Rendered(Mutex::new(Vec::new())));
            held.push(made.clone());
            made
        });
        let mut held = rendered.0.lock().unwrap_or_else(|p| p.into_inner());
        held.retain(|(k, _)| *k != key);
        held.insert(0, (key, value));
        held.truncate(KEPT);
    }
}

/// Whether the document names `$import` or `$include` outside a deferred `inputs` (anywhere,
/// when `inputs` is not deferred). Their targets are read from the whole document (a
/// `#fragment` may name a node inside `inputs`) or from files, so such a document's Tools are
/// derived from the whole document's JSON, not from parts of it (the header without
/// `inputs`, read per version when the inputs' schemas are memoized). [`derive`] checks the
/// deferred entries themselves (each once per content) and their keys.
pub(super) fn names_directives_around_inputs(model: &Model, process: &Process) -> bool {
    let yaml = model.yaml();
    let Some(text) = yaml.text() else {
        return true;
    };
    let Some(part) = process.inputs_node.and_then(|n| yaml.deferred_part(n)) else {
        return names_a_directive(text);
    };
    // The entries' memo texts cover the section's span from its first line's start: a
    // directive across either end of it lies whole in an entry or outside.
    let (start, end) = (
        part.span.start.min(text.len()),
        part.span.end.min(text.len()),
    );
    names_a_directive(&text[..start]) || names_a_directive(&text[end..])
}

/// Whether `text` names `$import` or `$include` (one pass over it, with nothing to set up:
/// it is asked of every key of a large `inputs` on every keystroke).
fn names_a_directive(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'$', bytes).any(|i| {
        let rest = &bytes[i + 1..];
        rest.starts_with(b"import") || rest.starts_with(b"include")
    })
}

/// How many values the inputs may hold in all before the whole document's JSON (with its
/// own budget) is left to decide.
const MAX_VALUES: usize = 1_000_000;

/// The derivation of a root process from its deferred inputs' entries; `None` when the
/// document is not such a case: `inputs` not deferred entry by entry, repeated keys in it,
/// an entry that is not a plain value with a JSON form, or `$import` / `$include` in an entry
/// or a key (the caller has checked the rest of the document:
/// [`names_directives_around_inputs`]).
pub(super) fn derive(
    model: &Model,
    process: &Process,
    hint: Option<&HintValues>,
    location: Location,
    opts: &DeriveOptions,
    settings: &str,
) -> Option<(Derivation, ToolSchemas)> {
    let yaml = model.yaml();
    let inputs = process.inputs_node?;
    let part = yaml.deferred_part(inputs)?;
    let section = part.memo();
    if section.view.deferred.is_empty() || !section.errors.is_empty() {
        return None;
    }
    /// Whether an entry's JSON nests deeper than an input may, whether its text names a
    /// directive, and its `id` as a list's item ([`item_id`], read for a mapping's entries too:
    /// what a memo of an entry's content holds does not depend on the section holding it),
    /// read once per entry content (and listed once per section content).
    #[derive(Clone)]
    struct Facts {
        deep: bool,
        directive: bool,
        id: Option<Arc<str>>,
    }
    let facts = part.entries_derived(|entry| {
        (*entry.derived(|_, _| {
            let memo = entry.memo();
            let json = memo.json().map(|(json, _)| json);
            Facts {
                deep: json.is_some_and(|json| crate::derive::nests_too_deep(json, 2)),
                directive: names_a_directive(&memo.text),
                id: json.and_then(item_id).map(Arc::from),
            }
        }))
        .clone()
    });
    let mut values = 0;
    let mut entry = |node: &Node| -> Option<(&serde_json::Value, &dyn ParamMemo, &Facts)> {
        let Kind::Deferred(j) = node.kind else {
            return None;
        };
        let memo = section.view.deferred.get(j)?.memo();
        let (json, nodes) = memo.json()?;
        values += 1 + nodes;
        let facts = facts.get(j)?;
        (values <= MAX_VALUES && !facts.deep && !facts.directive).then_some((
            json,
            &**memo as &dyn ParamMemo,
            facts,
        ))
    };
    let mut entries = Vec::new();
    match &section.node.kind {
        Kind::Map { pairs, .. } => {
            for pair in pairs {
                let Some(Resolved::Str(key)) = pair.key.resolve() else {
                    return None;
                };
                if names_a_directive(key) {
                    return None;
                }
                let (json, memo, _) = entry(&pair.value)?;
                entries.push((Listed::Key(key), json, Some(memo)));
            }
        }
        Kind::Seq { items, .. } => {
            for item in items {
                let (json, memo, facts) = entry(item)?;
                entries.push((Listed::Item(facts.id.as_deref()), json, Some(memo)));
            }
        }
        _ => return None,
    }
    let params = params_of_entries(&entries, "inputs");
    let holder: crate::derive::Holder =
        Arc::downgrade(&(section.clone() as Arc<dyn Any + Send + Sync>));
    let header = process.node.to_json_without(yaml, &["inputs"])?;
    Some(derive_process_parted(
        &header,
        process,
        hint,
        &model.context,
        location,
        opts,
        Some(GivenInputs {
            params: &params,
            settings,
            holder: &holder,
        }),
    ))
}
