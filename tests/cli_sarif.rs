//! `check --format sarif` (issue 12): the log of the bundled examples and of every reference case
//! validates against the OASIS SARIF 2.1.0 schema (`tests/fixtures/sarif/`, a copy of
//! `../shared/reference/sarif/`), under both profiles, and says what `--format json` says: the
//! same diagnostics, regions and codes, with one rule per code and relative artifact URIs.
use std::path::Path;
use std::process::Command;

use cwl_mcp_lsp::base::Code;
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const CASES: &str = "tests/fixtures/derive/oracle-runs/cases";

fn check(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(ROOT)
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn validator() -> jsonschema::Validator {
    let path = Path::new(ROOT).join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn assert_valid(log: &Value, what: &str) {
    let errors: Vec<String> = validator()
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
}

/// The SARIF log and the JSON array of the same run, checked against each other.
fn sarif_and_json(args: &[&str]) -> (Value, Vec<Value>) {
    let (code_s, sarif) = check(&[&["--format", "sarif"], args].concat());
    let (code_j, json) = check(&[&["--format", "json"], args].concat());
    assert_eq!(code_s, code_j, "exit status of {args:?}");
    let sarif: Value = serde_json::from_str(&sarif).expect("SARIF is JSON");
    let json: Value = serde_json::from_str(&json).unwrap();
    (sarif, json.as_array().unwrap().clone())
}

fn same_findings(log: &Value, json: &[Value], what: &str) {
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{what}: one run");
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "cwl-mcp-lsp");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), Code::ALL.len());
    for (rule, code) in rules.iter().zip(Code::ALL) {
        assert_eq!(rule["id"], code.as_str());
        assert_eq!(rule["helpUri"], code.doc_url());
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(
                rule[key]["text"].as_str().is_some_and(|t| t.len() > 10),
                "{}: {key}",
                code.as_str()
            );
        }
        assert!(rule["defaultConfiguration"]["level"].is_string());
    }
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        json.len(),
        "{what}: as many results as JSON entries"
    );
    for (r, j) in results.iter().zip(json) {
        assert_eq!(r["ruleId"], j["code"]);
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], j["code"]);
        let level = match j["severity"].as_str().unwrap() {
            "error" => "error",
            "warning" => "warning",
            _ => "note",
        };
        assert_eq!(r["level"], level);
        assert_eq!(r["message"]["text"], j["message"]);
        let loc = &r["locations"][0]["physicalLocation"];
        let artifact = &loc["artifactLocation"];
        assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
        // relative to the current directory (the repository), as the JSON path was given
        assert_eq!(
            artifact["uri"].as_str().unwrap(),
            j["path"].as_str().unwrap().trim_start_matches("./"),
        );
        let i = artifact["index"].as_u64().unwrap() as usize;
        assert_eq!(run["artifacts"][i]["location"]["uri"], artifact["uri"]);
        let region = &loc["region"];
        assert_eq!(region["startLine"], j["line"]);
        assert_eq!(region["startColumn"], j["column"]);
        assert_eq!(region["endLine"], j["endLine"]);
        assert_eq!(region["endColumn"], j["endColumn"]);
    }
}

#[test]
fn the_examples_give_a_valid_sarif_log() {
    for profile in ["extension", "cwl2mcp"] {
        let (log, json) = sarif_and_json(&["--profile", profile, "examples/"]);
        assert_valid(&log, profile);
        same_findings(&log, &json, profile);
        assert!(json.len() >= 5, "{profile}: {json:?}");
        let levels: Vec<&str> = log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["level"].as_str().unwrap())
            .collect();
        assert!(levels.contains(&"error"), "{profile}: {levels:?}");
    }
}

#[test]
fn every_reference_case_gives_a_valid_sarif_log() {
    let n = std::fs::read_dir(Path::new(ROOT).join(CASES))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwl"))
        .count();
    assert_eq!(n, 54);
    for profile in ["extension", "cwl2mcp"] {
        // the folder as one workspace, and each file alone
        let (log, json) = sarif_and_json(&["--profile", profile, CASES]);
        assert_valid(&log, profile);
        same_findings(&log, &json, profile);
        assert!(json.len() > 54, "{profile}: only {} results", json.len());
    }
}

#[test]
fn a_run_without_findings_is_a_valid_empty_log() {
    let (log, json) = sarif_and_json(&["--min-severity", "error", "examples/echo-region.cwl"]);
    assert!(json.is_empty());
    assert_valid(&log, "empty");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        Code::ALL.len()
    );
}

#[test]
fn the_schema_rejects_what_it_should() {
    // the validator is real: a log without `runs`, or a region with column 0, fails
    let (mut log, _) = sarif_and_json(&["examples/broken-hint.cwl"]);
    assert_valid(&log, "broken-hint");
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] =
        0.into();
    assert!(!validator().is_valid(&log));
    let (mut log, _) = sarif_and_json(&["examples/broken-hint.cwl"]);
    log["runs"][0]["results"][0]["level"] = "hint".into(); // SARIF has none: it is `note`
    assert!(!validator().is_valid(&log));
    let no_runs = serde_json::json!({"version": "2.1.0"});
    assert!(!validator().is_valid(&no_runs));
}
