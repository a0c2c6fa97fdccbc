//! `check` in CI (issue 12): `--format github` workflow commands (exactly, on the examples; and
//! parsed back, on every reference case, to what `--format json` says), `--deny-warnings` and
//! `--min-severity` both ways, from flags and from `cwl-mcp.toml`, and the shell completions.
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(args: &[&str]) -> (i32, String) {
    let (code, out, _) = run_in(Path::new(ROOT), &[&["check"], args].concat());
    (code, out)
}

/// `check --format github examples/`, line for line.
const EXAMPLES_GITHUB: &[&str] = &[
    "::notice file=examples/broken-hint.cwl,line=9,col=12,endLine=9,endColumn=20,title=cwl2mcp-incompatible (information)::cwl2mcp 0.1.0 would reject this hint: it requires `aliases`, `useWhen`, `doNotUseWhen`",
    "::error file=examples/broken-hint.cwl,line=10,col=11,endLine=10,endColumn=22,title=name-invalid (error)::the MCP tool name `count lines` (from `name` of the hint) contains ` ` (a space); MCP names are 1–128 characters of `A-Z a-z 0-9 _ - .`",
    "::notice file=examples/broken-hint.cwl,line=11,col=5,endLine=11,endColumn=16,title=annotation-default (hint)::`destructiveHint` is left out: MCP clients assume `true` (the tool may perform destructive updates)",
    "::notice file=examples/broken-hint.cwl,line=11,col=5,endLine=11,endColumn=16,title=annotation-default (hint)::`idempotentHint` is left out: MCP clients assume `false` (repeated calls may have additional effects)",
    "::notice file=examples/broken-hint.cwl,line=11,col=5,endLine=11,endColumn=16,title=cwl2mcp-incompatible (information)::cwl2mcp 0.1.0 requires all four annotations; missing: destructiveHint, idempotentHint",
    "::error file=examples/broken-hint.cwl,line=12,col=21,endLine=12,endColumn=24,title=invalid-type (error)::`readOnlyHint` must be a boolean, found the string `yes`; `yes` is a string in YAML 1.2, which CWL uses: write `true`",
    "::warning file=examples/broken-hint.cwl,line=13,col=22,endLine=13,endColumn=27,title=annotation-inconsistent (warning)::`openWorldHint: false`, but the process declares `NetworkAccess` with `networkAccess` enabled (line 16)",
    "::notice file=examples/echo-region.cwl,line=9,col=3,endLine=9,endColumn=11,title=cwl2mcp-incompatible (information)::cwl2mcp 0.1.0 would reject this hint: it requires `name`, `aliases`, `doNotUseWhen`",
    "::notice file=examples/echo-region.cwl,line=9,col=3,endLine=9,endColumn=11,title=agent-context (hint)::the hint has no `doNotUseWhen`: the Tool's description does not tell an agent when to pick this tool and when not to",
    "::notice file=examples/echo-region.cwl,line=12,col=5,endLine=12,endColumn=16,title=annotation-default (hint)::`destructiveHint` is left out: MCP clients assume `true` (the tool may perform destructive updates)",
    "::notice file=examples/echo-region.cwl,line=12,col=5,endLine=12,endColumn=16,title=cwl2mcp-incompatible (information)::cwl2mcp 0.1.0 requires all four annotations; missing: destructiveHint",
    "::warning file=examples/misspelled-namespace.cwl,line=7,col=8,endLine=7,endColumn=48,title=namespace-mismatch (warning)::`https://eoap.github.io/cwl-mcp-extension` resembles the MCP extension's namespace `https://eoap.github.io/cwl-mcp-extension#` but is not it: the classes written with `mcp:` (line 9) are ignored",
    "::warning file=examples/misspelled-namespace.cwl,line=9,col=12,endLine=9,endColumn=20,title=namespace-mismatch (warning)::`mcp:Tool`: the prefix `mcp` is bound to `https://eoap.github.io/cwl-mcp-extension`, which resembles but is not the MCP extension's namespace `https://eoap.github.io/cwl-mcp-extension#`; this hint is ignored",
];

