//! Derivation of the MCP Tool of one CWL process (SPEC §4), for both profiles, and its
//! validation against the bundled MCP schemas.
//!
//! The engine works on plain data: the caller (the CWL view) locates a process and its
//! `mcp:Tool` hint in a document already converted to JSON (YAML 1.2 core semantics), and
//! passes them in a [`ProcessInput`]. [`derive_tool`] returns a [`Derivation`]: the Tool (when
//! one could be built) and the [`Problem`]s found, each with a JSON path inside the process
//! value and a `blocking` flag. A Tool is *exported* (what `derive` prints, what `tools-list`
//! serves) only when no problem blocks it: [`Derivation::exported`].
//!
//! ```
//! use cwl_mcp_lsp::derive::{derive_tool, DeriveOptions, ProcessInput};
//! use cwl_mcp_lsp::base::settings::Profile;
//! let process = serde_json::json!({
//!     "class": "CommandLineTool", "id": "echo-region", "label": "Echo",
//!     "inputs": {"region": "string"}, "outputs": {}
//! });
//! let namespaces = serde_json::Map::new();
//! let input = ProcessInput {
//!     process: &process, key: "echo-region", namespaces: &namespaces,
//!     document_path: None, sandbox_root: None, file_stem: "echo", hint: None, document: None,
//! };
//! let d = derive_tool(&input, &DeriveOptions::for_profile(Profile::Extension));
//! assert_eq!(d.exported().unwrap()["name"], "echo_region");
//! ```
//!
//! Problem codes are those of SPEC §5 (`mcp-schema`, `name-invalid`, `doc-not-string`,
//! `invalid-type`, `missing-field`, `unknown-field`, `annotations-class`) plus four engine
//! codes that SPEC §5 does not list yet ([`codes`]): `unresolved-reference`, `recursive-type`,
//! `type-too-complex` and `default-file-object`. The hint checks here (`invalid-type`,
//! `missing-field`, `unknown-field`, `annotations-class`) overlap with the CWL view's hint
//! validation, as do `name-invalid` and `doc-not-string`: [`Problem::also_reported_by_view`]
//! tells them apart so the caller can keep one copy.
//!
//! The engine derives a Tool for any process, hint or not (as `tools-list` and the exporter
//! need). Under the `extension` profile SPEC §5 reports nothing for a process without a hint,
//! so callers surface its problems as diagnostics only when the process has a hint.
//!
//! Local `$import` / `$include` targets are read only under `sandbox_root` (default: the
//! document's folder), at most [`resolve::MAX_FILE_BYTES`] each, never through a symlink out of
//! it; eoap/schemas `string_format.yaml` and `geojson.yaml` are bundled and resolved offline by
//! their canonical URLs. `docs/derivation.md` states the rules of both profiles.
use std::borrow::Cow;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::base::Code;
use crate::base::settings::{Profile, ProtocolVersion};
use crate::hint::values::HintValues;

mod inline;
mod ogc;
pub mod parted;
pub mod resolve;
mod types;
pub mod validate;
pub mod view;

pub use validate::{SchemaViolation, name_problem, validate_tool};

pub use parted::{Part, Parted, ToolSchemas};
use resolve::Loader;
use types::{Abort, TypeEnv, params_of};
pub use types::{Body, Holder, Listed, Param, ParamMemo, item_id, names_a_file, params_of_entries};

/// Whether an input's value, `depth` levels below its process, nests deeper than a process
/// value may ([`derive_tool`] refuses such a process as too complex).
pub fn nests_too_deep(value: &Value, depth: usize) -> bool {
    types::nesting_exceeds(value, types::MAX_VALUE_NESTING.saturating_sub(depth))
}

/// One process to derive a Tool from.
#[derive(Clone, Copy, Debug)]
pub struct ProcessInput<'a> {
    /// The process mapping as written (hints/requirements/inputs/outputs in list or map form).
    pub process: &'a Value,
    /// The cwl2mcp key: the process id after its last `#`, `<step path>/run` for an inline
    /// process without id, or the file URI when there is no id.
    pub key: &'a str,
    /// The document root's `$namespaces`.
    pub namespaces: &'a Map<String, Value>,
    /// The document's path, for local `$import` / `$include` resolution.
    pub document_path: Option<&'a Path>,
    /// The folder under which local files may be read (default: the document's folder).
    pub sandbox_root: Option<&'a Path>,
    /// The file name without extension (the extension profile's name fallback).
    pub file_stem: &'a str,
    /// The values of the recognised `mcp:Tool` hint (first match), as the hint rules read
    /// and checked them (`crate::hint::validate`); derivation does not read the hint again.
    pub hint: Option<&'a HintValues>,
    /// The whole document (its root value), for `$import: "#fragment"` targets inside it, as
    /// packed `$graph` documents use. `None` = such targets are read from `document_path`.
    pub document: Option<&'a Value>,
}

