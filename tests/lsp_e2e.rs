//! End to end over stdio against the real binary: open, edit (ASCII, non-ASCII, CRLF), pushed
//! and pulled diagnostics with correct UTF-16 (or negotiated UTF-8) ranges, close, shutdown.
mod common;

use common::lsp_client::LspClient;
use serde_json::{Value, json};

const URI: &str = "file:///tmp/cwl-mcp-e2e/tool.cwl";

fn document() -> String {
    [
        "cwlVersion: v1.2",
        "class: CommandLineTool",
        "id: tool",
        "label: Étiquette 日本",
        "$namespaces:",
        "  mcp: https://eoap.github.io/cwl-mcp-extension#",
        "hints:",
        "  mcp:Tool:",
        "    annotations: {title: 日本😀, readOnlyHint: yes, destructiveHint: false, idempotentHint: true, openWorldHint: false}",
        "inputs: {}",
        "outputs: {}",
        "",
    ]
    .join("\r\n")
}

/// UTF-16 column of the first occurrence of `needle` on line `line` of `text`.
fn utf16_col(text: &str, line: usize, needle: &str) -> u64 {
    let l = text.split('\n').nth(line).unwrap();
    let byte = l.find(needle).unwrap();
    l[..byte].encode_utf16().count() as u64
}

fn codes(diags: &Value) -> Vec<String> {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The next `publishDiagnostics` for `uri` within `wait`.
async fn within(client: &mut LspClient, uri: &str, wait: std::time::Duration) -> Option<Value> {
    let uri = uri.to_string();
    client
        .next_notification("textDocument/publishDiagnostics", wait, move |p| {
            p["uri"] == uri.as_str()
        })
        .await
        .map(|m| m["params"].clone())
}

/// Opens `text` at `uri` (version 1) and returns its first diagnostics.
async fn opened(client: &mut LspClient, uri: &str, text: &str) -> Value {
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    let diags = client
        .diagnostics(uri, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(diags["version"], 1);
    diags
}

/// Runs the preview command with `arguments`.
async fn run(client: &mut LspClient, arguments: &Value) -> Value {
    client
        .request(
            "workspace/executeCommand",
            json!({"command": "cwl-mcp.previewTool", "arguments": arguments}),
        )
        .await
}

fn find<'a>(diags: &'a Value, code: &str) -> &'a Value {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diags}"))
}

