//! Hover on the MCP hint (issue 3, SPEC §6): on each key and value, the field's doc, type,
//! whether the profile requires it and its MCP default; on the hint class, the effective name,
//! title and description derivation would produce and the annotations with defaults filled in.
use std::ops::Range;

use crate::base::settings::Profile;
use crate::cwl::Entry;
use crate::document::yaml::{Node, Pair, YamlDoc};
use crate::hint::fields::{self, ANNOTATION_FIELDS, Field, Need, TOOL_FIELDS};
use crate::hint::validate::process_hints;
use crate::model::Model;
use crate::model::effective::Effective;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// The key or value hovered.
    pub span: Range<usize>,
    /// Markdown.
    pub markdown: String,
}

fn contains(span: &Range<usize>, at: usize) -> bool {
    span.start <= at && at <= span.end && span.start < span.end
}

/// The hover at byte offset `at`, if it is on an MCP hint.
pub fn hover(model: &Model, at: usize) -> Option<Hover> {
    let view = model.view();
    // Innermost process first: an inline `run:` process lies inside its workflow.
    let mut processes: Vec<usize> = (0..view.processes.len()).collect();
    processes.sort_by_key(|i| view.processes[*i].node.span.len());
    for index in processes {
        let hints = process_hints(view, &view.processes[index]);
        let Some(hint) = hints.hint else { continue };
        if !(hint.span.start <= at && at <= hint.span.end) {
            continue;
        }
        let eff = model.effective(model.entry(index));
        return hint_hover(model.yaml(), hint, eff.as_ref(), model.settings.profile, at);
    }
    None
}

/// What hover says instead of effective values while the YAML is broken.
const NO_TOOL: &str =
    "The YAML has syntax errors: no MCP Tool is derived from this text until they are fixed.";

fn hint_hover(
    yaml: &YamlDoc,
    hint: &Entry<'_>,
    eff: Option<&Effective>,
    profile: Profile,
    at: usize,
) -> Option<Hover> {
    if let Some(class) = hint.class_node
        && contains(&class.span, at)
    {
        return Some(Hover {
            span: class.span.clone(),
            markdown: class_markdown(hint.class.unwrap_or("Tool"), eff, profile),
        });
    }
    let body = yaml.deref(hint.body);
    for pair in body.pairs().unwrap_or(&[]) {
        let Some(key) = pair.key.scalar() else {
            continue;
        };
        let on_key = contains(&pair.key.span, at);
        let value = yaml.deref(&pair.value);
        let on_value = contains(&value.span, at);
        if !on_key && !on_value {
            continue;
        }
        if key == "class" && !hint.map_form {
            let span = if on_key {
                pair.key.span.clone()
            } else {
                value.span.clone()
            };
            return Some(Hover {
                span,
                markdown: class_markdown(hint.class.unwrap_or("Tool"), eff, profile),
            });
        }
        if key == "annotations"
            && on_value
            && let Some(h) = annotation_hover(yaml, value, eff, profile, at)
        {
            return Some(h);
        }
        let span = if on_key {
            pair.key.span.clone()
        } else {
            value.span.clone()
        };
        let Some(field) = fields::tool_field(key) else {
            return Some(Hover {
                span,
                markdown: unknown_markdown(key, "`mcp:Tool`", TOOL_FIELDS, profile),
            });
        };
        let mut md = field_markdown(field, "mcp:Tool", profile);
        match (key, eff) {
            (_, None) if matches!(key, "name" | "title" | "annotations") => {
                md.push_str("\n\n");
                md.push_str(NO_TOOL);
            }
            ("name", Some(eff)) => md.push_str(&format!(
                "\n\n**Effective name:** `{}` (from {})",
                eff.name.value, eff.name.source
            )),
            ("title", Some(eff)) => {
                if let Some(t) = &eff.title {
                    md.push_str(&format!(
                        "\n\n**Effective title:** {} (from {})",
                        t.value, t.source
                    ));
                }
            }
            ("annotations", Some(eff)) => {
                md.push_str("\n\n");
                md.push_str(&annotations_markdown(eff));
            }
            _ => {}
        }
        return Some(Hover { span, markdown: md });
    }
    None
}

