//! What real MCP clients and the function-calling APIs behind agents fail on, read from the
//! derived Tools (issue 13, SPEC §5):
//!
//! - `mcp-client-interop`: a schema `$ref` that is neither local (`#…`) nor bundled in the
//!   schema itself, `nullable` without `type`, and (with [`super::workspace`] across documents)
//!   a schema `$id` shared by two Tools served together. Each is reported on the CWL input or
//!   output whose type produced it. The `extension` profile's own derivation never writes these
//!   constructs (tested over every fixture and the corpus); the cwl2mcp shape does, and is kept
//!   on purpose there, so the code is information under `cwl2mcp`.
//! - `name-client-compat`: an effective name that MCP accepts but `^[a-zA-Z0-9_-]{1,64}$`
//!   rejects.
use std::ops::Range;

use serde_json::Value;

use crate::base::{Code, Diagnostic, Profile, Related};
use crate::cwl::Process;
use crate::derive::{Parted, ToolSchemas};
use crate::hint::validate::process_hints;

use super::{Model, ToolEntry};

/// The two schemas of a Tool, and the CWL section each comes from.
pub const SCHEMAS: [(&str, &str); 2] = [("inputSchema", "inputs"), ("outputSchema", "outputs")];

/// A construct clients fail on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Construct {
    /// A `$ref` that is neither local nor bundled, as written.
    RemoteRef(String),
    /// A schema object with `nullable` and no `type`.
    UntypedNullable,
}

/// One construct in one Tool: in which schema, under which top-level parameter (the property
/// or `$defs` entry named like a CWL parameter; `None`: elsewhere in the schema).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub schema: &'static str,
    pub param: Option<String>,
    pub construct: Construct,
}

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Every sub-schema of `schema` (itself included, at nesting `depth`), with the top-level
/// name it sits under (`top` for all of them when it is given). Only schema positions are
/// visited: `default`, `enum`, `const` and `examples` are data, and the keys of `properties`
/// are names, so a CWL field named `$ref` or `nullable` is no construct.
fn subschemas<'v>(
    schema: &'v Value,
    top: Option<&'v str>,
    depth: usize,
) -> Vec<(Option<&'v str>, &'v Value)> {
    let mut out = Vec::new();
    let mut stack: Vec<(Option<&str>, &Value, usize)> = vec![(top, schema, depth)];
    while let Some((top, s, depth)) = stack.pop() {
        let Some(m) = s.as_object() else { continue };
        out.push((top, s));
        if depth > 256 {
            continue;
        }
        for (k, v) in m {
            let k = k.as_str();
            if ONE.contains(&k) && v.is_object() {
                stack.push((top, v, depth + 1));
            }
            if LIST.contains(&k)
                && let Some(items) = v.as_array()
            {
                stack.extend(items.iter().map(|i| (top, i, depth + 1)));
            }
            if MAP.contains(&k)
                && let Some(named) = v.as_object()
            {
                for (name, sub) in named {
                    let top = if depth == 0 && (k == "properties" || k == "$defs") {
                        Some(name.as_str())
                    } else {
                        top
                    };
                    stack.push((top, sub, depth + 1));
                }
            }
        }
    }
    out
}

/// What one schema (or one part of a parted schema) holds that [`constructs_in`] reads:
/// each sub-schema's `$ref`, whether it is `nullable` without `type`, and its `$id`, with the
/// top-level name it sits under.
#[derive(Debug, Default)]
struct Scan {
    refs: Vec<(Option<String>, String)>,
    untyped: Vec<Option<String>>,
    ids: Vec<String>,
}

impl Scan {
    fn of(schema: &Value, top: Option<&str>, depth: usize) -> Scan {
        let mut scan = Scan::default();
        for (top, s) in subschemas(schema, top, depth) {
            if let Some(r) = s.get("$ref").and_then(Value::as_str) {
                scan.refs.push((top.map(str::to_string), r.to_string()));
            }
            if s.get("nullable").is_some() && s.get("type").is_none() {
                scan.untyped.push(top.map(str::to_string));
            }
            scan.ids.extend(schema_id(s));
        }
        scan
    }
}

fn schema_id(s: &Value) -> Option<String> {
    s.get("$id")
        .and_then(Value::as_str)
        .map(|i| i.trim_end_matches('#').to_string())
}

