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
    /// The Tool definition's size in bytes as `tools/list` sends it (compact JSON).
    pub size: usize,
}

impl Effective {
    /// The approximate number of tokens the definition costs an agent on every request that
    /// lists it: bytes ÷ 4, the usual rule of thumb for English text and JSON (the real count
    /// depends on the model's tokenizer).
    pub fn approximate_tokens(&self) -> usize {
        self.size.div_ceil(4)
    }
}

impl Model {
    /// What the derived Tool of `entry` holds, with sources; `None` while the YAML has syntax
    /// errors (no surface presents a Tool then) or when no Tool value exists.
    pub fn effective(&self, entry: &ToolEntry) -> Option<Effective> {
        if self.syntax_broken() {
            return None;
        }
        if !entry.has_tool() {
            return None;
        }
        let sources = entry.sources();
        let text = |key: &str| {
            entry
                .field(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let annotations = entry.field("annotations");
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
            size: entry.size(),
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

#[cfg(test)]
mod tests {
    use crate::base::Profile;
    use crate::model::Model;
    use crate::model::fixture::{context, settings};

    #[test]
    fn the_size_is_the_compact_json_of_the_tool() {
        let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo\n$namespaces:\n  mcp: \
                    https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool: {}\n\
                    inputs: {}\noutputs: {}\n";
        let model = Model::of_text(text, settings(Profile::Extension), context());
        let entry = model.entry(0);
        let eff = model.effective(entry).unwrap();
        let tool = entry.tool().unwrap();
        assert_eq!(eff.size, serde_json::to_string(tool).unwrap().len());
        assert!(eff.size > 50, "{}", eff.size);
        assert_eq!(eff.approximate_tokens(), eff.size.div_ceil(4));
        // Hover on the hint's class shows it (issue 13).
        let at = text.find("mcp:Tool").unwrap() + 1;
        let hover = crate::features::hover::hover(&model, at).unwrap();
        assert!(
            hover.markdown.contains(&format!(
                "the Tool definition is {} bytes as `tools/list` sends it",
                eff.size
            )) && hover
                .markdown
                .contains(&format!("about {} tokens", eff.approximate_tokens())),
            "{}",
            hover.markdown
        );
    }
}
