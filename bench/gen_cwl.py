# Copied from ../shared/tools/gen_cwl.py so that the repository does not depend on it; extended with
# the edit sites of bench/run.py (`sites` in the sidecar). The generated text is unchanged.
# Usage: python3 gen_cwl.py --lines 5000 -o big.cwl   (writes big.cwl + big.cwl.pos.json with LSP positions of interest)
"""Generate a large, realistic CWL v1.2 CommandLineTool carrying an `mcp:Tool` hint.

Deterministic (fixed seed).  The number of inputs is chosen so the file has
about --lines lines (~25 lines per input).  --inputs overrides that.

Sidecar <out>.pos.json holds 0-based LSP positions:
  hover_mcp      on the `mcp:Tool` key inside `hints:`
  hover_field    on the `readOnlyHint` key inside mcp:Tool.annotations
  hover_docker   on the `dockerPull` key (a standard CWL hint, for comparison)
  completion     the end of `readOnlyHint: true` (value completion: `false`, `true`)
  completion_value  right after `type: ` of the first File input (value completion, for contrast)
  change         a spot inside the mcp:Tool description value (1-char insert)
  hints_line     line of `hints:`
  sites          the one-character edits of bench/run.py, by site: a list of LSP edits applied
                 in order (the list brings the text back to where it started), each
                 {"range": [[line, col], [line, col]], "text": str, "row": report row}:
                   annotation     `readOnlyHint: true` <-> `trux`
                   use_when       a char inserted / deleted in the `useWhen` prose
                   input_doc      a char inserted / deleted in the `doc` of the middle input
                   input_default  a digit appended to / removed from the middle input's `default`
                   input_typing   a word typed letter by letter in that `doc`, then deleted at once
                                  (each text is new, so no content memo hits)
                   input_name     `_raw` typed letter by letter at the end of the first input's
                                  name (its key, near the top of `inputs`), then deleted
                   base_command   a char inserted / deleted in `baseCommand: [bigtool, align]`
                   base_command_typing  `ment` typed letter by letter after `align`, then deleted
                                  (outside `inputs`, every text new)
                   yaml           `]` of `baseCommand` deleted (YAML broken), then restored
                   input_break    a space typed at the start of the middle input's `type:` line
                                  (YAML broken inside `inputs`), then deleted
                   new_input_typing  `  added_input:` typed letter by letter on a new line
                                  before the middle input (YAML broken from its first letter to
                                  its colon), then the line deleted
                   input_broken_typing  that space typed, then `quickly ` typed letter by letter
                                  in the input's `doc` while the YAML stays broken (every text
                                  new), deleted at once, then the space deleted
                   hint_while_input_broken  that space typed, then the annotation edited four
                                  times (`trux`, `true`, ...) while the YAML stays broken in
                                  `inputs`, then the space deleted
--hints-at top puts requirements/hints before inputs (common style);
--hints-at bottom (default) puts them after outputs (worst case for servers
that do per-request work proportional to offset).
"""
import argparse
import json
import random

WORDS = ("alignment reads reference genome sample quality threshold minimum maximum "
         "filter output input index sorted coordinate region interval variant caller "
         "mapping score penalty gap open extend seed length chunk thread memory "
         "compression level temporary directory verbose report metrics duplicate "
         "marking barcode adapter trimming window step batch shard").split()
FORMATS = ["edam:format_2572", "edam:format_1930", "edam:format_1929", "edam:format_3016",
           "edam:format_3462", "edam:format_2330", "edam:format_3475"]
SECONDARY = {"edam:format_2572": [".bai", "^.bai"], "edam:format_3016": [".tbi"],
             "edam:format_1929": [".fai", "^.dict"], "edam:format_3462": [".crai"]}


def sentence(rng, n):
    w = [rng.choice(WORDS) for _ in range(n)]
    w[0] = w[0].capitalize()
    return " ".join(w) + "."


