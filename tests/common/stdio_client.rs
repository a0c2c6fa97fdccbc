//! A small synchronous LSP client that drives the real `cwl-mcp-lsp` binary over stdio.
#![allow(dead_code)]
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Server messages read while waiting for something else.
    pub backlog: Vec<Value>,
}

impl StdioClient {
    pub fn spawn() -> StdioClient {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = v.parse::<usize>().ok();
                    }
                }
                let Some(length) = length else { return };
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(value) = serde_json::from_slice::<Value>(&body) else {
                    return;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        StdioClient {
            child,
            stdin,
            incoming: rx,
            next_id: 1,
            backlog: Vec::new(),
        }
    }

    pub fn send(&mut self, message: Value) {
        let body = serde_json::to_vec(&message).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (other messages go to the backlog; requests
    /// from the server are answered with `null`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let message = self.recv_until(deadline).expect("response in time");
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.stash(message);
        }
    }

    fn stash(&mut self, message: Value) {
        if message.get("method").is_some() && message.get("id").is_some() {
            // A server-to-client request (e.g. workspace/configuration): answer it.
            let id = message["id"].clone();
            let result = if message["method"] == "workspace/configuration" {
                json!([null])
            } else {
                Value::Null
            };
            self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        } else {
            self.backlog.push(message);
        }
    }

    fn recv_until(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(left) {
            Ok(v) => Some(v),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Waits for the next `publishDiagnostics` for `uri` (checking the backlog first).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        self.diagnostics_within(uri, Duration::from_secs(20))
            .expect("diagnostics in time")
    }

    pub fn diagnostics_within(&mut self, uri: &str, wait: Duration) -> Option<Value> {
        let is_ours = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        if let Some(i) = self.backlog.iter().position(is_ours) {
            return Some(self.backlog.remove(i)["params"].clone());
        }
        let deadline = Instant::now() + wait;
        loop {
            let message = self.recv_until(deadline)?;
            if is_ours(&message) {
                return Some(message["params"].clone());
            }
            self.stash(message);
        }
    }

    pub fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let response = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                   "initializationOptions": options}),
        );
        self.notify("initialized", json!({}));
        response
    }

    /// `shutdown` then `exit`; returns the exit status code.
    pub fn shutdown(mut self) -> Option<i32> {
        let response = self.request("shutdown", Value::Null);
        assert!(response.get("error").is_none(), "{response}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
