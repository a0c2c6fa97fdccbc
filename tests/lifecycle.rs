//! The lifecycle guarantee (docs/reliability.md): on every entry point the built binary ends
//! within 100 ms of reading `exit`, with exit code 0 after `shutdown` (1 without), also when the
//! client declares `workspace.configuration` and never answers the server's
//! `workspace/configuration` request, answers it late, and keeps stdin open after `exit`.
//!
//! A small synchronous client: blocking pipes, `Content-Length` framing, a reader thread.
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The guarantee.
const EXIT_WITHIN: Duration = Duration::from_millis(100);
/// How long a run waits for a response before it fails (a debug build on a loaded machine).
const WAIT: Duration = Duration::from_secs(30);
/// After a late exit, how long to wait to tell "late" from "hung" before killing the server.
const HUNG_AFTER: Duration = Duration::from_secs(1);
/// A loop stops after this many failed runs (an unfixed server fails most runs; each costs
/// `HUNG_AFTER`).
const MAX_FAILURES: usize = 10;
/// The consecutive runs per entry point.
const RUNS: usize = 200;

const DOC: &str = "cwlVersion: v1.2
class: CommandLineTool
id: echo-region
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    title: Echo a region
    annotations:
      readOnlyHint: true
baseCommand: echo
inputs:
  region:
    type: string
    doc: Region identifier to echo.
    inputBinding: {position: 1}
outputs:
  echoed:
    type: stdout
";

/// What the client does with the server's `workspace/configuration` request.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// Never answers it.
    Never,
    /// Answers it when it reads it while waiting for a response; a request that arrives after
    /// the `shutdown` response stays unanswered (what editors do).
    WhenSeen,
    /// Waits for it after `initialized` and answers it before going on.
    First,
    /// Answers the requests it has read only after writing `exit`.
    AfterExit,
}

const ANSWERS: [Answer; 4] = [
    Answer::Never,
    Answer::WhenSeen,
    Answer::First,
    Answer::AfterExit,
];

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Server-to-client requests read and not answered yet.
    unanswered: Vec<Value>,
}

fn frame(msg: &Value) -> Vec<u8> {
    let body = serde_json::to_vec(msg).unwrap();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// Reads `Content-Length` frames until the end of the stream.
fn read_frames(stdout: impl Read, to: std::sync::mpsc::Sender<Value>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
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
        let Some(length) = length else { return };
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let msg = serde_json::from_slice(&body).expect("the server sends JSON");
        if to.send(msg).is_err() {
            return;
        }
    }
}

impl Server {
    fn spawn(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server binary");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        thread::spawn(move || read_frames(stdout, tx));
        Server {
            stdin: child.stdin.take(),
            child,
            messages: rx,
            unanswered: Vec::new(),
        }
    }

    /// Writes and flushes one message; false when the server has closed its stdin.
    fn send(&mut self, msg: &Value) -> bool {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(&frame(msg)).is_ok() && stdin.flush().is_ok()
    }

    fn next(&mut self) -> Value {
        match self.messages.recv_timeout(WAIT) {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => panic!("no message from the server within {WAIT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its stdout"),
        }
    }

    fn answer(&mut self, request: &Value) {
        // `[{}]`: one (empty) settings object per requested item.
        let result = if request["method"] == "workspace/configuration" {
            json!([{}])
        } else {
            Value::Null
        };
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
    }

    /// Waits for the response to `id`; server-to-client requests met meanwhile are answered
    /// or kept, as `answer` says.
    fn response(&mut self, id: i64, answer: Answer) -> Value {
        loop {
            let msg = self.next();
            if msg.get("method").is_some() && msg.get("id").is_some() {
                match answer {
                    Answer::WhenSeen | Answer::First => self.answer(&msg),
                    Answer::Never | Answer::AfterExit => self.unanswered.push(msg),
                }
            } else if msg.get("method").is_none() && msg["id"] == json!(id) {
                assert!(msg.get("error").is_none(), "request {id} failed: {msg}");
                return msg;
            }
        }
    }

    /// Waits for the server's `workspace/configuration` request and answers it.
    fn answer_configuration(&mut self) {
        loop {
            let msg = self.next();
            if msg["method"] == "workspace/configuration" && msg.get("id").is_some() {
                self.answer(&msg);
                return;
            }
        }
    }
}

/// One run's outcome: the exit code and the time from the flushed `exit` to the reaped process.
struct Outcome {
    code: Option<i32>,
    latency: Duration,
    /// The server ended by its deadline, not because `serve` returned (see `lifecycle_loop`).
    deadline: bool,
}

/// The line the server writes on stderr when it ends by its deadline.
const DEADLINE_LINE: &str = "after the end of input; exiting";

