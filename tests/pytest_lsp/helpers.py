"""What a client does with the server's answers: expand a snippet, indent an inserted text,
apply text edits; plus waiting for diagnostics."""

from __future__ import annotations

import asyncio
import pathlib
import re

from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import ROOT, cap


def uri_of(path: pathlib.Path) -> str:
    return path.resolve().as_uri()


def open_text(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="cwl", version=version, text=text
            )
        )
    )


def open_file(client: LanguageClient, rel: str) -> tuple[str, str]:
    path = ROOT / rel
    text = path.read_text()
    uri = uri_of(path)
    open_text(client, uri, text)
    return uri, text


def pulls_diagnostics(client: LanguageClient) -> bool:
    return cap(client, "text_document.diagnostic") is not None


async def diagnostics(client: LanguageClient, uri: str, timeout: float = 15.0):
    """The document's diagnostics the way this client gets them: by pull where it declares
    `textDocument.diagnostic`, else by push."""
    if pulls_diagnostics(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri)
            )
        )
        assert report.kind == "full"
        return list(report.items)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics:
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics published for {uri}")
        await asyncio.sleep(0.02)
    return list(client.diagnostics[uri])


# --- snippets -------------------------------------------------------------------------------


def expand_snippet(snippet: str) -> str:
    """The text a snippet inserts when every placeholder keeps its default and every choice
    its first option (LSP snippet grammar: `$n`, `${n}`, `${n:default}` nested, `${n|a,b|}`,
    `\\$`, `\\}`, `\\\\`)."""
    out, i = _expand(snippet, 0, top=True)
    assert i == len(snippet), f"unbalanced snippet {snippet!r}"
    return out


def _expand(s: str, i: int, top: bool) -> tuple[str, int]:
    out = []
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "$}\\":
            out.append(s[i + 1])
            i += 2
        elif c == "}" and not top:
            return "".join(out), i
        elif c == "$":
            m = re.match(r"\$(\d+)", s[i:])
            if m:
                i += m.end()
                continue
            m = re.match(r"\$\{(\d+)\|((?:[^,|\\]|\\.)*)", s[i:])
            if m:
                out.append(re.sub(r"\\(.)", r"\1", m.group(2)))
                j = s.index("|}", i + m.end())
                i = j + 2
                continue
            m = re.match(r"\$\{(\d+)(:?)", s[i:])
            if m:
                i += m.end()
                if m.group(2):
                    inner, i = _expand(s, i, top=False)
                    out.append(inner)
                assert s[i] == "}", f"unterminated placeholder in {s!r}"
                i += 1
                continue
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), i


# --- text edits -----------------------------------------------------------------------------


def offset(text: str, pos: types.Position) -> int:
    """Byte-free offset of an LSP position in an ASCII text."""
    lines = text.split("\n")
    return sum(len(l) + 1 for l in lines[: pos.line]) + pos.character


def apply_edits(text: str, edits: list[tuple[types.Range, str]]) -> str:
    spans = sorted(
        ((offset(text, r.start), offset(text, r.end), t) for r, t in edits),
        reverse=True,
    )
    for a, b, t in spans:
        text = text[:a] + t + text[b:]
    return text


def inserted_text(client: LanguageClient, text: str, item: types.CompletionItem) -> str:
    """What the client inserts for `item`: its snippet expanded (when it is one), and unless
    the item says `asIs`, the current line's indentation added to every following line (what
    VS Code's `adjustIndentation` and Neovim do)."""
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit), f"expected a TextEdit in {item}"
    new = edit.new_text
    if item.insert_text_format == types.InsertTextFormat.Snippet:
        new = expand_snippet(new)
    if item.insert_text_mode != types.InsertTextMode.AsIs:
        line = text.split("\n")[edit.range.start.line]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        indent = indent[: edit.range.start.character]
        new = new.replace("\n", "\n" + indent)
    return new


def accept(client: LanguageClient, text: str, item: types.CompletionItem) -> str:
    """The text after the client accepts `item`."""
    edits = [(item.text_edit.range, inserted_text(client, text, item))]
    edits += [(e.range, e.new_text) for e in item.additional_text_edits or []]
    return apply_edits(text, edits)