#[test]
fn github_lines_on_the_examples_are_exactly_these() {
    let (code, out) = check(&["--format", "github", "examples/"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, EXAMPLES_GITHUB);
}

/// Undoes the toolkit's escaping (`%25` last, so that `%253A` stays `%3A`).
fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// A workflow command line: its command, properties and message.
fn parse(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").expect("starts with ::");
    let (head, message) = rest.split_once("::").expect("a second ::");
    let (command, props) = head.split_once(' ').expect("properties");
    let props = props
        .split(',')
        .map(|p| {
            let (k, v) = p.split_once('=').expect("key=value");
            (k.to_string(), unescape(v))
        })
        .collect();
    (command.to_string(), props, unescape(message))
}

#[test]
fn github_lines_parse_back_to_the_json_findings() {
    for args in [
        &["examples/"][..],
        &[
            "--profile",
            "cwl2mcp",
            "tests/fixtures/derive/oracle-runs/cases",
        ],
        &["tests/fixtures/derive/oracle-runs/cases"],
    ] {
        let (code_g, github) = check(&[&["--format", "github"], args].concat());
        let (code_j, json) = check(&[&["--format", "json"], args].concat());
        assert_eq!(code_g, code_j);
        let json: Vec<Value> = serde_json::from_str(&json).unwrap();
        let lines: Vec<&str> = github.lines().collect();
        assert_eq!(lines.len(), json.len(), "{args:?}");
        assert!(!lines.is_empty());
        for (line, j) in lines.iter().zip(&json) {
            let (command, props, message) = parse(line);
            let want = match j["severity"].as_str().unwrap() {
                "error" => "error",
                "warning" => "warning",
                _ => "notice",
            };
            assert_eq!(command, want, "{line}");
            let keys: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(
                keys,
                ["file", "line", "col", "endLine", "endColumn", "title"],
                "{line}"
            );
            let get = |k: &str| props.iter().find(|(p, _)| p == k).unwrap().1.clone();
            assert_eq!(get("file"), j["path"].as_str().unwrap());
            assert_eq!(get("line"), j["line"].to_string());
            assert_eq!(get("col"), j["column"].to_string());
            assert_eq!(get("endLine"), j["endLine"].to_string());
            assert_eq!(get("endColumn"), j["endColumn"].to_string());
            assert_eq!(
                get("title"),
                format!(
                    "{} ({})",
                    j["code"].as_str().unwrap(),
                    j["severity"].as_str().unwrap()
                )
            );
            assert_eq!(message, j["message"].as_str().unwrap());
            assert!(!line.contains('\n') && !line.contains('\r'));
        }
    }
}

#[test]
fn deny_warnings_and_min_severity_from_the_flags() {
    // misspelled-namespace.cwl: two warnings (on the URI and on the class); echo-region.cwl:
    // information and hints only; broken-hint.cwl: errors among the rest
    let warn = "examples/misspelled-namespace.cwl";
    let (code, out) = check(&[warn]);
    assert_eq!((code, out.lines().count()), (0, 2), "{out}");
    let (code, out) = check(&["--deny-warnings", warn]);
    assert_eq!((code, out.lines().count()), (1, 2), "{out}");
    assert!(out.contains("warning[namespace-mismatch]"));
    // --no-deny-warnings after --deny-warnings wins (the last one)
    let (code, _) = check(&["--deny-warnings", "--no-deny-warnings", warn]);
    assert_eq!(code, 0);
    // min-severity changes what is printed, not the status
    let (code, out) = check(&["--min-severity", "error", warn]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out) = check(&["--min-severity", "error", "--deny-warnings", warn]);
    assert_eq!((code, out.as_str()), (1, ""));
    let (code, out) = check(&["--min-severity", "warning", warn]);
    assert_eq!((code, out.lines().count()), (0, 2));

    let info = "examples/echo-region.cwl";
    let (code, out) = check(&["--deny-warnings", info]);
    assert_eq!(code, 0, "information and hints never fail: {out}");
    assert!(out.contains("hint[") && out.contains("information["));
    let (code, out) = check(&["--min-severity", "information", info]);
    assert_eq!(code, 0);
    assert!(
        !out.contains("hint[") && out.contains("information["),
        "{out}"
    );
    let (code, out) = check(&["--min-severity", "warning", info]);
    assert_eq!((code, out.as_str()), (0, ""));

    let broken = "examples/broken-hint.cwl";
    let (code, out) = check(&["--min-severity", "error", broken]);
    assert_eq!(code, 1);
    assert!(out.lines().count() >= 2);
    assert!(out.lines().all(|l| l.contains(": error[")), "{out}");
    let (code, out) = check(&["--min-severity", "error", "--format", "json", broken]);
    assert_eq!(code, 1);
    let json: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(json.iter().all(|d| d["severity"] == "error"));
    // a level that is none is a usage error
    let (code, _) = check(&["--min-severity", "warnings", warn]);
    assert_eq!(code, 2);
}

/// A temporary folder holding a copy of an example and a `cwl-mcp.toml`.
fn project(name: &str, toml: &str, example: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cwl-mcp-ci-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("examples").join(example),
        dir.join(example),
    )
    .unwrap();
    std::fs::write(dir.join("cwl-mcp.toml"), toml).unwrap();
    dir
}