def doc_block(rng, indent, nlines):
    pad = " " * indent
    return [pad + sentence(rng, rng.randint(6, 12)) for _ in range(nlines)]


def gen_input(rng, i):
    kind = i % 7
    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{i:05d}"
    L = [f"  {name}:"]
    if kind in (0, 1):
        fmt = FORMATS[i % len(FORMATS)]
        opt = "?" if kind == 1 else ""
        L += [f"    type: File{opt}", f"    label: {sentence(rng, 4)}", "    doc: |"]
        L += doc_block(rng, 6, rng.randint(8, 16))
        L += [f"    format: {fmt}"]
        sec = SECONDARY.get(fmt)
        if sec:
            L += ["    secondaryFiles:"]
            for s in sec:
                L += [f"      - pattern: \"{s}\"", f"        required: {'true' if s.startswith('.') else 'false'}"]
        L += ["    inputBinding:", f"      prefix: --{name.replace('_', '-')}", f"      position: {i}"]
    elif kind == 2:
        L += ["    type: int?", f"    default: {rng.randint(1, 64)}", f"    label: {sentence(rng, 3)}",
              "    doc: |"] + doc_block(rng, 6, rng.randint(6, 12)) + [
              "    inputBinding:", f"      prefix: --{name.replace('_', '-')}"]
    elif kind == 3:
        L += ["    type: boolean", "    default: false", f"    doc: {sentence(rng, 8)}",
              "    inputBinding:", f"      prefix: --{name.replace('_', '-')}"]
    elif kind == 4:
        syms = sorted(set(rng.choice(WORDS) for _ in range(4)))
        L += ["    type:", "      - \"null\"", "      - type: enum", f"        name: {name}_enum",
              "        symbols:"] + [f"          - {s}" for s in syms]
        L += [f"    label: {sentence(rng, 3)}", "    doc: |"] + doc_block(rng, 6, rng.randint(6, 12))
        L += ["    inputBinding:", f"      prefix: --{name.replace('_', '-')}", "      separate: false"]
    elif kind == 5:
        L += ["    type:", "      type: array", "      items: File", "      inputBinding:",
              f"        prefix: --{name.replace('_', '-')}", f"    format: {FORMATS[0]}",
              "    secondaryFiles:", "      - pattern: .bai", "        required: false",
              "    doc: |"] + doc_block(rng, 6, rng.randint(4, 10)) + ["    inputBinding:", f"      position: {i}"]
    else:
        L += ["    type: string[]?", "    doc: |"] + doc_block(rng, 6, rng.randint(4, 10)) + ["    inputBinding:",
              f"      prefix: --{name.replace('_', '-')}", "      itemSeparator: \",\"",
              f"    default: [\"{rng.choice(WORDS)}\", \"{rng.choice(WORDS)}\"]"]
    return L


def edit(l1, c1, l2, c2, text, row):
    return {"range": [[l1, c1], [l2, c2]], "text": text, "row": row}


def insert_delete(line, col, ch, row):
    return [edit(line, col, line, col, ch, row), edit(line, col, line, col + len(ch), "", row)]


def typing(line, col, word, row):
    """A word typed one character at a time, then deleted in one edit: every text is new
    (the content memos miss), unlike the insert-then-delete toggles of the other sites."""
    typed = [edit(line, col + k, line, col + k, ch, row) for k, ch in enumerate(word)]
    return typed + [edit(line, col, line, col + len(word), "", row)]


