//! End to end over the protocol: the real `Backend` behind `LspService`, JSON-RPC framed with
//! `Content-Length`. Completion, hover and code actions on lines holding non-ASCII text answer
//! with ranges in the negotiated encoding (UTF-16 by default, UTF-8 when offered).
mod common;

use common::lsp_client::{LspClient, utf8_position, utf16_position};
use serde_json::{Value, json};

const URI: &str = "file:///tmp/cwl-mcp-e2e/echo-region.cwl";

/// `readOnlyHint` is being typed after non-ASCII text (`日本😀`); the name holds non-ASCII.
const TEXT: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\nlabel: Écho région\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: \"日本 😀 tool\"\n    title: \"Écho 😀 région\"\n    annotations:\n      readOnlyHint: 日本😀\nbaseCommand: echo\ninputs: []\noutputs: []\n";

fn range(text: &str, start: usize, end: usize, utf8: bool) -> Value {
    let pos = if utf8 { utf8_position } else { utf16_position };
    json!({"start": pos(text, start), "end": pos(text, end)})
}

/// A client that takes snippets, markdown, code action literals and nested symbols (the server
/// honours what the client declares; tests/pytest_lsp covers the other shapes).
fn editor_capabilities() -> Value {
    json!({"textDocument": {
        "completion": {"completionItem": {"snippetSupport": true,
                                          "documentationFormat": ["markdown", "plaintext"]}},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "codeAction": {"codeActionLiteralSupport":
                           {"codeActionKind": {"valueSet": ["", "quickfix"]}},
                       "isPreferredSupport": true},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": true}
    }})
}

async fn started(utf8: bool) -> LspClient {
    let mut client = LspClient::in_process();
    let mut capabilities = editor_capabilities();
    if utf8 {
        capabilities["general"] = json!({"positionEncodings": ["utf-8", "utf-16"]});
    }
    let init = client.initialize_with(capabilities, json!({})).await;
    let caps = &init["capabilities"];
    assert_eq!(
        caps["positionEncoding"],
        if utf8 { "utf-8" } else { "utf-16" }
    );
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert_eq!(caps["inlayHintProvider"], true);
    assert_eq!(caps["documentSymbolProvider"], true);
    assert!(
        caps["completionProvider"]["triggerCharacters"]
            .as_array()
            .unwrap()
            .contains(&json!(":"))
    );
    client.open(URI, TEXT).await;
    client
}

async fn completion_hover_and_fixes(utf8: bool) {
    let pos = if utf8 { utf8_position } else { utf16_position };
    let mut client = started(utf8).await;

    // Completion after `日本😀`: true/false replacing the typed value.
    let value_start = TEXT.find("日本😀").unwrap();
    let cursor = value_start + "日本😀".len();
    let response = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": pos(TEXT, cursor)}),
        )
        .await;
    let items = response["result"].as_array().expect("items");
    let labels: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, vec!["false", "true"]);
    assert_eq!(
        items[0]["textEdit"]["range"],
        range(TEXT, value_start, cursor, utf8)
    );
    assert!(items[0]["detail"].as_str().unwrap().contains("MCP default"));

    // Hover on the title value holding non-ASCII text.
    let title = TEXT.find("\"Écho 😀 région\"").unwrap();
    let title_end = title + "\"Écho 😀 région\"".len();
    let response = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": pos(TEXT, title + 3)}),
        )
        .await;
    let hover = &response["result"];
    assert_eq!(hover["range"], range(TEXT, title, title_end, utf8));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("**Effective title:** Écho 😀 région")
    );

    // Pull diagnostics, then the quick fix for the invalid name.
    let response = client
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    let diagnostics = response["result"]["items"].as_array().unwrap().clone();
    let name = TEXT.find("\"日本 😀 tool\"").unwrap();
    let name_end = name + "\"日本 😀 tool\"".len();
    let invalid = diagnostics
        .iter()
        .find(|d| d["code"] == "name-invalid")
        .expect("name-invalid")
        .clone();
    assert_eq!(invalid["range"], range(TEXT, name, name_end, utf8));
    let response = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": invalid["range"],
                   "context": {"diagnostics": diagnostics}}),
        )
        .await;
    let actions = response["result"].as_array().expect("actions");
    let action = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Replace the name"))
        .expect("the name fix");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"], json!([invalid]));
    let edits = &action["edit"]["changes"][URI];
    assert_eq!(
        edits,
        &json!([{"range": range(TEXT, name, name_end, utf8), "newText": "\"_____tool\""}])
    );
    // The YAML 1.1-like value: no fix (it is not `yes`), but the invalid-type diagnostic exists.
    assert!(diagnostics.iter().any(|d| d["code"] == "invalid-type"));

    // Inlay hints and symbols answer too.
    let response = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI},
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}),
        )
        .await;
    let hints = response["result"].as_array().unwrap();
    assert_eq!(hints.len(), 3, "{hints:?}");
    let anchor = TEXT.find("日本😀\n").unwrap() + "日本😀".len();
    assert_eq!(hints[0]["position"], pos(TEXT, anchor));
    let response = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    let symbols = response["result"].as_array().unwrap();
    assert_eq!(symbols[0]["name"], "echo-region");
    assert_eq!(symbols[0]["children"][0]["name"], "mcp:Tool");
}

