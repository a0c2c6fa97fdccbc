//! Validation of a derived Tool against the bundled MCP `schema.json` of a protocol version
//! and the prose name rules of the MCP tools page.
use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

use super::parted::Part;
use crate::base::settings::ProtocolVersion;

use crate::base::Code;

const SCHEMA_2025_06_18: &str = include_str!("../../assets/mcp/2025-06-18/schema.json");
const SCHEMA_2025_11_25: &str = include_str!("../../assets/mcp/2025-11-25/schema.json");
const SCHEMA_2026_07_28: &str = include_str!("../../assets/mcp/2026-07-28/schema.json");

/// One way a Tool breaks the MCP schema or the name rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaViolation {
    /// `mcp-schema` or `name-invalid`.
    pub code: Code,
    pub message: String,
    /// JSON pointer inside the Tool (`""` = the Tool itself, `/name`, `/annotations/readOnlyHint`).
    pub instance_path: String,
}

/// The bundled `schema.json` text of a protocol version.
pub fn bundled_schema(version: ProtocolVersion) -> &'static str {
    match version {
        ProtocolVersion::V2025_06_18 => SCHEMA_2025_06_18,
        ProtocolVersion::V2025_11_25 => SCHEMA_2025_11_25,
        ProtocolVersion::V2026_07_28 => SCHEMA_2026_07_28,
    }
}

fn schema_uri(version: ProtocolVersion) -> String {
    format!(
        "https://modelcontextprotocol.io/schema/{}/schema.json",
        version.as_str()
    )
}

fn build(version: ProtocolVersion) -> Result<Validator, String> {
    let schema: Value = serde_json::from_str(bundled_schema(version)).map_err(|e| e.to_string())?;
    let uri = schema_uri(version);
    let defs = match version {
        ProtocolVersion::V2025_06_18 => "definitions",
        _ => "$defs",
    };
    let registry = jsonschema::Registry::new()
        .add(uri.as_str(), schema)
        .map_err(|e| e.to_string())?
        .prepare()
        .map_err(|e| e.to_string())?;
    let root = serde_json::json!({ "$ref": format!("{uri}#/{defs}/Tool") });
    jsonschema::options()
        .with_registry(&registry)
        .build(&root)
        .map_err(|e| e.to_string())
}

/// The compiled `Tool` validator of a version, built once per process.
fn validator(version: ProtocolVersion) -> &'static Result<Validator, String> {
    static CELLS: [OnceLock<Result<Validator, String>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = match version {
        ProtocolVersion::V2025_06_18 => 0,
        ProtocolVersion::V2025_11_25 => 1,
        ProtocolVersion::V2026_07_28 => 2,
    };
    CELLS[i].get_or_init(|| build(version))
}

/// What is wrong with `name` under the MCP tool name rules (the one rule:
/// [`crate::hint::is_valid_name`]), as a message.
pub fn name_problem(name: &str) -> Option<String> {
    name_message(name, None)
}

/// The `name-invalid` message for `name`, saying where the name came from when known.
pub fn name_message(name: &str, source: Option<&str>) -> Option<String> {
    let why = crate::hint::is_valid_name(name).err()?;
    let shown: String = name.chars().take(80).collect();
    let ellipsis = if name.chars().count() > 80 { "…" } else { "" };
    let from = source.map(|s| format!(" (from {s})")).unwrap_or_default();
    Some(format!(
        "the MCP tool name `{shown}{ellipsis}`{from} {why}; MCP names are 1–128 characters of \
         `A-Z a-z 0-9 _ - .`"
    ))
}

/// Validates a Tool against the bundled schema of `version` and the prose name rules.
pub fn validate_tool(tool: &Value, version: ProtocolVersion) -> Vec<SchemaViolation> {
    let mut out = name_violation(tool);
    match validator(version) {
        Ok(v) => out.extend(
            v.iter_errors(tool)
                .take(MAX_VIOLATIONS)
                .map(|e| violation(version, "", &e)),
        ),
        Err(e) => out.push(uncompiled(version, e)),
    }
    out
}

/// At most this many schema violations are reported per Tool.
const MAX_VIOLATIONS: usize = 20;

fn name_violation(tool: &Value) -> Vec<SchemaViolation> {
    let name = tool.get("name").and_then(Value::as_str);
    name.and_then(name_problem)
        .map(|message| SchemaViolation {
            code: Code::NameInvalid,
            message,
            instance_path: "/name".into(),
        })
        .into_iter()
        .collect()
}

fn violation(
    version: ProtocolVersion,
    prefix: &str,
    e: &jsonschema::ValidationError,
) -> SchemaViolation {
    let path = format!("{prefix}{}", e.instance_path());
    SchemaViolation {
        code: Code::McpSchema,
        message: format!(
            "the derived Tool does not match the MCP {} schema at `{}`: {}",
            version.as_str(),
            if path.is_empty() { "/" } else { &path },
            e
        ),
        instance_path: path,
    }
}

