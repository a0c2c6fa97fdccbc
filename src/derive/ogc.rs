//! The `cwl2mcp` profile's parameter schemas: the shape cwl2ogc 0.22.2 produces
//! (`BaseCWLtypes2OGCConverter.get_inputs_json_schema` / `get_outputs_json_schema`).
use serde_json::{Map, Value, json};

use std::sync::Arc;

use indexmap::IndexMap;

use super::parted::{Entries, Part, Parted};
use super::resolve::STRING_FORMAT_URL;
use super::types::{
    self, Abort, Base, MAX_DEPTH, MAX_NODES, Param, TypeEnv, fields_of, is_nullable,
    normalize_type, unresolved_problem,
};
use super::{PathSeg, Problem};

/// cwl2ogc's table of eoap string formats, by record local name.
pub const STRING_FORMATS: &[(&str, &str)] = &[
    ("Date", "date"),
    ("DateTime", "date-time"),
    ("Duration", "duration"),
    ("Email", "email"),
    ("Hostname", "hostname"),
    ("IDNEmail", "idn-email"),
    ("IDNHostname", "idn-hostname"),
    ("IPv4", "ipv4"),
    ("IPv6", "ipv6"),
    ("IRI", "iri"),
    ("IRIReference", "iri-reference"),
    ("JsonPointer", "json-pointer"),
    ("Password", "password"),
    ("RelativeJsonPointer", "relative-json-pointer"),
    ("UUID", "uuid"),
    ("URI", "uri"),
    ("URIReference", "uri-reference"),
    ("URITemplate", "uri-template"),
    ("Time", "time"),
];

const STAC_ITEM: &str = "https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json";
const STAC_COLLECTION: &str =
    "https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json";
const OGC_FEATURES: &str = "https://schemas.opengis.net/ogcapi/features/part1/1.0/openapi/schemas/featureCollectionGeoJSON.yaml";

/// Python truthiness of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

struct Renderer<'e, 'a> {
    env: &'e TypeEnv<'a>,
    stack: Vec<usize>,
    nodes: usize,
    problems: Vec<Problem>,
    path: Vec<PathSeg>,
}

/// One parameter's schema as rendered, with the problems and the nodes it counted.
#[derive(Clone)]
struct Rendered {
    schema: Arc<Part>,
    /// Its entry in `properties` (`{"$ref": "#/$defs/<key>"}`).
    reference: Arc<Part>,
    /// Whether the schema says `nullable` (then the key is not `required`).
    nullable: bool,
    problems: Vec<Problem>,
    nodes: usize,
}

/// The cwl2ogc JSON schema of one parameter list. `key` is the process key (the id after its
/// last `#`); `label` is `inputs` or `outputs`.
pub fn parameters_schema(
    env: &TypeEnv,
    params: &[Param],
    key: &str,
    label: &str,
    doc_file: &str,
    has_id: bool,
    problems: &mut Vec<Problem>,
) -> Result<Parted, (Abort, Vec<PathSeg>)> {
    let mut properties = Entries::with_capacity_and_hasher(params.len(), Default::default());
    // Each key's schema and its reference.
    let mut defs: IndexMap<String, (Arc<Part>, Arc<Part>, bool)> = IndexMap::new();
    let mut required: Vec<Value> = Vec::with_capacity(params.len());
    let mut r = Renderer {
        env,
        stack: Vec::new(),
        nodes: 0,
        problems: Vec::new(),
        path: Vec::new(),
    };
    let doc = env.loader.document_source();
    let memo_prefix = env
        .memo_env
        .as_ref()
        .map(|e| format!("ogc|{e}|{key}|{label}|{doc_file}|{has_id}|"));
    let mut runs = types::Runs::<Rendered>::start(env, memo_prefix.as_ref(), params.len());
    for p in params {
        let k = property_key(p.id, doc_file, has_id);
        let mut memo_key = None;
        // A memoized schema is the same as rendering it again here, unless it would cross
        // the node budget (then rendering finds the same problems up to the same abort).
        let kept = runs.kept(p, memo_prefix.as_ref(), &mut memo_key);
        if let Some(m) = kept
            && r.nodes + m.nodes <= MAX_NODES
        {
            r.nodes += m.nodes;
            r.problems.extend(m.problems.iter().cloned());
            defs.insert(k, (m.schema.clone(), m.reference.clone(), m.nullable));
            runs.record(p, m);
            continue;
        }
        let memo_key = memo_key.or_else(|| types::memo_key(memo_prefix.as_ref(), p));
        r.path = p.path();
        let (nodes, found) = (r.nodes, r.problems.len());
        let process = Base {
            source: doc.clone(),
            frag: Some(env.scope.clone().unwrap_or_default()),
        };
        let base = process.child(env, p.id);
        let mut schema = match p.ty() {
            Some(ty) => match r.param(ty, &base, 0) {
                Ok(s) => s,
                Err(a) => {
                    problems.append(&mut r.problems);
                    return Err((a, p.path()));
                }
            },
            None => Map::new(),
        };
        if let Some(default) = p.default().filter(|d| truthy(d)) {
            let string_format = schema
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| STRING_FORMATS.iter().any(|(_, v)| *v == f));
            let value = match default {
                Value::Object(m) if string_format && m.contains_key("value") => m["value"].clone(),
                other => other.clone(),
            };
            schema.insert("default".into(), value);
        }
        let nullable = schema.get("nullable").is_some_and(truthy);
        let kept = p.memo.is_some() && memo_key.is_some();
        let schema = Part::rendered(Value::Object(schema), kept);
        let reference = Part::rendered(json!({ "$ref": format!("#/$defs/{k}") }), kept);
        if let (Some(memo), Some(key)) = (p.memo, memo_key) {
            let rendered = Rendered {
                schema: schema.clone(),
                reference: reference.clone(),
                nullable,
                problems: r.problems[found..].to_vec(),
                nodes: r.nodes - nodes,
            };
            memo.put(key, Arc::new(rendered.clone()));
            runs.record(p, rendered);
        }
        // A repeated key keeps its first position and its last schema (a Python dict).
        defs.insert(k, (schema, reference, nullable));
    }
    runs.finish();
    let mut schemas = Entries::with_capacity_and_hasher(defs.len(), Default::default());
    for (k, (schema, reference, nullable)) in defs {
        if !nullable {
            required.push(Value::String(k.clone()));
        }
        properties.insert(k.clone(), reference);
        schemas.insert(k, schema);
    }
    problems.append(&mut r.problems);
    Ok(Parted {
        skeleton: json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": format!("https://eoap.github.io/cwl2ogc/{key}/{label}.yaml"),
            "description": format!("The schema to represent a {key} {label} definition"),
            "type": "object",
            "required": required,
            "properties": {},
            "additionalProperties": false,
            "$defs": {},
        }),
        members: vec![("properties", properties), ("$defs", schemas)],
    })
}

