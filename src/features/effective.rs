//! What derivation would make of a hint's identity: the effective name, title, description and
//! annotations (SPEC §4), as hover shows them. Only these fields: the full Tool (schemas,
//! `_meta`) is the derivation's job (branch `derive`).
use crate::analysis::DocumentContext;
use crate::cwl::{Entry, Process};
use crate::document::yaml::{Kind, Node, Resolved, YamlDoc};
use crate::hint::fields::{self, Field};
use crate::hint::normalize_name;
use crate::settings::{Profile, Settings};

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    pub value: String,
    pub source: &'static str,
}

/// One of the four boolean annotations: as written, or the MCP default.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub field: &'static Field,
    /// `Some` when written as a boolean.
    pub written: Option<bool>,
    /// The written value or the MCP default.
    pub value: bool,
}

#[derive(Clone, Debug)]
pub struct Effective {
    pub name: Derived,
    pub title: Option<Derived>,
    pub description: Option<Derived>,
    /// Why there is no description when one was expected (cwl2mcp: a list `doc`).
    pub description_problem: Option<String>,
    pub annotations: Vec<Annotation>,
}

fn string_field<'a>(yaml: &'a YamlDoc, hint: Option<&Entry<'a>>, key: &str) -> Option<&'a str> {
    let pair = hint?.fields().find(|p| p.key.scalar() == Some(key))?;
    match yaml.deref(&pair.value).resolve() {
        Some(Resolved::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

fn plain_string<'a>(yaml: &'a YamlDoc, node: Option<&'a Node>) -> Option<&'a str> {
    match yaml.deref(node?).resolve() {
        Some(Resolved::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// The CWL `doc` as the extension profile reads it: a list is joined with blank lines;
/// trailing whitespace trimmed.
fn doc_text(yaml: &YamlDoc, doc: Option<&Node>) -> Option<String> {
    let doc = yaml.deref(doc?);
    let text = match &doc.kind {
        Kind::Seq { items, .. } => items
            .iter()
            .filter_map(|i| yaml.deref(i).scalar())
            .collect::<Vec<_>>()
            .join("\n\n"),
        Kind::Scalar { .. } => match doc.resolve() {
            Some(Resolved::Str(s)) => s.to_string(),
            _ => return None,
        },
        _ => return None,
    };
    let text = text.trim_end().to_string();
    (!text.is_empty()).then_some(text)
}

/// The effective identity of `process` with its hint (if any) under `settings`.
pub fn effective<'a>(
    yaml: &'a YamlDoc,
    process: &Process<'a>,
    hint: Option<&Entry<'a>>,
    settings: &Settings,
    context: &DocumentContext,
) -> Effective {
    let hint_name = string_field(yaml, hint, "name");
    let hint_title = string_field(yaml, hint, "title");
    let label = plain_string(yaml, process.label);
    let mut description_problem = None;
    let (name, title, description) = match settings.profile {
        Profile::Extension => {
            let base = process.id.unwrap_or(&context.file_stem);
            let fallback = normalize_name(base);
            let name = match hint_name {
                Some(n) => Derived {
                    value: n.to_string(),
                    source: "`name` of the hint",
                },
                None => Derived {
                    value: fallback.clone(),
                    source: if process.id.is_some() {
                        "the normalized process id"
                    } else {
                        "the normalized file name"
                    },
                },
            };
            let title = match (hint_title, label) {
                (Some(t), _) => Derived {
                    value: t.to_string(),
                    source: "`title` of the hint",
                },
                (None, Some(l)) => Derived {
                    value: l.to_string(),
                    source: "the CWL `label`",
                },
                (None, None) => Derived {
                    value: fallback,
                    source: "the normalized process id",
                },
            };
            let description = match string_field(yaml, hint, "description") {
                Some(d) => Some(Derived {
                    value: d.to_string(),
                    source: "`description` of the hint",
                }),
                None => {
                    let mut parts = Vec::new();
                    if let Some(doc) = doc_text(yaml, process.doc) {
                        parts.push(doc);
                    }
                    if let Some(u) = string_field(yaml, hint, "useWhen") {
                        parts.push(format!("Use when: {u}"));
                    }
                    if let Some(d) = string_field(yaml, hint, "doNotUseWhen") {
                        parts.push(format!("Do not use when: {d}"));
                    }
                    (!parts.is_empty()).then(|| Derived {
                        value: parts.join("\n\n"),
                        source: "composed from the CWL `doc`, `useWhen` and `doNotUseWhen`",
                    })
                }
            };
            (name, Some(title), description)
        }
        Profile::Cwl2mcp => {
            let name = match hint_name {
                Some(n) => Derived {
                    value: n.to_string(),
                    source: "`name` of the hint",
                },
                None => {
                    let raw = match process.id {
                        Some(id) if id.contains("://") && !process.inline => id.to_string(),
                        _ => process.key.clone().unwrap_or_else(|| context.uri.clone()),
                    };
                    Derived {
                        value: raw,
                        source: "the raw process id (cwl2mcp does not normalize it)",
                    }
                }
            };
            let title = match (hint_title, label) {
                (Some(t), _) => Some(Derived {
                    value: t.to_string(),
                    source: "`title` of the hint",
                }),
                (None, Some(l)) => Some(Derived {
                    value: l.to_string(),
                    source: "the CWL `label`",
                }),
                (None, None) => None,
            };
            let doc = process.doc.map(|d| yaml.deref(d));
            let description = match doc.map(|d| (&d.kind, d.resolve())) {
                Some((Kind::Seq { .. }, _)) => {
                    description_problem =
                        Some("a list-valued `doc` makes cwl2mcp 0.1.0 fail".to_string());
                    None
                }
                Some((_, Some(Resolved::Str(s)))) if !s.is_empty() => Some(Derived {
                    value: s.to_string(),
                    source: "the CWL `doc` (cwl2mcp ignores `useWhen` and `doNotUseWhen` here)",
                }),
                _ => None,
            };
            (name, title, description)
        }
    };
    let annotations_node = hint
        .and_then(|h| h.fields().find(|p| p.key.scalar() == Some("annotations")))
        .map(|p| yaml.deref(&p.value));
    let annotations = fields::boolean_annotations()
        .map(|field| {
            let written = annotations_node
                .and_then(|a| a.get(field.key))
                .and_then(|v| match yaml.deref(v).resolve() {
                    Some(Resolved::Bool(b)) => Some(b),
                    _ => None,
                });
            Annotation {
                field,
                written,
                value: written.unwrap_or(field.mcp_default.unwrap_or_default()),
            }
        })
        .collect();
    Effective {
        name,
        title,
        description,
        description_problem,
        annotations,
    }
}