#[tokio::test]
async fn utf16_ranges_on_non_ascii_lines() {
    completion_hover_and_fixes(false).await;
}

#[tokio::test]
async fn utf8_ranges_when_the_client_offers_utf8() {
    completion_hover_and_fixes(true).await;
}

#[tokio::test]
async fn unknown_documents_and_positions_are_errors_not_panics() {
    let mut client = started(false).await;
    let response = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere.cwl"}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let response = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": {"line": 999, "character": 0}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    // The server still serves.
    let response = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    assert!(response["result"].is_array(), "{response}");
}

/// Incremental edits reach the features: a key half-typed through `didChange` (the YAML is
/// broken meanwhile) completes, under the profile set in `initializationOptions`; inlay hints
/// follow the setting; `only` filters code action kinds.
#[tokio::test]
async fn edits_settings_and_kinds_over_the_protocol() {
    let mut client = LspClient::in_process();
    client
        .initialize_with(
            editor_capabilities(),
            json!({"cwlMcp": {"profile": "cwl2mcp", "inlayHints": false}}),
        )
        .await;
    let text = "class: CommandLineTool\nid: t\n$namespaces:\n  agent: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  agent:Tool:\n    name: t\n    annotations: {readOnlyHint: yes}\ninputs: []\noutputs: []\n";
    let uri = "file:///tmp/cwl-mcp-e2e/t.cwl";
    client.open(uri, text).await;
    // Type `    use` on a new line after `name: t` (line 6), in two changes.
    let after_name = json!({"line": 6, "character": 9});
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2},
                   "contentChanges": [{"range": {"start": after_name, "end": after_name}, "text": "\n    u"}]}),
        )
        .await;
    let cursor = json!({"line": 7, "character": 5});
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 3},
                   "contentChanges": [{"range": {"start": cursor, "end": cursor}, "text": "se"}]}),
        )
        .await;
    let response = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 7}}),
        )
        .await;
    let items = response["result"].as_array().expect("items");
    let labels: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(
        labels.contains(&"useWhen") && !labels.contains(&"description"),
        "{labels:?}"
    );
    let use_when = items.iter().find(|i| i["label"] == "useWhen").unwrap();
    assert!(
        use_when["detail"]
            .as_str()
            .unwrap()
            .contains("required (cwl2mcp profile)")
    );
    assert_eq!(
        use_when["textEdit"]["range"],
        json!({"start": {"line": 7, "character": 4}, "end": {"line": 7, "character": 7}})
    );
    assert_eq!(use_when["insertTextFormat"], 2);
    // Inlay hints are off.
    let response = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}),
        )
        .await;
    assert_eq!(response["result"], json!([]));
    // Code actions: the `yes` fix, unless only refactorings are asked for.
    let yes = json!({"start": {"line": 8, "character": 32}, "end": {"line": 8, "character": 35}});
    let response = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": yes, "context": {"diagnostics": []}}),
        )
        .await;
    let titles: Vec<&str> = response["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("Write `true`")),
        "{titles:?}"
    );
    let response = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": yes,
                   "context": {"diagnostics": [], "only": ["refactor"]}}),
        )
        .await;
    assert_eq!(response["result"], json!([]));
}

/// Applies LSP text edits (ASCII text: UTF-16 columns are bytes) to `text`.
fn apply_lsp_edits(text: &str, edits: &Value) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        starts[p["line"].as_u64().unwrap() as usize] + p["character"].as_u64().unwrap() as usize
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, &new);
    }
    out
}

async fn pull(client: &mut LspClient, uri: &str) -> Vec<Value> {
    let response = client
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    response["result"]["items"].as_array().unwrap().clone()
}

