#!/usr/bin/env python3
"""Benchmark cwl-mcp-lsp against SPEC §8, its floors and yaml-language-server, in one run.

    cargo build --release && python3 bench/run.py     # the recorded run: writes docs/performance.md
    python3 bench/run.py --quick                       # a smoke run: target/bench/performance.quick.md

Stdlib only. Generated CWL tools (bench/gen_cwl.py) of 500, 5,000 and 50,000 lines, each with the
`mcp:Tool` hint near the top (as real files have it) and at the end. Each server is spawned fresh
several times over stdio; per process it measures spawn -> `initialize` answer, `didOpen` ->
first diagnostics (timed in more processes that only open the file: --open-runs), completion and
hover in the hint (repeated on one version of the text, completion and code actions as the
first request after each keystroke typed in an input's `doc`, and completion sent with the
keystroke, before its diagnostics), the one-character edits of every edit site
(the annotation value `true`<->`trux`, `useWhen` prose, an input's `doc`, an input's `default`,
`baseCommand`, `]` of `baseCommand` deleted then restored: YAML broken, then valid again, a
space that breaks an input and a word typed in that input while it stays broken, a new
input's key typed letter by letter),
each timed until the `publishDiagnostics` of that version, a protocol floor (a request answered
at once), and the peak RSS (VmHWM of the process tree with the document open). It times
`cwl-mcp-lsp check` over ../shared/corpus/real/ (skipped, with a message, when absent).

The client declares what is measured: push diagnostics (no `textDocument.diagnostic`, so the
server publishes), no dynamic registration of file watchers; yaml-language-server gets the same
capabilities, files and edits.

Every figure is printed beside its floor, measured in the same run by `benches/floor.rs` (built
with `cargo bench --bench floor --no-run`, the project's vendored grammar): the incremental
tree-sitter reparse of the same edit, the full parse of the file, and the peak RSS of a process
holding only the text, rope and tree. Results: docs/performance.md and target/bench/results.json.
yaml-language-server is installed with npm into target/peers/ (git-ignored) on first use. Order:
every file's floors and cwl-mcp-lsp's processes, then `check` and the index, then
yaml-language-server's processes on every file (its aftermath slowed ours: bench/notes.md).
"""
import argparse
import json
import os
import platform
import select
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench"
PEERS = ROOT / "target" / "peers"
YLS_VERSION = "1.25.0"
SIZES = (500, 5000, 50000)
PLACEMENTS = ("top", "bottom", "list")
# How each placement's file is generated, and how the report names it: the hint near the top or
# at the end; `list`: the hint near the top and the inputs a list (`- id: name`), the other form
# CWL allows (about 6 % of the corpus's tools), whose items tree-sitter rebuilds one by one.
PLACEMENT_ARGS = {"top": ["--hints-at", "top"], "bottom": ["--hints-at", "bottom"],
                  "list": ["--hints-at", "top", "--list-form"]}
PLACEMENT_LABELS = {"top": "near the top", "bottom": "at the end", "list": "near the top, inputs a list"}
RECORD_COMMAND = "cargo build --release && python3 bench/run.py"

# SPEC §8 (updated) targets, ms unless noted.
EDIT_TARGET = {500: 1.0, 5000: 2.0, 50000: 5.0}
# Completion and hover: 0.5 ms at 5,000 lines, 2 ms at 50,000; the 5,000-line target at 500.
REQ_TARGET = {500: 0.5, 5000: 0.5, 50000: 2.0}
OPEN_FACTOR = 2.0        # didOpen -> first diagnostics <= 2x the full parse (same run)
INIT_TARGET = 20.0
RSS_FACTOR = 1.5         # peak RSS (50,000 lines open) <= 1.5x the text+rope+tree floor
CHECK_TARGET_S = 0.5
RATIO_TARGET = 50.0      # yaml-language-server / ours, every size and edit site

# Edit sites, in the order they are edited within one server process (see bench/gen_cwl.py),
# and the report rows they produce (the `yaml` site gives two rows: its two edits differ).
SITE_ORDER = ("annotation", "use_when", "input_doc", "input_default", "input_typing", "input_name",
              "base_command", "base_command_typing", "yaml", "input_break", "input_broken_typing",
              "new_input_typing", "hint_while_input_broken")
ROWS = (
    ("annotation", "annotation value `true`↔`trux`"),
    ("use_when", "`useWhen` prose"),
    ("input_doc", "an input's `doc`"),
    ("input_default", "an input's `default`"),
    ("input_typing", "a word typed in an input's `doc` (every text new)"),
    ("input_name", "a word typed in the first input's name (every text new)"),
    ("base_command", "`baseCommand`"),
    ("base_command_typing", "a word typed in `baseCommand` (every text new)"),
    ("yaml_broken", "`]` deleted in `baseCommand` (YAML broken)"),
    ("yaml_restored", "`]` restored (YAML valid again)"),
    ("input_broken", "a space typed at the start of an input's `type:` line (YAML broken in `inputs`)"),
    ("input_restored", "that space deleted (YAML valid again)"),
    ("input_broken_typing", "a word typed in that input's `doc` while its YAML is broken (every text new)"),
    ("new_input_typing", "a new input's key typed on a line of its own (YAML broken until its colon)"),
    ("hint_while_input_broken", "the annotation value edited while that input's YAML is broken"),
)


# --------------------------------------------------------------------------------------------
# A single-threaded stdio LSP client: frames are timestamped when their last byte arrives.

