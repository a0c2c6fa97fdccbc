//! The `extension` profile's parameter schemas: inline JSON Schema as the extension's
//! `minimal-tool.mcp.json` shows (titles, descriptions, defaults, closed records,
//! `$defs`/`$ref` only for recursive named types).
use crate::base::Code;
use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use std::sync::Arc;

use super::ogc::STRING_FORMATS;
use super::parted::{Entries, Part, Parted};
use super::resolve::Source;
use super::types::{
    self, Abort, MAX_DEPTH, MAX_NODES, Param, TypeEnv, fields_of, is_nullable, local_name,
    normalize_type, unresolved_problem,
};
use super::{PathSeg, Problem};

/// Joins a CWL `doc` (string or list of strings) with blank lines, trailing space trimmed.
pub fn doc_text(doc: &Value) -> Option<String> {
    let text = match doc {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => return None,
    };
    let t = text.trim_end();
    (!t.is_empty()).then(|| t.to_string())
}

/// One parameter's schema as rendered, whether it is required, and the problems, recursive
/// definitions and nodes its rendering found.
#[derive(Clone)]
struct Rendered {
    schema: Arc<Part>,
    required: bool,
    problems: Vec<Problem>,
    found: BTreeSet<usize>,
    nodes: usize,
}

struct Renderer<'e, 'a> {
    env: &'e TypeEnv<'a>,
    stack: Vec<usize>,
    /// Definitions rendered as `$ref` (recursive ones).
    by_ref: BTreeSet<usize>,
    /// Recursive definitions found during this pass.
    found: BTreeSet<usize>,
    nodes: usize,
    problems: Vec<Problem>,
    path: Vec<PathSeg>,
}

/// The inline schema of one parameter list (`{"type":"object","properties":...}`).
pub fn parameters_schema(
    env: &TypeEnv,
    params: &[Param],
    with_defaults: bool,
    problems: &mut Vec<Problem>,
) -> Result<Parted, (Abort, Vec<PathSeg>)> {
    let mut by_ref = BTreeSet::new();
    // Each pass may discover more recursive definitions; there are at most `defs.len()`.
    for _ in 0..=env.defs.len() {
        let mut r = Renderer {
            env,
            stack: Vec::new(),
            by_ref: by_ref.clone(),
            found: BTreeSet::new(),
            nodes: 0,
            problems: Vec::new(),
            path: Vec::new(),
        };
        let out = r.render(params, with_defaults);
        if r.found.is_subset(&by_ref) || out.is_err() {
            problems.append(&mut r.problems);
            return out;
        }
        by_ref.extend(r.found);
    }
    Err((Abort::TooDeep, Vec::new()))
}

impl Renderer<'_, '_> {
    fn render(
        &mut self,
        params: &[Param],
        with_defaults: bool,
    ) -> Result<Parted, (Abort, Vec<PathSeg>)> {
        let doc = self.env.loader.document_source();
        let mut properties = Entries::with_capacity_and_hasher(params.len(), Default::default());
        let mut required = Vec::with_capacity(params.len());
        let memo_prefix = self
            .env
            .memo_env
            .as_ref()
            .map(|e| format!("inline|{e}|{with_defaults}|{:?}|", self.by_ref));
        let mut runs = types::Runs::<Rendered>::start(self.env, memo_prefix.as_ref(), params.len());
        for p in params {
            let name = local_name(p.id).to_string();
            let mut memo_key = None;
            // A memoized schema is the same as rendering it again here (rendering reads
            // `by_ref`, in the key, never what this pass found), unless it would cross the
            // node budget (then rendering aborts where it did).
            let kept = runs.kept(p, memo_prefix.as_ref(), &mut memo_key);
            if let Some(m) = kept
                && self.nodes + m.nodes <= MAX_NODES
            {
                self.nodes += m.nodes;
                self.problems.extend(m.problems.iter().cloned());
                self.found.extend(m.found.iter().copied());
                if m.required {
                    required.push(Value::String(name.clone()));
                }
                properties.insert(name, m.schema.clone());
                runs.record(p, m);
                continue;
            }
            let memo_key = memo_key.or_else(|| types::memo_key(memo_prefix.as_ref(), p));
            self.path = p.path();
            let (nodes, problems, found) = (self.nodes, self.problems.len(), self.found.clone());
            let (mut schema, optional) = match p.ty() {
                Some(ty) => self.typed(ty, &doc, 0).map_err(|a| (a, p.path()))?,
                None => (Map::new(), false),
            };
            if let Some(Value::String(label)) = p.label()
                && !label.is_empty()
            {
                schema.insert("title".into(), Value::String(label.clone()));
            }
            if let Some(text) = p.doc().and_then(doc_text) {
                schema.insert("description".into(), Value::String(text));
            }
            let defaulted = with_defaults && p.default().is_some();
            if with_defaults && let Some(d) = p.default() {
                schema.insert("default".into(), file_default(d));
            }
            let is_required = !optional && !defaulted;
            if is_required {
                required.push(Value::String(name.clone()));
            }
            let kept = p.memo.is_some() && memo_key.is_some();
            let schema = Part::rendered(Value::Object(schema), kept);
            if let (Some(memo), Some(key)) = (p.memo, memo_key) {
                let rendered = Rendered {
                    schema: schema.clone(),
                    required: is_required,
                    problems: self.problems[problems..].to_vec(),
                    found: self.found.difference(&found).copied().collect(),
                    nodes: self.nodes - nodes,
                };
                memo.put(key, Arc::new(rendered.clone()));
                runs.record(p, rendered);
            }
            properties.insert(name, schema);
        }
        runs.finish();
        let mut out = Map::new();
        out.insert("type".into(), json!("object"));
        if !properties.is_empty() {
            out.insert("properties".into(), Value::Object(Map::new()));
        }
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        out.insert("additionalProperties".into(), json!(false));
        if !self.by_ref.is_empty() {
            let mut defs = Map::new();
            for i in self.by_ref.clone() {
                self.stack.push(i);
                let def = &self.env.defs[i];
                let (value, source) = (def.value.clone(), def.source.clone());
                let body = self
                    .schema_object(&value, &source, 1, Some(i))
                    .map_err(|a| (a, Vec::new()))?;
                self.stack.pop();
                defs.insert(self.def_key(i), Value::Object(body));
            }
            out.insert("$defs".into(), Value::Object(defs));
        }
        let members = if properties.is_empty() {
            Vec::new()
        } else {
            vec![("properties", properties)]
        };
        Ok(Parted {
            skeleton: Value::Object(out),
            members,
        })
    }

