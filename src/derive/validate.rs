//! Validation of a derived Tool against the bundled MCP `schema.json` of a protocol version
//! and the prose name rules of the MCP tools page.
use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

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
    let mut out = Vec::new();
    if let Some(name) = tool.get("name").and_then(Value::as_str)
        && let Some(message) = name_problem(name)
    {
        out.push(SchemaViolation {
            code: Code::NameInvalid,
            message,
            instance_path: "/name".into(),
        });
    }
    match validator(version) {
        Ok(v) => {
            for e in v.iter_errors(tool).take(20) {
                let path = e.instance_path().to_string();
                out.push(SchemaViolation {
                    code: Code::McpSchema,
                    message: format!(
                        "the derived Tool does not match the MCP {} schema at `{}`: {}",
                        version.as_str(),
                        if path.is_empty() { "/" } else { &path },
                        e
                    ),
                    instance_path: path,
                });
            }
        }
        Err(e) => out.push(SchemaViolation {
            code: Code::McpSchema,
            message: format!(
                "the bundled MCP {} schema could not be compiled: {e}",
                version.as_str()
            ),
            instance_path: String::new(),
        }),
    }
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
