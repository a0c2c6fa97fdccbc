#!/usr/bin/env python3
"""Benchmark cwl-mcp-lsp against SPEC §8 and against yaml-language-server, in one run.

    python3 bench/run.py            # builds nothing: run `cargo build --release` first
    python3 bench/run.py --quick    # fewer repetitions (a smoke run, figures not recorded)

Stdlib only. For generated CWL tools of 500, 5,000 and 50,000 lines with an `mcp:Tool` hint
(bench/gen_cwl.py), each server is spawned fresh several times over stdio; per run it measures
spawn -> `initialize` answer, `didOpen` -> first diagnostics, a series of one-character edits
(insert a char, then delete it, alternately, inside the hint's description) -> the
`publishDiagnostics` for that version, completion / hover / "preview derived Tool" when the
server advertises them ("n/a" otherwise), and the peak RSS (VmHWM of the process tree, the
document open). It also times `cwl-mcp-lsp check` over ../shared/corpus/real/ (skipped, with a
message, when that folder is absent).

yaml-language-server 1.25.0 is installed with npm into target/peers/ (git-ignored) on first use
and driven with the same files and actions; the ratio peer/ours is printed and recorded.
Results: docs/performance.md (tables against the targets) and target/bench/results.json (raw).
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
PREVIEW_COMMAND = "cwl-mcp.previewTool"

# SPEC §8 targets (ms unless noted). Edit -> diagnostics per size; completion/hover at 5k lines.
EDIT_TARGET = {500: 1.0, 5000: 5.0, 50000: 30.0}
REQ_TARGET_5K = 1.0
INIT_TARGET = 20.0
RSS_TARGET_MB = 30.0
CHECK_TARGET_S = 2.0
RATIO_TARGET = 20.0


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
                  "executeCommand": {"dynamicRegistration": False}},
}


def one_run(server, path, pos, edits, repeats):
    text = path.read_text()
    uri = path.resolve().as_uri()
    root = path.resolve().parent.as_uri()
    out = {"edit_ms": [], "completion_ms": [], "hover_ms": [], "preview_ms": [], "floor_ms": []}
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
        out["caps"] = caps
        c.notify("initialized", {})
        if server.get("settings"):
            c.notify("workspace/didChangeConfiguration", {"settings": server["settings"]})
        c.drain(0.3)
        t0 = c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": server.get("language", "yaml"), "version": 1, "text": text}})
        t, msg = c.wait_diagnostics(uri, t0, version=1, timeout=120)
        out["open_ms"] = (t - t0) * 1000 if t else None
        out["n_diagnostics"] = len(msg["params"]["diagnostics"]) if msg else None
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

        has_completion = bool(caps.get("completionProvider"))
        has_hover = bool(caps.get("hoverProvider"))
        commands = (caps.get("executeCommandProvider") or {}).get("commands") or []
        has_preview = PREVIEW_COMMAND in commands
        out["has"] = {"completion": has_completion, "hover": has_hover, "preview": has_preview}
        for _ in range(repeats):
            if has_completion:
                timed("textDocument/completion", {"textDocument": td, "position": at("completion"),
                                                  "context": {"triggerKind": 1}}, out["completion_ms"])
            if has_hover:
                timed("textDocument/hover", {"textDocument": td, "position": at("hover_mcp")},
                      out["hover_ms"])
            if has_preview:
                timed("workspace/executeCommand", {"command": PREVIEW_COMMAND,
                                                   "arguments": [uri, None]}, out["preview_ms"])
        c.drain(server.get("settle", 0.05))

        # One-character edits: insert "x" at the change position, then delete it, and so on.
        line, ch = pos["change"]
        version = 1
        for k in range(edits):
            version += 1
            if k % 2 == 0:
                rng = {"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch}}
                new = "x"
            else:
                rng = {"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch + 1}}
                new = ""
            t0 = c.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": rng, "text": new}]})
            t, _msg = c.wait_diagnostics(uri, t0, version=version, timeout=60)
            if t is None:
                out.setdefault("errors", []).append(f"no diagnostics after edit {k}")
                break
            out["edit_ms"].append((t - t0) * 1000)
            # Let a server that publishes twice (or late) go quiet before the next edit.
            c.drain(server.get("between_edits", 0.01))
        # The protocol floor: a request the server answers at once (unknown method -> error),
        # after the same idle gap as between the edits. On a VM whose vCPUs sleep when idle,
        # waking the server's threads costs about a millisecond; subtract this to see the work.
        for _ in range(edits):
            ms, res = c.request("cwl-mcp/benchPing", {}, timeout=60)
            if ms is not None:
                out.setdefault("floor_ms", []).append(ms)
            c.drain(server.get("between_edits", 0.01))
        out["rss_mb"] = c.peak_rss_mb()
    finally:
        c.close()
    return out


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


def summarize(runs):
    def pool(key):
        return [x for r in runs for x in r.get(key, [])]

    def per_run(key):
        return [r[key] for r in runs if r.get(key) is not None]

    s = {}
    for key in ("edit_ms", "completion_ms", "hover_ms", "preview_ms", "floor_ms"):
        xs = pool(key)
        s[key] = {"median": median(xs), "p95": p95(xs), "n": len(xs)}
    for key in ("init_ms", "open_ms"):
        xs = per_run(key)
        s[key] = {"median": median(xs), "p95": p95(xs), "n": len(xs)}
    rss = per_run("rss_mb")
    s["rss_mb"] = {"median": median(rss), "max": max(rss) if rss else None, "n": len(rss)}
    s["errors"] = sorted({e for r in runs for e in r.get("errors", []) + ([r["error"]] if "error" in r else [])})
    s["n_diagnostics"] = runs[0].get("n_diagnostics") if runs else None
    has = runs[0].get("has", {}) if runs else {}
    s["has"] = has
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
            "loadavg": Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else [],
            "kernel": platform.release(), "commit": rev + ("+dirty src" if dirty else ""),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def status(value, target, lower_is_better=True):
    if value is None:
        return "n/a"
    ok = value <= target if lower_is_better else value >= target
    return "met" if ok else "**missed**"


def write_report(path, res, args):
    m = res["machine"]
    ours, yls = res["servers"]["cwl-mcp-lsp"], res["servers"].get("yaml-language-server")
    L = []
    L.append("# Performance\n")
    L.append("Produced by one run of `python3 bench/run.py` (after `cargo build --release`); do not "
             "edit the tables by hand. SPEC §8 targets. Raw samples: `target/bench/results.json`.\n")
    L.append(f"Machine: {m['cpu']}, {m['cores']} cores (shared with other builds), Linux {m['kernel']}, "
             f"Python {m['python']}; commit `{m['commit']}`; {m['date']}; load average at start "
             f"{' / '.join(m.get('loadavg', []))}, at end {' / '.join(res.get('loadavg_end', []))} "
             f"(other sessions build on the same 2 cores, and figures differ between quiet and busy periods: see the notes at the end). "
             f"Repetitions: {args.runs} fresh server processes per size, {args.edits} edits and "
             f"{args.repeats} requests of each kind per process (yaml-language-server: "
             f"{args.peer_runs} processes, {args.peer_edits} edits).\n")
    L.append("## Against the targets\n")
    L.append("| figure | size (lines) | target | median | p95 | status |")
    L.append("|---|---|---|---|---|---|")
    for size in SIZES:
        s = ours.get(str(size))
        if not s:
            continue
        e = s["edit_ms"]
        L.append(f"| one-char edit → published diagnostics | {size:,} | ≤ {EDIT_TARGET[size]:g} ms | "
                 f"{fmt(e['median'], ' ms')} | {fmt(e['p95'], ' ms')} | {status(e['median'], EDIT_TARGET[size])} |")
    s5 = ours.get("5000", {})
    for key, label in (("completion_ms", "completion in the hint"), ("hover_ms", "hover on `mcp:Tool`")):
        v = s5.get(key, {})
        if not s5.get("has", {}).get(key.split("_")[0]):
            L.append(f"| {label} | 5,000 | ≤ {REQ_TARGET_5K:g} ms | n/a (not advertised) | n/a | n/a |")
        else:
            L.append(f"| {label} | 5,000 | ≤ {REQ_TARGET_5K:g} ms | {fmt(v['median'], ' ms')} | "
                     f"{fmt(v['p95'], ' ms')} | {status(v['median'], REQ_TARGET_5K)} |")
    v = s5.get("preview_ms", {})
    if s5.get("has", {}).get("preview"):
        L.append(f"| preview derived Tool (`{PREVIEW_COMMAND}`) | 5,000 | (none) | {fmt(v['median'], ' ms')} | "
                 f"{fmt(v['p95'], ' ms')} | – |")
    else:
        L.append(f"| preview derived Tool (`{PREVIEW_COMMAND}`) | 5,000 | (none) | n/a (not advertised) | n/a | n/a |")
    inits = [x for size in SIZES for x in res["raw"]["cwl-mcp-lsp"].get(str(size), []) for x in [x.get("init_ms")] if x]
    L.append(f"| spawn → `initialize` answer | all | ≤ {INIT_TARGET:g} ms | {fmt(median(inits), ' ms')} | "
             f"{fmt(p95(inits), ' ms')} | {status(median(inits), INIT_TARGET)} |")
    r50 = ours.get("50000", {}).get("rss_mb", {})
    L.append(f"| peak RSS, 50,000-line document open | 50,000 | ≤ {RSS_TARGET_MB:g} MB | "
             f"{fmt(r50.get('median'), ' MB')} | {fmt(r50.get('max'), ' MB')} (max) | {status(r50.get('max'), RSS_TARGET_MB)} |")
    chk = res["check"]
    if "skipped" in chk:
        L.append(f"| `check` over `corpus/real/` | – | ≤ {CHECK_TARGET_S:g} s | skipped | – | n/a |")
    else:
        L.append(f"| `check` over `corpus/real/` ({chk['files']} files) | – | ≤ {CHECK_TARGET_S:g} s | "
                 f"{fmt(median(chk['s']), ' s')} | {fmt(p95(chk['s']), ' s')} | {status(median(chk['s']), CHECK_TARGET_S)} |")
    if yls:
        for size in SIZES:
            a, b = ours.get(str(size)), yls.get(str(size))
            if a and b and a["edit_ms"]["median"] and b["edit_ms"]["median"]:
                ratio = b["edit_ms"]["median"] / a["edit_ms"]["median"]
                L.append(f"| yaml-language-server ÷ ours, edit → diagnostics | {size:,} | ≥ {RATIO_TARGET:g}× | "
                         f"{ratio:.0f}× | – | {status(ratio, RATIO_TARGET, lower_is_better=False)} |")
    else:
        L.append(f"| yaml-language-server ratio | – | ≥ {RATIO_TARGET:g}× | n/a ({res.get('peer_note')}) | – | n/a |")
    L.append("")
    L.append("## Both servers, every figure (median / p95, ms unless noted)\n")
    L.append("| server | lines | spawn→init | open→diag | edit→diag | protocol floor | completion | hover | preview | peak RSS MB (median / max) | diagnostics at open |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, data in res["servers"].items():
        for size in SIZES:
            s = data.get(str(size))
            if not s:
                continue

            def mp(key):
                v = s[key]
                if not v["n"]:
                    return "n/a"
                return f"{fmt(v['median'])} / {fmt(v['p95'])}"
            lines = res["files"][str(size)]["lines"]
            L.append(f"| {name} | {lines:,} | {mp('init_ms')} | {mp('open_ms')} | {mp('edit_ms')} | {mp('floor_ms')} | "
                     f"{mp('completion_ms')} | {mp('hover_ms')} | {mp('preview_ms')} | "
                     f"{fmt(s['rss_mb']['median'])} / {fmt(s['rss_mb']['max'])} | {s['n_diagnostics']} |")
    if yls:
        L.append("")
        L.append("Ratios (yaml-language-server median ÷ cwl-mcp-lsp median; higher is better for us):\n")
        L.append("| lines | spawn→init | open→diag | edit→diag | completion | hover | peak RSS |")
        L.append("|---|---|---|---|---|---|---|")
        for size in SIZES:
            a, b = ours.get(str(size)), yls.get(str(size))
            if not a or not b:
                continue

            def ratio(key, sub="median"):
                x, y = a[key].get(sub), b[key].get(sub)
                return f"{y / x:.0f}×" if x and y else "n/a"
            L.append(f"| {size:,} | {ratio('init_ms')} | {ratio('open_ms')} | {ratio('edit_ms')} | "
                     f"{ratio('completion_ms')} | {ratio('hover_ms')} | {ratio('rss_mb')} |")
    errs = [(n, sz, e) for n, d in res["servers"].items() for sz, s in d.items() for e in s["errors"]]
    if errs:
        L.append("")
        L.append("Errors seen during the run:\n")
        for n, sz, e in errs:
            L.append(f"- {n} at {sz} lines: {e}")
    L.append("")
    L.append("## How it is measured\n")
    L.append("- Files: `bench/gen_cwl.py --lines N` (deterministic; the `mcp:Tool` hint sits at the end of "
             "the file, the worst place for servers whose work grows with the offset).")
    L.append("- The client is `bench/run.py` itself: single-threaded, stdio, Content-Length framing; a "
             "message's time is taken when its last byte is read, before JSON decoding.")
    L.append("- Edit → diagnostics: a one-character incremental `didChange` inside the hint's `description` "
             "(alternately inserting `x` and deleting it), timed until the `publishDiagnostics` carrying that "
             "version (yaml-language-server: the first one for the document after the edit). The client waits "
             "for each result before the next edit.")
    L.append("- Completion at an empty key position inside `mcp:Tool`, hover on `mcp:Tool`, preview by "
             f"`workspace/executeCommand` `{PREVIEW_COMMAND}` `[uri, null]`; measured only when the server "
             "advertises the capability (or the command), otherwise reported as n/a.")
    L.append("- Protocol floor: the round trip of a request the server answers at once (an unknown method, "
             "answered with an error), after the same idle gap as between edits. It is the cost of waking the "
             "server's threads and of the pipes, not of analysis; edit → diagnostics minus this floor is the work.")
    L.append("- Peak RSS: `VmHWM` of the server process and its children, read with the document open after "
             "the edits.")
    L.append("- `check`: wall time of `cwl-mcp-lsp check --format json ../shared/corpus/real` (a fresh process "
             "each time, output discarded).")
    L.append(f"- yaml-language-server {YLS_VERSION} (npm, in `target/peers/`), settings "
             "`yaml.validate: true` and no schema: its cheapest useful configuration (the CWL JSON schema "
             "would make it slower, and it knows no `mcp:Tool` field anyway). It waits a fixed 200 ms "
             "before validating, which dominates its small-file figures.")
    notes = args.notes.read_text() if args.notes and args.notes.exists() else ""
    if notes:
        L.append("")
        L.append(notes.rstrip())
    path.write_text("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "cwl-mcp-lsp")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "real")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--peer-runs", type=int, default=3)
    ap.add_argument("--peer-edits", type=int, default=8)
    ap.add_argument("--check-runs", type=int, default=5)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--quick", action="store_true", help="few repetitions; does not write docs/")
    ap.add_argument("--report", type=Path, default=ROOT / "docs" / "performance.md")
    ap.add_argument("--notes", type=Path, default=ROOT / "bench" / "notes.md",
                    help="markdown appended to the report (analysis written by hand)")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.edits, args.repeats, args.peer_runs, args.peer_edits, args.check_runs = 2, 6, 3, 1, 3, 1
    if not args.binary.exists():
        sys.exit(f"{args.binary} not found: run `cargo build --release` first")
    sizes = [int(s) for s in args.sizes.split(",")]
    WORK.mkdir(parents=True, exist_ok=True)
    res = {"machine": machine(), "files": {}, "servers": {}, "raw": {}, "args": vars(args).copy()}
    res["args"] = {k: str(v) for k, v in res["args"].items()}
    for size in sizes:
        f = WORK / f"tool_{size}.cwl"
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_cwl.py"), "--lines", str(size), "-o", str(f)],
                       check=True, stdout=subprocess.DEVNULL)
        pos = json.loads(Path(str(f) + ".pos.json").read_text())
        res["files"][str(size)] = {"path": str(f), "lines": pos["lines"], "bytes": f.stat().st_size, "pos": pos}

    servers = [{"name": "cwl-mcp-lsp", "cmd": [str(args.binary)], "language": "cwl",
                "runs": args.runs, "edits": args.edits, "settle": 0.05, "between_edits": 0.005}]
    if not args.no_peer:
        yls = ensure_yls()
        if yls:
            servers.append({"name": "yaml-language-server", "cmd": [str(yls), "--stdio"], "language": "yaml",
                            "settings": {"yaml": {"validate": True, "hover": True, "completion": True,
                                                  "schemaStore": {"enable": False}}},
                            "runs": args.peer_runs, "edits": args.peer_edits, "settle": 0.5,
                            "between_edits": 0.05})
        else:
            res["peer_note"] = "yaml-language-server could not be installed (npm)"
            print(res["peer_note"], file=sys.stderr)
    else:
        res["peer_note"] = "--no-peer"
    for server in servers:
        res["servers"][server["name"]] = {}
        res["raw"][server["name"]] = {}
        for size in sizes:
            info = res["files"][str(size)]
            runs = []
            for i in range(server["runs"]):
                r = one_run(server, Path(info["path"]), info["pos"], server["edits"], args.repeats)
                runs.append(r)
                print(f"[{server['name']} {info['lines']} lines run {i}] init {fmt(r.get('init_ms'))} ms, "
                      f"edit median {fmt(median(r['edit_ms']))} ms, rss {fmt(r.get('rss_mb'))} MB"
                      + (f", errors {r.get('errors') or r.get('error')}" if r.get("errors") or r.get("error") else ""),
                      file=sys.stderr)
            for r in runs:
                r.pop("caps", None)
            res["raw"][server["name"]][str(size)] = runs
            res["servers"][server["name"]][str(size)] = summarize(runs)
    res["check"] = bench_check(args.binary, args.corpus, args.check_runs)
    res["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    if "skipped" in res["check"]:
        print("SKIPPED: " + res["check"]["skipped"], file=sys.stderr)
    (WORK / "results.json").write_text(json.dumps(res, indent=1))
    report = args.report if not args.quick else WORK / "performance.quick.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    write_report(report, res, args)
    print(report.read_text())
    print(f"written: {report}", file=sys.stderr)


if __name__ == "__main__":
    main()
