//! A parameters schema whose name → schema members (`properties`, `$defs`) are kept apart,
//! each entry a shared [`Part`] (issue 14): the Tool of a 50,000-line tool is held as a
//! skeleton plus one part per input, and the parts of the inputs an edit did not touch are
//! the same values as in the version before (the renderers keep each rendered part with the
//! input's memo). The whole schema is assembled only when a surface asks for it (`derive`,
//! `tools-list`, the preview); what the diagnostics read (validation, client constructs, the
//! Tool's size) is computed per part.
use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// One entry of a parted member: a schema, and what the layers above computed from it (one
/// value per type, [`Part::note`]).
#[derive(Debug)]
pub struct Part {
    form: Form,
    notes: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

/// How a part holds its schema.
#[derive(Debug)]
enum Form {
    /// As rendered, with its size as compact JSON once measured: a part no memo keeps (it
    /// lives as long as its version's derivation, which reads it at once).
    Value(Value, OnceLock<usize>),
    /// As compact JSON text: a part kept with its input's memo. As values, the 2,800 input
    /// schemas of a 50,000-line tool held 5.5 MB (a map entry is over 100 bytes beside its
    /// key and value); as text, about a third of that (issue 14, decisions.md). Parsed when a
    /// surface assembles the whole schema and when a note is first computed.
    Text(Box<str>),
}

impl Part {
    /// A part that lives with its version's derivation only.
    pub fn new(value: Value) -> Arc<Part> {
        Part::of(Form::Value(value, OnceLock::new()))
    }

    /// A renderer's part: [`Part::kept`] when an input's memo keeps it (`kept`), else
    /// [`Part::new`].
    pub fn rendered(value: Value, kept: bool) -> Arc<Part> {
        if kept {
            Part::kept(value)
        } else {
            Part::new(value)
        }
    }

    /// A part that a memo keeps (held as compact JSON text, [`Form::Text`]).
    pub fn kept(value: Value) -> Arc<Part> {
        // A `Value` always serializes (its keys are strings); `null` stands in otherwise.
        let json =
            serde_json::to_string(&value).map_or_else(|_| "null".into(), String::into_boxed_str);
        Part::of(Form::Text(json))
    }

    fn of(form: Form) -> Arc<Part> {
        Arc::new(Part {
            form,
            notes: Mutex::new(Vec::new()),
        })
    }

    /// `f` of the schema (parsed from its text if kept as text: `float_roundtrip` reads the
    /// numbers it was made with).
    fn with_value<R>(&self, f: impl FnOnce(&Value) -> R) -> R {
        match &self.form {
            Form::Value(value, _) => f(value),
            Form::Text(json) => f(&parsed(json)),
        }
    }

    /// The schema.
    pub fn value(&self) -> Value {
        match &self.form {
            Form::Value(value, _) => value.clone(),
            Form::Text(json) => parsed(json),
        }
    }

    /// The value of type `T` computed from this part, computed by `f` on first read.
    pub fn note<T: Any + Send + Sync>(&self, f: impl FnOnce(&Value) -> T) -> Arc<T> {
        self.noted(|| self.with_value(f))
    }

    /// The value of type `T` noted on this part, made by `f` on first read (outside the
    /// lock: `f` may parse the part).
    fn noted<T: Any + Send + Sync>(&self, f: impl FnOnce() -> T) -> Arc<T> {
        if let Some(found) = crate::base::held_of::<T>(&self.held()) {
            return found;
        }
        let made = Arc::new(f());
        let mut notes = self.held();
        if let Some(found) = crate::base::held_of::<T>(&notes) {
            return found;
        }
        notes.push(made.clone());
        made
    }

    /// Whether the schema passes the check named `check` (a stable address, such as a
    /// compiled validator's), judged by `judge`: validation asks it of every part on every
    /// keystroke that derives the schemas. A kept part keeps its verdicts (it is asked again
    /// by the versions after); a part no memo keeps is judged at once (it is asked once).
    pub fn passes(&self, check: usize, judge: impl FnOnce(&Value) -> bool) -> bool {
        /// The verdicts of this part, by check.
        #[derive(Default)]
        struct Verdicts(Mutex<Vec<(usize, bool)>>);
        if let Form::Value(value, _) = &self.form {
            return judge(value);
        }
        let verdicts = self.noted(Verdicts::default);
        let mut held = verdicts.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, ok)) = held.iter().find(|(c, _)| *c == check) {
            return *ok;
        }
        let ok = self.with_value(judge);
        held.push((check, ok));
        ok
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Vec<Arc<dyn Any + Send + Sync>>> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Its size as compact JSON.
    pub fn bytes(&self) -> usize {
        match &self.form {
            Form::Value(value, bytes) => {
                *bytes.get_or_init(|| serde_json::to_string(value).map_or(0, |t| t.len()))
            }
            Form::Text(json) => json.len(),
        }
    }
}

