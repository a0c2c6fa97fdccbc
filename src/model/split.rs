//! Derivation of a root process whose large `inputs` is deferred entry by entry (issue 14):
//! from the process's JSON without `inputs` and each input's own memoized JSON, each input's
//! schema rendered once per input text and surroundings ([`ParamMemo`], kept with the input's
//! memo). Typing in one input of a 50,000-line tool renders that input's schema; the others
//! are taken as they were. The result is the derivation from the whole document's JSON
//! (`tests/incremental_sites.rs` compares the two at every benchmark site); documents this
//! path does not cover return `None` and take that one.
use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::base::text_hash;
use crate::cwl::Process;
use crate::derive::view::{Location, derive_process_parted};
use crate::derive::{
    Body, Derivation, DeriveOptions, GivenInputs, Listed, ParamMemo, ToolSchemas, item_id,
    params_of_entries,
};
use crate::document::yaml::memo::Memo;
use crate::document::yaml::{Kind, Node, Pair, Resolved};
use crate::hint::values::HintValues;

use super::Model;

/// An input's rendered schemas, by surroundings, kept with its memoized text. Each is keyed by
/// its renderer key's hash ([`text_hash`], trusted as the key):
/// the key begins with the surroundings, the same long text for every input, and a copy of it
/// in each of a 50,000-line tool's 2,800 inputs was 0.6 MB (issue 14).
struct Rendered(Mutex<Vec<(u128, Arc<dyn Any + Send + Sync>)>>);

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
        let key = text_hash(key);
        let held = rendered.0.lock().unwrap_or_else(|p| p.into_inner());
        held.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    }

    fn body(&self) -> Option<serde_json::Value> {
        self.to_json().map(|(json, _)| json)
    }

    fn put(&self, key: String, value: Arc<dyn Any + Send + Sync>) {
        let rendered = self.rendered().unwrap_or_else(|| {
            let mut held = self.derived.lock().unwrap_or_else(|p| p.into_inner());
            let made = Arc::new(Rendered(Mutex::new(Vec::new())));
            held.push(made.clone());
            made
        });
        let key = text_hash(&key);
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

#[cfg(test)]
thread_local! {
    /// How many root processes of this thread took the whole document's derivation after this
    /// path declined them ([`derive`] returned `None`).
    pub(super) static WHOLE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many values the inputs may hold in all before the whole document's JSON (with its
/// own budget) is left to decide.
const MAX_VALUES: usize = 1_000_000;

/// The derivation of a root process from its deferred inputs' entries; `None` when the
/// document is not such a case: `inputs` not deferred entry by entry, repeated keys in it,
/// an entry that is neither deferred with a JSON form nor a scalar, or `$import` /
/// `$include` in an entry or a key (the caller has checked the rest of the document:
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
    /// Of an entry's JSON: how many values it holds (`None`: it cannot be built), whether it
    /// nests deeper than an input may, whether its `default` names a file
    /// ([`crate::derive::names_a_file`]), its `id` as a list's item ([`item_id`], read for a
    /// mapping's entries too: what a memo of an entry's content holds does not depend on the
    /// section holding it); and whether its text names a directive. Read once per entry
    /// content (and listed once per section content): the JSON itself is not kept.
    #[derive(Clone)]
    struct Facts {
        nodes: Option<usize>,
        deep: bool,
        file_default: bool,
        directive: bool,
        id: Option<Arc<str>>,
    }
    // An entry's memo keeps its text's hash alone: a text holding a `$` is read in the
    // document, where the entry is in this version (a value of a settled text's `T'`,
    // blanked in places, is read in the text itself: the same bytes but where `T'` has
    // spaces, so a directive in `T'` is found there too).
    let text = yaml.text();
    let at = part.offset();
    // The JSON built for an entry's facts, by its memo's address: the body its schema is
    // rendered from in this derivation, if it is (an entry new to the memos), not built twice.
    let built = std::cell::RefCell::new(std::collections::HashMap::new());
    let facts = part.entries_derived(|entry| {
        (*entry.derived(|_, _| {
            let memo = entry.memo();
            let json = memo.to_json();
            let directive = memo.text.may_hold_dollar()
                && match memo.text.text() {
                    Some(own) => names_a_directive(&own),
                    None => text
                        .and_then(|t| t.get(at + entry.span.start..at + entry.span.end))
                        .is_none_or(names_a_directive),
                };
            let facts = Facts {
                nodes: json.as_ref().map(|(_, nodes)| *nodes),
                deep: json
                    .as_ref()
                    .is_some_and(|(json, _)| crate::derive::nests_too_deep(json, 2)),
                file_default: json
                    .as_ref()
                    .is_some_and(|(json, _)| crate::derive::names_a_file(json)),
                directive,
                id: json
                    .as_ref()
                    .and_then(|(json, _)| item_id(json))
                    .map(Arc::from),
            };
            if let Some((json, _)) = json {
                built.borrow_mut().insert(Arc::as_ptr(memo) as usize, json);
            }
            facts
        }))
        .clone()
    });
    let mut built = built.into_inner();
    // The section's entries in order: each pair's key and value, or each item of a list.
    let (pairs, items): (&[Pair], &[Node]) = match &section.node.kind {
        Kind::Map { pairs, .. } => (pairs, &[]),
        Kind::Seq { items, .. } => (&[], items),
        _ => return None,
    };
    let listed =
        || (pairs.iter().map(|p| (Some(&p.key), &p.value))).chain(items.iter().map(|n| (None, n)));
    // An entry built in place, not deferred, is a scalar: an empty value (an input being
    // named, or the blanked entry of a settled broken text, which took the whole document's
    // derivation: every input rendered again, 2,800 at 50,000 lines, and the document's
    // JSON kept by that version) or a type written as the value. Its JSON is made here, the
    // same conversion as the whole document's, and its schema is rendered without a memo; any
    // other in-place entry leaves the derivation to the whole document's JSON.
    let scalars: Vec<Option<serde_json::Value>> = listed()
        .filter(|(_, node)| matches!(node.kind, Kind::Scalar { .. }))
        .map(|(_, node)| node.to_json(&section.view, &mut 1))
        .collect();
    let mut scalars = scalars.iter();
    let mut values = 0;
    // Where each deferred entry's body is built if a renderer reads it, for this derivation.
    let bodies: Vec<std::sync::OnceLock<serde_json::Value>> = (0..pairs.len() + items.len())
        .map(|_| std::sync::OnceLock::new())
        .collect();
    let mut bodies = bodies.iter();
    let mut entries = Vec::with_capacity(pairs.len() + items.len());
    for (key, node) in listed() {
        let key = match key {
            Some(key) => {
                let Some(Resolved::Str(key)) = key.resolve() else {
                    return None;
                };
                if names_a_directive(key) {
                    return None;
                }
                Some(key)
            }
            None => None,
        };
        let cell = bodies.next()?;
        let (body, memo, id) = match node.kind {
            Kind::Deferred(j) => {
                let memo = section.view.deferred.get(j)?.memo();
                let facts = facts.get(j)?;
                values += 1 + facts.nodes?;
                if facts.deep || facts.directive {
                    return None;
                }
                if let Some(json) = built.remove(&(Arc::as_ptr(memo) as usize)) {
                    let _ = cell.set(json);
                }
                let memo = &**memo as &dyn ParamMemo;
                let body = Body::Lazy {
                    cell,
                    memo,
                    file_default: facts.file_default,
                };
                (body, Some(memo), facts.id.as_deref())
            }
            // A scalar names no `$import` or `$include` (those are mapping keys).
            Kind::Scalar { .. } => {
                values += 1;
                let json = scalars.next()?.as_ref()?;
                (Body::Given(json), None, item_id(json))
            }
            _ => return None,
        };
        if values > MAX_VALUES {
            return None;
        }
        let listed = match key {
            Some(key) => Listed::Key(key),
            None => Listed::Item(id),
        };
        entries.push((listed, body, memo));
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

#[cfg(test)]
mod tests {
    use super::WHOLE;
    use crate::base::{DocumentContext, Settings};
    use crate::document::yaml::memo;
    use crate::document::{Change, Document, Encoding, LineIndex};
    use crate::model::Model;

    /// The derived Tools and diagnostics of a model, as text.
    fn seen(model: &Model) -> String {
        let tools: Vec<String> = model
            .entries()
            .map(|e| format!("{:?} {:?}", e.to_derivation(), model.current_tool(e)))
            .collect();
        format!("{:?}\n{}", model.diagnostics(), tools.join("\n"))
    }

    /// An input without a value (being named, or the blanked entry of a text broken inside
    /// it) is a scalar among the deferred entries: the inputs' schemas are still taken from
    /// their memos, only that input is rendered, and the Tool is the one derived from the
    /// whole document with every memo off. Before, such an entry sent the derivation to the
    /// whole document's JSON: every keystroke typed in a broken input of a 50,000-line tool
    /// rendered all 2,800 inputs again (27 ms).
    #[test]
    fn an_input_without_a_value_keeps_the_others_memoized() {
        let mut text =
            String::from("cwlVersion: v1.2\nclass: CommandLineTool\nbaseCommand: echo\ninputs:\n");
        for i in 0..300 {
            text.push_str(&format!(
                "  in_{i}:\n    type: string\n    label: Input {i}.\n    doc: The {i}th input.\n"
            ));
        }
        text.push_str("outputs: {}\n");
        let settings = Settings::default();
        let context = DocumentContext::from_uri("file:///w/split.cwl");
        let mut doc = Document::new(text.clone(), 1);
        let _ = Model::new(doc.snapshot(), settings.clone(), context.clone());
        let broken_line = text
            .find("    type: string\n    label: Input 150.")
            .unwrap();
        let typed_at = text.find("doc: The 150th").unwrap() + "doc: The".len();
        // (byte, inserted, whether the YAML is broken after it), applied in order.
        let edits = [
            (text.find("  in_7:").unwrap(), "  in_new:\n", false),
            (broken_line + "  in_new:\n".len(), " ", true),
            (typed_at + "  in_new:\n".len() + 1, "a", true),
            (typed_at + "  in_new:\n".len() + 2, "b", true),
        ];
        let mut version = 1;
        for (at, new, broken) in edits {
            let pos = LineIndex::from_text(doc.text()).position(at, Encoding::Utf16);
            version += 1;
            let change = Change {
                range: Some((pos, pos)),
                text: new.into(),
            };
            doc.apply_changes(&[change], version, Encoding::Utf16)
                .unwrap();
            text.insert_str(at, new);
            assert_eq!(doc.text(), text);
            let before = WHOLE.with(|n| n.get());
            let model = Model::new(doc.snapshot(), settings.clone(), context.clone());
            let got = seen(&model);
            assert_eq!(model.syntax_broken(), broken, "{new:?}");
            assert_eq!(WHOLE.with(|n| n.get()), before, "{new:?}: the split path");
            let want = memo::unmemoized(|| {
                seen(&Model::of_text(&text, settings.clone(), context.clone()))
            });
            assert_eq!(got, want, "{new:?}");
            assert!(got.contains("in_new") || broken, "{new:?}");
        }
    }

    /// An entry's memo keeps only its text's hash and whether the text holds a `$`: an input
    /// naming `$include` is read in the document and sends the derivation to the whole
    /// document's JSON (which resolves it), one whose text merely holds a `$` stays on the
    /// split path; both give the Tool derived with every memo off.
    #[test]
    fn an_input_naming_a_directive_is_found_without_its_text_in_the_memo() {
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id());
        let settings = Settings::default();
        let context = DocumentContext::from_uri("file:///w/directive.cwl");
        for (doc_42, whole) in [
            ("Costs $5 per run.", false),
            ("{$include: doc.md}", true),
            ("Costs $ 5, see $imports.", true),
        ] {
            let mut text = String::from(
                "cwlVersion: v1.2\nclass: CommandLineTool\nbaseCommand: echo\ninputs:\n",
            );
            for i in 0..300 {
                let doc = if i == 42 {
                    doc_42.to_string()
                } else {
                    format!("The {i}th input of {tag}.")
                };
                text.push_str(&format!("  in_{i}:\n    type: string\n    doc: {doc}\n"));
            }
            text.push_str("outputs: {}\n");
            let before = WHOLE.with(|n| n.get());
            let model = Model::of_text(&text, settings.clone(), context.clone());
            let got = seen(&model);
            assert_eq!(WHOLE.with(|n| n.get()) > before, whole, "{doc_42}");
            let want = memo::unmemoized(|| {
                seen(&Model::of_text(&text, settings.clone(), context.clone()))
            });
            assert_eq!(got, want, "{doc_42}");
        }
    }

    /// Under `cwl2mcp` every derivation looks for defaults naming an existing file in every
    /// input. A memoized input's JSON form is not kept (its body is built only if its schema
    /// is rendered): whether its default may name a file is kept with its facts instead. The
    /// input whose default names an existing file is reported when the model is built from
    /// scratch and after an edit in another input (its memo found, its body never built), at
    /// its place, as with every memo off.
    #[test]
    fn a_file_default_is_found_in_a_memoized_input_without_its_json() {
        use crate::base::diagnostic::Code;
        use crate::base::settings::Profile;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let context = DocumentContext::from_path(&dir.join("file-default.cwl")).within(Some(dir));
        let settings = Settings {
            profile: Profile::Cwl2mcp,
            ..Settings::default()
        };
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id());
        let mut text = String::from(
            "cwlVersion: v1.2\nclass: CommandLineTool\nid: many\nbaseCommand: echo\ninputs:\n",
        );
        for i in 0..300 {
            let default = match i {
                40 => "    default: {class: File, location: echo-region.cwl}\n".to_string(),
                41 => "    default: [{class: File, path: no-such-file.txt}]\n".to_string(),
                _ => format!("    default: {i}\n"),
            };
            text.push_str(&format!(
                "  in_{i}:\n    type: Any\n    doc: The {i}th input of {tag}.\n{default}"
            ));
        }
        text.push_str("outputs: {}\n");
        let found = |model: &Model| -> Vec<(String, String)> {
            model
                .diagnostics()
                .iter()
                .filter(|d| d.code == Code::DefaultFileObject)
                .map(|d| {
                    (
                        model.snapshot.text[d.span.clone()].to_string(),
                        d.message.clone(),
                    )
                })
                .collect()
        };
        let mut doc = Document::new(text.clone(), 1);
        let before = WHOLE.with(|n| n.get());
        let model = Model::new(doc.snapshot(), settings.clone(), context.clone());
        let got = (found(&model), seen(&model));
        assert_eq!(got.0.len(), 1, "{:?}", got.0);
        assert_eq!(got.0[0].0, "default");
        assert!(got.0[0].1.contains("echo-region.cwl"), "{:?}", got.0);
        let want = memo::unmemoized(|| {
            let model = Model::of_text(&text, settings.clone(), context.clone());
            (found(&model), seen(&model))
        });
        assert_eq!(got, want);
        // Typed in another input's `doc`: only that input's schema is rendered.
        let at = text.find(&format!("The 200th input of {tag}.")).unwrap() + "The 200th".len();
        let pos = LineIndex::from_text(doc.text()).position(at, Encoding::Utf16);
        doc.apply_changes(
            &[Change {
                range: Some((pos, pos)),
                text: "x".into(),
            }],
            2,
            Encoding::Utf16,
        )
        .unwrap();
        text.insert(at, 'x');
        let model = Model::new(doc.snapshot(), settings.clone(), context.clone());
        let got = (found(&model), seen(&model));
        assert_eq!(WHOLE.with(|n| n.get()), before, "the split path");
        let want = memo::unmemoized(|| {
            let model = Model::of_text(&text, settings.clone(), context.clone());
            (found(&model), seen(&model))
        });
        assert_eq!(got, want);
        assert_eq!(got.0.len(), 1, "{:?}", got.0);
    }
}
