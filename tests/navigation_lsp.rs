//! Navigation over the protocol (SPEC §10, issue 10): document links and definitions for
//! `run:` (file, `file#id`, `#id`) and `$include`, shaped per client (`tooltipSupport`,
//! `linkSupport`); hover on a `run:` value names the target's Tool; `workspace/symbol` lists
//! the Tools of the open documents and of the index.
mod common;

use std::path::{Path, PathBuf};

use common::lsp_client::{LspClient, WAIT, utf16_position};
use common::uri;
use serde_json::{Value, json};

const NS: &str = "$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n";

fn tool(id: &str, name: &str) -> String {
    format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: {id}\n{NS}hints:\n  mcp:Tool:\n    \
         name: {name}\n    title: The {name}\nbaseCommand: echo\ninputs: {{}}\noutputs: {{}}\n"
    )
}

const PACKED: &str = "cwlVersion: v1.2\n$graph:\n- class: CommandLineTool\n  id: first\n  \
                      inputs: {}\n  outputs: {}\n- class: CommandLineTool\n  id: second\n  \
                      inputs: {}\n  outputs: {}\n";

fn wf() -> String {
    format!(
        "cwlVersion: v1.2\n{NS}$graph:\n- class: CommandLineTool\n  id: echo\n  hints:\n    \
         mcp:Tool:\n      name: echo_tool\n      title: Echo\n  baseCommand: echo\n  \
         inputs: {{}}\n  outputs: {{}}\n- class: Workflow\n  id: main\n  doc:\n    \
         $include: doc.txt\n  inputs: {{}}\n  outputs: {{}}\n  steps:\n    s:\n      \
         run: '#echo'\n      in: {{}}\n      out: []\n    t:\n      \
         run: tools/flagstat.cwl\n      in: {{}}\n      out: []\n    u:\n      \
         run: packed.cwl#second\n      in: {{}}\n      out: []\n    v:\n      \
         run: gone.cwl\n      in: {{}}\n      out: []\n"
    )
}

fn folder(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("navigation-lsp-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::write(
        root.join("tools/flagstat.cwl"),
        tool("flagstat", "flagstat_tool"),
    )
    .unwrap();
    std::fs::write(root.join("packed.cwl"), PACKED).unwrap();
    std::fs::write(root.join("doc.txt"), "Words.\n").unwrap();
    std::fs::write(root.join("wf.cwl"), wf()).unwrap();
    std::fs::canonicalize(root).unwrap()
}

async fn start(root: &Path, text_document: Value) -> LspClient {
    let mut client = LspClient::in_process();
    let res = client
        .initialize_params(json!({
            "processId": null,
            "rootUri": uri(root),
            "workspaceFolders": [{"uri": uri(root), "name": "w"}],
            "capabilities": {
                "textDocument": text_document,
                "window": {"workDoneProgress": true},
                "workspace": {"workspaceFolders": true, "symbol": {}},
            },
        }))
        .await;
    assert!(res.get("error").is_none(), "{res}");
    let caps = &res["result"]["capabilities"];
    assert_eq!(caps["definitionProvider"], true, "{caps}");
    assert_eq!(caps["workspaceSymbolProvider"], true, "{caps}");
    assert!(caps["documentLinkProvider"].is_object(), "{caps}");
    client
}

async fn index_done(client: &mut LspClient) {
    client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "end")
        .await
        .expect("no progress end");
}