fn uncompiled(version: ProtocolVersion, e: &str) -> SchemaViolation {
    SchemaViolation {
        code: Code::McpSchema,
        message: format!(
            "the bundled MCP {} schema could not be compiled: {e}",
            version.as_str()
        ),
        instance_path: String::new(),
    }
}

/// How the MCP schema of a version constrains one member (`properties`, `$defs`) of a
/// Tool's schema field.
enum MemberRule {
    /// Not at all.
    Free,
    /// Each entry on its own, by this validator (the member is an object whose
    /// `additionalProperties` is that schema, and nothing else constrains it).
    Each(Validator),
    /// In some other way: the Tool is validated whole.
    Whole,
}

/// The rule of member `member` of Tool field `field` under `version`, read from the bundled
/// schema once.
fn member_rule(version: ProtocolVersion, field: &str, member: &str) -> &'static MemberRule {
    type Rules = Vec<((ProtocolVersion, String, String), &'static MemberRule)>;
    static RULES: std::sync::Mutex<Rules> = std::sync::Mutex::new(Vec::new());
    let mut rules = RULES.lock().unwrap_or_else(|p| p.into_inner());
    let key = (version, field.to_string(), member.to_string());
    if let Some((_, rule)) = rules.iter().find(|(k, _)| *k == key) {
        return rule;
    }
    let rule: &'static MemberRule = Box::leak(Box::new(
        read_member_rule(version, field, member).unwrap_or(MemberRule::Whole),
    ));
    rules.push((key, rule));
    rule
}

fn read_member_rule(version: ProtocolVersion, field: &str, member: &str) -> Option<MemberRule> {
    let schema: Value = serde_json::from_str(bundled_schema(version)).ok()?;
    let defs = match version {
        ProtocolVersion::V2025_06_18 => "definitions",
        _ => "$defs",
    };
    let field_schema = schema
        .get(defs)?
        .get("Tool")?
        .get("properties")?
        .get(field)?;
    let f = field_schema.as_object()?;
    // Only plain keywords: anything that could tie a member to the rest (`$ref`,
    // composition, `propertyNames`, `dependent*`…) means validating whole.
    let plain = |m: &serde_json::Map<String, Value>, allowed: &[&str]| {
        m.keys().all(|k| allowed.contains(&k.as_str()))
    };
    if !plain(
        f,
        &[
            "type",
            "description",
            "properties",
            "required",
            "additionalProperties",
        ],
    ) {
        return None;
    }
    let Some(m) = f.get("properties").and_then(|p| p.get(member)) else {
        // An unnamed member falls under `additionalProperties`: free when that is absent,
        // `true` or `{}`.
        return match f.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Some(MemberRule::Free),
            Some(Value::Object(o)) if o.is_empty() => Some(MemberRule::Free),
            _ => None,
        };
    };
    let m = m.as_object()?;
    if !plain(m, &["type", "description", "additionalProperties"])
        || m.get("type").is_some_and(|t| t != "object")
    {
        return None;
    }
    if m.get("required").is_some() {
        return None;
    }
    let each = format!(
        "{}#/{defs}/Tool/properties/{field}/properties/{member}/additionalProperties",
        schema_uri(version)
    );
    match m.get("additionalProperties") {
        None | Some(Value::Bool(true)) => Some(MemberRule::Free),
        Some(_) => {
            let registry = jsonschema::Registry::new()
                .add(schema_uri(version).as_str(), schema.clone())
                .ok()?
                .prepare()
                .ok()?;
            let root = serde_json::json!({ "$ref": each });
            let v = jsonschema::options()
                .with_registry(&registry)
                .build(&root)
                .ok()?;
            Some(MemberRule::Each(v))
        }
    }
}

