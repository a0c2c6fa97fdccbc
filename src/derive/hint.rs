//! Reading the fields of a located `mcp:Tool` hint for derivation, with the checks that decide
//! whether a Tool can be derived (SPEC §3, §4 "Refusal").
use crate::base::Code;
use serde_json::{Map, Value};

use crate::base::settings::Profile;

use super::{PathSeg, Problem};

/// The extension namespace.
pub const EXTENSION_NS: &str = "https://eoap.github.io/cwl-mcp-extension#";

const TOOL_FIELDS: &[&str] = &[
    "class",
    "name",
    "title",
    "description",
    "aliases",
    "useWhen",
    "doNotUseWhen",
    "annotations",
];
const ANNOTATION_BOOLS: &[&str] = &[
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// The hint values derivation uses (wrong-typed values are left out and reported).
#[derive(Debug, Default)]
pub struct HintFields {
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub aliases: Vec<String>,
    pub use_when: Option<String>,
    pub do_not_use_when: Option<String>,
    /// `None`: no `annotations` mapping.
    pub annotations: Option<Map<String, Value>>,
}

struct Checker<'p> {
    base: Vec<PathSeg>,
    profile: Profile,
    problems: &'p mut Vec<Problem>,
}

impl Checker<'_> {
    fn at(&self, keys: &[&str]) -> Vec<PathSeg> {
        let mut p = self.base.clone();
        p.extend(keys.iter().map(|k| PathSeg::Key((*k).to_string())));
        p
    }

    fn push(&mut self, code: Code, message: String, keys: &[&str], blocking: bool) {
        let path = self.at(keys);
        self.problems.push(Problem {
            code,
            message,
            path,
            blocking,
        });
    }

    fn cwl2mcp(&self) -> bool {
        self.profile == Profile::Cwl2mcp
    }

    fn string(&mut self, m: &Map<String, Value>, key: &str, required: bool) -> Option<String> {
        match m.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            None | Some(Value::Null) => {
                if required {
                    self.push(
                        Code::MissingField,
                        format!("`{key}` is required by the cwl2mcp profile"),
                        &[],
                        true,
                    );
                }
                None
            }
            Some(other) => {
                self.push(
                    Code::InvalidType,
                    format!("`{key}` must be a string, not {}", kind(other)),
                    &[key],
                    true,
                );
                None
            }
        }
    }
}

/// A short description of a value's JSON kind.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Reads `hint` (located at `base` inside the process) under `profile`.
pub fn read_hint(
    hint: &Value,
    base: Vec<PathSeg>,
    profile: Profile,
    namespaces: &Map<String, Value>,
    problems: &mut Vec<Problem>,
) -> HintFields {
    let mut c = Checker {
        base,
        profile,
        problems,
    };
    let mut out = HintFields::default();
    // `mcp:Tool:` with nothing after it (YAML null) is an empty hint.
    let empty = Map::new();
    let m = if hint.is_null() {
        Some(&empty)
    } else {
        hint.as_object()
    };
    let Some(m) = m else {
        c.push(
            Code::InvalidType,
            format!("the `Tool` hint must be a mapping, not {}", kind(hint)),
            &[],
            true,
        );
        return out;
    };
    let strict = c.cwl2mcp();
    for key in m.keys() {
        let allowed = TOOL_FIELDS.contains(&key.as_str()) && !(strict && key == "description");
        if !allowed && !key.contains(':') {
            let blocking = strict;
            c.push(
                Code::UnknownField,
                format!(
                    "`{key}` is not a field of the `Tool` hint under the {} profile",
                    profile.as_str()
                ),
                &[key],
                blocking,
            );
        }
    }
    // An explicit name: `name: ''` counts as absent (both profiles fall back).
    match m.get("name") {
        Some(Value::String(s)) => out.name = Some(s.clone()).filter(|s| !s.is_empty()),
        None => {
            if strict {
                c.push(
                    Code::MissingField,
                    "missing name: `name` is required by the cwl2mcp profile".into(),
                    &[],
                    true,
                );
            }
        }
        Some(Value::Null) if !strict => {}
        Some(other) => c.push(
            Code::InvalidType,
            format!("`name` must be a string, not {}", kind(other)),
            &["name"],
            true,
        ),
    }
    out.title = c.string(m, "title", false).filter(|s| !s.is_empty());
    if !strict {
        out.description = c.string(m, "description", false).filter(|s| !s.is_empty());
    }
    out.use_when = c.string(m, "useWhen", strict);
    out.do_not_use_when = c.string(m, "doNotUseWhen", strict);
    match m.get("aliases") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.aliases.push(s.clone()),
                    other => {
                        let mut path = c.at(&["aliases"]);
                        path.push(PathSeg::Index(i));
                        c.problems.push(Problem {
                            code: Code::InvalidType,
                            message: format!("aliases must be strings, not {}", kind(other)),
                            path,
                            blocking: true,
                        });
                    }
                }
            }
        }
        None | Some(Value::Null) => {
            if strict {
                c.push(
                    Code::MissingField,
                    "`aliases` is required by the cwl2mcp profile (`[]` is allowed)".into(),
                    &[],
                    true,
                );
            }
        }
        Some(other) => c.push(
            Code::InvalidType,
            format!("`aliases` must be a list of strings, not {}", kind(other)),
            &["aliases"],
            true,
        ),
    }
    match m.get("annotations") {
        Some(Value::Object(a)) => out.annotations = Some(read_annotations(&mut c, a, namespaces)),
        None | Some(Value::Null) => {
            if strict {
                c.push(
                    Code::MissingField,
                    "`annotations` is required by the cwl2mcp profile".into(),
                    &[],
                    true,
                );
            }
        }
        Some(other) => c.push(
            Code::InvalidType,
            format!("`annotations` must be a mapping, not {}", kind(other)),
            &["annotations"],
            true,
        ),
    }
    out
}