fn at(text: &str, needle: &str) -> Value {
    utf16_position(text, text.find(needle).unwrap() + 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_definitions_hover_and_workspace_symbols() {
    let root = folder("full");
    let mut client = start(
        &root,
        json!({"documentLink": {"tooltipSupport": true}, "definition": {"linkSupport": true},
               "hover": {"contentFormat": ["markdown"]}}),
    )
    .await;
    index_done(&mut client).await;
    let text = wf();
    let wf_uri = uri(&root.join("wf.cwl"));
    client.open(&wf_uri, &text).await;
    let doc = json!({"uri": wf_uri});

    let links = client
        .request("textDocument/documentLink", json!({"textDocument": doc}))
        .await;
    let links = links["result"].as_array().expect("links").clone();
    let targets: Vec<&str> = links
        .iter()
        .map(|l| l["target"].as_str().unwrap())
        .collect();
    let flagstat = uri(&root.join("tools/flagstat.cwl"));
    assert_eq!(
        targets,
        [
            uri(&root.join("doc.txt")),
            format!("{wf_uri}#L6"),
            flagstat.clone(),
            format!("{}#L8", uri(&root.join("packed.cwl"))),
        ],
        "{links:?}"
    );
    assert!(links.iter().all(|l| l["tooltip"].is_string()), "{links:?}");
    assert_eq!(
        links[2]["range"]["start"],
        utf16_position(&text, text.find("tools/flagstat").unwrap())
    );

    // Definition: LocationLink for this client, to the `id` of `#echo`.
    let def = client
        .request(
            "textDocument/definition",
            json!({"textDocument": doc, "position": at(&text, "'#echo")}),
        )
        .await;
    let link = &def["result"][0];
    assert_eq!(link["targetUri"], wf_uri.as_str(), "{def}");
    assert_eq!(
        link["targetSelectionRange"]["start"],
        utf16_position(&text, text.find("echo\n").unwrap())
    );
    let def = client
        .request(
            "textDocument/definition",
            json!({"textDocument": doc, "position": at(&text, "packed.cwl#")}),
        )
        .await;
    assert_eq!(def["result"][0]["targetUri"], uri(&root.join("packed.cwl")));
    assert_eq!(def["result"][0]["targetRange"]["start"]["line"], 7);
    let def = client
        .request(
            "textDocument/definition",
            json!({"textDocument": doc, "position": at(&text, "gone.cwl")}),
        )
        .await;
    assert!(def["result"].is_null(), "{def}");

    // Hover on `run:` values.
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": doc, "position": at(&text, "tools/flagstat")}),
        )
        .await;
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        value.contains("`flagstat_tool`") && value.contains("The flagstat_tool"),
        "{hover}"
    );
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": doc, "position": at(&text, "'#echo")}),
        )
        .await;
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        value.contains("`echo_tool`") && value.contains("Echo"),
        "{hover}"
    );

    // Workspace symbols: the open document's Tools and the index's.
    let symbols = client
        .request("workspace/symbol", json!({"query": ""}))
        .await;
    let symbols = symbols["result"].as_array().expect("symbols").clone();
    let find = |name: &str| symbols.iter().find(|s| s["name"] == name).cloned();
    let echo = find("echo_tool").expect("echo_tool");
    assert_eq!(echo["location"]["uri"], wf_uri.as_str());
    assert_eq!(echo["kind"], 12);
    let f = find("flagstat_tool").expect("flagstat_tool");
    assert_eq!(f["location"]["uri"], flagstat.as_str());
    assert_eq!(f["containerName"], "The flagstat_tool");
    let some = client
        .request("workspace/symbol", json!({"query": "flagst"}))
        .await;
    assert_eq!(some["result"].as_array().unwrap().len(), 1, "{some}");
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_baseline_client_gets_locations_and_no_tooltips() {
    let root = folder("baseline");
    let mut client = start(&root, json!({})).await;
    let text = wf();
    let wf_uri = uri(&root.join("wf.cwl"));
    client.open(&wf_uri, &text).await;
    let doc = json!({"uri": wf_uri});
    let links = client
        .request("textDocument/documentLink", json!({"textDocument": doc}))
        .await;
    let links = links["result"].as_array().expect("links").clone();
    assert_eq!(links.len(), 4, "{links:?}");
    assert!(
        links.iter().all(|l| l.get("tooltip").is_none()),
        "{links:?}"
    );
    let def = client
        .request(
            "textDocument/definition",
            json!({"textDocument": doc, "position": at(&text, "tools/flagstat")}),
        )
        .await;
    assert_eq!(
        def["result"]["uri"],
        uri(&root.join("tools/flagstat.cwl")),
        "{def}"
    );
    assert_eq!(def["result"]["range"]["start"]["line"], 0);
    client.shutdown().await;
}

/// A workflow with an `$import`ed type list and a `run:` to a file that does not exist.
const IMPORTING: &str = "cwlVersion: v1.2\nclass: Workflow\nid: main\n$namespaces:\n  \
mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: importing\n\
requirements:\n  SchemaDefRequirement:\n    types:\n    - $import: types.yml\n\
inputs: {}\noutputs: {}\nsteps:\n  s:\n    run: gone.cwl\n    in: {}\n    out: []\n";

/// `$import` links and definitions, and `run-target-missing` over the protocol, in `check`
/// and in `tools-list`, at the same place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_and_missing_run_targets_alike_in_the_editor_and_the_cli() {
    let root = folder("imports");
    std::fs::write(
        root.join("types.yml"),
        "- name: Mode\n  type: enum\n  symbols: [a, b]\n",
    )
    .unwrap();
    std::fs::write(root.join("importing.cwl"), IMPORTING).unwrap();
    let mut client = start(&root, json!({"publishDiagnostics": {}})).await;
    let doc_uri = uri(&root.join("importing.cwl"));
    client.open(&doc_uri, IMPORTING).await;
    let doc = json!({"uri": doc_uri});
    let links = client
        .request("textDocument/documentLink", json!({"textDocument": doc}))
        .await;
    let targets: Vec<&str> = links["result"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| l["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, [uri(&root.join("types.yml"))], "{links}");
    let def = client
        .request(
            "textDocument/definition",
            json!({"textDocument": doc, "position": at(IMPORTING, "types.yml")}),
        )
        .await;
    assert_eq!(def["result"]["uri"], uri(&root.join("types.yml")), "{def}");
    let missing = |diags: &Value| -> Vec<(u64, u64, String)> {
        diags
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["code"] == "run-target-missing")
            .map(|d| {
                (
                    d["range"]["start"]["line"].as_u64().unwrap(),
                    d["range"]["start"]["character"].as_u64().unwrap(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let mut pushed = Vec::new();
    for _ in 0..5 {
        let Some(p) = client.diagnostics(&doc_uri, None).await else {
            break;
        };
        pushed = missing(&p["diagnostics"]);
        if !pushed.is_empty() {
            break;
        }
    }
    let line = IMPORTING[..IMPORTING.find("gone.cwl").unwrap()]
        .lines()
        .count() as u64
        - 1;
    assert_eq!(
        pushed,
        [(
            line,
            9,
            "the `run:` target cannot be found: `gone.cwl` does not exist".to_string()
        )]
    );
    client.shutdown().await;
    // The CLI: the same finding at the same place (1-based), and the Tool refused.
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let expected = format!(
        "importing.cwl:{}:10: error[run-target-missing]: {}",
        line + 1,
        pushed[0].2
    );
    let (code, out, _) = cli(&["check", "--min-severity", "error", "importing.cwl"]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().collect::<Vec<_>>(), [expected.as_str()]);
    let (code, out, err) = cli(&["tools-list", "importing.cwl"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains(&format!(
            "importing.cwl:{}:10: error[run-target-missing]",
            line + 1
        )),
        "{err}"
    );
}
