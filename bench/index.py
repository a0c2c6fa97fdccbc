#!/usr/bin/env python3
"""Benchmark the workspace index (SPEC §8, §10) over a folder of CWL files, in one run.

    cargo build --release
    python3 bench/index.py --binary target/release/cwl-mcp-lsp --corpus ../shared/corpus

Stdlib only; the LSP client is bench/run.py's (imported: importing it runs nothing). Each run
spawns a fresh server over stdio whose client declares `window.workDoneProgress`, dynamic
registration of watched files, and one workspace folder: the corpus. It measures

- the time from the `initialized` notification to the `$/progress` end of the index build
  ("N CWL files indexed"), and
- the server's peak resident memory (VmHWM of /proc/PID/status) when that report arrives;

medians of `--runs` runs, each beside its floor measured in the same run:

- the time to walk the same folder and read every `*.cwl` in it (this Python process, warm page
  cache, hidden folders skipped as the server's walker does; Python's own cost makes it an upper
  estimate of the I/O floor), and
- the peak RSS of an idle server: the same binary and client, initialized with no workspace
  folder (so nothing is indexed).

For context it also times `cwl-mcp-lsp check CORPUS`, the same per-file analysis in one CLI
process. SPEC §8 targets: ≤ 1 s to the end of the progress report, ≤ 60 MB peak.

The lead's report generator calls `measure(binary, corpus, runs) -> dict` and
`markdown(result) -> str` (a "## Workspace index" section).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _load_run():
    sys.dont_write_bytecode = True  # no bench/__pycache__
    spec = importlib.util.spec_from_file_location("cwl_mcp_bench_run", HERE / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_run = _load_run()
fmt, median, machine, loadavg = _run.fmt, _run.median, _run.machine, _run.loadavg

TIME_TARGET_MS = 1000.0   # SPEC §8: workspace index of corpus/ <= 1 s to the end of its progress
RSS_TARGET_MB = 60.0      # ... and <= 60 MB peak
RECORD_COMMAND = "python3 bench/index.py --binary target/release/cwl-mcp-lsp --corpus ../shared/corpus"

# What the client declares: work-done progress (so the server reports the build), workspace
# folders, dynamic registration of watched files (the server registers `**/*.cwl`), push
# diagnostics, configuration.
CLIENT_CAPS = {
    "general": {"positionEncodings": ["utf-16"]},
    "window": {"workDoneProgress": True},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
    },
    "workspace": {"configuration": True, "workspaceFolders": True,
                  "didChangeConfiguration": {"dynamicRegistration": False},
                  "didChangeWatchedFiles": {"dynamicRegistration": True},
                  "symbol": {"dynamicRegistration": False}},
}


class Client(_run.Client):
    """bench/run.py's client, answering `workspace/workspaceFolders` with the folders it was
    started with (requests it does not know get `null`, as there)."""

    def __init__(self, cmd, folders):
        super().__init__(cmd)
        self.folders = folders
        self.progress = []  # (t, params) of every $/progress

    def _answer(self, msg):
        if msg["method"] == "workspace/workspaceFolders":
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": self.folders})
            return
        super()._answer(msg)

    def cpu_ms(self):
        """User + system CPU time of the server so far (all its threads)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def status_kb(self, field):
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return None


def start(binary, folder):
    """A server initialized with `folder` as its one workspace folder (None: no folder)."""
    folder = Path(folder) if folder else None
    folders = [{"uri": folder.resolve().as_uri(), "name": folder.name}] if folder else None
    c = Client([str(binary)], folders or [])
    _, init = c.request("initialize", {
        "processId": os.getpid(), "rootUri": folders[0]["uri"] if folders else None,
        "capabilities": CLIENT_CAPS, "workspaceFolders": folders,
        "clientInfo": {"name": "cwl-mcp-bench-index", "version": "1"}}, timeout=60)
    if init is None or "result" not in init:
        c.close()
        raise RuntimeError(f"no initialize answer: {init}")
    return c


