//! A parameters schema whose name → schema members (`properties`, `$defs`) are kept apart,
//! each entry a shared [`Part`] (issue 14): the Tool of a 50,000-line tool is held as a
//! skeleton plus one part per input, and the parts of the inputs an edit did not touch are
//! the same values as in the version before (the renderers keep each rendered part with the
//! input's memo). The whole schema is assembled only when a surface asks for it (`derive`,
//! `tools-list`, the preview); what the diagnostics read (validation, client constructs, the
//! Tool's size) is computed per part.
use std::any::Any;
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// One entry of a parted member: a schema, and what the layers above computed from it
/// (one value per type, [`Part::note`]).
#[derive(Debug)]
pub struct Part {
    pub value: Value,
    notes: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
    /// [`Part::bytes`], kept beside the value: read for every part on every keystroke (the
    /// Tool's size), where a note costs a lock and an `Arc` per read.
    bytes: std::sync::OnceLock<usize>,
}

impl Part {
    pub fn new(value: Value) -> Arc<Part> {
        Arc::new(Part {
            value: compacted(value),
            notes: Mutex::new(Vec::new()),
            bytes: std::sync::OnceLock::new(),
        })
    }

    /// The value of type `T` computed from this part, computed by `f` on first read.
    pub fn note<T: Any + Send + Sync>(&self, f: impl FnOnce(&Value) -> T) -> Arc<T> {
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = crate::base::held_of::<T>(&notes) {
            return found;
        }
        let made = Arc::new(f(&self.value));
        notes.push(made.clone());
        made
    }

    /// Its size as compact JSON, read once.
    pub fn bytes(&self) -> usize {
        *self
            .bytes
            .get_or_init(|| serde_json::to_string(&self.value).map_or(0, |t| t.len()))
    }
}

/// `value` with each of its maps and lists holding no more room than its entries: a part is
/// kept with its input's memo for as long as the input is unchanged, and a map grown by
/// inserts (or built by `json!`) has room for up to twice its entries (1.2 MB of the parts of
/// a 50,000-line tool's inputs, issue 14).
fn compacted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, compacted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(compacted).collect()),
        other => other,
    }
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
                .map(|(name, part)| (name.clone(), part.value.clone()))
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
                .map(|(name, part)| {
                    let value = Arc::try_unwrap(part).map_or_else(|p| p.value.clone(), |p| p.value);
                    (name, value)
                })
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
            Part::new(json!({"type": "integer", "default": 3})),
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