class Client:
    def __init__(self, cmd, settings=None, cwd=None):
        self.settings = settings or {}
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd, bufsize=0)
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        self.next_id = 1
        self.inbox = []  # (t, msg) notifications not consumed yet

    def send(self, obj):
        body = json.dumps(obj).encode()
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.proc.stdin.fileno(), view)
                view = view[n:]
            except BlockingIOError:
                select.select([], [self.proc.stdin.fileno()], [], 1)
        return time.perf_counter()

    def _frame(self):
        """One complete frame from the buffer, or None."""
        head_end = self.buf.find(b"\r\n\r\n")
        if head_end < 0:
            return None
        length = None
        for line in self.buf[:head_end].split(b"\r\n"):
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        start = head_end + 4
        if length is None or len(self.buf) < start + length:
            return None
        body = self.buf[start:start + length]
        self.buf = self.buf[start + length:]
        return body

    def recv(self, deadline):
        """The next message and its arrival time, or (None, None) at the deadline / EOF."""
        while True:
            body = self._frame()
            if body is not None:
                t = time.perf_counter()
                msg = json.loads(body)
                if "method" in msg and "id" in msg:
                    self._answer(msg)
                    continue
                return t, msg
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, None
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                return None, None
            self.buf += chunk

    def _answer(self, msg):
        result = None
        if msg["method"] == "workspace/configuration":
            result = []
            for item in msg["params"].get("items", []):
                cur = self.settings
                for part in (item.get("section") or "").split("."):
                    if part:
                        cur = cur.get(part) if isinstance(cur, dict) else None
                result.append(cur)
        elif msg["method"] == "workspace/workspaceFolders":
            result = []
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def request(self, method, params, timeout=60):
        rid = self.next_id
        self.next_id += 1
        t0 = self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = t0 + timeout
        while True:
            t, msg = self.recv(deadline)
            if msg is None:
                return None, None
            if msg.get("id") == rid and "method" not in msg:
                self.last_arrival = t
                return (t - t0) * 1000, msg
            self.inbox.append((t, msg))

    def notify(self, method, params):
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri, since, version=None, timeout=60):
        """Arrival time of the first publishDiagnostics for `uri` after `since` (and for
        `version`, when the server sends versions)."""
        deadline = time.perf_counter() + timeout
        while True:
            if self.inbox:
                t, msg = self.inbox.pop(0)
            else:
                t, msg = self.recv(deadline)
                if msg is None:
                    return None, None
            if msg.get("method") != "textDocument/publishDiagnostics":
                continue
            p = msg["params"]
            if p.get("uri") != uri or t < since:
                continue
            if version is not None and p.get("version") is not None and p["version"] != version:
                continue
            return t, msg

    def drain(self, seconds):
        deadline = time.perf_counter() + seconds
        while self.recv(deadline)[1] is not None:
            pass
        self.inbox.clear()

    def peak_rss_mb(self):
        """VmHWM of the server and its children (yaml-language-server runs under node)."""
        pids, children = [self.proc.pid], {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    stat = Path(f"/proc/{d}/stat").read_text()
                    children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(d))
                except OSError:
                    pass
        i = 0
        while i < len(pids):
            pids += children.get(pids[i], [])
            i += 1
        kb = 0
        for pid in pids:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        kb += int(line.split()[1])
            except OSError:
                pass
        return kb / 1024

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(5)
        except Exception:
            self.proc.kill()
            self.proc.wait()


# What the client declares: push diagnostics (no `textDocument.diagnostic`: the server publishes
# after each change), no dynamic registration (no file watchers registered), UTF-16 positions.
CLIENT_CAPS = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "completion": {"completionItem": {"snippetSupport": True,
                                          "documentationFormat": ["markdown", "plaintext"]}},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix"]}}},
    },
    "workspace": {"configuration": True, "workspaceFolders": True,
                  "didChangeConfiguration": {"dynamicRegistration": False},
                  "didChangeWatchedFiles": {"dynamicRegistration": False},
                  "executeCommand": {"dynamicRegistration": False}},
}
assert "diagnostic" not in CLIENT_CAPS["textDocument"], "the harness measures push diagnostics"


def lsp_change(e):
    (l1, c1), (l2, c2) = e["range"]
    return {"range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
            "text": e["text"]}