/// How to derive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeriveOptions {
    pub profile: Profile,
    pub meta_prefix: String,
    pub protocol_version: ProtocolVersion,
}

impl DeriveOptions {
    /// The options the effective settings of a document ask for.
    pub fn from_settings(settings: &crate::base::settings::Settings) -> DeriveOptions {
        DeriveOptions {
            profile: settings.profile,
            meta_prefix: settings.meta_prefix().to_string(),
            protocol_version: settings.protocol_version,
        }
    }

    /// The profile's defaults: its meta prefix and the default protocol version.
    pub fn for_profile(profile: Profile) -> DeriveOptions {
        DeriveOptions {
            profile,
            meta_prefix: profile.default_meta_prefix().to_string(),
            protocol_version: ProtocolVersion::default(),
        }
    }
}

/// One step of a JSON path inside the process value (the CWL view's path type).
pub use crate::cwl::PathSeg;

/// Something wrong with the process, its hint or the derived Tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub code: Code,
    pub message: String,
    /// Where inside the process value (empty = the process itself).
    pub path: Vec<PathSeg>,
    /// Whether it prevents exporting the Tool under the profile used.
    pub blocking: bool,
}

/// The result of [`derive_tool`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Derivation {
    /// The Tool, whenever one could be built (also when a problem blocks its export, so that
    /// editors can preview it). `None` only when no Tool value exists at all.
    pub tool: Option<Value>,
    pub problems: Vec<Problem>,
    /// Where the Tool's name, title and description came from (SPEC §4), as hover explains
    /// them: the rule that chose each value says so here, in the same place.
    pub sources: Sources,
}

/// Where each effective value of the Tool's identity came from, phrased to follow "from".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    pub name: &'static str,
    /// `None` when the Tool has no title.
    pub title: Option<&'static str>,
    /// `None` when the Tool has no description.
    pub description: Option<&'static str>,
    /// Why there is no description although the process has a `doc` (cwl2mcp: a list).
    pub description_problem: Option<&'static str>,
}

impl Derivation {
    /// Whether a problem prevents exporting the Tool.
    pub fn is_refused(&self) -> bool {
        self.tool.is_none() || self.problems.iter().any(|p| p.blocking)
    }

    /// The Tool as the exporter would write it, or `None` when refused.
    pub fn exported(&self) -> Option<&Value> {
        if self.is_refused() {
            None
        } else {
            self.tool.as_ref()
        }
    }
}

pub use crate::hint::normalize_name;

/// Derives the MCP Tool of one process and validates it (SPEC §4).
pub fn derive_tool(input: &ProcessInput, opts: &DeriveOptions) -> Derivation {
    let (mut derivation, schemas) = derive_tool_parted(input, opts, None);
    if let Some(tool) = derivation.tool.as_mut().and_then(Value::as_object_mut) {
        schemas.move_into(tool);
    }
    derivation
}

/// A process's inputs given apart from its value, each with where its rendered schema is
/// kept ([`ParamMemo`]), and the settings it is derived under, as text (with
/// `TypeEnv::identity`, what the memoized schemas are keyed by: `TypeEnv::memo_env`).
/// The process value then has no `inputs`, or an empty one.
#[derive(Clone, Copy)]
pub struct GivenInputs<'a> {
    pub params: &'a [Param<'a>],
    pub settings: &'a str,
    /// What holds the parameters' memos ([`types::Holder`]).
    pub holder: &'a Holder,
}