def one_index_run(binary, corpus, timeout=120):
    """`initialized` -> the `$/progress` end of the index build, and VmHWM then."""
    c = start(binary, corpus)
    out = {"pid": c.proc.pid}
    try:
        t0 = c.notify("initialized", {})
        deadline = t0 + timeout
        while True:
            t, msg = c.recv(deadline)
            if msg is None:
                out["error"] = "no end of the index progress"
                return out
            if msg.get("method") != "$/progress":
                continue
            value = msg["params"].get("value", {})
            kind = value.get("kind")
            if kind == "begin":
                out["begin_ms"] = (t - t0) * 1000
            elif kind == "report":
                out["reports"] = out.get("reports", 0) + 1
            elif kind == "end" and value.get("message") == "superseded":
                out["superseded"] = out.get("superseded", 0) + 1  # a newer build follows
            elif kind == "end":
                out["end_ms"] = (t - t0) * 1000
                out["message"] = value.get("message")
                break
        out["cpu_ms"] = c.cpu_ms()
        out["rss_mb"] = c.status_kb("VmHWM") / 1024
        out["rss_now_mb"] = c.status_kb("VmRSS") / 1024
        words = (out.get("message") or "").split()
        out["files"] = int(words[0]) if words and words[0].isdigit() else None
    finally:
        c.close()
    return out


def idle_rss(binary, settle=0.3):
    """VmHWM of a server initialized with no workspace folder (nothing to index)."""
    c = start(binary, None)
    try:
        c.notify("initialized", {})
        c.drain(settle)
        return c.status_kb("VmHWM") / 1024
    finally:
        c.close()


def walk_and_read(corpus):
    """Walks `corpus` (hidden folders and files skipped) and reads every `*.cwl`: seconds,
    files, bytes."""
    t0 = time.perf_counter()
    files = size = 0
    for root, dirs, names in os.walk(corpus):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.endswith(".cwl") and not name.startswith("."):
                p = os.path.join(root, name)
                if os.path.isfile(p):
                    with open(p, "rb") as f:
                        size += len(f.read())
                    files += 1
    return time.perf_counter() - t0, files, size