/// `hint-on-step` over the protocol: the diagnostic, its quick fix moving the hint into the
/// step's inline `run:` process, and the document after it has no `hint-on-step` left.
#[tokio::test]
async fn the_hint_on_step_fix_over_the_protocol() {
    let mut client = LspClient::in_process();
    client
        .initialize_with(editor_capabilities(), json!({}))
        .await;
    let uri = "file:///tmp/cwl-mcp-e2e/wf.cwl";
    let text = "cwlVersion: v1.2\nclass: Workflow\nid: wf\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\ninputs: []\noutputs: []\nsteps:\n  echo:\n    hints:\n      - class: mcp:Tool\n        name: echo_step\n    run:\n      class: CommandLineTool\n      baseCommand: echo\n      inputs: []\n      outputs: []\n    in: {}\n    out: []\n";
    client.open(uri, text).await;
    let diagnostics = pull(&mut client, uri).await;
    let on_step = diagnostics
        .iter()
        .find(|d| d["code"] == "hint-on-step")
        .expect("hint-on-step")
        .clone();
    assert_eq!(
        on_step["range"],
        json!({"start": {"line": 10, "character": 15}, "end": {"line": 10, "character": 23}})
    );
    let response = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": on_step["range"],
                   "context": {"diagnostics": [on_step.clone()]}}),
        )
        .await;
    let actions = response["result"].as_array().expect("actions");
    let action = actions
        .iter()
        .find(|a| a["title"] == "Move the MCP Tool hint into the step's `run:` process")
        .unwrap_or_else(|| panic!("the move: {actions:?}"));
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["isPreferred"], true);
    assert_eq!(action["diagnostics"], json!([on_step]));
    let fixed = apply_lsp_edits(text, &action["edit"]["changes"][uri]);
    assert_eq!(
        fixed,
        "cwlVersion: v1.2\nclass: Workflow\nid: wf\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\ninputs: []\noutputs: []\nsteps:\n  echo:\n    run:\n      class: CommandLineTool\n      hints:\n        - class: mcp:Tool\n          name: echo_step\n      baseCommand: echo\n      inputs: []\n      outputs: []\n    in: {}\n    out: []\n"
    );
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2},
                   "contentChanges": [{"text": fixed}]}),
        )
        .await;
    let after = pull(&mut client, uri).await;
    assert!(
        after.iter().all(|d| d["code"] != "hint-on-step"),
        "{after:?}"
    );
}

/// Completion at `cursor` and hover at `on_hint` (LSP positions).
async fn ask(client: &mut LspClient, uri: &str, cursor: Value, on_hint: Value) -> (Value, Value) {
    let at = |position: Value| json!({"textDocument": {"uri": uri}, "position": position});
    let completion = client.request("textDocument/completion", at(cursor)).await;
    let hover = client.request("textDocument/hover", at(on_hint)).await;
    (completion, hover)
}

/// A document over 32 KiB is analysed on a blocking thread. Completion and hover asked right
/// after a change (its model not built yet, or being built by the diagnostics job) answer as
/// they do once it is built, and a position outside the text is an invalid-params error.
#[tokio::test]
async fn a_large_document_answers_completion_and_hover_right_after_a_change() {
    let uri = "file:///tmp/cwl-mcp-e2e/large.cwl";
    let mut text = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: large\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: large_tool\n    annotations:\n      readOnlyHint: tru\nbaseCommand: echo\ninputs:\n",
    );
    for i in 0..1_000 {
        text.push_str(&format!(
            "  in_{i:04}:\n    type: string\n    doc: Input number {i}.\n"
        ));
    }
    text.push_str("outputs: []\n");
    assert!(text.len() > 40_000);
    let mut client = LspClient::in_process();
    client
        .initialize_with(editor_capabilities(), json!({}))
        .await;
    client.open(uri, &text).await;
    let cursor = text.find("readOnlyHint: tru").unwrap() + "readOnlyHint: tru".len();
    let cursor = utf16_position(&text, cursor);
    let on_hint = utf16_position(&text, text.find("mcp:Tool").unwrap() + 2);
    let doc = text.find("Input number 500.").unwrap();
    let mut answers = Vec::new();
    for version in 2..=3 {
        // A character typed in an input's `doc` (then deleted), and at once the requests.
        let change = if version == 2 {
            json!({"range": {"start": utf16_position(&text, doc), "end": utf16_position(&text, doc)}, "text": "x"})
        } else {
            json!({"range": {"start": utf16_position(&text, doc), "end": utf16_position(&text, doc + 1)}, "text": ""})
        };
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
            )
            .await;
        let answer = ask(&mut client, uri, cursor.clone(), on_hint.clone()).await;
        let outside = client
            .request(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 99_999, "character": 0}}),
            )
            .await;
        assert_eq!(outside["error"]["code"], -32602, "{outside}");
        answers.push(answer);
    }
    // Once the last version's diagnostics are out, its model is built: the same answers.
    client.diagnostics(uri, Some(3)).await.expect("diagnostics");
    let (completion, hover) = ask(&mut client, uri, cursor.clone(), on_hint.clone()).await;
    let labels: Vec<&str> = completion["result"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, vec!["false", "true"]);
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("large_tool"),
        "{hover}"
    );
    // The completion precedes the edited input; the hover tells the Tool's size, one byte
    // more with the `x` typed.
    let bytes = |hover: &Value| -> usize {
        let value = hover["result"]["contents"]["value"].as_str().unwrap();
        let (_, after) = value.split_once("the Tool definition is ").unwrap();
        after.split(' ').next().unwrap().parse().unwrap()
    };
    for (c, _) in &answers {
        assert_eq!(c["result"], completion["result"]);
    }
    assert_eq!(bytes(&answers[0].1), bytes(&hover) + 1);
    assert_eq!(answers[1].1["result"], hover["result"]);
    client.shutdown().await;
}