def one_run(server, info, edits_per_site, repeats, open_only=False):
    path = Path(info["path"])
    pos = info["pos"]
    text = path.read_text()
    uri = path.resolve().as_uri()
    root = path.resolve().parent.as_uri()
    out = {"edit_ms": {row: [] for row, _ in ROWS}, "completion_ms": [], "completion_typed_ms": [],
           "completion_with_ms": [], "code_action_typed_ms": [],
           "hover_ms": [], "floor_ms": []}
    c = Client(server["cmd"], server.get("settings"))
    try:
        _, init = c.request("initialize", {
            "processId": os.getpid(), "rootUri": root, "capabilities": CLIENT_CAPS,
            "workspaceFolders": [{"uri": root, "name": "bench"}],
            "clientInfo": {"name": "cwl-mcp-bench", "version": "1"}}, timeout=120)
        if init is None or "result" not in init:
            out["error"] = f"no initialize answer: {init}"
            return out
        out["init_ms"] = (c.last_arrival - c.t_spawn) * 1000
        caps = init["result"]["capabilities"]
        out["pull_offered"] = bool(caps.get("diagnosticProvider"))
        c.notify("initialized", {})
        if server.get("settings"):
            c.notify("workspace/didChangeConfiguration", {"settings": server["settings"]})
        c.drain(0.3)
        t0 = c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": server.get("language", "yaml"), "version": 1, "text": text}})
        t, msg = c.wait_diagnostics(uri, t0, version=1, timeout=180)
        out["open_ms"] = (t - t0) * 1000 if t else None
        out["n_diagnostics"] = len(msg["params"]["diagnostics"]) if msg else None
        if msg is None:
            out.setdefault("errors", []).append("no diagnostics after didOpen")
        if open_only:
            return out
        c.drain(server.get("settle", 0.05))

        td = {"uri": uri}

        def at(key):
            return {"line": pos[key][0], "character": pos[key][1]}

        def timed(method, params, sink):
            ms, res = c.request(method, params, timeout=60)
            if ms is not None and res is not None and "error" not in res:
                sink.append(ms)
            elif res is not None and "error" in res:
                out.setdefault("errors", []).append(f"{method}: {res['error'].get('message')}")
            c.drain(server.get("between_edits", 0.005))

        out["has"] = {"completion": bool(caps.get("completionProvider")),
                      "hover": bool(caps.get("hoverProvider"))}
        for _ in range(repeats):
            if out["has"]["completion"]:
                timed("textDocument/completion", {"textDocument": td, "position": at("completion"),
                                                  "context": {"triggerKind": 1}}, out["completion_ms"])
            if out["has"]["hover"]:
                timed("textDocument/hover", {"textDocument": td, "position": at("hover_mcp")},
                      out["hover_ms"])
        c.drain(server.get("settle", 0.05))

        # Completion (and code actions, which VS Code asks for after each change) as typing
        # asks for them: the first request after a keystroke (a character typed in an input's
        # `doc`, then deleted), when nothing read for an earlier version of the text is
        # current. (The requests above repeat on one version.)
        version = 1
        keys = pos["sites"]["input_doc"]
        out["has"]["code_action"] = bool(caps.get("codeActionProvider"))
        for has, method, params, sink in (
                ("completion", "textDocument/completion",
                 {"textDocument": td, "position": at("completion"), "context": {"triggerKind": 1}},
                 out["completion_typed_ms"]),
                ("code_action", "textDocument/codeAction",
                 {"textDocument": td, "range": {"start": at("completion"), "end": at("completion")},
                  "context": {"diagnostics": []}},
                 out["code_action_typed_ms"])):
            if not out["has"][has]:
                continue
            for k in range(repeats + repeats % len(keys)):
                version += 1
                t0 = c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [lsp_change(keys[k % len(keys)])]})
                t, _msg = c.wait_diagnostics(uri, t0, version=version, timeout=120)
                if t is None:
                    out.setdefault("errors", []).append(f"no diagnostics after keystroke {k}")
                    break
                c.drain(server.get("between_edits", 0.005))
                timed(method, params, sink)
            c.drain(server.get("settle", 0.05))

        # Completion sent with the keystroke, before that version's diagnostics, as an editor
        # sends it on a trigger character or while the user types: timed from the request to
        # its answer, so the keystroke's analysis is in it.
        if out["has"]["completion"]:
            params = {"textDocument": td, "position": at("completion"), "context": {"triggerKind": 1}}
            for k in range(repeats + repeats % len(keys)):
                version += 1
                t0 = c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [lsp_change(keys[k % len(keys)])]})
                ms, res = c.request("textDocument/completion", params, timeout=60)
                if ms is not None and res is not None and "error" not in res:
                    out["completion_with_ms"].append(ms)
                elif res is not None and "error" in res:
                    out.setdefault("errors", []).append(f"completion: {res['error'].get('message')}")
                t, _msg = c.wait_diagnostics(uri, t0, version=version, timeout=120)
                if t is None:
                    out.setdefault("errors", []).append(f"no diagnostics after keystroke {k}")
                    break
                c.drain(server.get("between_edits", 0.005))
            c.drain(server.get("settle", 0.05))

        # The edits of each site, cyclically: each site's list brings the text back.
        for site in SITE_ORDER:
            edits = pos["sites"][site]
            # Whole rounds of the site's list, so that the text comes back.
            for k in range(-(-edits_per_site // len(edits)) * len(edits)):
                e = edits[k % len(edits)]
                version += 1
                t0 = c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [lsp_change(e)]})
                t, _msg = c.wait_diagnostics(uri, t0, version=version, timeout=120)
                if t is None:
                    out.setdefault("errors", []).append(f"no diagnostics after edit {site} {k}")
                    break
                out["edit_ms"][e["row"]].append((t - t0) * 1000)
                # Let a server that publishes twice (or late) go quiet before the next edit.
                c.drain(server.get("between_edits", 0.005))
            c.drain(server.get("settle", 0.05))
        # The protocol floor: a request the server answers at once (unknown method -> error),
        # after the same idle gap as between the edits: the cost of waking the server's threads
        # and of the pipes, not of analysis.
        for _ in range(max(repeats, 10)):
            ms, res = c.request("cwl-mcp/benchPing", {}, timeout=60)
            if ms is not None:
                out["floor_ms"].append(ms)
            c.drain(server.get("between_edits", 0.005))
        out["rss_mb"] = c.peak_rss_mb()
    finally:
        c.close()
    return out


# --------------------------------------------------------------------------------------------
# Floors (benches/floor.rs), measured in the same run.

def build_floor(explicit):
    if explicit:
        return explicit
    r = subprocess.run(["cargo", "bench", "--bench", "floor", "--no-run", "--message-format=json"],
                       cwd=ROOT, capture_output=True, text=True)
    exe = None
    for line in r.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "floor":
            exe = msg.get("executable") or exe
    if r.returncode != 0 or not exe:
        sys.exit("could not build the floor binary (`cargo bench --bench floor --no-run`):\n" + r.stderr[-3000:])
    return Path(exe)


def byte_offset(line_starts, lc):
    return line_starts[lc[0]] + lc[1]  # generated files are ASCII: UTF-16 column = byte column


