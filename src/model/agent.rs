//! `agent-context` (SPEC §5, issue 13): what an agent needs to choose and call a Tool and does
//! not get — an input with neither `label` nor `doc` (the agent sees a bare name), a Tool
//! without any description, and under `extension` a hint without `useWhen` / `doNotUseWhen`.
//! Only processes with a recognised hint (a document without hints gets nothing under
//! `extension`); off with the `agentContext` / `agent-context` setting.
use std::ops::Range;

use crate::base::{Code, Diagnostic, Profile};
use crate::document::yaml::memo::DeferredPart;
use crate::document::yaml::{Kind, Node, Resolved, YamlDoc};

use super::Model;

/// Whether `node` (a mapping) has a non-blank string (or a non-empty list) under `key`.
fn has_text(yaml: &YamlDoc, node: &Node, key: &str) -> bool {
    let Some(v) = node.get(key) else {
        return false;
    };
    let v = yaml.deref(v);
    match v.resolve() {
        Some(Resolved::Str(s)) => !s.trim().is_empty(),
        Some(Resolved::Null) | None => v.items().is_some_and(|i| !i.is_empty()),
        _ => true,
    }
}

/// The inputs of an `inputs` node with neither `label` nor `doc`: their id's span and id.
struct Undescribed(Vec<(Range<usize>, String)>);

/// Whether a parameter's body tells an agent what it is.
fn described(yaml: &YamlDoc, body: &Node) -> bool {
    body.is_map() && (has_text(yaml, body, "label") || has_text(yaml, body, "doc"))
}

/// [`described`] of a parameter body, once per content when the body is a deferred entry.
fn body_described(yaml: &YamlDoc, body: &Node) -> bool {
    match yaml.deferred_part(body) {
        Some(part) => part_described(part),
        None => described(yaml, yaml.deref(body)),
    }
}

/// [`described`] of a deferred parameter body, once per content.
fn part_described(part: &DeferredPart) -> bool {
    struct Described(bool);
    part.derived(|doc, node| Described(described(doc, node))).0
}

/// [`listed_undescribed`] of a deferred list item, once per content, its span relative to
/// the item's start.
fn part_listed(part: &DeferredPart) -> Option<(Range<usize>, String)> {
    struct Listed(Option<(Range<usize>, String)>);
    part.derived(|doc, node| Listed(listed_undescribed(doc, node)))
        .0
        .clone()
}

/// The id span and id of a list-form parameter that is not [`described`].
fn listed_undescribed(yaml: &YamlDoc, body: &Node) -> Option<(Range<usize>, String)> {
    let id_node = body.get("id")?;
    let id = id_node.scalar()?;
    (!described(yaml, body)).then(|| (id_node.span.clone(), id.to_string()))
}

/// The parameters as `crate::cwl::params` lists them, each deferred entry read once per
/// content (its body is never built shifted); with `section`, the deferred `inputs` that
/// `inputs` is the subtree of, whose entries' answers are listed once per section content
/// ([`DeferredPart::entries_derived`]).
fn undescribed(
    yaml: &YamlDoc,
    inputs: Option<&Node>,
    section: Option<&DeferredPart>,
) -> Undescribed {
    let index = |node: &Node| match node.kind {
        Kind::Deferred(j) => Some(j),
        _ => None,
    };
    let mut out = Vec::new();
    match inputs.map(|n| &yaml.deref(n).kind) {
        Some(Kind::Seq { items, .. }) => {
            let listed = section.map(|s| s.entries_derived(part_listed));
            for item in items {
                let found = match yaml.deferred_part(item) {
                    Some(part) => {
                        let at = part.offset();
                        let carried = listed.as_ref().zip(index(item));
                        carried
                            .and_then(|(l, j)| l.get(j).cloned())
                            .unwrap_or_else(|| part_listed(part))
                            .map(|(span, id)| (span.start + at..span.end + at, id))
                    }
                    None => listed_undescribed(yaml, yaml.deref(item)),
                };
                out.extend(found);
            }
        }
        Some(Kind::Map { pairs, .. }) => {
            let described = section.map(|s| s.entries_derived(part_described));
            for pair in pairs {
                let Some(id) = pair.key.scalar() else {
                    continue;
                };
                let carried = described.as_ref().zip(index(&pair.value));
                let ok = match carried.and_then(|(d, j)| d.get(j).copied()) {
                    Some(ok) => ok,
                    None => body_described(yaml, &pair.value),
                };
                if !ok {
                    out.push((pair.key.span.clone(), id.to_string()));
                }
            }
        }
        _ => {}
    }
    Undescribed(out)
}