#[tokio::test]
async fn open_edit_diagnose_close_shutdown_in_utf16() {
    let mut client = LspClient::spawn(&[]);
    let init = client
        .initialize_with(json!({}), json!({"cwlMcp": {"profile": "extension"}}))
        .await;
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    let mut text = document();
    let diags = opened(&mut client, URI, &text).await;
    let invalid = find(&diags, "invalid-type");
    assert_eq!(invalid["source"], "cwl-mcp");
    assert_eq!(invalid["severity"], 1);
    assert_eq!(invalid["range"]["start"]["line"], 8);
    assert_eq!(
        invalid["range"]["start"]["character"],
        utf16_col(&text, 8, "yes")
    );
    assert_eq!(
        invalid["range"]["end"]["character"],
        utf16_col(&text, 8, "yes") + 3
    );

    // Pull diagnostics agree with the pushed ones.
    let pulled = client
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    assert_eq!(pulled["result"]["items"], diags["diagnostics"]);

    // Non-ASCII edit before the value: insert "é😀 " right after `{title: 日本😀`.
    let col = utf16_col(&text, 8, ", readOnlyHint");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 8, "character": col}, "end": {"line": 8, "character": col}},
             "text": "é😀"}]}),
    ).await;
    text = text.replacen("日本😀,", "日本😀é😀,", 1);
    let diags = client
        .diagnostics(URI, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(diags["version"], 2);
    let invalid = find(&diags, "invalid-type");
    assert_eq!(
        invalid["range"]["start"]["character"],
        utf16_col(&text, 8, "yes")
    );

    // CRLF edit: insert two lines above the hint; the diagnostic moves down by two.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
             "text": "doc: ligne 1\r\n# 注释\r\n"}]}),
        )
        .await;
    let diags = client
        .diagnostics(URI, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(find(&diags, "invalid-type")["range"]["start"]["line"], 10);

    // ASCII edit fixing the value: `yes` → `true`.
    let yes = utf16_col(&text, 8, "yes");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 4}, "contentChanges": [
            {"range": {"start": {"line": 10, "character": yes}, "end": {"line": 10, "character": yes + 3}},
             "text": "true"}]}),
    ).await;
    let diags = client
        .diagnostics(URI, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(diags["version"], 4);
    assert!(
        !codes(&diags).contains(&"invalid-type".to_string()),
        "{diags}"
    );

    client
        .notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    let closed = client
        .diagnostics(URI, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(closed["diagnostics"], json!([]));
    client.shutdown().await;
}

/// A document over 256 KB is opened through the input filter, which passes its `didOpen`
/// with the text lifted out of the frame (the protocol library's reader keeps the largest
/// frame's size): the server reads the whole text, non-ASCII and CRLF included. The problem
/// on the document's last lines and an edit there are placed exactly, and the preview is
/// the Tool of the whole text.
#[tokio::test]
async fn a_large_document_is_read_whole() {
    let mut client = LspClient::spawn(&[]);
    client
        .initialize_with(json!({}), json!({"cwlMcp": {"profile": "extension"}}))
        .await;
    let uri = "file:///tmp/cwl-mcp-e2e/large.cwl";
    let mut lines: Vec<String> = [
        "cwlVersion: v1.2",
        "class: CommandLineTool",
        "id: large",
        "baseCommand: echo",
        "inputs:",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    for i in 0..5_000 {
        lines.push(format!("  in_{i}:"));
        lines.push("    type: string".into());
        lines.push(format!("    doc: \"Entrée {i} 日本😀\""));
    }
    lines.extend(
        [
            "outputs: {}",
            "$namespaces:",
            "  mcp: https://eoap.github.io/cwl-mcp-extension#",
            "hints:",
            "  mcp:Tool:",
            "    annotations: {readOnlyHint: yes, destructiveHint: false, idempotentHint: true, openWorldHint: false}",
            "",
        ]
        .iter()
        .map(|l| l.to_string()),
    );
    let text = lines.join("\r\n");
    assert!(text.len() > 256 * 1024);
    let last = lines.len() - 2;
    let diags = opened(&mut client, uri, &text).await;
    let invalid = find(&diags, "invalid-type");
    assert_eq!(invalid["range"]["start"]["line"], last as u64);
    assert_eq!(
        invalid["range"]["start"]["character"],
        utf16_col(&text, last, "yes")
    );
    // `yes` made `true` on the last line: the edit lands where the client put it.
    let col = utf16_col(&text, last, "yes");
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": last, "character": col},
                           "end": {"line": last, "character": col + 3}},
                 "text": "true"}]}),
        )
        .await;
    let diags = client
        .diagnostics(uri, Some(2))
        .await
        .expect("diagnostics in time");
    assert!(
        !codes(&diags).contains(&"invalid-type".to_string()),
        "{diags}"
    );
    let preview = run(&mut client, &json!([uri])).await;
    let shown = preview.to_string();
    assert!(shown.contains("in_4999"), "every input derived");
    assert!(
        shown.contains("Entrée 4999 日本😀"),
        "{}",
        &shown[..shown.len().min(500)]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn utf8_positions_when_the_client_offers_them() {
    let mut client = LspClient::spawn(&[]);
    let init = client
        .initialize_with(
            json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
            Value::Null,
        )
        .await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let text = document();
    let diags = opened(&mut client, URI, &text).await;
    let line = text.split('\n').nth(8).unwrap();
    let byte = line.find("yes").unwrap() as u64;
    assert_eq!(
        find(&diags, "invalid-type")["range"]["start"]["character"],
        byte
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_burst_of_edits_publishes_the_latest_version_and_never_a_stale_one() {
    let mut client = LspClient::spawn(&[]);
    client.initialize_with(json!({}), Value::Null).await;
    let text = document();
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": URI, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    for v in 2..=40 {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": v}, "contentChanges": [
                {"range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 4}},
                 "text": "x"}]}),
        ).await;
    }
    let mut last = 0;
    let mut published = 0;
    while let Some(d) = within(&mut client, URI, std::time::Duration::from_secs(3)).await {
        let v = d["version"].as_i64().unwrap();
        assert!(v > last, "version {v} published after {last}");
        last = v;
        published += 1;
        if v == 40 {
            break;
        }
    }
    assert_eq!(last, 40, "the latest version is published");
    assert!(
        published < 40,
        "bursts are coalesced ({published} publishes for 40 versions)"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn preview_code_action_command_and_lens_follow_unsaved_edits() {
    let mut client = LspClient::spawn(&[]);
    // A client with code action literals gets the preview as a `CodeAction` carrying the command.
    let literals = json!({"textDocument": {"codeAction": {"codeActionLiteralSupport":
        {"codeActionKind": {"valueSet": ["", "quickfix"]}}}}});
    let init = client
        .initialize_with(
            literals,
            json!({"cwlMcp": {"metaPrefix": "org.example/e2e"}}),
        )
        .await;
    let caps = &init["capabilities"];
    assert_eq!(
        caps["executeCommandProvider"]["commands"],
        json!(["cwl-mcp.previewTool"])
    );
    let uri = "file:///tmp/cwl-mcp-e2e/echo.cwl";
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    title: Écho 日本\n    aliases: [echo]\ninputs:\n  region: string\noutputs: {}\n";
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    client
        .diagnostics(uri, None)
        .await
        .expect("diagnostics in time");
    // The code action is offered anywhere in the process, e.g. on the title.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 7, "character": 12}, "end": {"line": 7, "character": 12}},
               "context": {"diagnostics": []}}),
    ).await;
    let preview = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["command"]["command"] == "cwl-mcp.previewTool")
        .unwrap_or_else(|| panic!("no preview action in {actions}"))
        .clone();
    assert_eq!(preview["command"]["arguments"], json!([uri, "echo-region"]));
    let arguments = preview["command"]["arguments"].clone();
    let tool = run(&mut client, &arguments).await["result"].clone();
    assert_eq!(tool["name"], "echo_region");
    assert_eq!(tool["title"], "Écho 日本");
    assert_eq!(tool["_meta"]["org.example/e2e-aliases"], json!(["echo"]));
    // The same value as `derive` prints for the same text and settings.
    let dir = std::env::temp_dir().join(format!("cwl-mcp-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("echo.cwl"), text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .args(["derive", "--meta-prefix", "org.example/e2e"])
        .arg(dir.join("echo.cwl"))
        .output()
        .unwrap();
    let derived: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(derived, tool);
    std::fs::remove_dir_all(&dir).unwrap();
    // Edit the hint without saving: add a name; the preview follows.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 0}},
             "text": "    name: echo_v2\n"}]}),
        )
        .await;
    let tool = run(&mut client, &arguments).await["result"].clone();
    assert_eq!(tool["name"], "echo_v2");
    // The code lens is titled with the derived name.
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(lenses["result"][0]["command"]["title"], "MCP Tool: echo_v2");
    // An invalid name refuses the Tool: an error response listing why.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 7, "character": 10}, "end": {"line": 7, "character": 17}},
             "text": "echo v2"}]}),
        )
        .await;
    let refused = run(&mut client, &arguments).await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("line 8") && message.contains("name"),
        "{refused}"
    );
    // Settings changes apply to the preview.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"cwlMcp": {"metaPrefix": "org.example/changed"}}}),
        )
        .await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [
            {"range": {"start": {"line": 7, "character": 10}, "end": {"line": 7, "character": 17}},
             "text": "echo_v3"}]}),
        )
        .await;
    let tool = run(&mut client, &arguments).await["result"].clone();
    assert_eq!(
        tool["_meta"]["org.example/changed-aliases"],
        json!(["echo"])
    );
    client.shutdown().await;
}