/// [`derive_tool`], with the inputs given apart (`None`: read from the process value), the
/// Tool's schemas kept apart and parted ([`ToolSchemas`]): the derivation's Tool has no
/// schema fields, and its problems are those of the whole Tool.
pub fn derive_tool_parted(
    input: &ProcessInput,
    opts: &DeriveOptions,
    given: Option<GivenInputs>,
) -> (Derivation, ToolSchemas) {
    let mut problems = Vec::new();
    let Some(process) = input.process.as_object() else {
        problems.push(Problem {
            code: Code::InvalidType,
            message: "a process must be a mapping".into(),
            path: Vec::new(),
            blocking: true,
        });
        return refused(problems);
    };
    if types::nesting_exceeds(input.process, types::MAX_VALUE_NESTING) {
        problems.push(Problem {
            code: Code::TypeTooComplex,
            message: format!(
                "the process nests more than {} levels of lists and mappings",
                types::MAX_VALUE_NESTING
            ),
            path: Vec::new(),
            blocking: true,
        });
        return refused(problems);
    }
    let strict = opts.profile == Profile::Cwl2mcp;
    let hint = input.hint.map(|h| (h, &h.path));
    let loader = Loader::new(input.document_path, input.sandbox_root);
    let id = process
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    // A process has a fragment of its own when it has an id, or when it is an inline `run:`
    // process (Salad names it `<step path>/run`); only a root process without id is keyed by
    // the document URI, and its parameters then keep the file name in their keys.
    let scoped = id.is_some() || !input.key.contains("://");
    let scope = scoped.then(|| input.key.to_string());
    let mut env = TypeEnv::new(
        &loader,
        input.document,
        input.namespaces,
        input.process,
        scope,
        !strict,
        &mut problems,
        strict,
    );
    env.memo_env = given.map(|g| env.memo_env_of(g.settings));
    env.memo_holder = given.map(|g| g.holder.clone());
    let inputs_v = section(&loader, input.process, "inputs", &mut problems, strict);
    let outputs_v = section(&loader, input.process, "outputs", &mut problems, strict);
    let inputs = match given {
        Some(g) => g.params.to_vec(),
        None => params_of(&inputs_v, "inputs"),
    };
    let outputs = params_of(&outputs_v, "outputs");
    let label = text_field(&loader, process, "label", &mut problems, strict);
    let doc_v = match process.get("doc") {
        Some(Value::Object(m)) if m.contains_key("$include") => {
            text_field(&loader, process, "doc", &mut problems, strict).map(Value::String)
        }
        other => other.cloned(),
    };

    let mut tool = Map::new();
    let mut sources = Sources::default();
    let label_from = if matches!(process.get("label"), Some(Value::Object(_))) {
        "the CWL `label` (`$include`)"
    } else {
        "the CWL `label`"
    };
    let doc_included = matches!(process.get("doc"), Some(Value::Object(_)));
    let name_from_hint;
    let schemas = if strict {
        let h = hint.as_ref().map(|(h, _)| h);
        name_from_hint = h.and_then(|h| h.name.clone());
        let name = name_from_hint
            .clone()
            .unwrap_or_else(|| input.key.to_string());
        if let Some(id) = id.filter(|id| id.contains("://")) {
            // Reference case 49: cwl2mcp 0.1.0 cannot load a process whose id is a URI.
            problems.push(Problem {
                code: Code::NameInvalid,
                message: format!("the process id `{id}` is a URI; cwl2mcp 0.1.0 fails to load such a document (give the process a plain id such as `main`)"),
                path: vec![PathSeg::Key("id".into())],
                blocking: true,
            });
        }
        sources.name = if name_from_hint.is_some() {
            "`name` of the hint"
        } else if id.is_none() && input.key.contains("://") {
            "the document URI, as the process has no `id`"
        } else {
            "the raw process id (cwl2mcp does not normalize it)"
        };
        tool.insert("name".into(), json!(name));
        let hint_title = h.and_then(|h| h.title.clone());
        sources.title = match (&hint_title, &label) {
            (Some(_), _) => Some("`title` of the hint"),
            (None, Some(_)) => Some(label_from),
            (None, None) => None,
        };
        if let Some(title) = hint_title.or(label) {
            tool.insert("title".into(), json!(title));
        }
        match &doc_v {
            Some(Value::String(s)) if !s.is_empty() => {
                sources.description = Some(if doc_included {
                    "the CWL `doc` (`$include`); cwl2mcp ignores `useWhen` and `doNotUseWhen`"
                } else {
                    "the CWL `doc`; cwl2mcp ignores `useWhen` and `doNotUseWhen`"
                });
                tool.insert("description".into(), json!(s));
            }
            Some(Value::Array(a)) if !a.is_empty() => {
                sources.description_problem = Some("a list-valued `doc` makes cwl2mcp 0.1.0 fail");
                problems.push(Problem {
                code: Code::DocNotString,
                message: "cwl2mcp 0.1.0 copies `doc` into the Tool description, which must be a string; a list of strings fails the export".into(),
                path: vec![PathSeg::Key("doc".into())],
                blocking: true,
            })
            }
            Some(v) if ogc::truthy(v) && !v.is_string() && !v.is_array() => {
                problems.push(Problem {
                    code: Code::InvalidType,
                    message: format!("`doc` must be a string, not {}", kind(v)),
                    path: vec![PathSeg::Key("doc".into())],
                    blocking: true,
                })
            }
            _ => {}
        }
        let doc_file = loader
            .document_file_name()
            .unwrap_or_else(|| format!("{}.cwl", input.file_stem));
        check_file_defaults(&loader, &inputs, &mut problems);
        let ins = ogc::parameters_schema(
            &env,
            &inputs,
            input.key,
            "inputs",
            &doc_file,
            scoped,
            &mut problems,
        );
        let outs = ogc::parameters_schema(
            &env,
            &outputs,
            input.key,
            "outputs",
            &doc_file,
            scoped,
            &mut problems,
        );
        match (ins, outs) {
            (Ok(i), Ok(o)) => Ok((Some(i), Some(o))),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    } else {
        let h = hint.as_ref().map(|(h, _)| h);
        let id_name = normalize_name(id.unwrap_or(input.file_stem));
        let fallback_from = if id.is_some() {
            "the normalized process id"
        } else {
            "the normalized file name, as the process has no `id`"
        };
        name_from_hint = h.and_then(|h| h.name.clone());
        sources.name = if name_from_hint.is_some() {
            "`name` of the hint"
        } else {
            fallback_from
        };
        tool.insert(
            "name".into(),
            json!(name_from_hint.clone().unwrap_or_else(|| id_name.clone())),
        );
        let hint_title = h.and_then(|h| h.title.clone());
        sources.title = Some(match (&hint_title, &label) {
            (Some(_), _) => "`title` of the hint",
            (None, Some(_)) => label_from,
            (None, None) => fallback_from,
        });
        let title = hint_title.or(label).unwrap_or(id_name);
        tool.insert("title".into(), json!(title));
        let description = match h.and_then(|h| h.description.clone()) {
            Some(d) => {
                sources.description = Some("`description` of the hint");
                Some(d)
            }
            None => {
                let composed = compose_description(
                    doc_v.as_ref(),
                    h.and_then(|h| h.use_when.as_deref()),
                    h.and_then(|h| h.do_not_use_when.as_deref()),
                );
                if composed.is_some() {
                    sources.description = Some("the CWL `doc`, `useWhen` and `doNotUseWhen`");
                }
                composed
            }
        };
        if let Some(d) = description {
            tool.insert("description".into(), json!(d));
        }
        let ins = inline::parameters_schema(&env, &inputs, true, &mut problems);
        let outs = if outputs.is_empty() {
            Ok(None)
        } else {
            inline::parameters_schema(&env, &outputs, false, &mut problems).map(Some)
        };
        match (ins, outs) {
            (Ok(i), Ok(o)) => Ok((Some(i), o)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    };
    let (input_schema, output_schema) = match schemas {
        Ok(s) => s,
        Err((abort, path)) => {
            let (code, message) = match abort {
                Abort::Recursive(name) => (
                    Code::RecursiveType,
                    if strict {
                        format!(
                            "the type `{name}` contains itself; cwl2mcp 0.1.0 fails on recursive types (RecursionError)"
                        )
                    } else {
                        format!("the type `{name}` contains itself")
                    },
                ),
                Abort::TooDeep => (
                    Code::TypeTooComplex,
                    "types are nested too deeply to derive a schema".to_string(),
                ),
                Abort::TooLarge => (
                    Code::TypeTooComplex,
                    "the expanded types are too large to derive a schema".to_string(),
                ),
            };
            problems.push(Problem {
                code,
                message,
                path,
                blocking: true,
            });
            return refused(problems);
        }
    };
    let schemas = ToolSchemas {
        input: input_schema,
        output: output_schema,
    };
    if let Some((h, _)) = &hint {
        if strict {
            let mut a = Map::new();
            if let Some(ann) = &h.annotations {
                for k in [
                    "readOnlyHint",
                    "destructiveHint",
                    "idempotentHint",
                    "openWorldHint",
                ] {
                    if let Some(v) = ann.get(k) {
                        a.insert(k.into(), v.clone());
                    }
                }
            }
            tool.insert("annotations".into(), Value::Object(a));
        } else if let Some(ann) = h.annotations.as_ref().filter(|a| !a.is_empty()) {
            tool.insert("annotations".into(), Value::Object(ann.clone()));
        }
    }
    let mut meta = Map::new();
    let prefix = &opts.meta_prefix;
    if let Some((h, _)) = &hint {
        if !h.aliases.is_empty() {
            meta.insert(format!("{prefix}-aliases"), json!(h.aliases));
        }
        if strict {
            if let Some(u) = h.use_when.as_ref().filter(|s| !s.is_empty()) {
                meta.insert(format!("{prefix}-use-when"), json!(u));
            }
            if let Some(u) = h.do_not_use_when.as_ref().filter(|s| !s.is_empty()) {
                meta.insert(format!("{prefix}-do-not-use-when"), json!(u));
            }
        }
    }
    if strict || !meta.is_empty() {
        tool.insert("_meta".into(), Value::Object(meta));
    }
    let name_reported = problems.iter().any(|p| p.code == Code::NameInvalid);
    for v in validate_schemas(&mut tool, &schemas, opts.protocol_version) {
        if v.code == Code::NameInvalid && name_reported {
            continue; // the id-is-a-URI problem above says it better
        }
        let path = violation_path(
            &v.instance_path,
            process,
            hint.map(|(_, p)| p),
            name_from_hint.is_some(),
        );
        let message = match tool.get("name").and_then(Value::as_str) {
            Some(name) if v.code == Code::NameInvalid => {
                validate::name_message(name, Some(sources.name)).unwrap_or(v.message)
            }
            _ => v.message,
        };
        problems.push(Problem {
            code: v.code,
            message,
            path,
            blocking: true,
        });
    }
    (
        Derivation {
            tool: Some(Value::Object(tool)),
            problems,
            sources,
        },
        schemas,
    )
}

/// No Tool: a derivation refused with `problems`.
fn refused(problems: Vec<Problem>) -> (Derivation, ToolSchemas) {
    let derivation = Derivation {
        tool: None,
        problems,
        ..Derivation::default()
    };
    (derivation, ToolSchemas::default())
}

/// [`validate_tool`] of the header Tool `tool` (no schema fields) with `schemas`, part by
/// part ([`validate::validate_parted`]); `tool` is left as it was given.
fn validate_schemas(
    tool: &mut Map<String, Value>,
    schemas: &ToolSchemas,
    version: ProtocolVersion,
) -> Vec<SchemaViolation> {
    // The skeletons are put in place for the check and taken out after it (the header is
    // what the derivation keeps).
    let skeletons =
        [&schemas.input, &schemas.output].map(|s| s.as_ref().map(|p| p.skeleton.clone()));
    let mut map = std::mem::take(tool);
    ToolSchemas::place(&mut map, skeletons);
    let skeleton = Value::Object(map);
    let parts = schemas.fields().flat_map(|(field, parted)| {
        parted
            .parts()
            .map(move |(member, name, part)| (field, member, name, &**part))
    });
    let found = validate::validate_parted(
        &skeleton,
        parts,
        || {
            let mut whole = skeleton.as_object().cloned().unwrap_or_default();
            schemas.insert_into(&mut whole);
            Value::Object(whole)
        },
        version,
    );
    if let Value::Object(mut back) = skeleton {
        for field in parted::SCHEMA_FIELDS {
            back.shift_remove(field);
        }
        *tool = back;
    }
    found
}

/// `DOC\n\nUse when: USE\n\nDo not use when: DONT`, leaving out absent or empty parts.
fn compose_description(
    doc: Option<&Value>,
    use_when: Option<&str>,
    dont: Option<&str>,
) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(d) = doc.and_then(inline::doc_text) {
        parts.push(d);
    }
    if let Some(u) = use_when.map(str::trim_end).filter(|s| !s.is_empty()) {
        parts.push(format!("Use when: {u}"));
    }
    if let Some(u) = dont.map(str::trim_end).filter(|s| !s.is_empty()) {
        parts.push(format!("Do not use when: {u}"));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn violation_path(
    instance: &str,
    process: &Map<String, Value>,
    hint: Option<&Vec<PathSeg>>,
    name_from_hint: bool,
) -> Vec<PathSeg> {
    let first = instance
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("");
    let in_hint = |keys: &[&str]| -> Vec<PathSeg> {
        let mut p = hint.cloned().unwrap_or_default();
        p.extend(keys.iter().map(|k| PathSeg::Key((*k).to_string())));
        p
    };
    match first {
        "name" if name_from_hint => in_hint(&["name"]),
        "name" if process.contains_key("id") => vec![PathSeg::Key("id".into())],
        "annotations" if hint.is_some() => in_hint(&["annotations"]),
        "_meta" if hint.is_some() => in_hint(&[]),
        "title" if process.contains_key("label") => vec![PathSeg::Key("label".into())],
        "description" if process.contains_key("doc") => vec![PathSeg::Key("doc".into())],
        "inputSchema" => vec![PathSeg::Key("inputs".into())],
        "outputSchema" => vec![PathSeg::Key("outputs".into())],
        _ => Vec::new(),
    }
}

/// A value holding `inputs` / `outputs` under `key` (what [`params_of`] reads), with a
/// whole-section `$import` resolved: the process itself when there is none (borrowed: the
/// section of a 50,000-line tool is not copied per derivation), else `{key: loaded}`.
fn section<'v>(
    loader: &Loader,
    process: &'v Value,
    key: &str,
    problems: &mut Vec<Problem>,
    strict: bool,
) -> Cow<'v, Value> {
    let Some(target) = process
        .get(key)
        .and_then(Value::as_object)
        .and_then(|m| m.get("$import"))
        .and_then(Value::as_str)
    else {
        return Cow::Borrowed(process);
    };
    let src = loader.locate(target, &loader.document_source());
    let loaded = match loader.load(&src) {
        Ok(loaded) => loaded,
        Err(e) => {
            problems.push(types::unresolved_problem(
                &e,
                vec![PathSeg::Key(key.into()), PathSeg::Key("$import".into())],
                strict,
            ));
            Value::Null
        }
    };
    let mut out = Map::new();
    out.insert(key.into(), loaded);
    Cow::Owned(Value::Object(out))
}

/// A string field (`label`, `doc`), with `{$include: file}` read from the sandbox.
fn text_field(
    loader: &Loader,
    process: &Map<String, Value>,
    key: &str,
    problems: &mut Vec<Problem>,
    strict: bool,
) -> Option<String> {
    match process.get(key)? {
        Value::String(s) => Some(s.clone()).filter(|s| !s.is_empty()),
        Value::Object(m) if m.get("$include").is_some_and(Value::is_string) => {
            let target = m.get("$include").and_then(Value::as_str).unwrap_or("");
            let src = loader.locate(target, &loader.document_source());
            match loader.include(&src) {
                Ok(text) => Some(text).filter(|s| !s.is_empty()),
                Err(e) => {
                    problems.push(types::unresolved_problem(
                        &e,
                        vec![PathSeg::Key(key.into()), PathSeg::Key("$include".into())],
                        strict,
                    ));
                    None
                }
            }
        }
        Value::Null => None,
        other if key == "label" => {
            problems.push(Problem {
                code: Code::InvalidType,
                message: format!("`label` must be a string, not {}", kind(other)),
                path: vec![PathSeg::Key(key.into())],
                blocking: strict,
            });
            None
        }
        _ => None,
    }
}

/// cwl2mcp 0.1.0 turns a `File`/`Directory` default whose file exists into an object it
/// cannot serialize. Only files inside the sandbox are checked.
fn check_file_defaults(loader: &Loader, inputs: &[types::Param], problems: &mut Vec<Problem>) {
    for p in inputs.iter().filter(|p| p.may_default_to_a_file()) {
        let Some(d) = p.default() else { continue };
        for loc in types::file_defaults(d) {
            let local = loc.strip_prefix("file://").unwrap_or(loc);
            if local.contains("://") {
                continue;
            }
            let src = loader.locate(local, &loader.document_source());
            if let resolve::Source::File(path) = &src
                && loader.exists_in_sandbox(path)
            {
                let mut path = p.path();
                path.push(PathSeg::Key("default".into()));
                problems.push(Problem {
                    code: Code::DefaultFileObject,
                    message: format!("the default `{loc}` names an existing file; cwl2mcp 0.1.0 then fails with `Object of type File is not JSON serializable`"),
                    path,
                    blocking: true,
                });
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