/// [`undescribed`] of a process's `inputs`; a large (deferred) `inputs` is read once per
/// content, not rebuilt for each version (issue 14), and its entries once per entry content.
fn undescribed_inputs(yaml: &YamlDoc, inputs: Option<&Node>) -> Vec<(Range<usize>, String)> {
    match inputs.and_then(|n| yaml.deferred_part(n)) {
        Some(part) => {
            let at = part.offset();
            part.derived(|doc, node| undescribed(doc, Some(node), Some(part)))
                .0
                .iter()
                .map(|(span, id)| (span.start + at..span.end + at, id.clone()))
                .collect()
        }
        None => undescribed(yaml, inputs, None).0,
    }
}

pub fn diagnostics(model: &Model) -> Vec<Diagnostic> {
    if !model.settings.agent_context {
        return Vec::new();
    }
    let profile = model.settings.profile;
    let severity = Code::AgentContext.severity(profile);
    let yaml = model.yaml();
    let view = model.view();
    let mut out = Vec::new();
    for entry in model.diagnosed() {
        if !entry.hinted || entry.is_refused() {
            continue;
        }
        if !entry.has_tool() {
            continue;
        }
        let process = &view.processes[entry.process_index];
        let name = entry.name().unwrap_or(&entry.key);
        for (span, id) in undescribed_inputs(yaml, process.inputs_node) {
            let input = id.rsplit(['#', '/']).next().unwrap_or(&id);
            let note = match profile {
                Profile::Extension => {
                    "it reaches the agent as a bare name in the `inputSchema` (a `label` becomes \
                     the property's `title`, a `doc` its `description`)"
                }
                Profile::Cwl2mcp => {
                    "nothing but its name tells an agent what to pass (cwl2mcp 0.1.0 does not \
                     carry `label`/`doc` into the schema; the extension profile does)"
                }
            };
            out.push(Diagnostic::new(
                span,
                severity,
                Code::AgentContext,
                format!("the input `{input}` has neither `label` nor `doc`: {note}"),
            ));
        }
        let described = entry
            .field("description")
            .and_then(|d| d.as_str())
            .is_some_and(|d| !d.trim().is_empty());
        if !described {
            let how = match profile {
                Profile::Extension => "write a CWL `doc`, or `useWhen` / `description` in the hint",
                Profile::Cwl2mcp => {
                    "write a CWL `doc` (cwl2mcp 0.1.0 describes a Tool by it alone)"
                }
            };
            out.push(Diagnostic::new(
                entry.anchor.clone(),
                severity,
                Code::AgentContext,
                format!(
                    "the Tool `{name}` has no description: an agent has nothing but its name to \
                     choose it by; {how}"
                ),
            ));
        }
        if profile == Profile::Extension
            && let Some(values) = model
                .validation
                .hints
                .get(entry.process_index)
                .and_then(Option::as_ref)
                .map(|r| &r.values)
        {
            let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
            let missing: Vec<&str> = [
                ("useWhen", &values.use_when),
                ("doNotUseWhen", &values.do_not_use_when),
            ]
            .into_iter()
            .filter(|(_, v)| blank(v))
            .map(|(k, _)| k)
            .collect();
            if !missing.is_empty() {
                let listed = missing
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(" and ");
                out.push(Diagnostic::new(
                    entry.anchor.clone(),
                    severity,
                    Code::AgentContext,
                    format!(
                        "the hint has no {listed}: the Tool's description does not tell an agent \
                         when to pick this tool and when not to"
                    ),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod fixture_tests;
