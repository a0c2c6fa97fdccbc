//! The bridge from the CWL view (`crate::cwl`) to the engine: the process value, its key and
//! its first recognised hint, taken from a parsed document, plus the CLI's JSON rendering.
use std::path::Path;

use serde_json::{Map, Value};

use crate::base::DocumentContext;
use crate::cwl::{PathSeg, Process};
use crate::hint::values::HintValues;

use super::{
    Derivation, DeriveOptions, GivenInputs, ProcessInput, ToolSchemas, derive_tool_parted,
};

/// The value at `path` below `root` (the JSON form of the YAML tree; aliases are expanded in
/// it, so the view's paths lead to the same places).
pub fn value_at<'v>(root: &'v Value, path: &[PathSeg]) -> Option<&'v Value> {
    let mut v = root;
    for seg in path {
        v = match seg {
            PathSeg::Key(k) => v.get(k)?,
            PathSeg::Index(i) => v.get(*i)?,
        };
    }
    Some(v)
}

/// Where the document is, for local reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Location<'a> {
    /// The document's path, when it is a file.
    pub path: Option<&'a Path>,
    /// The folder local reads must stay in (workspace folder, CLI root); default: the
    /// document's folder.
    pub sandbox_root: Option<&'a Path>,
}

/// Derives the Tool of one process of the view. `root` is the document's JSON value
/// (`YamlDoc::to_json`), computed once per document by the caller; `hint` the values of the
/// process's recognised hint, as the hint rules read them.
pub fn derive_process(
    root: &Value,
    process: &Process,
    hint: Option<&HintValues>,
    context: &DocumentContext,
    location: Location,
    opts: &DeriveOptions,
) -> Derivation {
    let (mut derivation, schemas) =
        derive_process_parted(root, process, hint, context, location, opts, None);
    if let Some(tool) = derivation.tool.as_mut().and_then(Value::as_object_mut) {
        schemas.move_into(tool);
    }
    derivation
}

/// [`derive_process`], the Tool's schemas kept apart ([`derive_tool_parted`]), with the
/// process's inputs given apart ([`GivenInputs`]) or read from `root`.
pub fn derive_process_parted(
    root: &Value,
    process: &Process,
    hint: Option<&HintValues>,
    context: &DocumentContext,
    location: Location,
    opts: &DeriveOptions,
    given: Option<GivenInputs>,
) -> (Derivation, ToolSchemas) {
    let empty = Map::new();
    let namespaces = root
        .get("$namespaces")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let Some(value) = value_at(root, &process.path) else {
        return (Derivation::default(), ToolSchemas::default());
    };
    let key = process.key.clone().unwrap_or_else(|| context.uri.clone());
    let input = ProcessInput {
        process: value,
        key: &key,
        namespaces,
        document_path: location.path,
        sandbox_root: location.sandbox_root,
        file_stem: &context.file_stem,
        hint,
        document: Some(root),
    };
    derive_tool_parted(&input, opts, given)
}

/// A copy of `value` with every object's keys sorted (as `json.dumps(sort_keys=True)`).
pub fn sorted(value: &Value) -> Value {
    sorted_depth(value, 0)
}

fn sorted_depth(value: &Value, depth: usize) -> Value {
    match value {
        Value::Object(m) if depth < 512 => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted_depth(&m[k], depth + 1));
            }
            Value::Object(out)
        }
        Value::Array(items) if depth < 512 => {
            Value::Array(items.iter().map(|v| sorted_depth(v, depth + 1)).collect())
        }
        other => other.clone(),
    }
}

/// The CLI rendering of a Tool (or of `{key: Tool}`): sorted keys, 2-space indent, final
/// newline.
pub fn to_cli_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(&sorted(value)).unwrap_or_else(|_| "null".into());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_json_is_sorted_and_ends_with_a_newline() {
        let v = serde_json::json!({"b": 1, "a": {"d": [{"z": 1, "y": 2}], "c": null}});
        assert_eq!(
            to_cli_json(&v),
            "{\n  \"a\": {\n    \"c\": null,\n    \"d\": [\n      {\n        \"y\": 2,\n        \"z\": 1\n      }\n    ]\n  },\n  \"b\": 1\n}\n"
        );
    }
}
