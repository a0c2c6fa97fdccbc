//! `tools-list --protocol-version V` (issue 12) prints a valid `ListToolsResult` of V: validated
//! against the `ListToolsResult` definition of each bundled MCP `schema.json` (the same files as
//! `../shared/reference/modelcontextprotocol/`), on the examples, on the reference cases and
//! under both profiles; 2026-07-28 carries `resultType`, `cacheScope` and `ttlMs` (values
//! explained at `list_tools_result` in `src/cli/derive.rs`), the earlier versions, which do not
//! define them, do not get them.
use std::process::Command;

use cwl_mcp_lsp::base::settings::ProtocolVersion;
use cwl_mcp_lsp::derive::validate::bundled_schema;
use serde_json::{Value, json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tools_list(args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(ROOT)
        .arg("tools-list")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    (
        out.status.code().unwrap(),
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}")),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A validator of `ListToolsResult` from the version's whole schema (its `Tool` and every
/// definition that references are reached through the document's own pointers).
fn validator(version: ProtocolVersion) -> jsonschema::Validator {
    let mut schema: Value = serde_json::from_str(bundled_schema(version)).unwrap();
    let defs = if schema.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        schema[defs].get("ListToolsResult").is_some(),
        "{}: no ListToolsResult",
        version.as_str()
    );
    let root = schema.as_object_mut().unwrap();
    root.retain(|k, _| k == "$schema" || k == defs);
    root.insert("$ref".into(), format!("#/{defs}/ListToolsResult").into());
    jsonschema::options()
        .build(&schema)
        .unwrap_or_else(|e| panic!("{}: {e}", version.as_str()))
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn each_version_gets_its_own_valid_list_tools_result() {
    let inputs: [&[&str]; 3] = [
        &["examples/echo-region.cwl"],
        &["examples/"],
        &[
            "--profile",
            "cwl2mcp",
            "tests/fixtures/derive/oracle-runs/cases",
        ],
    ];
    for version in ProtocolVersion::ALL {
        let v = validator(version);
        for input in inputs {
            let args = [&["--protocol-version", version.as_str()], input].concat();
            let (_, result, stderr) = tools_list(&args);
            let problems = errors(&v, &result);
            assert!(
                problems.is_empty(),
                "{args:?}: not a valid {} ListToolsResult:\n{}\n{stderr}",
                version.as_str(),
                problems.join("\n")
            );
            assert!(!result["tools"].as_array().unwrap().is_empty(), "{args:?}");
            let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
            if version == ProtocolVersion::V2026_07_28 {
                assert_eq!(keys, ["cacheScope", "resultType", "tools", "ttlMs"]);
                assert_eq!(result["resultType"], "complete");
                assert_eq!(result["cacheScope"], "public");
                assert_eq!(result["ttlMs"], 0);
            } else {
                assert_eq!(keys, ["tools"], "{}", version.as_str());
            }
        }
    }
}

#[test]
fn the_default_version_is_2026_07_28() {
    let (code, result, _) = tools_list(&["examples/echo-region.cwl"]);
    assert_eq!(code, 0);
    assert!(errors(&validator(ProtocolVersion::V2026_07_28), &result).is_empty());
    assert_eq!(result["resultType"], "complete");
}

#[test]
fn the_validators_are_real() {
    // the old `{"tools": [...]}` shape is no 2026-07-28 result, but is a 2025-11-25 one
    let (_, result, _) = tools_list(&["--protocol-version", "2025-11-25", "examples/"]);
    assert!(errors(&validator(ProtocolVersion::V2025_11_25), &result).is_empty());
    let v = validator(ProtocolVersion::V2026_07_28);
    assert!(!errors(&v, &result).is_empty());
    let mut bad = result.clone();
    bad["tools"][0]["inputSchema"] = json!("not an object");
    assert!(!errors(&validator(ProtocolVersion::V2025_06_18), &bad).is_empty());
    let bad = json!({"tools": [], "resultType": "complete", "cacheScope": "everyone", "ttlMs": 0});
    assert!(!errors(&v, &bad).is_empty());
    let bad = json!({"tools": [], "resultType": "complete", "cacheScope": "public", "ttlMs": -1});
    assert!(!errors(&v, &bad).is_empty());
}