/// The resource part of a reference resolved against `base` (the root `$id`), without its
/// fragment; `None` for a local reference (`#…`, or the root itself).
fn resource(reference: &str, base: Option<&str>) -> Option<String> {
    let resource = reference.split('#').next().unwrap_or_default();
    if resource.is_empty() {
        return None;
    }
    if resource.contains("://") {
        return Some(resource.to_string());
    }
    let base = base
        .unwrap_or_default()
        .split('#')
        .next()
        .unwrap_or_default();
    let dir = base.rfind('/').map_or("", |i| &base[..=i]);
    Some(format!("{dir}{resource}"))
}

/// The constructs clients fail on in one schema (`inputSchema` or `outputSchema`).
pub fn constructs_in(schema_name: &'static str, schema: &Value) -> Vec<Found> {
    constructs_in_parted(schema_name, &Parted::whole(schema.clone()))
}

/// [`constructs_in`] of a parted schema: each part is read once (its scan is kept with the
/// part, so typing in one input of a 50,000-line tool reads that input's schema), then the
/// references are resolved against the whole schema's root `$id` and bundled `$id`s.
pub fn constructs_in_parted(schema_name: &'static str, schema: &Parted) -> Vec<Found> {
    let skeleton = Scan::of(&schema.skeleton, None, 0);
    // A part sits at depth 1, under its member (`properties`, `$defs`), named by its key.
    let parts: Vec<(&str, std::sync::Arc<Scan>)> = schema
        .parts()
        .map(|(_, name, part)| (name, part.note(|v| Scan::of(v, None, 1))))
        .collect();
    let root_id = schema_id(&schema.skeleton);
    let bundled: std::collections::HashSet<&str> = skeleton
        .ids
        .iter()
        .chain(parts.iter().flat_map(|(_, s)| s.ids.iter()))
        .map(String::as_str)
        .collect();
    let mut out = Vec::new();
    let scans = std::iter::once((None, &skeleton))
        .chain(parts.iter().map(|(name, scan)| (Some(*name), &**scan)));
    for (name, scan) in scans {
        let param = |top: &Option<String>| name.map(str::to_string).or_else(|| top.clone());
        for (top, r) in &scan.refs {
            if let Some(target) = resource(r, root_id.as_deref())
                && !bundled.contains(target.as_str())
            {
                out.push(Found {
                    schema: schema_name,
                    param: param(top),
                    construct: Construct::RemoteRef(r.clone()),
                });
            }
        }
        for top in &scan.untyped {
            out.push(Found {
                schema: schema_name,
                param: param(top),
                construct: Construct::UntypedNullable,
            });
        }
    }
    out.sort_by(|a, b| {
        (&a.param, format!("{:?}", a.construct)).cmp(&(&b.param, format!("{:?}", b.construct)))
    });
    out.dedup();
    out
}

/// The constructs clients fail on in a derived Tool, in both its schemas.
pub fn constructs(tool: &Value) -> Vec<Found> {
    constructs_of(|name| tool.get(name))
}

/// [`constructs`] of the schemas `schema` gives by field name.
pub fn constructs_of<'v>(schema: impl Fn(&str) -> Option<&'v Value>) -> Vec<Found> {
    SCHEMAS
        .iter()
        .filter_map(|(name, _)| schema(name).map(|s| constructs_in(name, s)))
        .flatten()
        .collect()
}

/// [`constructs`] of a Tool's parted schemas.
pub fn constructs_of_parted(schemas: &ToolSchemas) -> Vec<Found> {
    SCHEMAS
        .iter()
        .filter_map(|(name, _)| schemas.field(name).map(|s| constructs_in_parted(name, s)))
        .flatten()
        .collect()
}

/// The schema `$id`s of a Tool: (`inputSchema` / `outputSchema`, `$id`).
pub fn schema_ids(tool: &Value) -> Vec<(&'static str, String)> {
    schema_ids_of(|name| tool.get(name))
}

/// [`schema_ids`] of the schemas `schema` gives by field name.
pub fn schema_ids_of<'v>(
    schema: impl Fn(&str) -> Option<&'v Value>,
) -> Vec<(&'static str, String)> {
    SCHEMAS
        .iter()
        .filter_map(|(name, _)| {
            let id = schema(name)?.get("$id")?.as_str()?;
            Some((*name, id.to_string()))
        })
        .collect()
}

/// The last segment of a parameter id or schema key (`#main/x`, `tool.cwl#x`, `x`).
fn local(id: &str) -> &str {
    id.rsplit(['#', '/']).next().unwrap_or(id)
}