fn annotation_hover(
    yaml: &YamlDoc,
    map: &Node,
    eff: Option<&Effective>,
    profile: Profile,
    at: usize,
) -> Option<Hover> {
    let pair: &Pair = map
        .pairs()?
        .iter()
        .find(|p| contains(&p.key.span, at) || contains(&yaml.deref(&p.value).span, at))?;
    let key = pair.key.scalar()?;
    let span = if contains(&pair.key.span, at) {
        pair.key.span.clone()
    } else {
        yaml.deref(&pair.value).span.clone()
    };
    let Some(field) = fields::annotation_field(key) else {
        return Some(Hover {
            span,
            markdown: unknown_markdown(key, "`annotations`", ANNOTATION_FIELDS, profile),
        });
    };
    let mut md = field_markdown(field, "annotations", profile);
    if let Some(a) = eff.and_then(|e| e.annotations.iter().find(|a| a.field.key == key)) {
        match a.written {
            Some(v) => md.push_str(&format!("\n\n**Here:** `{v}`")),
            None => md.push_str(&format!(
                "\n\n**Here:** not a boolean; clients assume the default `{}`",
                a.value
            )),
        }
    }
    Some(Hover { span, markdown: md })
}

fn need_words(field: &Field, profile: Profile) -> String {
    let need = match field.need(profile) {
        Need::Required => "required",
        Need::Optional => "optional",
        Need::Rejected => "not allowed",
    };
    format!("{need} under the `{}` profile", profile.as_str())
}

/// The hover text of a field, from the field table.
pub fn field_markdown(field: &Field, record: &str, profile: Profile) -> String {
    let mut md = format!(
        "**`{}`** ({record}) · {} · {}\n\n{}",
        field.key,
        field.ty.describe(),
        need_words(field, profile),
        field.doc
    );
    if let Some(d) = field.mcp_default {
        md.push_str(&format!(
            "\n\n**MCP default:** `{d}`: when absent, clients assume {}.",
            field.default_meaning
        ));
    } else if !field.default_meaning.is_empty() {
        md.push_str(&format!("\n\n**When absent:** {}.", field.default_meaning));
    }
    md
}

fn unknown_markdown(key: &str, record: &str, table: &[Field], profile: Profile) -> String {
    if key.contains(':') {
        return format!(
            "**`{key}`**: a namespaced extension field; {record} allows it and exporters ignore it."
        );
    }
    format!(
        "**`{key}`** is not a field of {record} under the `{}` profile (expected one of: {}).",
        profile.as_str(),
        fields::allowed_keys(table, profile)
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn annotations_markdown(eff: &Effective) -> String {
    let mut md = String::from("**Annotations clients will see:**\n");
    for a in &eff.annotations {
        let mark = if a.written.is_some() {
            String::new()
        } else {
            format!(" *(MCP default: {})*", a.field.default_meaning)
        };
        md.push_str(&format!("\n- `{}: {}`{mark}", a.field.key, a.value));
    }
    md
}

fn class_markdown(class: &str, eff: Option<&Effective>, profile: Profile) -> String {
    let mut md = format!(
        "**MCP Tool** `{class}` ({} profile)\n\n{}\n\n",
        profile.as_str(),
        fields::TOOL_DOC
    );
    let Some(eff) = eff else {
        md.push_str(NO_TOOL);
        return md;
    };
    md.push_str("Derived here:\n");
    md.push_str(&format!(
        "\n- **name:** `{}` (from {})",
        eff.name.value, eff.name.source
    ));
    match &eff.title {
        Some(t) => md.push_str(&format!("\n- **title:** {} (from {})", t.value, t.source)),
        None => md.push_str("\n- **title:** omitted"),
    }
    match (&eff.description, &eff.description_problem) {
        (_, Some(problem)) => md.push_str(&format!("\n- **description:** none: {problem}")),
        (Some(d), None) => md.push_str(&format!(
            "\n- **description** (from {}):\n\n  > {}",
            d.source,
            d.value.replace('\n', "\n  > ")
        )),
        (None, None) => md.push_str("\n- **description:** omitted"),
    }
    md.push_str("\n\n");
    md.push_str(&annotations_markdown(eff));
    md.push_str(&format!(
        "\n\n**Context:** the Tool definition is {} bytes as `tools/list` sends it (compact \
         JSON), about {} tokens (bytes ÷ 4, a rule of thumb; the real count depends on the \
         model's tokenizer) that an agent spends on every request listing this tool.",
        eff.size,
        eff.approximate_tokens()
    ));
    md
}
