//! A small LSP client for protocol-level tests: Content-Length framing over any async byte
//! stream, either the real `Backend` in-process (`tokio::io::duplex`) or the built binary
//! (`CARGO_BIN_EXE_cwl-mcp-lsp`) over stdio. Server-to-client requests are answered with
//! `null`; notifications are queued for `next_notification`.
#![allow(dead_code)]
use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

pub struct LspClient {
    reader: BufReader<Pin<Box<dyn AsyncRead + Send>>>,
    writer: Pin<Box<dyn AsyncWrite + Send>>,
    next_id: i64,
    pub notifications: VecDeque<Value>,
    /// The methods of the server-to-client requests received (and answered), in order.
    pub server_requests: Vec<String>,
    child: Option<tokio::process::Child>,
}

/// How long any single wait may take before a test fails (debug builds on a loaded 2-core CI).
pub const WAIT: Duration = Duration::from_secs(30);

impl LspClient {
    /// The real server, in this process.
    pub fn in_process() -> LspClient {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let (service, socket) =
            tower_lsp_server::LspService::new(cwl_mcp_lsp::server::Backend::new);
        tokio::spawn(
            tower_lsp_server::Server::new(server_read, server_write, socket).serve(service),
        );
        let (r, w) = tokio::io::split(client_io);
        LspClient {
            reader: BufReader::new(Box::pin(r)),
            writer: Box::pin(w),
            next_id: 1,
            notifications: VecDeque::new(),
            server_requests: Vec::new(),
            child: None,
        }
    }

    /// The built binary over stdio, with extra environment variables.
    pub fn spawn(env: &[(&str, &str)]) -> LspClient {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"));
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn the server binary");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        LspClient {
            reader: BufReader::new(Box::pin(stdout)),
            writer: Box::pin(stdin),
            next_id: 1,
            notifications: VecDeque::new(),
            server_requests: Vec::new(),
            child: Some(child),
        }
    }

    pub async fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        let head = format!("Content-Length: {}\r\n\r\n", body.len());
        self.writer.write_all(head.as_bytes()).await.unwrap();
        self.writer.write_all(&body).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// Sends raw bytes (for framing tests).
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message from the server, or `None` at end of stream.
    async fn read_message(&mut self) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length?];
        self.reader.read_exact(&mut body).await.ok()?;
        Some(serde_json::from_slice(&body).expect("the server sends JSON"))
    }

    /// The next message that is not a server-to-client request (those are answered).
    async fn next_message(&mut self) -> Option<Value> {
        loop {
            let msg = self.read_message().await?;
            if msg.get("method").is_some() && msg.get("id").is_some() {
                let id = msg["id"].clone();
                self.server_requests
                    .push(msg["method"].as_str().unwrap_or_default().to_string());
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}))
                    .await;
                continue;
            }
            return Some(msg);
        }
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting; returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Waits for the response to `id` (notifications meanwhile are queued).
    pub async fn response(&mut self, id: i64) -> Value {
        let fut = async {
            loop {
                let msg = self.next_message().await.expect("server closed the stream");
                if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                    return msg;
                }
                self.notifications.push_back(msg);
            }
        };
        tokio::time::timeout(WAIT, fut)
            .await
            .unwrap_or_else(|_| panic!("no response to request {id} within {WAIT:?}"))
    }

    /// Sends a request and returns the whole response message (`result` or `error`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// The next notification `method` satisfying `pred` (others are kept), within `wait`.
    pub async fn next_notification(
        &mut self,
        method: &str,
        wait: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|m| m["method"] == method && pred(&m["params"]))
        {
            return self.notifications.remove(i);
        }
        let fut = async {
            loop {
                let msg = self.next_message().await?;
                if msg["method"] == method && pred(&msg["params"]) {
                    return Some(msg);
                }
                self.notifications.push_back(msg);
            }
        };
        tokio::time::timeout(wait, fut).await.ok().flatten()
    }

    /// Every message that arrives within `quiet` of the previous one (drains the stream).
    pub async fn collect_until_quiet(&mut self, quiet: Duration) -> Vec<Value> {
        let mut out: Vec<Value> = self.notifications.drain(..).collect();
        while let Ok(Some(msg)) = tokio::time::timeout(quiet, self.next_message()).await {
            out.push(msg);
        }
        out
    }

    /// `initialize` + `initialized`; returns the server capabilities.
    pub async fn initialize(&mut self) -> Value {
        let capabilities =
            json!({"textDocument": {"publishDiagnostics": {"versionSupport": true}}});
        self.initialize_with(capabilities, Value::Null).await["capabilities"].clone()
    }

    /// `initialize` (with the given client capabilities and initialization options) and
    /// `initialized`; returns the `initialize` result.
    pub async fn initialize_with(&mut self, capabilities: Value, options: Value) -> Value {
        let res = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                       "initializationOptions": options}),
            )
            .await;
        self.notify("initialized", json!({})).await;
        res["result"].clone()
    }

    /// `initialize` with complete `InitializeParams` (workspace folders, root URI, ...) and
    /// `initialized`; returns the whole `initialize` response message.
    pub async fn initialize_params(&mut self, params: Value) -> Value {
        let res = self.request("initialize", params).await;
        self.notify("initialized", json!({})).await;
        res
    }

    /// `initialize` (one workspace folder, `root`, also the root URI; the given client
    /// capabilities) and `initialized`; fails the test on an error answer.
    pub async fn initialize_folder(&mut self, root: &std::path::Path, capabilities: Value) {
        let folder = super::uri(root);
        let res = self
            .initialize_params(json!({
                "processId": null,
                "rootUri": folder,
                "workspaceFolders": [{"uri": folder, "name": "w"}],
                "capabilities": capabilities,
            }))
            .await;
        assert!(res.get("error").is_none(), "{res}");
    }

    /// The next notification of any method (queued ones first), within `wait`.
    pub async fn next_any_notification(&mut self, wait: Duration) -> Option<Value> {
        if let Some(msg) = self.notifications.pop_front() {
            return Some(msg);
        }
        tokio::time::timeout(wait, self.next_message())
            .await
            .ok()
            .flatten()
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    }

    /// The next `publishDiagnostics` for `uri` (with `version`, when given).
    pub async fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Option<Value> {
        let uri = uri.to_string();
        self.next_notification("textDocument/publishDiagnostics", WAIT, move |p| {
            p["uri"] == uri.as_str() && version.is_none_or(|v| p["version"] == v)
        })
        .await
        .map(|m| m["params"].clone())
    }

    pub async fn shutdown(mut self) {
        let res = self.request("shutdown", Value::Null).await;
        assert!(res.get("error").is_none(), "shutdown failed: {res}");
        self.notify("exit", Value::Null).await;
        if let Some(mut child) = self.child.take() {
            let status = tokio::time::timeout(WAIT, child.wait())
                .await
                .expect("the server exits after `exit`")
                .unwrap();
            assert!(status.success(), "exit status {status}");
        }
    }
}

/// The LSP position of byte `at` in `text`, counted in UTF-16 code units (computed here
/// independently of the server's conversion code).
pub fn utf16_position(text: &str, at: usize) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    let character = text[line_start..at].encode_utf16().count();
    json!({"line": line, "character": character})
}

/// The same in UTF-8 code units (bytes).
pub fn utf8_position(text: &str, at: usize) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    json!({"line": line, "character": at - line_start})
}