#[tokio::test]
async fn duplicate_names_across_open_documents_warn_and_clear_on_close() {
    let mut client = LspClient::spawn(&[]);
    client.initialize_with(json!({}), Value::Null).await;
    let doc = |name: &str| {
        format!(
            "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: {name}\ninputs: {{}}\noutputs: {{}}\n"
        )
    };
    let (a, b) = (
        "file:///tmp/cwl-mcp-dup/a.cwl",
        "file:///tmp/cwl-mcp-dup/b.cwl",
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": a, "languageId": "cwl", "version": 1, "text": doc("same")}}),
    ).await;
    assert!(
        !codes(
            &client
                .diagnostics(a, None)
                .await
                .expect("diagnostics in time")
        )
        .contains(&"tool-name-duplicate".to_string())
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": b, "languageId": "cwl", "version": 1, "text": doc("same")}}),
    ).await;
    let in_b = client
        .diagnostics(b, None)
        .await
        .expect("diagnostics in time");
    assert!(
        codes(&in_b).contains(&"tool-name-duplicate".to_string()),
        "{in_b}"
    );
    let in_a = client
        .diagnostics(a, None)
        .await
        .expect("diagnostics in time");
    assert!(
        codes(&in_a).contains(&"tool-name-duplicate".to_string()),
        "{in_a}"
    );
    client
        .notify("textDocument/didClose", json!({"textDocument": {"uri": b}}))
        .await;
    let in_a = client
        .diagnostics(a, None)
        .await
        .expect("diagnostics in time");
    assert!(
        !codes(&in_a).contains(&"tool-name-duplicate".to_string()),
        "{in_a}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn project_file_sets_the_profile_and_a_malformed_one_is_reported_on_itself() {
    let dir = std::env::temp_dir().join(format!("cwl-mcp-project-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("cwl-mcp.toml"), "profile = \"cwl2mcp\"\n").unwrap();
    let file = dir.join("sub/tool.cwl");
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: t\ninputs: {}\noutputs: {}\n";
    std::fs::write(&file, text).unwrap();
    let uri = format!("file://{}", file.display());
    let toml_uri = format!("file://{}", dir.join("cwl-mcp.toml").display());
    let mut client = LspClient::spawn(&[]);
    client.initialize_with(json!({}), Value::Null).await;
    // cwl2mcp requires aliases, useWhen, doNotUseWhen and annotations.
    let diags = opened(&mut client, &uri, text).await;
    assert!(
        codes(&diags)
            .iter()
            .filter(|c| *c == "missing-field")
            .count()
            >= 4,
        "{diags}"
    );
    // Explicit editor settings win over the project file.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"cwlMcp": {"profile": "extension"}}}),
        )
        .await;
    let diags = client
        .diagnostics(&uri, None)
        .await
        .expect("diagnostics in time");
    assert!(
        !codes(&diags).contains(&"missing-field".to_string()),
        "{diags}"
    );
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"cwlMcp": {}}}),
        )
        .await;
    client
        .diagnostics(&uri, None)
        .await
        .expect("diagnostics in time");
    // A malformed project file: an error on the file itself, and the defaults meanwhile.
    std::fs::write(dir.join("cwl-mcp.toml"), "profile = \"nope\"\n").unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 5}}, "text": "x"}]}),
    ).await;
    let on_toml = client
        .diagnostics(&toml_uri, None)
        .await
        .expect("diagnostics in time");
    assert_eq!(on_toml["diagnostics"][0]["severity"], 1, "{on_toml}");
    assert!(
        on_toml["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("profile")
    );
    let diags = client
        .diagnostics(&uri, None)
        .await
        .expect("diagnostics in time");
    assert!(
        !codes(&diags).contains(&"missing-field".to_string()),
        "{diags}"
    );
    // ...and the CWL document it governs says so once, on its first line.
    let config: Vec<&Value> = diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "config")
        .collect();
    assert_eq!(config.len(), 1, "{diags}");
    assert_eq!(config[0]["range"]["start"]["line"], 0, "{diags}");
    assert!(
        config[0]["message"]
            .as_str()
            .unwrap()
            .contains("cwl-mcp.toml"),
        "{diags}"
    );
    client.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `workspace/configuration` answer of `null` (what a client without settings for the
/// section sends; this test client answers every request so) keeps the profile given in
/// `initializationOptions` (issue 9).
#[tokio::test]
async fn a_null_configuration_answer_keeps_the_initialization_options() {
    let mut client = LspClient::spawn(&[]);
    let capabilities = json!({"workspace": {"configuration": true},
        "textDocument": {"publishDiagnostics": {}}});
    client
        .initialize_with(capabilities, json!({"cwlMcp": {"profile": "cwl2mcp"}}))
        .await;
    let uri = "file:///tmp/cwl-mcp-null-config/tool.cwl";
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    name: t\ninputs: {}\noutputs: {}\n";
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    // cwl2mcp requires aliases, useWhen, doNotUseWhen and annotations; give the server time to
    // have pulled (and been answered `null`) before the edit that is checked.
    let _ = client.diagnostics(uri, None).await;
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 5}}, "text": "x"}]}),
    ).await;
    let diags = client
        .diagnostics(uri, Some(2))
        .await
        .expect("diagnostics in time");
    assert!(
        codes(&diags)
            .iter()
            .filter(|c| *c == "missing-field")
            .count()
            >= 4,
        "{diags}"
    );
    client.shutdown().await;
}