def hints_block(rng, pos, base_line, n_inputs):
    L = ["requirements:", "  InlineJavascriptRequirement: {}",
         "  ResourceRequirement:", "    coresMin: 4", "    ramMin: 16000",
         "hints:", "  DockerRequirement:", "    dockerPull: quay.io/biocontainers/bigtool:1.2.3--h5bf99c6_0",
         "  SoftwareRequirement:", "    packages:", "      bigtool:", "        version: [\"1.2.3\"]",
         "  mcp:Tool:", "    name: bigtool_align",
         "    title: Align sequencing reads with BigTool",
         "    description: Align short reads against a reference genome and emit a sorted, indexed BAM.",
         "    useWhen: |",
         f"      The caller has FASTQ or BAM reads and wants coordinate-sorted alignments ({n_inputs} tunables).",
         "    doNotUseWhen: |",
         "      The reads are long (nanopore/pacbio) or the reference is not indexed.",
         "    aliases:", "      - bwa_like_align", "      - align_reads",
         "    annotations:", "      title: BigTool aligner", "      readOnlyHint: true",
         "      destructiveHint: false", "      idempotentHint: true", "      openWorldHint: false",
         "    "]  # an indented empty line (a key position where the complete hint offers nothing)
    for k, line in enumerate(L):
        ln = base_line + k
        s = line.lstrip()
        if line.startswith("hints:"):
            pos["hints_line"] = ln
        elif s.startswith("mcp:Tool:"):
            pos["hover_mcp"] = [ln, line.index("mcp:Tool") + 3]
        elif s.startswith("readOnlyHint:"):
            pos["hover_field"] = [ln, line.index("readOnlyHint") + 3]
            # Completion at the end of the value: the hint is complete, so a key position
            # offers nothing; here the values (`false`, `true`) with their documentation.
            pos["completion"] = [ln, len(line)]
            c = line.index("true") + 3
            pos.setdefault("sites", {})["annotation"] = [
                edit(ln, c, ln, c + 1, "x", "annotation"), edit(ln, c, ln, c + 1, "e", "annotation")]
        elif s.startswith("dockerPull:"):
            pos["hover_docker"] = [ln, line.index("dockerPull") + 3]
        elif s.startswith("description:") and line.startswith("    description"):
            pos["change"] = [ln, line.index("reference") ]
        elif s.startswith("useWhen:"):
            c = len(L[k + 1]) // 2
            pos.setdefault("sites", {})["use_when"] = insert_delete(ln + 1, c, "x", "use_when")
    return L


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--inputs", type=int, default=None)
    ap.add_argument("--hints-at", choices=["top", "bottom"], default="bottom")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--list-form", action="store_true",
                    help="inputs as a list (`- id: name`) rather than a mapping")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n_inputs = a.inputs  # None: keep adding inputs until ~--lines

    head = ["#!/usr/bin/env cwl-runner", "cwlVersion: v1.2", "class: CommandLineTool",
            "id: bigtool_align", "label: BigTool read aligner", "doc: |"]
    head += doc_block(rng, 2, 6)
    head += ["$namespaces:", "  mcp: https://eoap.github.io/cwl-mcp-extension#",
             "  edam: http://edamontology.org/", "  s: https://schema.org/",
             "baseCommand: [bigtool, align]",
             "arguments:", "  - prefix: --threads", "    valueFrom: $(runtime.cores)"]
    pos = {}
    lines = list(head)
    bc = lines.index("baseCommand: [bigtool, align]")
    c = lines[bc].index("align") + len("align")
    pos.setdefault("sites", {})["base_command"] = insert_delete(bc, c, "x", "base_command")
    pos["sites"]["base_command_typing"] = typing(bc, c, "ment", "base_command_typing")
    pos["sites"]["yaml"] = [edit(bc, c, bc, c + 1, "", "yaml_broken"), edit(bc, c, bc, c, "]", "yaml_restored")]
    if a.hints_at == "top":
        lines += hints_block(rng, pos, len(lines), n_inputs or 0)
    lines += ["inputs:"]
    first_input = len(lines)
    i = 0
    with_default = []  # (first line, lines) of the inputs with a scalar `default` and a `doc` block
    while (i < n_inputs) if n_inputs else (len(lines) < a.lines - 50):
        block = gen_input(rng, i)
        if a.list_form:  # `  name:` -> `  - id: name`; the fields stay at column 4, under `id`
            block[0] = "  - id: " + block[0].strip().rstrip(":")
        if i % 7 == 2:
            with_default.append((len(lines), block))
        lines += block
        i += 1
    if with_default:  # the one nearest the middle of the file
        first, block = min(with_default, key=lambda fb: abs(fb[0] - len(lines) // 2))
        d = next(k for k, x in enumerate(block) if x.startswith("    default: "))
        pos["sites"]["input_default"] = insert_delete(first + d, len(block[d]), "7", "input_default")
        d = next(k for k, x in enumerate(block) if x == "    doc: |") + 1
        pos["sites"]["input_doc"] = insert_delete(first + d, len(block[d]) // 2, "x", "input_doc")
        pos["sites"]["input_typing"] = typing(first + d, len(block[d]) // 2, "quickly ", "input_typing")
        t = next(k for k, x in enumerate(block) if x.startswith("    type: "))
        pos["sites"]["input_break"] = [edit(first + t, 0, first + t, 0, " ", "input_broken"),
                                       edit(first + t, 0, first + t, 1, "", "input_restored")]
        # The same break, then the word typed in that input's `doc` while it stays broken (every
        # text new), then the break undone: the break and its undo count in the rows above.
        # A new input's key typed letter by letter on a line of its own before that input
        # (the YAML broken from its first letter to its colon), then the line deleted.
        # (The deletion runs from the end of the line before to the end of the key: a range
        # whose ends lie where they lay in the generated text, so that the floor's byte
        # offsets, taken from the generated text's lines, stay right.)
        key = "  added_input:"
        pos["sites"]["new_input_typing"] = (
            [edit(first, 0, first, 0, "\n", "new_input_typing")]
            + [edit(first, k, first, k, ch, "new_input_typing") for k, ch in enumerate(key)]
            + [edit(first - 1, len(lines[first - 1]), first, len(key), "", "new_input_typing")])
        pos["sites"]["input_broken_typing"] = (
            [edit(first + t, 0, first + t, 0, " ", "input_broken")]
            + typing(first + d, len(block[d]) // 2, "quickly ", "input_broken_typing")
            + [edit(first + t, 0, first + t, 1, "", "input_restored")])
    if i:  # renaming the first input: its key ends before the `:`
        key = lines[first_input]
        at = len(key) if a.list_form else len(key) - 1  # the end of the name (before `:`)
        pos["sites"]["input_name"] = typing(first_input, at, "_raw", "input_name")
    n_inputs = i
    lines += ["outputs:", "  aligned:", "    type: File", "    format: edam:format_2572",
              "    secondaryFiles: [.bai]", "    outputBinding:", "      glob: \"*.bam\"",
              "  metrics:", "    type: File?", "    outputBinding:", "      glob: metrics.txt",
              "  log:", "    type: stderr", "stderr: bigtool.log"]
    if a.hints_at == "bottom":
        lines += hints_block(rng, pos, len(lines), n_inputs)
    lines += ["s:author:", "  - class: s:Person", "    s:name: Jane Doe", "s:license: Apache-2.0"]
    if "input_break" in pos["sites"] and "annotation" in pos["sites"]:
        # An edit far from a break that stays (the hint while an input is broken): the text then
        # differs from its last error-free version in two places. The break and its undo count
        # in their own rows; the space is typed at a line start, so no other edit moves.
        brk, restore = pos["sites"]["input_break"]
        hint = [dict(e, row="hint_while_input_broken") for e in pos["sites"]["annotation"]]
        pos["sites"]["hint_while_input_broken"] = [brk] + hint + hint + [restore]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    k0 = lines.index("inputs:")
    for k in range(k0, len(lines)):  # value position of the first input's `type:` (type-name completion)
        if lines[k].startswith("    type: File"):
            pos["completion_value"] = [k, len("    type: ")]
            break
    pos["lines"] = len(lines)
    pos["inputs"] = n_inputs
    with open(a.out + ".pos.json", "w") as f:
        json.dump(pos, f, indent=1)
    print(json.dumps(pos))


if __name__ == "__main__":
    main()