def line_starts(text):
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def byte_edits(text, edits):
    """The LSP edits of one site as byte edits, each in the text the edits before it made (a
    break typed on an earlier line moves the bytes of the edits after it, though not their
    columns)."""
    starts = line_starts(text)
    out = []
    for e in edits:
        a, b = byte_offset(starts, e["range"][0]), byte_offset(starts, e["range"][1])
        out.append({"start": a, "end": b, "text": e["text"]})
        if "\n" in e["text"] or "\n" in text[a:b]:
            text = text[:a] + e["text"] + text[b:]
            starts = line_starts(text)
        else:
            text = text[:a] + e["text"] + text[b:]
            delta = len(e["text"]) - (b - a)
            line = e["range"][0][0]
            starts[line + 1:] = [x + delta for x in starts[line + 1:]]
    return out


def measure_floor(floor, info, repeats, full_parses):
    text = Path(info["path"]).read_text()
    sites = {site: byte_edits(text, edits) for site, edits in info["pos"]["sites"].items()}
    spec = WORK / (Path(info["path"]).name + ".floor.json")
    spec.write_text(json.dumps({"file": info["path"], "full_parses": full_parses, "repeats": repeats,
                                "sites": sites}))
    r = subprocess.run([str(floor), "parse", str(spec)], capture_output=True, text=True, check=True)
    got = json.loads(r.stdout)
    rows = {row: [] for row, _ in ROWS}
    for site, times in got["sites"].items():
        for i, ms in times:
            rows[info["pos"]["sites"][site][i]["row"]].append(ms)
    return {"full_parse_ms": got["full_parse_ms"], "reparse_ms": rows}


def measure_rss_floor(floor, path, runs):
    xs = []
    for _ in range(runs):
        r = subprocess.run([str(floor), "rss", str(path)], capture_output=True, text=True, check=True)
        xs.append(json.loads(r.stdout))
    return {"rss_mb": [x["rss_mb"] for x in xs], "baseline_mb": xs[0]["baseline_mb"], "nodes": xs[0]["nodes"]}


# --------------------------------------------------------------------------------------------

def median(xs):
    return statistics.median(xs) if xs else None


def p95(xs):
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(0.95 * len(s) + 0.5)) - 1))]


def fmt(x, unit=""):
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:.0f}{unit}"
    if x >= 10:
        return f"{x:.1f}{unit}"
    if x >= 1:
        return f"{x:.2f}{unit}"
    return f"{x:.3f}{unit}"


def ensure_yls():
    exe = PEERS / "node_modules" / ".bin" / "yaml-language-server"
    if exe.exists():
        return exe
    if not shutil.which("npm"):
        return None
    PEERS.mkdir(parents=True, exist_ok=True)
    if not (PEERS / "package.json").exists():
        (PEERS / "package.json").write_text('{"name": "peers", "private": true}\n')
    print(f"installing yaml-language-server@{YLS_VERSION} into {PEERS} ...", file=sys.stderr)
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", f"yaml-language-server@{YLS_VERSION}"],
                       cwd=PEERS, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr[-2000:], file=sys.stderr)
        return None
    return exe if exe.exists() else None