def check_time(binary, corpus):
    t0 = time.perf_counter()
    subprocess.run([str(binary), "check", "--format", "json", str(corpus)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def measure(binary, corpus, runs):
    """Medians of `runs` runs of the index build over `corpus`, with their floors."""
    binary, corpus = Path(binary), Path(corpus)
    if not binary.exists():
        raise FileNotFoundError(f"{binary} not found: run `cargo build --release` first")
    if not corpus.is_dir():
        return {"skipped": f"{corpus} is absent: the workspace index was not measured"}
    at_start = machine()
    walk_and_read(corpus)  # warm the page cache, as the server's runs will find it
    raw = {"index": [], "walk_s": [], "idle_rss_mb": [], "check_s": []}
    walked = None
    for _ in range(runs):
        raw["index"].append(one_index_run(binary, corpus))
        s, files, size = walk_and_read(corpus)
        raw["walk_s"].append(s)
        walked = {"files": files, "bytes": size}
        raw["idle_rss_mb"].append(idle_rss(binary))
        raw["check_s"].append(check_time(binary, corpus))
    ok = [r for r in raw["index"] if "end_ms" in r]
    errors = sorted({r["error"] for r in raw["index"] if "error" in r})
    end = [r["end_ms"] for r in ok]
    return {
        "binary": str(binary), "corpus": str(corpus), "runs": runs,
        "machine": at_start, "loadavg_end": loadavg(),
        "files_indexed": ok[0].get("files") if ok else None,
        "files_walked": walked["files"] if walked else None,
        "bytes_walked": walked["bytes"] if walked else None,
        "index_ms": {"median": median(end), "min": min(end) if end else None,
                     "max": max(end) if end else None},
        "begin_ms": median([r["begin_ms"] for r in ok if "begin_ms" in r]),
        "cpu_ms": median([r["cpu_ms"] for r in ok]),
        "rss_mb": {"median": median([r["rss_mb"] for r in ok]),
                   "max": max((r["rss_mb"] for r in ok), default=None)},
        "floor_walk_ms": median([s * 1000 for s in raw["walk_s"]]),
        "floor_idle_rss_mb": median(raw["idle_rss_mb"]),
        "check_ms": median([s * 1000 for s in raw["check_s"]]),
        "errors": errors,
        "raw": raw,
    }


def _met(value, target):
    if value is None:
        return "n/a"
    return "met" if value <= target else "**missed**"


NOTES = HERE / "index_notes.md"


def markdown(result, notes=None):
    """The "## Workspace index" section of the performance report; `notes` (markdown written by
    hand) defaults to bench/index_notes.md when it exists."""
    if notes is None and NOTES.exists():
        notes = NOTES.read_text()
    out = ["## Workspace index", ""]
    if "skipped" in result:
        out += [f"SKIPPED: {result['skipped']}", ""]
        return "\n".join(out)
    m = result["machine"]
    n = result["files_indexed"]
    t, rss = result["index_ms"], result["rss_mb"]
    out += [
        f"`{RECORD_COMMAND}` — {m['date']}, commit {m['commit']}, {m['cores']} cores ({m['cpu']}), "
        f"load average {' '.join(m['loadavg'])} at the start and {' '.join(result['loadavg_end'])} "
        f"at the end; medians of {result['runs']} runs, each a fresh server over stdio whose client "
        f"declares `window.workDoneProgress` and one workspace folder: `{result['corpus']}` "
        f"({n} files indexed; {result['files_walked']} `*.cwl` walked, "
        f"{result['bytes_walked'] / 1e6:.1f} MB).",
        "",
        "| figure | measured | floor | target (SPEC §8) | met? |",
        "|---|---|---|---|---|",
        f"| `initialized` → `$/progress` end (\"{n} CWL files indexed\") | {fmt(t['median'], ' ms')} "
        f"(min {fmt(t['min'], ' ms')}, max {fmt(t['max'], ' ms')}) | {fmt(result['floor_walk_ms'], ' ms')} "
        f"(walk the folder and read every `*.cwl`) | ≤ 1 s | {_met(t['median'], TIME_TARGET_MS)} |",
        f"| peak RSS (VmHWM) at the end of the progress | {fmt(rss['median'], ' MB')} "
        f"(max {fmt(rss['max'], ' MB')}) | {fmt(result['floor_idle_rss_mb'], ' MB')} "
        f"(an idle server: no folder) | ≤ 60 MB | {_met(rss['median'], RSS_TARGET_MB)} |",
        "",
        f"For context: the server had used {fmt(result['cpu_ms'], ' ms')} of CPU (user + system, "
        f"all threads, start included) when the end arrived, which depends far less than the wall "
        f"time on what else the machine runs; `$/progress` begin arrives {fmt(result['begin_ms'], ' ms')} after "
        f"`initialized`; `cwl-mcp-lsp check` over the same folder (the same per-file analysis, one "
        f"process, process start included) takes {fmt(result['check_ms'], ' ms')}.",
    ]
    if result["errors"]:
        out += ["", "Errors: " + "; ".join(result["errors"])]
    if notes:
        out += ["", notes.strip()]
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "cwl-mcp-lsp")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path, default=None, help="write the raw result here")
    ap.add_argument("--notes", type=Path, default=NOTES,
                    help="markdown appended to the section (analysis written by hand)")
    args = ap.parse_args()
    try:
        result = measure(args.binary, args.corpus, args.runs)
    except FileNotFoundError as e:
        sys.exit(str(e))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    notes = args.notes.read_text() if args.notes and args.notes.exists() else None
    print(markdown(result, notes))


if __name__ == "__main__":
    main()