/// The pointer-escaped form of a JSON object key.
fn escaped(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// [`validate_tool`] of a Tool held as `skeleton` (its schema fields with their parted
/// members empty) and the parts of each field: (field, member, name, value). The skeleton is
/// validated whole; each part under the rule the schema gives its member (JSON Schema checks
/// the entries of an object under `additionalProperties` one by one), so a Tool whose parts
/// did not change costs one check per part. Where the schema constrains a member otherwise,
/// `assemble` gives the whole Tool, validated as is.
pub fn validate_parted<'p>(
    skeleton: &Value,
    parts: impl Iterator<Item = (&'static str, &'static str, &'p str, &'p Part)>,
    assemble: impl FnOnce() -> Value,
    version: ProtocolVersion,
) -> Vec<SchemaViolation> {
    let mut out = name_violation(skeleton);
    let v = match validator(version) {
        Ok(v) => v,
        Err(e) => {
            out.push(uncompiled(version, e));
            return out;
        }
    };
    let mut found: Vec<SchemaViolation> = v
        .iter_errors(skeleton)
        .take(MAX_VIOLATIONS)
        .map(|e| violation(version, "", &e))
        .collect();
    // The rule of the last member seen (parts come member by member).
    let mut last: Option<(&str, &str, &MemberRule)> = None;
    for (field, member, name, part) in parts {
        let rule = match last {
            Some((f, m, rule)) if f == field && m == member => rule,
            _ => member_rule(version, field, member),
        };
        last = Some((field, member, rule));
        match rule {
            MemberRule::Free => {}
            MemberRule::Each(each) => {
                // The verdict is kept with the part (the same rule, the same verdict): a
                // keystroke in one input of a 50,000-line tool validates that input's part.
                let check = std::ptr::from_ref(each) as usize;
                if found.len() < MAX_VIOLATIONS && !part.passes(check, |v| each.is_valid(v)) {
                    let value = part.value();
                    let prefix = format!("/{field}/{member}/{}", escaped(name));
                    let left = MAX_VIOLATIONS - found.len();
                    found.extend(
                        each.iter_errors(&value)
                            .take(left)
                            .map(|e| violation(version, &prefix, &e)),
                    );
                }
            }
            MemberRule::Whole => {
                let whole = assemble();
                out.extend(
                    v.iter_errors(&whole)
                        .take(MAX_VIOLATIONS)
                        .map(|e| violation(version, "", &e)),
                );
                return out;
            }
        }
    }
    out.extend(found);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_bundled_schema_compiles() {
        for v in ProtocolVersion::ALL {
            assert!(
                validator(v).is_ok(),
                "{}: {:?}",
                v.as_str(),
                validator(v).as_ref().err()
            );
        }
    }

    #[test]
    fn a_minimal_tool_is_valid_in_every_version() {
        let tool = json!({"name": "a.b-c_D9", "inputSchema": {"type": "object"}});
        for v in ProtocolVersion::ALL {
            assert_eq!(validate_tool(&tool, v), vec![], "{}", v.as_str());
        }
    }

    #[test]
    fn schema_violations_carry_the_instance_path() {
        let tool = json!({
            "name": "ok",
            "inputSchema": {"type": "array"},
            "annotations": {"readOnlyHint": "yes"}
        });
        for v in ProtocolVersion::ALL {
            let found = validate_tool(&tool, v);
            let paths: Vec<&str> = found.iter().map(|f| f.instance_path.as_str()).collect();
            assert!(
                paths.contains(&"/inputSchema/type"),
                "{}: {paths:?}",
                v.as_str()
            );
            assert!(
                paths.contains(&"/annotations/readOnlyHint"),
                "{}: {paths:?}",
                v.as_str()
            );
            assert!(found.iter().all(|f| f.code == Code::McpSchema));
        }
    }

    #[test]
    fn a_tool_checked_part_by_part_has_the_violations_of_the_whole() {
        let skeleton = json!({
            "name": "ok",
            "inputSchema": {"type": "object", "properties": {}, "$defs": {}},
            "outputSchema": {"type": "array", "properties": {}}
        });
        let parts = [
            (
                "inputSchema",
                "properties",
                "a/b~",
                json!("not a schema object"),
            ),
            (
                "inputSchema",
                "properties",
                "fine",
                json!({"type": "string"}),
            ),
            ("inputSchema", "$defs", "c", json!(5)),
            ("outputSchema", "properties", "d", json!([1])),
        ];
        let mut whole = skeleton.clone();
        for (field, member, name, value) in &parts {
            whole[field][member][name] = value.clone();
        }
        let parts: Vec<_> = parts
            .into_iter()
            .map(|(f, m, n, v)| (f, m, n, Part::new(v)))
            .collect();
        let (mut seen_a_part, mut seen_skeleton) = (false, false);
        for v in ProtocolVersion::ALL {
            let parted = validate_parted(
                &skeleton,
                parts.iter().map(|(f, m, n, v)| (*f, *m, *n, &**v)),
                || whole.clone(),
                v,
            );
            let mut got: Vec<_> = parted
                .iter()
                .map(|f| (&f.instance_path, &f.message))
                .collect();
            let want = validate_tool(&whole, v);
            let mut want: Vec<_> = want
                .iter()
                .map(|f| (&f.instance_path, &f.message))
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{}", v.as_str());
            seen_skeleton |= got.iter().any(|(p, _)| p.as_str() == "/outputSchema/type");
            seen_a_part |= got
                .iter()
                .any(|(p, _)| p.as_str() == "/inputSchema/properties/a~1b~0");
        }
        // The older schemas require each property to be an object, and `outputSchema` to be
        // of type object.
        assert!(seen_a_part && seen_skeleton);
    }

    #[test]
    fn missing_input_schema_is_reported() {
        let found = validate_tool(&json!({"name": "x"}), ProtocolVersion::V2026_07_28);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::McpSchema);
    }

    #[test]
    fn name_rules() {
        assert_eq!(name_problem("echo_region"), None);
        assert_eq!(name_problem(&"x".repeat(128)), None);
        assert!(name_problem(&"x".repeat(129)).is_some());
        assert!(name_problem("").is_some());
        assert!(name_problem("echo region").is_some());
        assert!(name_problem("ns:tool").is_some());
        assert!(name_problem("échо").is_some());
        let tool = json!({"name": "file:///x.cwl", "inputSchema": {"type": "object"}});
        let found = validate_tool(&tool, ProtocolVersion::V2025_06_18);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::NameInvalid);
        assert_eq!(found[0].instance_path, "/name");
    }
}