def bench_check(binary, corpus, runs):
    if not corpus.is_dir():
        return {"skipped": f"{corpus} is absent: `check` over the corpus was not measured"}
    files = sum(1 for _ in corpus.rglob("*.cwl"))
    times, codes = [], set()
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run([str(binary), "check", "--format", "json", str(corpus)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        codes.add(r.returncode)
    return {"files": files, "s": times, "exit_codes": sorted(codes)}


def summarize(runs, opens=()):
    def stat(xs):
        return {"median": median(xs), "p95": p95(xs), "n": len(xs)}

    s = {"edit_ms": {row: stat([x for r in runs for x in r.get("edit_ms", {}).get(row, [])]) for row, _ in ROWS}}
    for key in ("completion_ms", "completion_typed_ms", "completion_with_ms", "code_action_typed_ms",
                "hover_ms", "floor_ms"):
        s[key] = stat([x for r in runs for x in r.get(key, [])])
    for key in ("init_ms", "open_ms"):
        s[key] = stat([r[key] for r in list(runs) + list(opens) if r.get(key) is not None])
    rss = [r["rss_mb"] for r in runs if r.get("rss_mb") is not None]
    s["rss_mb"] = {"median": median(rss), "max": max(rss) if rss else None, "n": len(rss)}
    s["errors"] = sorted({e for r in runs for e in r.get("errors", []) + ([r["error"]] if "error" in r else [])})
    s["n_diagnostics"] = runs[0].get("n_diagnostics") if runs else None
    s["has"] = runs[0].get("has", {}) if runs else {}
    s["pull_offered"] = any(r.get("pull_offered") for r in runs)
    return s


def machine():
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                         text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "loadavg": loadavg(), "kernel": platform.release(),
            "commit": rev + ("+dirty src" if dirty else ""),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def loadavg():
    p = Path("/proc/loadavg")
    return p.read_text().split()[:3] if p.exists() else []


def status(value, target, lower_is_better=True):
    if value is None or target is None:
        return "n/a"
    ok = value <= target if lower_is_better else value >= target
    return "met" if ok else "**missed**"


def index_module():
    """bench/index.py (the workspace index benchmark), imported on demand."""
    sys.path.insert(0, str(ROOT / "bench"))
    import index  # noqa: E402  (imports this file as `run`, which runs nothing)
    return index


def write_report(path, res, args):
    m = res["machine"]
    ours = res["servers"]["cwl-mcp-lsp"]
    yls = res["servers"].get("yaml-language-server")
    keys = [k for k in res["files"] if k in ours]
    tally = {"met": 0, "missed": 0}

    def st(value, target, lower_is_better=True):
        s = status(value, target, lower_is_better)
        if s == "met":
            tally["met"] += 1
        elif s != "n/a":
            tally["missed"] += 1
        return s

    below_floor = []

    def ratio_cells(a, b, floor=None):
        """yaml-language-server's time `b` and the ratio to ours `a`. `floor`: the least time any
        server takes for the row on this machine (measured in the same run); a ratio missed where
        `b` / RATIO_TARGET is below it cannot be met by any server, and says so."""
        if b is None:
            return "n/a", "n/a"
        if not a or not b:
            return fmt(b), "n/a"
        r = b / a
        s = st(r, RATIO_TARGET, lower_is_better=False)
        if s != "met" and floor and b / RATIO_TARGET < floor:
            below_floor.append(1)
            s += f"; ÷{RATIO_TARGET:g} = {fmt(b / RATIO_TARGET, ' ms')} < floor {fmt(floor, ' ms')}"
        return fmt(b), f"{r:.0f}× ({s})"

    def label(key):
        info = res["files"][key]
        return f"{info['size']:,} ({info['lines']:,})", PLACEMENT_LABELS[info["placement"]]

    L = []
    L.append("# Performance\n")
    if args.quick:
        L.append("> **SMOKE RUN (`--quick`)**: a handful of samples, on whatever machine it ran on. "
                 "Not a record: the recorded figures come from the command below on a quiet machine.\n")
    L.append(f"Reproduce: `{RECORD_COMMAND}`" + (" (this report: `python3 bench/run.py "
             + " ".join(res.get("argv", [])) + "`)" if res.get("argv") else "") + ".\n")
    L.append("Produced by one run of the harness; do not edit the tables by hand. Targets: SPEC §8. "
             "Raw samples: `target/bench/results.json`.\n")
    L.append(f"Machine: {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}, Python {m['python']}; commit "
             f"`{m['commit']}`; {m['date']}; load average at start {' / '.join(m.get('loadavg', []))}, at end "
             f"{' / '.join(res.get('loadavg_end', []))}. Repetitions: {args.runs} fresh server processes per file"
             + (f" (`didOpen` in {args.open_runs}: {args.open_runs - args.runs} more that only open the file)"
                if args.open_runs > args.runs else "") + ", "
             f"{args.edits} edits per site and {args.repeats} completion and hover requests per process "
             f"(yaml-language-server: {args.peer_runs} processes, {args.peer_edits} edits per site, "
             f"{args.peer_repeats} requests). Floors: `benches/floor.rs`, {args.floor_full} full parses and "
             f"{args.floor_repeats} cycles of each site's edits per file.\n")

    L.append("## Edit → diagnostics\n")
    L.append("One-character `didChange` → the `publishDiagnostics` of that version; medians (p95). Floor: "
             "tree-sitter's incremental reparse of the same edit (`Tree::edit` + `Parser::parse` with the old "
             "tree), and the protocol round trip of a request answered at once.\n")
    L.append("| edit site | size (lines) | hint | median (p95) | floor: reparse | floor: protocol | target | status | "
             "yaml-language-server | ratio (≥ 50×) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for row, row_label in ROWS:
        for key in keys:
            info = res["files"][key]
            s = ours[key]
            e = s["edit_ms"][row]
            fl = median(info["floor"]["reparse_ms"][row])
            b = yls.get(key, {}).get("edit_ms", {}).get(row, {}).get("median") if yls else None
            # An edit's least time: its reparse, or the protocol round trip, whichever is longer.
            yc, rc = ratio_cells(e["median"], b, max(fl or 0, s["floor_ms"]["median"] or 0))
            size, where = label(key)
            L.append(f"| {row_label} | {size} | {where} | {fmt(e['median'], ' ms')} ({fmt(e['p95'])}) | "
                     f"{fmt(fl, ' ms')} | {fmt(s['floor_ms']['median'], ' ms')} | ≤ {EDIT_TARGET[info['size']]:g} ms | "
                     f"{st(e['median'], EDIT_TARGET[info['size']])} | {yc} | {rc} |")
    L.append("")

    L.append("## Open, completion, hover, start-up\n")
    L.append("| figure | size (lines) | hint | median (p95) | floor | target | status | yaml-language-server | ratio (≥ 50×) |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for key in keys:
        info, s = res["files"][key], ours[key]
        full = median(info["floor"]["full_parse_ms"])
        target = OPEN_FACTOR * full if full else None
        b = yls.get(key, {}).get("open_ms", {}).get("median") if yls else None
        yc, rc = ratio_cells(s["open_ms"]["median"], b, full)
        size, where = label(key)
        L.append(f"| `didOpen` → first diagnostics | {size} | {where} | {fmt(s['open_ms']['median'], ' ms')} "
                 f"({fmt(s['open_ms']['p95'])}) | full parse {fmt(full, ' ms')} | ≤ {fmt(target, ' ms')} (2× parse) | "
                 f"{st(s['open_ms']['median'], target)} | {yc} | {rc} |")
    for req, req_label in (("completion_ms", "completion in the hint"),
                           ("completion_typed_ms", "completion in the hint, first request after a keystroke"),
                           ("completion_with_ms", "completion in the hint, sent with the keystroke"),
                           ("hover_ms", "hover on `mcp:Tool`")):
        for key in keys:
            info, s = res["files"][key], ours[key]
            size, where = label(key)
            target = REQ_TARGET[info["size"]]
            if not s["has"].get(req.split("_")[0]):
                L.append(f"| {req_label} | {size} | {where} | n/a (not advertised) | – | ≤ {target:g} ms | n/a | – | – |")
                continue
            v = s.get(req, {"median": None, "p95": None})  # (a run before the row existed)
            b = yls.get(key, {}).get(req, {}).get("median") if yls else None
            yc, rc = ratio_cells(v["median"], b, s["floor_ms"]["median"])
            L.append(f"| {req_label} | {size} | {where} | {fmt(v['median'], ' ms')} ({fmt(v['p95'])}) | protocol "
                     f"{fmt(s['floor_ms']['median'], ' ms')} | ≤ {target:g} ms | {st(v['median'], target)} | {yc} | {rc} |")
    # Code actions have no SPEC §8 target: shown for the record (not counted as met or missed).
    for key in keys:
        v = ours[key].get("code_action_typed_ms", {})
        if v.get("median") is None:
            continue
        size, where = label(key)
        L.append(f"| code action in the hint, first request after a keystroke (no target) | {size} | {where} | "
                 f"{fmt(v['median'], ' ms')} ({fmt(v['p95'])}) | protocol {fmt(ours[key]['floor_ms']['median'], ' ms')} "
                 f"| – | – | – | – |")
    inits = [r["init_ms"] for key in keys for r in res["raw"]["cwl-mcp-lsp"][key] if r.get("init_ms")]
    yinits = [r["init_ms"] for key in keys for r in res["raw"].get("yaml-language-server", {}).get(key, [])
              if r.get("init_ms")]
    yc, rc = ratio_cells(median(inits), median(yinits) if yinits else None)
    L.append(f"| spawn → `initialize` answer | all | – | {fmt(median(inits), ' ms')} ({fmt(p95(inits))}) | – | "
             f"≤ {INIT_TARGET:g} ms | {st(median(inits), INIT_TARGET)} | {yc} | – |")
    L.append("")

    L.append("## Memory\n")
    L.append("Peak RSS (`VmHWM` of the server's process tree) after the edits, the document open. Floor: the "
             "peak RSS of a process (`benches/floor.rs rss`) holding only the document's `String`, `ropey::Rope` "
             "and tree-sitter tree. Target at 50,000 lines.\n")
    L.append("| size (lines) | hint | peak RSS (median / max) | floor: text+rope+tree | target | status | "
             "yaml-language-server | ratio |")
    L.append("|---|---|---|---|---|---|---|---|")
    for key in keys:
        info, s = res["files"][key], ours[key]
        fl = median(info["rss_floor"]["rss_mb"])
        target = RSS_FACTOR * fl if (fl and info["size"] == 50000) else None
        b = yls.get(key, {}).get("rss_mb", {}).get("max") if yls else None
        size, where = label(key)
        ratio = f"{b / s['rss_mb']['max']:.1f}×" if b and s["rss_mb"]["max"] else "n/a"
        L.append(f"| {size} | {where} | {fmt(s['rss_mb']['median'], ' MB')} / {fmt(s['rss_mb']['max'], ' MB')} | "
                 f"{fmt(fl, ' MB')} ({info['rss_floor']['nodes']:,} nodes) | "
                 + (f"≤ {fmt(target, ' MB')} (1.5× floor) | {st(s['rss_mb']['max'], target)}" if target else "– | –")
                 + f" | {fmt(b, ' MB') if b else 'n/a'} | {ratio} |")
    L.append("")

    L.append("## `check` over the corpus\n")
    chk = res["check"]
    if "skipped" in chk:
        L.append(f"Skipped: {chk['skipped']}.\n")
    else:
        L.append("| figure | median (p95) | target | status |")
        L.append("|---|---|---|---|")
        L.append(f"| `cwl-mcp-lsp check --format json` over `corpus/real/` ({chk['files']} `.cwl` files, exit "
                 f"{'/'.join(map(str, chk['exit_codes']))}) | {fmt(median(chk['s']), ' s')} ({fmt(p95(chk['s']))}) | "
                 f"≤ {CHECK_TARGET_S:g} s | {st(median(chk['s']), CHECK_TARGET_S)} |")
        L.append("")
    if res.get("index"):
        L.append(index_module().markdown(res["index"]))
        L.append("")
    else:
        L.append("The workspace index (SPEC §8: `corpus/` to the end of its progress report) was not "
                 "measured in this run (`--index-runs 0`).\n")

    errs = [(n, k, e) for n, d in res["servers"].items() for k, s in d.items() for e in s["errors"]]
    pulls = [n for n, d in res["servers"].items() if any(s.get("pull_offered") for s in d.values())]
    L.append("## Summary\n")
    L.append(f"{tally['met']} figures met their target, {tally['missed']} missed (statuses above).")
    if below_floor:
        L.append(f"Of the ratios to yaml-language-server missed, {len(below_floor)} ask for less time than the "
                 f"floor measured in the same run (yaml-language-server's median ÷ {RATIO_TARGET:g} is below the "
                 "row's full parse, reparse or protocol round trip, marked `< floor`): no server can meet them "
                 "on this machine.")
    if pulls:
        L.append(f"Offered pull diagnostics although the client declared none: {', '.join(pulls)}.")
    if errs:
        L.append("\nErrors seen during the run:\n")
        for n, k, e in errs:
            L.append(f"- {n}, {k}: {e}")
    L.append("")

    L.append("## How it is measured\n")
    L.append("- Files: `bench/gen_cwl.py --lines N --hints-at top|bottom` and, for the hint column's "
             "\"inputs a list\", `--hints-at top --list-form` (deterministic); the size column "
             "gives the nominal size and the real line count. The edit sites are in the generator's sidecar "
             "(`sites`): the annotation `readOnlyHint: true` → `trux` → `true`; a character inserted then "
             "deleted in the `useWhen` prose, in the `doc` of the input nearest the middle of the file, in "
             "`baseCommand`; a digit appended to and removed from that input's `default`; the word `quickly ` "
             "typed one letter at a time in that input's `doc`, then deleted at once (every text is new, so no "
             "content memo of the whole `inputs` hits: what typing costs); the word `ment` typed the same "
             "way after `align` in `baseCommand` (outside `inputs`); `]` of `baseCommand` "
             "deleted (the YAML is broken) then restored; `_raw` typed the same way at the end of the first "
             "input's name; a space typed at the start of the `type:` line of the input nearest the middle "
             "(the YAML is broken inside `inputs`) then deleted; that space typed again, `quickly ` typed "
             "one letter at a time in the input's `doc` while the YAML stays broken (every text new: what "
             "typing in a broken input costs), deleted at once, and the space deleted (the break and its "
             "undo count in the two rows before); a new line before that input, `  added_input:` typed on it "
             "one letter at a time (the YAML is broken from the first letter to the colon), and the line "
             "deleted (all in one row); that space typed again, the annotation value edited four times "
             "(`trux`, `true`, `trux`, `true`) while the YAML stays broken in `inputs`, and the space deleted "
             "(the break and its undo count in their own rows).")
    L.append("- The client is `bench/run.py` itself: single-threaded, stdio, Content-Length framing; a "
             "message's time is taken when its last byte is read, before JSON decoding. It declares push "
             "diagnostics (no `textDocument.diagnostic`) and no dynamic registration; both servers get the "
             "same capabilities, files and edits. It waits for each result before the next edit, with a 5 ms "
             "pause (yaml-language-server: 50 ms, so that its late publications are not taken for the next).")
    L.append("- Edit → diagnostics: timed until the `publishDiagnostics` carrying that version "
             "(yaml-language-server, which sends no version: the first one for the document after the edit).")
    L.append("- Completion at an empty key position inside `mcp:Tool`, hover on `mcp:Tool`; measured only when "
             "the server advertises the capability.")
    L.append("- Protocol floor: the round trip of a request the server answers at once (an unknown method, "
             "answered with an error), after the same pause as between edits: waking the server's threads and "
             "the pipes, not analysis.")
    L.append("- Floors of tree-sitter (`benches/floor.rs parse`): the same file and the same edits applied to a "
             "tree of the project's vendored grammar (`cwl_mcp_lsp::document::grammar`), in a separate process "
             "run just before cwl-mcp-lsp on each file; the full parse is `Parser::parse(text, None)`.")
    L.append("- Order: for each file its floors, then cwl-mcp-lsp's processes; then `check` and the index; "
             "yaml-language-server's processes last, on every file (after one on a 50,000-line file, which "
             "takes gigabytes, the same machine ran cwl-mcp-lsp up to 1.5× slower for tens of seconds).")
    L.append("- Peak RSS floor (`benches/floor.rs rss`): `VmHWM` of a process that reads the file into a "
             "`String`, builds its `Rope` and its tree, and drops the parser.")
    L.append("- `check`: wall time of `cwl-mcp-lsp check --format json ../shared/corpus/real` (a fresh process "
             "each time, output discarded).")
    L.append(f"- yaml-language-server {YLS_VERSION} (npm, in `target/peers/`), settings `yaml.validate: true` "
             "and no schema: its cheapest useful configuration (the CWL JSON schema would make it slower, and it "
             "knows no `mcp:Tool` field anyway). It debounces validation, which dominates its small-file figures.")
    notes = args.notes.read_text() if args.notes and args.notes.exists() else ""
    if notes:
        L.append("")
        L.append(notes.rstrip())
    path.write_text("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "cwl-mcp-lsp")
    ap.add_argument("--floor", type=Path, default=None,
                    help="the floor binary (default: built with `cargo bench --bench floor --no-run`)")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "real")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--open-runs", type=int, default=9,
                    help="processes whose didOpen is timed (the --runs ones, then processes that only open)")
    ap.add_argument("--edits", type=int, default=20, help="edits per site and process (even)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--peer-runs", type=int, default=2)
    ap.add_argument("--peer-edits", type=int, default=4)
    ap.add_argument("--peer-repeats", type=int, default=5)
    ap.add_argument("--check-runs", type=int, default=5)
    ap.add_argument("--index-runs", type=int, default=5,
                    help="runs of the workspace index over ../shared/corpus (bench/index.py); 0: none")
    ap.add_argument("--floor-full", type=int, default=7, help="full parses per file (floor)")
    ap.add_argument("--floor-repeats", type=int, default=20, help="cycles of each site's edits (floor)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--placements", default=",".join(PLACEMENTS))
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: few repetitions; writes target/bench/performance.quick.md, not docs/")
    ap.add_argument("--report", type=Path, default=None,
                    help="default: docs/performance.md (target/bench/performance.quick.md with --quick)")
    ap.add_argument("--notes", type=Path, default=ROOT / "bench" / "notes.md",
                    help="markdown appended to the report (analysis written by hand)")
    ap.add_argument("--from-results", type=Path, default=None, metavar="RESULTS_JSON",
                    help="measure nothing: write the report again from a results.json of an earlier run "
                         "(its own arguments), with the current --notes")
    args = ap.parse_args()
    if args.from_results:
        res = json.loads(args.from_results.read_text())
        saved = res["args"]
        for k in ("runs", "edits", "repeats", "peer_runs", "peer_edits", "peer_repeats", "check_runs",
                  "floor_full", "floor_repeats"):
            setattr(args, k, int(saved[k]))
        # Results written before --open-runs opened the file in the --runs processes only.
        args.open_runs = int(saved.get("open_runs", saved["runs"]))
        args.quick = saved.get("quick") == "True"
        report = args.report or (WORK / "performance.quick.md" if args.quick else ROOT / "docs" / "performance.md")
        write_report(report, res, args)
        print(f"written: {report} (from {args.from_results})", file=sys.stderr)
        return
    if args.quick:
        (args.runs, args.edits, args.repeats, args.peer_runs, args.peer_edits, args.peer_repeats,
         args.check_runs, args.floor_full, args.floor_repeats) = 1, 4, 5, 1, 2, 2, 1, 3, 4
        args.open_runs = 1
    if args.quick:
        args.index_runs = min(args.index_runs, 1)
    args.edits += args.edits % 2
    args.peer_edits += args.peer_edits % 2
    if not args.binary.exists():
        sys.exit(f"{args.binary} not found: run `cargo build --release` first")
    sizes = [int(s) for s in args.sizes.split(",")]
    placements = [p for p in args.placements.split(",") if p]
    WORK.mkdir(parents=True, exist_ok=True)
    floor = build_floor(args.floor)
    res = {"machine": machine(), "files": {}, "servers": {}, "raw": {}, "argv": sys.argv[1:],
           "args": {k: str(v) for k, v in vars(args).items()}}
    for size in sizes:
        for placement in placements:
            f = WORK / f"tool_{size}_{placement}.cwl"
            subprocess.run([sys.executable, str(ROOT / "bench" / "gen_cwl.py"), "--lines", str(size),
                            *PLACEMENT_ARGS[placement], "-o", str(f)], check=True, stdout=subprocess.DEVNULL)
            pos = json.loads(Path(str(f) + ".pos.json").read_text())
            # The server indexes its workspace folder (SPEC §10): each document is measured in a
            # folder of its own, so that the index of the other generated files (two of 50,000
            # lines) does not run during this document's figures, nor count in its peak RSS.
            alone = WORK / f"alone_{size}_{placement}" / f.name
            alone.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, alone)
            f = alone
            res["files"][f"{size}/{placement}"] = {"path": str(f), "size": size, "placement": placement,
                                                   "lines": pos["lines"], "bytes": f.stat().st_size, "pos": pos}

    servers = [{"name": "cwl-mcp-lsp", "cmd": [str(args.binary)], "language": "cwl", "runs": args.runs,
                "open_runs": args.open_runs,
                "edits": args.edits, "repeats": args.repeats, "settle": 0.05, "between_edits": 0.005}]
    if not args.no_peer:
        yls = ensure_yls()
        if yls:
            servers.append({"name": "yaml-language-server", "cmd": [str(yls), "--stdio"], "language": "yaml",
                            "settings": {"yaml": {"validate": True, "hover": True, "completion": True,
                                                  "schemaStore": {"enable": False}}},
                            "runs": args.peer_runs, "edits": args.peer_edits, "repeats": args.peer_repeats,
                            "settle": 0.5, "between_edits": 0.05})
        else:
            res["peer_note"] = "yaml-language-server could not be installed (npm)"
            print(res["peer_note"], file=sys.stderr)
    else:
        res["peer_note"] = "--no-peer"
    for s in servers:
        res["servers"][s["name"]] = {}
        res["raw"][s["name"]] = {}
    def run_server(server, key, info):
        runs = []
        for i in range(server["runs"]):
            r = one_run(server, info, server["edits"], server["repeats"])
            runs.append(r)
            print(f"[{server['name']} {key} run {i}] open {fmt(r.get('open_ms'))} ms, edit medians "
                  + ", ".join(f"{row} {fmt(median(r['edit_ms'][row]))}" for row, _ in ROWS)
                  + f" ms, rss {fmt(r.get('rss_mb'))} MB"
                  + (f", errors {r.get('errors') or r.get('error')}" if r.get("errors") or r.get("error") else ""),
                  file=sys.stderr)
        # More opens than full runs (a median of three opens is mostly the machine's drift):
        # processes that initialize, open, and stop at the first diagnostics.
        opens = []
        for i in range(server.get("open_runs", 0) - len(runs)):
            opens.append(one_run(server, info, 0, 0, open_only=True))
        if opens:
            print(f"[{server['name']} {key}] {len(opens)} more opens: "
                  + ", ".join(fmt(r.get("open_ms")) for r in opens) + " ms", file=sys.stderr)
        res["raw"][server["name"]][key] = runs + opens
        res["servers"][server["name"]][key] = summarize(runs, opens)

    # Every file's floors and our runs, `check` and the index first, then the peer's runs: a
    # yaml-language-server process on a 50,000-line file takes gigabytes, and our figures
    # measured just after one were up to 1.5x slower, still 1.3x after 20 s (bench/notes.md,
    # eighteenth session).
    for key, info in res["files"].items():
        info["floor"] = measure_floor(floor, info, args.floor_repeats, args.floor_full)
        info["rss_floor"] = measure_rss_floor(floor, info["path"], 3)
        print(f"[floor {key}] full parse {fmt(median(info['floor']['full_parse_ms']))} ms, reparse "
              + ", ".join(f"{r} {fmt(median(v))}" for r, v in info["floor"]["reparse_ms"].items())
              + f" ms; rss {fmt(median(info['rss_floor']['rss_mb']))} MB", file=sys.stderr)
        run_server(servers[0], key, info)
    res["check"] = bench_check(args.binary, args.corpus, args.check_runs)
    if args.index_runs > 0:
        res["index"] = index_module().measure(args.binary, args.corpus.parent, args.index_runs)
    for server in servers[1:]:
        for key, info in res["files"].items():
            run_server(server, key, info)
    res["loadavg_end"] = loadavg()
    if "skipped" in res["check"]:
        print("SKIPPED: " + res["check"]["skipped"], file=sys.stderr)
    (WORK / "results.json").write_text(json.dumps(res, indent=1))
    report = args.report or (WORK / "performance.quick.md" if args.quick else ROOT / "docs" / "performance.md")
    report.parent.mkdir(parents=True, exist_ok=True)
    write_report(report, res, args)
    print(report.read_text())
    print(f"written: {report}", file=sys.stderr)


if __name__ == "__main__":
    main()