/// Where the CWL parameter a schema entry comes from is written: its id (or key), and its type
/// as written when it is a plain name; else the section's key; else `fallback`.
pub fn param_place(
    model: &Model,
    process: &Process<'_>,
    section: &str,
    param: Option<&str>,
    fallback: &Range<usize>,
) -> (Range<usize>, Option<String>) {
    let yaml = model.yaml();
    let params = match section {
        "inputs" => process.inputs(yaml),
        _ => process.outputs(yaml),
    };
    if let Some(name) = param
        && let Some(p) = params.iter().find(|p| local(p.id) == local(name))
    {
        let ty = match p.body.scalar() {
            Some(t) => Some(t.to_string()),
            None => p
                .body
                .get("type")
                .and_then(|t| yaml.deref(t).scalar())
                .map(str::to_string),
        };
        return (p.id_node.span.clone(), ty);
    }
    let span = process
        .node
        .entry(section)
        .map(|p| p.key.span.clone())
        .unwrap_or_else(|| fallback.clone());
    (span, None)
}

/// The entries whose Tools these rules read: the diagnosed ones that are not refused.
fn checked(model: &Model) -> Vec<&ToolEntry> {
    model
        .diagnosed()
        .into_iter()
        .filter(|e| !e.is_refused() && e.has_tool())
        .collect()
}

fn what_client_does(schema: &str, construct: &Construct) -> String {
    match (schema, construct) {
        ("outputSchema", Construct::RemoteRef(r)) => format!(
            "the MCP TypeScript SDK's `Client.listTools()` throws (\"can't resolve reference \
             {r}\") for the whole server, and the Python SDK's client fails every `tools/call` \
             of this tool"
        ),
        (_, Construct::RemoteRef(r)) => format!(
            "MCP clients do not fetch it, so validators that compile the input schema fail \
             (Ajv: \"can't resolve reference {r}\") and the agent is never shown the shape it \
             names"
        ),
        ("outputSchema", Construct::UntypedNullable) => {
            "the MCP TypeScript SDK's `Client.listTools()` throws when it compiles the schema \
             (Ajv: \"\\\"nullable\\\" cannot be used without \\\"type\\\"\") for the whole server"
                .to_string()
        }
        (_, Construct::UntypedNullable) => {
            "Ajv-based clients throw when they compile the schema (\"\\\"nullable\\\" cannot be \
             used without \\\"type\\\"\")"
                .to_string()
        }
    }
}

