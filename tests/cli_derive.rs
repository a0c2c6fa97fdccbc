//! `derive --all --profile cwl2mcp` through the real binary equals the recorded cwl2mcp 0.1.0
//! export of every accepted reference case and of the EOAP example (also with --meta-prefix),
//! and exits 1 with diagnostics on stderr for every case the exporter rejects.
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const RUNS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/derive/oracle-runs"
);

fn derive(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(dir)
        .arg("derive")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_reference_case_derives_exactly_or_is_refused() {
    let cases = Path::new(RUNS).join("cases");
    let mut names: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".cwl"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 54);
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".cwl");
        let expected = cases.join(format!("{stem}.expected.json"));
        let (code, stdout, stderr) = derive(&cases, &["--all", "--profile", "cwl2mcp", name]);
        if expected.exists() {
            let want: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
            let got: Option<Value> = serde_json::from_str(&stdout).ok();
            if code != 0 || got.as_ref() != Some(&want) {
                failures.push(format!("{name}: exit {code}, stderr {stderr}"));
            }
            // Sorted keys, 2-space indent, final newline.
            assert!(
                stdout.ends_with("}\n") && stdout.starts_with("{\n  \""),
                "{name}"
            );
        } else if code != 1 || !stderr.contains("error[") {
            failures.push(format!(
                "{name}: the exporter failed; we exited {code} with {stderr:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn eoap_example_with_default_and_custom_meta_prefix() {
    let eoap = Path::new(RUNS).join("eoap");
    let cases = [
        (
            vec!["--profile", "cwl2mcp", "eoap.cwl#main"],
            "eoap.main.default-prefix.json",
        ),
        (
            vec!["--all", "--profile", "cwl2mcp", "eoap.cwl"],
            "eoap.document.default-prefix.json",
        ),
        (
            vec![
                "--profile",
                "cwl2mcp",
                "--meta-prefix",
                "org.example/mcp",
                "eoap.cwl#main",
            ],
            "eoap.main.meta-prefix-org.example_mcp.json",
        ),
        (
            vec!["--profile", "cwl2mcp", "eoap-commandlinetool.cwl#main"],
            "eoap-commandlinetool.main.default-prefix.json",
        ),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = derive(&eoap, &args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        let want: Value =
            serde_json::from_str(&std::fs::read_to_string(eoap.join(expected)).unwrap()).unwrap();
        let got: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(got, want, "{args:?}");
    }
}

#[test]
fn extension_profile_derives_the_extension_fixture() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/derive/cwl2mcp/tests/fixtures");
    let (cwl, json) = (
        dir.join("minimal-tool.cwl"),
        dir.join("minimal-tool.mcp.json"),
    );
    let (code, stdout, stderr) = derive(
        cwl.parent().unwrap(),
        &[cwl.file_name().unwrap().to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stderr}");
    let want: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap(), want);
}

#[test]
fn tools_list_serves_every_process_and_rejects_duplicate_names() {
    let dir = std::env::temp_dir().join(format!("cwl-mcp-tools-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tool = |id: &str| {
        format!("cwlVersion: v1.2\nclass: CommandLineTool\nid: {id}\ninputs: {{}}\noutputs: {{}}\n")
    };
    std::fs::write(dir.join("a.cwl"), tool("one")).unwrap();
    std::fs::write(dir.join("b.cwl"), tool("two")).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
            .arg("tools-list")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, _) = run(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let list: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["one", "two"]);
    std::fs::write(dir.join("c.cwl"), tool("one")).unwrap();
    let (code, _, stderr) = run(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("tool-name-duplicate"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
