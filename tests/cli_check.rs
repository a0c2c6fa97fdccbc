//! `cwl-mcp-lsp check` as SPEC §1 says: text and JSON formats, 1-based positions with columns
//! in Unicode scalar values, folders walked for `*.cwl`, exit codes 0 / 1 / 2.
use std::process::Command;

use serde_json::Value;

fn check(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn exit_codes_and_text_format() {
    let (code, out) = check(&["examples/"]);
    assert_eq!(code, 1, "{out}");
    for line in out.lines() {
        let (location, rest) = line.split_once(": ").unwrap();
        let parts: Vec<&str> = location.rsplitn(3, ':').collect();
        assert!(
            parts[0].parse::<u32>().unwrap() >= 1 && parts[1].parse::<u32>().unwrap() >= 1,
            "{line}"
        );
        assert!(
            parts[2].starts_with("examples/") && parts[2].ends_with(".cwl"),
            "{line}"
        );
        let severity = rest.split('[').next().unwrap();
        assert!(
            ["error", "warning", "information", "hint"].contains(&severity),
            "{line}"
        );
    }
    assert!(
        out.contains("examples/broken-hint.cwl:12:21: error[invalid-type]:"),
        "{out}"
    );
    let (code, _) = check(&["examples/echo-region.cwl"]);
    assert_eq!(code, 0);
    let (code, _) = check(&["examples/no-such-file.cwl"]);
    assert_eq!(code, 2);
    let (code, _) = check(&["--profile", "nope", "examples/"]);
    assert_eq!(code, 2);
}

#[test]
fn json_format_counts_columns_in_unicode_scalar_values() {
    let dir = std::env::temp_dir().join(format!("cwl-mcp-check-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    annotations: {title: 日本😀, readOnlyHint: yes}\ninputs: {}\noutputs: {}\n";
    std::fs::write(dir.join("nested/t.cwl"), text).unwrap();
    std::fs::write(dir.join("nested/ignored.yaml"), "not: [cwl").unwrap();
    let (code, out) = check(&["--format", "json", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let all: Value = serde_json::from_str(&out).unwrap();
    let invalid = all
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "invalid-type")
        .unwrap();
    let line = text.lines().nth(7).unwrap();
    let column = line[..line.find("yes").unwrap()].chars().count() as u64 + 1;
    assert_eq!(invalid["line"], 8);
    assert_eq!(invalid["column"], column);
    assert_eq!(invalid["endColumn"], column + 3);
    assert_eq!(invalid["severity"], "error");
    assert!(invalid["path"].as_str().unwrap().ends_with("nested/t.cwl"));
    std::fs::remove_dir_all(&dir).unwrap();
}