fn read_annotations(
    c: &mut Checker,
    a: &Map<String, Value>,
    namespaces: &Map<String, Value>,
) -> Map<String, Value> {
    let strict = c.cwl2mcp();
    let mut out = Map::new();
    if let Some(class) = a.get("class") {
        let ok = match class.as_str() {
            Some(s) => {
                let expanded = expand(s, namespaces);
                let names: &[&str] = if strict {
                    &["Annotations"]
                } else {
                    &["Annotations", "ToolAnnotations"]
                };
                names
                    .iter()
                    .any(|n| s == *n || expanded == format!("{EXTENSION_NS}{n}"))
            }
            None => false,
        };
        if !ok {
            c.push(
                Code::AnnotationsClass,
                if strict {
                    "`annotations.class` must be `Annotations` under the cwl2mcp profile".into()
                } else {
                    "`annotations.class` must be `ToolAnnotations` or `Annotations`".into()
                },
                &["annotations", "class"],
                strict,
            );
        }
    }
    for (key, value) in a {
        if key == "class" || key.contains(':') {
            continue;
        }
        if ANNOTATION_BOOLS.contains(&key.as_str()) {
            match value {
                Value::Bool(_) => {
                    out.insert(key.clone(), value.clone());
                }
                // Absent under `extension`; a wrong (null) value under `cwl2mcp`, whose
                // loader then reports the field as missing.
                Value::Null if !strict => {}
                other => c.push(
                    Code::InvalidType,
                    format!(
                        "`{key}` must be a boolean (`true` or `false`), not {}",
                        kind(other)
                    ),
                    &["annotations", key],
                    true,
                ),
            }
        } else if key == "title" && !strict {
            match value {
                Value::String(_) => {
                    out.insert(key.clone(), value.clone());
                }
                Value::Null => {}
                other => c.push(
                    Code::InvalidType,
                    format!("`title` must be a string, not {}", kind(other)),
                    &["annotations", key],
                    true,
                ),
            }
        } else {
            c.push(
                Code::UnknownField,
                format!(
                    "`{key}` is not an annotation field under the {} profile",
                    c.profile.as_str()
                ),
                &["annotations", key],
                strict,
            );
        }
    }
    if strict {
        for key in ANNOTATION_BOOLS {
            if !a.contains_key(*key) {
                c.push(
                    Code::MissingField,
                    format!("`annotations.{key}` is required by the cwl2mcp profile"),
                    &["annotations"],
                    true,
                );
            }
        }
    }
    out
}

/// Expands `prefix:local` with the document's namespaces.
pub fn expand(s: &str, namespaces: &Map<String, Value>) -> String {
    if let Some((prefix, rest)) = s.split_once(':')
        && let Some(ns) = namespaces.get(prefix).and_then(Value::as_str)
    {
        return format!("{ns}{rest}");
    }
    s.to_string()
}