/// `mcp-client-interop` on the constructs of each Tool, and on a schema `$id` that two Tools
/// of this document share (across documents: [`super::workspace`]).
pub fn interop(model: &Model) -> Vec<Diagnostic> {
    let profile = model.settings.profile;
    let severity = Code::McpClientInterop.severity(profile);
    let view = model.view();
    let mut out = Vec::new();
    let entries = checked(model);
    for entry in &entries {
        let process = &view.processes[entry.process_index];
        let found = entry.client_constructs();
        // One diagnostic per parameter and kind; a Directory's three references in one.
        let mut groups: Vec<(&'static str, Option<String>, bool, Vec<String>)> = Vec::new();
        for f in found {
            let (is_ref, r) = match &f.construct {
                Construct::RemoteRef(r) => (true, Some(r.clone())),
                Construct::UntypedNullable => (false, None),
            };
            match groups
                .iter_mut()
                .find(|g| g.0 == f.schema && g.1 == f.param && g.2 == is_ref)
            {
                Some(g) => g.3.extend(r),
                None => groups.push((f.schema, f.param, is_ref, r.into_iter().collect())),
            }
        }
        for (schema, param, is_ref, refs) in groups {
            let section = if schema == "inputSchema" {
                "inputs"
            } else {
                "outputs"
            };
            let (span, ty) = param_place(model, process, section, param.as_deref(), &entry.anchor);
            let whose = match (&param, ty) {
                (Some(p), Some(t)) => format!(
                    "the {} `{}` (CWL type `{t}`)",
                    &section[..section.len() - 1],
                    local(p)
                ),
                (Some(p), None) => format!("the {} `{}`", &section[..section.len() - 1], local(p)),
                (None, _) => format!("the `{section}`"),
            };
            let message = if is_ref {
                let listed = refs
                    .iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "{whose}: its schema in the derived `{schema}` has `$ref` {listed}, neither \
                     local (`#…`) nor bundled in the schema: {}",
                    what_client_does(schema, &Construct::RemoteRef(refs[0].clone()))
                )
            } else {
                format!(
                    "{whose}: its schema in the derived `{schema}` has `nullable` but no `type`: {}",
                    what_client_does(schema, &Construct::UntypedNullable)
                )
            };
            out.push(Diagnostic::new(
                span,
                severity,
                Code::McpClientInterop,
                message,
            ));
        }
    }
    // A schema `$id` two Tools of this document share.
    let served: Vec<usize> = model.served().iter().map(|e| e.process_index).collect();
    let with_ids: Vec<(&ToolEntry, &'static str, String)> = entries
        .iter()
        .filter(|e| served.contains(&e.process_index))
        .flat_map(|e| e.schema_ids().into_iter().map(move |(s, id)| (*e, s, id)))
        .collect();
    for (i, (entry, schema, id)) in with_ids.iter().enumerate() {
        let others: Vec<&(&ToolEntry, &str, String)> = with_ids
            .iter()
            .enumerate()
            .filter(|(j, o)| *j != i && o.2 == *id)
            .map(|(_, o)| o)
            .collect();
        let Some(first) = others.first() else {
            continue;
        };
        let process = &view.processes[entry.process_index];
        let section = if *schema == "inputSchema" {
            "inputs"
        } else {
            "outputs"
        };
        let (span, _) = param_place(model, process, section, None, &entry.anchor);
        let mut d = Diagnostic::new(
            span,
            severity,
            Code::McpClientInterop,
            shared_id_message(
                schema,
                id,
                &format!("the process `{}` in this document", first.0.key),
            ),
        );
        d.related = others
            .iter()
            .map(|(o, s, _)| Related {
                uri: None,
                span: o.anchor.clone(),
                line: None,
                message: format!("the `{s}` of `{}` has the same `$id`", o.key),
            })
            .collect();
        out.push(d);
    }
    out
}

/// The message of a schema `$id` shared with `other` (a phrase naming the other Tool).
pub fn shared_id_message(schema: &str, id: &str, other: &str) -> String {
    format!(
        "the derived `{schema}` has the `$id` `{id}`, which a schema of {other} has too: served \
         together, the MCP TypeScript SDK's client keys its validators by `$id`, so it validates \
         the second Tool's results against the first one's schema"
    )
}

/// Whether a name passes `^[a-zA-Z0-9_-]{1,64}$`.
pub fn client_compatible(name: &str) -> bool {
    let count = name.chars().count();
    (1..=64).contains(&count)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A name that passes `^[a-zA-Z0-9_-]{1,64}$`, made from a valid MCP name: dots become `_`,
/// and it is cut to 64 characters.
pub fn client_name(name: &str) -> String {
    name.chars()
        .map(|c| if c == '.' { '_' } else { c })
        .take(64)
        .collect()
}

/// The span of the hint's `name` value of `process`, when it names the Tool.
pub fn hint_name_span(model: &Model, process: &Process<'_>) -> Option<Range<usize>> {
    let hint = process_hints(model.view(), process).hint?;
    let pair = hint.fields().find(|p| p.key.scalar() == Some("name"))?;
    let value = model.yaml().deref(&pair.value);
    value
        .scalar()
        .filter(|s| !s.is_empty())
        .map(|_| value.span.clone())
}

/// `name-client-compat` on each Tool whose effective name MCP accepts but function-calling
/// APIs commonly reject.
pub fn name_compat(model: &Model) -> Vec<Diagnostic> {
    let profile: Profile = model.settings.profile;
    let view = model.view();
    let mut out = Vec::new();
    for entry in checked(model) {
        let Some(name) = entry.name() else { continue };
        if crate::hint::is_valid_name(name).is_err() || client_compatible(name) {
            continue;
        }
        let process = &view.processes[entry.process_index];
        let span = hint_name_span(model, process).unwrap_or_else(|| entry.anchor.clone());
        let count = name.chars().count();
        let why = match (name.contains('.'), count > 64) {
            (true, true) => format!("it contains `.` and has {count} characters"),
            (true, false) => "it contains `.`".to_string(),
            _ => format!("it has {count} characters"),
        };
        out.push(Diagnostic::new(
            span,
            Code::NameClientCompat.severity(profile),
            Code::NameClientCompat,
            format!(
                "the MCP tool name `{name}` is valid MCP, but the function-calling APIs agents \
                 pass MCP tools to commonly require `^[a-zA-Z0-9_-]{{1,64}}$`, and {why}: some \
                 clients reject the whole tool list for one such name, and clients that prefix \
                 the server's name overflow long ones; `{}` passes",
                client_name(name)
            ),
        ));
    }
    out
}

#[cfg(test)]
#[path = "clients_tests.rs"]
mod fixture_tests;