/// A client that declares pull diagnostics gets no `publishDiagnostics` (SPEC §6: each
/// diagnostic once), and its pull gives what a push client gets.
#[tokio::test]
async fn pull_clients_get_no_pushes() {
    let text = "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\nhints:\n  mcp:Tool:\n    name: t\ninputs: {}\noutputs: {}\n";
    let uri = "file:///tmp/cwl-mcp-pull/tool.cwl";
    let mut pull = LspClient::spawn(&[]);
    let caps = pull
        .initialize_with(
            json!({"textDocument": {"diagnostic": {}, "publishDiagnostics": {}}}),
            Value::Null,
        )
        .await;
    assert!(
        caps["capabilities"]["diagnosticProvider"].is_object(),
        "{caps}"
    );
    let mut push = LspClient::spawn(&[]);
    let caps = push
        .initialize_with(
            json!({"textDocument": {"publishDiagnostics": {}}}),
            Value::Null,
        )
        .await;
    assert!(
        caps["capabilities"]["diagnosticProvider"].is_null(),
        "{caps}"
    );
    for c in [&mut pull, &mut push] {
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    }
    let pushed = push.diagnostics(uri, None).await.expect("a push");
    let pulled = pull
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(pulled["result"]["items"], pushed["diagnostics"], "{pulled}");
    assert!(!pushed["diagnostics"].as_array().unwrap().is_empty());
    // Nothing pushed to the pull client, even after an edit.
    pull.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 5}}, "text": "x"}]}),
    ).await;
    let late = pull
        .next_notification(
            "textDocument/publishDiagnostics",
            std::time::Duration::from_secs(2),
            |_| true,
        )
        .await;
    assert!(
        late.is_none(),
        "a pull client got a publishDiagnostics: {late:?}"
    );
    pull.shutdown().await;
    push.shutdown().await;
}
