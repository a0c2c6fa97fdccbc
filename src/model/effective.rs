//! The effective identity of a Tool (SPEC §4) as hover and inlay hints show it: read from the
//! model's derivation — the one place that decides each value and says where it came from —
//! never computed a second time. While the YAML is broken there is none.
use crate::hint::fields::{self, Field};

use super::{Model, ToolEntry};

/// An effective value and where it came from (phrased to follow "from").
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
    pub description_problem: Option<&'static str>,
    pub annotations: Vec<Annotation>,
}

impl Model {
    /// What the derived Tool of `entry` holds, with sources; `None` while the YAML has syntax
    /// errors (no surface presents a Tool then) or when no Tool value exists.
    pub fn effective(&self, entry: &ToolEntry) -> Option<Effective> {
        if self.syntax_broken() {
            return None;
        }
        let tool = entry.derivation.tool.as_ref()?;
        let sources = &entry.derivation.sources;
        let text = |key: &str| tool.get(key).and_then(|v| v.as_str()).map(str::to_string);
        let annotations = tool.get("annotations");
        Some(Effective {
            name: Derived {
                value: text("name").unwrap_or_default(),
                source: sources.name,
            },
            title: text("title").map(|value| Derived {
                value,
                source: sources.title.unwrap_or("the hint"),
            }),
            description: text("description").map(|value| Derived {
                value,
                source: sources.description.unwrap_or("the hint"),
            }),
            description_problem: sources.description_problem,
            annotations: fields::boolean_annotations()
                .map(|field| {
                    let written = annotations
                        .and_then(|a| a.get(field.key))
                        .and_then(|v| v.as_bool());
                    Annotation {
                        field,
                        written,
                        value: written.unwrap_or(field.mcp_default.unwrap_or_default()),
                    }
                })
                .collect(),
        })
    }
}