/// A kept part's schema, read from its text (`null` if it cannot be: never, as it was
/// written from a value).
fn parsed(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

/// The entries of one parted member, in order (a repeated name keeps its first place and its
/// last value, as a JSON object's insert does).
///
/// Hashed with foldhash: a large `inputs` inserts every name on every keystroke.
pub type Entries = IndexMap<String, Arc<Part>, foldhash::fast::RandomState>;

/// A schema with some members held apart.
#[derive(Clone, Debug)]
pub struct Parted {
    /// The schema, each parted member in its place as an empty object.
    pub skeleton: Value,
    /// The parted members, by key.
    pub members: Vec<(&'static str, Entries)>,
}

impl Parted {
    /// A schema with nothing held apart.
    pub fn whole(value: Value) -> Parted {
        Parted {
            skeleton: value,
            members: Vec::new(),
        }
    }

    /// The whole schema (the parts copied).
    pub fn assembled(&self) -> Value {
        let mut out = self.skeleton.clone();
        for (key, entries) in &self.members {
            let filled: Map<String, Value> = entries
                .iter()
                .map(|(name, part)| (name.clone(), part.value()))
                .collect();
            if let Some(slot) = out.get_mut(*key) {
                *slot = Value::Object(filled);
            }
        }
        out
    }

    /// The whole schema, taking the parts nothing else holds.
    pub fn into_value(self) -> Value {
        let mut out = self.skeleton;
        for (key, entries) in self.members {
            let filled: Map<String, Value> = entries
                .into_iter()
                .map(|(name, part)| (name, part.value()))
                .collect();
            if let Some(slot) = out.get_mut(key) {
                *slot = Value::Object(filled);
            }
        }
        out
    }

    /// Every part: (member key, name, part).
    pub fn parts(&self) -> impl Iterator<Item = (&'static str, &str, &Arc<Part>)> {
        self.members.iter().flat_map(|(key, entries)| {
            entries
                .iter()
                .map(move |(name, part)| (*key, name.as_str(), part))
        })
    }

    /// The whole schema's size as compact JSON, from the skeleton's and each part's.
    pub fn bytes(&self) -> usize {
        let mut n = serde_json::to_string(&self.skeleton).map_or(0, |t| t.len());
        for (_, entries) in &self.members {
            for (i, (name, part)) in entries.iter().enumerate() {
                let key = serde_json::to_string(name).map_or(0, |t| t.len());
                n += usize::from(i > 0) + key + 1 + part.bytes();
            }
        }
        n
    }
}

/// The Tool fields that hold schemas, in the order a derivation writes them.
pub const SCHEMA_FIELDS: [&str; 2] = ["inputSchema", "outputSchema"];

/// A Tool's two schemas, parted.
#[derive(Clone, Debug, Default)]
pub struct ToolSchemas {
    pub input: Option<Parted>,
    pub output: Option<Parted>,
}

impl ToolSchemas {
    /// The parted schema of Tool field `name`.
    pub fn field(&self, name: &str) -> Option<&Parted> {
        match name {
            "inputSchema" => self.input.as_ref(),
            "outputSchema" => self.output.as_ref(),
            _ => None,
        }
    }

    /// Both, by field name.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &Parted)> {
        SCHEMA_FIELDS
            .into_iter()
            .zip([&self.input, &self.output])
            .filter_map(|(f, s)| Some((f, s.as_ref()?)))
    }

    /// Puts `schemas` into a header Tool (one without schema fields) where a derivation writes
    /// them: after `name`, `title`, `description`, before `annotations` and `_meta`.
    pub fn place(tool: &mut Map<String, Value>, schemas: [Option<Value>; 2]) {
        for (field, schema) in SCHEMA_FIELDS.into_iter().zip(schemas) {
            if let Some(s) = schema {
                tool.insert(field.into(), s);
            }
        }
        for field in SCHEMA_FIELDS.into_iter().chain(["annotations", "_meta"]) {
            if let Some(v) = tool.shift_remove(field) {
                tool.insert(field.into(), v);
            }
        }
    }

    /// The whole schemas put into a header Tool ([`ToolSchemas::place`]), copied.
    pub fn insert_into(&self, tool: &mut Map<String, Value>) {
        let whole = [&self.input, &self.output].map(|s| s.as_ref().map(Parted::assembled));
        Self::place(tool, whole);
    }

    /// The whole schemas put into a header Tool, moved.
    pub fn move_into(self, tool: &mut Map<String, Value>) {
        Self::place(
            tool,
            [self.input, self.output].map(|s| s.map(Parted::into_value)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parted() -> Parted {
        let mut props = Entries::default();
        props.insert("a".into(), Part::new(json!({"type": "string"})));
        props.insert(
            "b\"q".into(),
            Part::kept(json!({"type": "integer", "default": 3})),
        );
        props.insert("a".into(), Part::new(json!({"type": "number"})));
        Parted {
            skeleton: json!({"type": "object", "properties": {}, "required": ["a"]}),
            members: vec![("properties", props)],
        }
    }

    #[test]
    fn assembling_fills_each_member_in_place_and_sizes_agree() {
        let p = parted();
        let whole = p.assembled();
        assert_eq!(
            whole,
            json!({"type": "object", "properties": {"a": {"type": "number"},
                "b\"q": {"type": "integer", "default": 3}}, "required": ["a"]})
        );
        let keys: Vec<&String> = whole["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b\"q"]);
        assert_eq!(p.bytes(), serde_json::to_string(&whole).unwrap().len());
        assert_eq!(p.clone().into_value(), whole);
        let empty = Parted {
            skeleton: json!({"properties": {}}),
            members: vec![("properties", Entries::default())],
        };
        assert_eq!(
            empty.bytes(),
            serde_json::to_string(&empty.assembled()).unwrap().len()
        );
    }

    /// A part kept as text reads back the value it was made with, key order, every number
    /// and escaped text included, as one kept as a value does.
    #[test]
    fn a_part_reads_back_the_value_it_was_made_with() {
        let value = json!({
            "z": 0.1, "a": [1e-7, 12345.678901234567, 2.2250738585072014e-308, 1.7976931348623157e308],
            "m": {"u": u64::MAX, "i": i64::MIN, "neg": -0.5, "zero": 0},
            "s": "quote \" backslash \\ tab \t nul \u{0} é 😀",
            "e": {}, "l": [], "n": null, "b": false
        });
        for part in [Part::new(value.clone()), Part::kept(value.clone())] {
            assert_eq!(part.value(), value);
            let keys: Vec<String> = part.value().as_object().unwrap().keys().cloned().collect();
            assert_eq!(keys, ["z", "a", "m", "s", "e", "l", "n", "b"]);
            assert_eq!(part.bytes(), serde_json::to_string(&value).unwrap().len());
            assert_eq!(*part.note(|v| v["s"].clone()), value["s"]);
        }
        for x in [0.1f64, 1.0 / 3.0, 5e-324, 123456789.98765433, -2.5e17] {
            assert_eq!(Part::kept(json!(x)).value().as_f64(), Some(x), "{x}");
        }
        // Finite doubles from their bits (xorshift): each reads back exactly (serde_json
        // promises it with `float_roundtrip`; its default parsing is "best effort").
        let mut bits = 0x9E37_79B9_7F4A_7C15_u64;
        let mut n = 0;
        while n < 20_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            let x = f64::from_bits(bits);
            if x.is_finite() {
                n += 1;
                assert_eq!(Part::kept(json!(x)).value().as_f64(), Some(x), "{x:e}");
            }
        }
    }

    /// A check's verdict is judged once per part, each check apart.
    #[test]
    fn a_verdict_is_judged_once_per_check() {
        let part = Part::kept(json!({"type": "string"}));
        let judged = std::cell::Cell::new(0);
        let judge = |ok: bool| {
            let judged = &judged;
            move |v: &Value| {
                judged.set(judged.get() + 1);
                assert_eq!(v["type"], "string");
                ok
            }
        };
        assert!(part.passes(1, judge(true)));
        assert!(part.passes(1, judge(false)), "kept");
        assert!(!part.passes(2, judge(false)));
        assert!(!part.passes(2, judge(true)), "kept");
        assert_eq!(judged.get(), 2);
    }

    #[test]
    fn schemas_are_placed_before_annotations_and_meta() {
        let mut tool = json!({"name": "n", "annotations": {}, "_meta": {}, "title": "t"})
            .as_object()
            .unwrap()
            .clone();
        let schemas = ToolSchemas {
            input: Some(parted()),
            output: None,
        };
        schemas.insert_into(&mut tool);
        let keys: Vec<&String> = tool.keys().collect();
        assert_eq!(
            keys,
            ["name", "title", "inputSchema", "annotations", "_meta"]
        );
    }
}