#[test]
fn deny_warnings_and_min_severity_from_cwl_mcp_toml_and_the_flags_win() {
    let file = "misspelled-namespace.cwl";
    let dir = project("deny", "deny-warnings = true\n", file);
    assert_eq!(run_in(&dir, &["check", file]).0, 1);
    assert_eq!(run_in(&dir, &["check", "."]).0, 1);
    assert_eq!(run_in(&dir, &["check", "--no-deny-warnings", file]).0, 0);

    let dir = project("quiet", "min-severity = \"error\"\n", file);
    let (code, out, _) = run_in(&dir, &["check", file]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, _) = run_in(&dir, &["check", "--min-severity", "hint", file]);
    assert_eq!((code, out.lines().count()), (0, 2), "{out}");

    let dir = project(
        "both",
        "min-severity = \"error\"\ndeny-warnings = true\n",
        file,
    );
    let (code, out, _) = run_in(&dir, &["check", "--format", "github", file]);
    assert_eq!((code, out.as_str()), (1, ""));

    // a malformed value is an error of the run, never ignored
    let dir = project("bad", "min-severity = \"loud\"\n", file);
    let (code, _, err) = run_in(&dir, &["check", file]);
    assert_eq!(code, 2);
    assert!(err.contains("min-severity"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completions_for_each_shell() {
    let subcommands = ["serve", "check", "derive", "tools-list", "completions"];
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = run_in(Path::new(ROOT), &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.len() > 500, "{shell}: {out}");
        for s in subcommands {
            assert!(out.contains(s), "{shell} completions do not mention `{s}`");
        }
        for flag in ["--deny-warnings", "--min-severity", "--format"] {
            assert!(
                out.contains(flag.trim_start_matches('-')),
                "{shell}: {flag}"
            );
        }
    }
    assert_eq!(run_in(Path::new(ROOT), &["completions", "tcsh"]).0, 2);
}

#[test]
fn bash_completion_registers_itself() {
    let script = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cwl-mcp-lsp.bash");
    let (_, out, _) = run_in(Path::new(ROOT), &["completions", "bash"]);
    std::fs::write(&script, out).unwrap();
    let shell = Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\" && complete -p cwl-mcp-lsp && \
             COMP_WORDS=(cwl-mcp-lsp che) COMP_CWORD=1 COMP_LINE='cwl-mcp-lsp che' COMP_POINT=15 && \
             _cwl__mcp__lsp cwl-mcp-lsp che cwl-mcp-lsp && printf 'reply:%s\\n' \"${COMPREPLY[@]}\"",
        )
        .arg("bash")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&shell.stdout);
    assert!(
        shell.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&shell.stderr)
    );
    let first = stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with("complete ") && first.ends_with(" cwl-mcp-lsp"),
        "{first}"
    );
    assert!(stdout.contains("reply:check"), "{stdout}");
}