    fn def_key(&self, i: usize) -> String {
        let local: String = self.env.defs[i]
            .local()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let clash = self
            .by_ref
            .iter()
            .any(|&j| j < i && self.env.defs[j].local() == self.env.defs[i].local());
        if clash { format!("{local}_{i}") } else { local }
    }

    /// The schema of a type and whether it admits null.
    fn typed(
        &mut self,
        ty: &Value,
        from: &Source,
        depth: usize,
    ) -> Result<(Map<String, Value>, bool), Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        let ty = normalize_type(ty);
        match &ty {
            Value::Array(members) => {
                let optional = is_nullable(&ty);
                let mut schemas = Vec::new();
                for m in members.iter().filter(|m| *m != "null") {
                    schemas.push(Value::Object(self.schema(m, from, depth + 1)?));
                }
                let out = match schemas.len() {
                    0 => obj(json!({"type": "null"})),
                    1 => match schemas.pop() {
                        Some(Value::Object(m)) => m,
                        _ => Map::new(),
                    },
                    _ => obj(json!({"anyOf": schemas})),
                };
                Ok((out, optional))
            }
            other => Ok((self.schema(other, from, depth + 1)?, false)),
        }
    }

    fn schema(
        &mut self,
        ty: &Value,
        from: &Source,
        depth: usize,
    ) -> Result<Map<String, Value>, Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Abort::TooLarge);
        }
        match ty {
            Value::String(s) => self.named(s, from, depth),
            Value::Object(_) => self.schema_object(ty, from, depth, None),
            Value::Array(_) => Ok(self.typed(ty, from, depth)?.0),
            _ => Ok(Map::new()),
        }
    }

    fn named(
        &mut self,
        name: &str,
        from: &Source,
        depth: usize,
    ) -> Result<Map<String, Value>, Abort> {
        let fixed = match name {
            "string" => json!({"type": "string"}),
            "int" | "long" => json!({"type": "integer"}),
            "float" | "double" => json!({"type": "number"}),
            "boolean" => json!({"type": "boolean"}),
            "File" | "Directory" | "stdout" | "stderr" => {
                json!({"type": "string", "format": "uri"})
            }
            "null" => json!({"type": "null"}),
            "Any" => json!({}),
            _ => Value::Null,
        };
        if let Value::Object(m) = fixed {
            return Ok(m);
        }
        let normalized = normalize_type(&Value::String(name.to_string()));
        if !normalized.is_string() {
            return self.schema(&normalized, from, depth + 1);
        }
        let Some(i) = self.env.lookup(name, from) else {
            self.problems.push(Problem {
                code: Code::UnresolvedReference,
                message: format!(
                    "the type `{name}` is not defined in a SchemaDefRequirement of this process"
                ),
                path: self.path.clone(),
                blocking: false,
            });
            return Ok(Map::new());
        };
        if self.by_ref.contains(&i) {
            return Ok(obj(json!({"$ref": format!("#/$defs/{}", self.def_key(i))})));
        }
        if self.stack.contains(&i) {
            self.found.insert(i);
            return Ok(Map::new());
        }
        self.stack.push(i);
        let def = &self.env.defs[i];
        let (value, source) = (def.value.clone(), def.source.clone());
        let out = self.schema_object(&value, &source, depth + 1, Some(i));
        self.stack.pop();
        out
    }

    fn schema_object(
        &mut self,
        ty: &Value,
        from: &Source,
        depth: usize,
        def: Option<usize>,
    ) -> Result<Map<String, Value>, Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        let Some(m) = ty.as_object() else {
            return Ok(Map::new());
        };
        if let Some(imported) = self.env.deref_import(ty, from) {
            return match imported {
                Ok((v, src)) => self.schema(&v, &src, depth + 1),
                Err(e) => {
                    self.problems
                        .push(unresolved_problem(&e, self.path.clone(), false));
                    Ok(Map::new())
                }
            };
        }
        let mut out = match m.get("type") {
            Some(Value::String(t)) if t == "array" => {
                let items = match m.get("items") {
                    Some(it) => Value::Object(self.schema(it, from, depth + 1)?),
                    None => json!({}),
                };
                obj(json!({"type": "array", "items": items}))
            }
            Some(Value::String(t)) if t == "enum" => {
                let symbols: Vec<Value> = m
                    .get("symbols")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str())
                            .map(|s| json!(self.symbol(s)))
                            .collect()
                    })
                    .unwrap_or_default();
                obj(json!({"type": "string", "enum": symbols}))
            }
            Some(Value::String(t)) if t == "record" => {
                if let Some(format) = def.and_then(|i| self.string_format(i)) {
                    return Ok(obj(json!({"type": "string", "format": format})));
                }
                let mut properties = Map::new();
                let mut required = Vec::new();
                for (name, fty, label, doc) in fields_of(m) {
                    let key = local_name(&name).to_string();
                    let (mut s, optional) = self.typed(&fty, from, depth + 1)?;
                    if let Some(Value::String(l)) = label
                        && !l.is_empty()
                    {
                        s.insert("title".into(), Value::String(l.clone()));
                    }
                    if let Some(text) = doc.and_then(doc_text) {
                        s.insert("description".into(), Value::String(text));
                    }
                    properties.insert(key.clone(), Value::Object(s));
                    if !optional {
                        required.push(Value::String(key));
                    }
                }
                let mut o = Map::new();
                o.insert("type".into(), json!("object"));
                o.insert("properties".into(), Value::Object(properties));
                if !required.is_empty() {
                    o.insert("required".into(), Value::Array(required));
                }
                o.insert("additionalProperties".into(), json!(false));
                o
            }
            // `{type: [...]}` / `{type: string}` and other shapes: the inner type.
            Some(inner @ (Value::Array(_) | Value::String(_))) => {
                self.typed(inner, from, depth + 1)?.0
            }
            _ => Map::new(),
        };
        if let Some(Value::String(d)) = m.get("doc")
            && def.is_some()
            && !d.trim().is_empty()
            && !out.contains_key("$ref")
        {
            out.entry("description")
                .or_insert_with(|| Value::String(d.trim_end().to_string()));
        }
        Ok(out)
    }

    /// The JSON Schema format of an eoap `string_format.yaml` record, whatever the copy's
    /// location (URL or local file), when the record's name is a known format.
    fn string_format(&self, i: usize) -> Option<&'static str> {
        let def = &self.env.defs[i];
        if def.source.file_name() != "string_format.yaml" {
            return None;
        }
        STRING_FORMATS
            .iter()
            .find(|(k, _)| *k == def.local())
            .map(|(_, v)| *v)
    }

    /// Enum symbols without their namespace: prefix expanded, then the text after the last
    /// `/` or `#`.
    fn symbol(&self, s: &str) -> String {
        let mut text = s.to_string();
        if !s.contains("://")
            && let Some((prefix, rest)) = s.split_once(':')
            && let Some(ns) = self.env.namespaces.get(prefix).and_then(Value::as_str)
        {
            text = format!("{ns}{rest}");
        }
        if text.contains("://") || text.contains('/') {
            local_name(&text).to_string()
        } else {
            text
        }
    }
}

/// A `File`/`Directory` default (`{class: File, location: x}`) as the URI string its schema
/// describes; lists of them item by item; anything else unchanged.
fn file_default(d: &Value) -> Value {
    match d {
        Value::Object(m)
            if matches!(
                m.get("class").and_then(Value::as_str),
                Some("File" | "Directory")
            ) =>
        {
            m.get("location")
                .or_else(|| m.get("path"))
                .filter(|v| v.is_string())
                .cloned()
                .unwrap_or_else(|| d.clone())
        }
        Value::Array(items) => Value::Array(items.iter().map(file_default).collect()),
        other => other.clone(),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