/// cwl2ogc keys a parameter by its expanded id after the last `/`. With a process id the
/// expansion is `<doc>#<process>/<param>`, so the key is the parameter name; without one it
/// is `<doc>#<param>`, whose last segment keeps the document's file name.
pub fn property_key(id: &str, doc_file: &str, has_id: bool) -> String {
    if id.contains("://") {
        return id.rsplit('/').next().unwrap_or(id).to_string();
    }
    let (absolute, frag) = match id.strip_prefix('#') {
        Some(f) => (true, f),
        None => (false, id),
    };
    if frag.contains('/') {
        return frag.rsplit('/').next().unwrap_or(frag).to_string();
    }
    if absolute || !has_id {
        format!("{doc_file}#{frag}")
    } else {
        frag.to_string()
    }
}

impl Renderer<'_, '_> {
    fn count(&mut self) -> Result<(), Abort> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            Err(Abort::TooLarge)
        } else {
            Ok(())
        }
    }

    /// `_convert_input_type` for something with a `type_` (a parameter or record field).
    fn param(
        &mut self,
        ty: &Value,
        base: &Base,
        depth: usize,
    ) -> Result<Map<String, Value>, Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        self.count()?;
        let ty = normalize_type(ty);
        match &ty {
            Value::String(s) => self.named(s, base, depth),
            Value::Array(members) => {
                let mut out = Map::new();
                out.insert("nullable".into(), Value::Bool(is_nullable(&ty)));
                let mut schemas = Vec::new();
                for m in members.iter().filter(|m| *m != "null") {
                    schemas.push(Value::Object(self.item(m, base, depth + 1)?));
                }
                if schemas.len() == 1 {
                    if let Some(Value::Object(only)) = schemas.pop() {
                        out.extend(only);
                    }
                } else {
                    out.insert("anyOf".into(), Value::Array(schemas));
                }
                Ok(out)
            }
            Value::Object(_) => self.schema_object(&ty, base, depth),
            _ => Ok(Map::new()),
        }
    }

    /// `_on_input` of a bare type (array items, union members, a named definition).
    fn item(&mut self, ty: &Value, base: &Base, depth: usize) -> Result<Map<String, Value>, Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        self.count()?;
        match ty {
            Value::String(s) => self.named(s, base, depth),
            Value::Object(_) => self.schema_object(ty, base, depth),
            // A list has no `type_`: cwl2ogc gives up with `{}`.
            _ => Ok(Map::new()),
        }
    }

    fn named(
        &mut self,
        name: &str,
        base: &Base,
        depth: usize,
    ) -> Result<Map<String, Value>, Abort> {
        let fixed = match name {
            "int" => json!({"type": "integer", "format": "int32"}),
            "long" => json!({"type": "integer", "format": "int64"}),
            "double" => json!({"type": "number", "format": "double"}),
            "float" => json!({"type": "number", "format": "float"}),
            "boolean" => json!({"type": "boolean"}),
            "string" | "stdout" => json!({"type": "string"}),
            "File" => json!({"oneOf": [
                {"type": "string", "format": "uri"},
                {"$ref": STAC_ITEM},
            ]}),
            "Directory" => json!({"oneOf": [
                {"type": "string", "format": "uri"},
                {"$ref": STAC_ITEM},
                {"$ref": STAC_COLLECTION},
                {"$ref": OGC_FEATURES},
            ]}),
            _ => Value::Null,
        };
        if let Value::Object(m) = fixed {
            return Ok(m);
        }
        // `record`/`enum`/`array` written as a bare name, `Any`, `null`, `stderr` and unknown
        // names fall through to the dictionary search, which gives `{}` when nothing matches.
        let Some(i) = self.env.lookup_exact(name, base) else {
            return Ok(Map::new());
        };
        if self.stack.contains(&i) {
            return Err(Abort::Recursive(self.env.defs[i].local().to_string()));
        }
        self.stack.push(i);
        let def = &self.env.defs[i];
        let (value, scope) = (def.value.clone(), def.scope.clone());
        let out = self.schema_object(&value, &scope, depth + 1);
        self.stack.pop();
        out
    }

    /// A type written as a mapping, inside `base` (its own name, if any, is relative to it).
    fn schema_object(
        &mut self,
        ty: &Value,
        base: &Base,
        depth: usize,
    ) -> Result<Map<String, Value>, Abort> {
        if depth > MAX_DEPTH {
            return Err(Abort::TooDeep);
        }
        self.count()?;
        let Some(m) = ty.as_object() else {
            return Ok(Map::new());
        };
        if let Some(imported) = self.env.deref_import(ty, &base.source) {
            return match imported {
                Ok((v, src)) => {
                    let inner = Base {
                        source: src,
                        frag: Some(String::new()),
                    };
                    self.item(&v, &inner, depth + 1)
                }
                Err(e) => {
                    self.problems
                        .push(unresolved_problem(&e, self.path.clone(), true));
                    Ok(Map::new())
                }
            };
        }
        let own = m
            .get("name")
            .and_then(Value::as_str)
            .map(|n| base.child(self.env, n));
        match m.get("type").and_then(Value::as_str) {
            Some("array") => {
                let inner = own.unwrap_or_else(|| base.clone());
                let items = match m.get("items") {
                    Some(it) => Value::Object(self.item(it, &inner, depth + 1)?),
                    None => json!({}),
                };
                Ok(obj(json!({"type": "array", "items": items})))
            }
            Some("enum") => {
                let symbols: Vec<Value> = m
                    .get("symbols")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(scalar_text)
                            .map(|s| Value::String(self.enum_symbol(&s)))
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(obj(json!({"type": "string", "enum": symbols})))
            }
            Some("record") => {
                // An anonymous record gets a generated `_:` identifier: nothing resolves
                // relative to it.
                let record = own.unwrap_or(Base {
                    source: base.source.clone(),
                    frag: None,
                });
                let full_name = record
                    .frag
                    .as_ref()
                    .map(|f| format!("{}#{f}", record.source.uri()));
                if let Some(full) = &full_name
                    && full.contains(STRING_FORMAT_URL)
                {
                    let local = full.rsplit('#').next().unwrap_or("");
                    let format = STRING_FORMATS
                        .iter()
                        .find(|(k, _)| *k == local)
                        .map(|(_, v)| Value::String((*v).to_string()))
                        .unwrap_or(Value::Null);
                    return Ok(obj(json!({"type": "string", "format": format})));
                }
                let mut properties = Map::new();
                let mut required = Vec::new();
                for (name, fty, _, _) in fields_of(m) {
                    let key = name.rsplit('/').next().unwrap_or(&name).to_string();
                    let nullable = is_nullable(&normalize_type(&fty));
                    let field = record.child(self.env, &name);
                    let s = self.param(&fty, &field, depth + 1)?;
                    properties.insert(key.clone(), Value::Object(s));
                    if !nullable {
                        required.push(Value::String(key));
                    }
                }
                Ok(obj(
                    json!({"type": "object", "properties": properties, "required": required}),
                ))
            }
            _ => Ok(Map::new()),
        }
    }

    /// Enum symbols: the text after the last `/` of the Salad-expanded symbol.
    fn enum_symbol(&self, s: &str) -> String {
        let mut text = s.to_string();
        if !s.contains("://")
            && let Some((prefix, rest)) = s.split_once(':')
        {
            text = match self.env.namespaces.get(prefix).and_then(Value::as_str) {
                Some(ns) => format!("{ns}{rest}"),
                None => rest.to_string(),
            };
        }
        text.rsplit('/').next().unwrap_or(&text).to_string()
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_truthiness() {
        for v in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&v), "{v}");
        }
        for v in [
            json!(true),
            json!(1),
            json!("x"),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(truthy(&v), "{v}");
        }
    }

    #[test]
    fn property_keys_follow_the_expanded_id() {
        assert_eq!(property_key("region", "x.cwl", true), "region");
        assert_eq!(property_key("#main/region", "x.cwl", true), "region");
        assert_eq!(property_key("region", "x.cwl", false), "x.cwl#region");
        assert_eq!(property_key("#region", "x.cwl", true), "x.cwl#region");
    }
}