/// One session: initialize, initialized, didOpen, (shutdown), exit; then waits for the process.
fn run(args: &[&str], answer: Answer, shutdown: bool, keep_stdin_open: bool) -> Outcome {
    let mut server = Server::spawn(args);
    server.send(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "processId": null, "rootUri": null,
            "capabilities": {"workspace": {"configuration": true}},
        },
    }));
    server.response(1, answer);
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    if let Answer::First = answer {
        server.answer_configuration();
    }
    server.send(&json!({
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {
            "uri": "file:///work/echo-region.cwl", "languageId": "cwl", "version": 1, "text": DOC,
        }},
    }));
    if shutdown {
        server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));
        server.response(2, answer);
    }
    assert!(
        server.send(&json!({"jsonrpc": "2.0", "method": "exit", "params": null})),
        "the server closed stdin before `exit`"
    );
    let start = Instant::now();
    if let Answer::AfterExit = answer {
        for request in std::mem::take(&mut server.unanswered) {
            server.answer(&request); // fails quietly once the server is gone
        }
    }
    if !keep_stdin_open {
        server.stdin = None;
    }
    let outcome = loop {
        if let Some(status) = server.child.try_wait().expect("try_wait") {
            break Outcome {
                code: status.code(),
                latency: start.elapsed(),
                deadline: false,
            };
        }
        if start.elapsed() > HUNG_AFTER {
            let _ = server.child.kill();
            let _ = server.child.wait();
            break Outcome {
                code: None,
                latency: start.elapsed(),
                deadline: false,
            };
        }
        thread::sleep(Duration::from_micros(500));
    };
    drop(server.stdin.take());
    // The process is gone, so its stderr ends.
    let mut stderr = String::new();
    let _ = server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr);
    Outcome {
        deadline: stderr.contains(DEADLINE_LINE),
        ..outcome
    }
}

/// `RUNS` sessions on one entry point, over all client behaviours; fails with every bad run.
fn lifecycle_loop(args: &[&str]) {
    let began = Instant::now();
    let mut failures = Vec::new();
    let mut max = Duration::ZERO;
    let mut deadlines = 0;
    for i in 0..RUNS {
        let answer = ANSWERS[i % ANSWERS.len()];
        let keep_stdin_open = (i / ANSWERS.len()).is_multiple_of(2);
        // Every tenth run ends without `shutdown` (exit code 1).
        let shutdown = i % 10 != 9;
        let outcome = run(args, answer, shutdown, keep_stdin_open);
        max = max.max(outcome.latency);
        deadlines += usize::from(outcome.deadline);
        let expected = if shutdown { 0 } else { 1 };
        if outcome.code != Some(expected) || outcome.latency > EXIT_WITHIN {
            failures.push(format!(
                "run {i} ({answer:?}, shutdown: {shutdown}, stdin open: {keep_stdin_open}): {}",
                match outcome.code {
                    None => format!("still running {:?} after `exit`; killed", outcome.latency),
                    Some(code) => format!("exit code {code} after {:?}", outcome.latency),
                }
            ));
            if failures.len() >= MAX_FAILURES {
                break;
            }
        }
    }
    eprintln!(
        "lifecycle {args:?}: {RUNS} runs in {:?}, slowest exit {max:?} after `exit`, \
         {deadlines} ended by the server's deadline",
        began.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{args:?}: {} bad runs (the loop stops at {MAX_FAILURES}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The deadline is a backstop: `serve` itself must return after `exit` (the configuration
    // request in flight is given up; src/server/backend.rs `pull_configuration`). Were that
    // lost, every `Never` and `AfterExit` run, half of them, would end by the deadline; a
    // loaded machine may make a few handlers late.
    assert!(
        deadlines * 4 < RUNS,
        "{args:?}: {deadlines} of {RUNS} runs ended by the server's deadline, not by `serve` returning"
    );
}

#[test]
fn no_arguments_exits_promptly_after_exit() {
    lifecycle_loop(&[]);
}

#[test]
fn serve_exits_promptly_after_exit() {
    lifecycle_loop(&["serve"]);
}

#[test]
fn stdio_flag_exits_promptly_after_exit() {
    lifecycle_loop(&["--stdio"]);
}

/// The end of stdin without `exit` ends the server too: code 0 after `shutdown`, 1 without.
#[test]
fn end_of_input_without_exit_ends_the_server() {
    for (i, answer) in ANSWERS.into_iter().enumerate() {
        let shutdown = i.is_multiple_of(2);
        let mut server = Server::spawn(&[]);
        server.send(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "capabilities": {"workspace": {"configuration": true}}},
        }));
        server.response(1, answer);
        server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        if shutdown {
            server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
            server.response(2, answer);
        }
        server.stdin = None;
        let start = Instant::now();
        let status = loop {
            if let Some(status) = server.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > HUNG_AFTER {
                let _ = server.child.kill();
                panic!("{answer:?}: still running {HUNG_AFTER:?} after the end of stdin");
            }
            thread::sleep(Duration::from_micros(500));
        };
        let expected = if shutdown { 0 } else { 1 };
        assert_eq!(
            status.code(),
            Some(expected),
            "{answer:?}, shutdown: {shutdown}"
        );
        assert!(
            start.elapsed() <= EXIT_WITHIN,
            "{answer:?}: exited {:?} after the end of stdin",
            start.elapsed()
        );
    }
}
