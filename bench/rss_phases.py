#!/usr/bin/env python3
"""Memory of one cwl-mcp-lsp process, phase by phase, through the harness's sequence.

    cargo build --release && python3 bench/run.py --quick      # writes target/bench/ once
    python3 bench/rss_phases.py target/bench/alone_50000_top/tool_50000_top.cwl

`bench/run.py` records one peak RSS per process (VmHWM once every edit is done). This replays
the same sequence on one generated file, with `bench/run.py`'s client, capabilities and edits:
`initialize` in the file's own folder (the workspace index reads it), `didOpen` 0.3 s after
`initialized`, five completions and hovers in the hint, then each edit site of the harness in
its order, 20 edits each, every edit awaited until its `publishDiagnostics` with the harness's
5 ms pause. After each phase it prints the server's VmHWM (the peak so far) and VmRSS (resident
now) in MB, read from /proc: where the peak is reached, and what each phase adds. VmRSS is
split into its anonymous pages (the heap, stacks) and its file-backed ones (the binary's code
and data as far as they were read, with the kernel's fault-around).

`--server` runs another command instead of target/release/cwl-mcp-lsp, for instance a script
that runs it under heaptrack (bench/notes.md, "memory by heap"); the figures printed are then
those of that process. Linux only (it reads /proc). Stdlib only.
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (bench/run.py: its client, capabilities and edit sites)

ROOT = Path(__file__).resolve().parent.parent


def memory(pid):
    """VmHWM, VmRSS, RssAnon and RssFile of `pid`, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmHWM"], fields["VmRSS"], fields["RssAnon"], fields["RssFile"]


def resident_by_mapping(pid):
    """Prints the resident MB of each mapped file, and of the anonymous mappings, largest first."""
    by, name = {}, None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and not head[0].endswith(":"):
            name = head[5] if len(head) > 5 else "[anonymous]"
        elif head and head[0] == "Rss:":
            by[name] = by.get(name, 0) + int(head[1]) / 1024
    for name, mb in sorted(by.items(), key=lambda kv: -kv[1]):
        if mb >= 0.05:
            print(f"  {mb:6.1f} MB  {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path,
                    help="a generated tool (its .pos.json beside it, or in target/bench/)")
    ap.add_argument("--server", default=str(ROOT / "target" / "release" / "cwl-mcp-lsp"))
    ap.add_argument("--edits", type=int, default=20, help="edits per site (the harness's: 20)")
    ap.add_argument("--sites", default=",".join(run.SITE_ORDER),
                    help="the edit sites, in order (default: all of the harness's)")
    ap.add_argument("--wait", type=float, default=0.3,
                    help="seconds between `initialized` and `didOpen` (the harness's: 0.3)")
    ap.add_argument("--smaps", action="store_true",
                    help="at the end, the resident pages of each mapped file and of the "
                         "anonymous mappings (/proc/PID/smaps)")
    args = ap.parse_args()
    path = args.file.resolve()
    # The harness copies each generated tool into a folder of its own (`alone_*`) and keeps
    # its sidecar in target/bench/; a tool generated elsewhere has it beside it.
    pos_file = path.with_name(path.name + ".pos.json")
    if not pos_file.exists():
        pos_file = ROOT / "target" / "bench" / (path.name + ".pos.json")
    pos = json.loads(pos_file.read_text())
    text, uri, root = path.read_text(), path.as_uri(), path.parent.as_uri()

    c = run.Client([args.server])
    pid = c.proc.pid
    rows = []

    def phase(name):
        hwm, rss, anon, file = memory(pid)
        rows.append((name, hwm, rss))
        print(f"{name:<24} VmHWM {hwm:7.1f} MB   VmRSS {rss:7.1f} MB "
              f"(anonymous {anon:5.1f}, file-backed {file:4.1f})", flush=True)

    try:
        c.request("initialize", {
            "processId": os.getpid(), "rootUri": root, "capabilities": run.CLIENT_CAPS,
            "workspaceFolders": [{"uri": root, "name": "bench"}]}, timeout=120)
        c.notify("initialized", {})
        c.drain(args.wait)
        phase("before didOpen")
        t0 = c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cwl", "version": 1, "text": text}})
        c.wait_diagnostics(uri, t0, version=1, timeout=180)
        c.drain(0.05)
        phase("didOpen")
        doc = {"uri": uri}

        def at(key):
            return {"line": pos[key][0], "character": pos[key][1]}

        for _ in range(5):
            c.request("textDocument/completion", {"textDocument": doc, "position": at("completion"),
                                                  "context": {"triggerKind": 1}})
            c.request("textDocument/hover", {"textDocument": doc, "position": at("hover_mcp")})
        phase("completion, hover")
        version = 1
        for site in args.sites.split(","):
            edits = pos["sites"][site]
            for k in range(-(-args.edits // len(edits)) * len(edits)):
                version += 1
                t0 = c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [run.lsp_change(edits[k % len(edits)])]})
                c.wait_diagnostics(uri, t0, version=version, timeout=120)
                c.drain(0.005)
            c.drain(0.05)
            phase(site)
        if args.smaps:
            resident_by_mapping(pid)
    finally:
        c.close()
    peak = max(rows, key=lambda r: r[1])
    print(f"peak VmHWM {peak[1]:.1f} MB, first reached by the end of: {peak[0]}")


if __name__ == "__main__":
    main()
