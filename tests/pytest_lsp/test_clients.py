"""Every feature of the server under each client's recorded capabilities (conftest.CLIENTS).
pytest-lsp turns what it detects into `LspSpecificationWarning`s, which pytest.ini makes
errors; the asserts here check the rest of the shape the client asked for (SPEC §6)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import ROOT, SERVER, cap
from helpers import (
    accept,
    apply_edits,
    diagnostics,
    expand_snippet,
    open_file,
    open_text,
    pulls_diagnostics,
    uri_of,
)

PREVIEW = "cwl-mcp.previewTool"
APPLY_EDIT = "cwl-mcp.applyEdit"
NS = "https://eoap.github.io/cwl-mcp-extension#"
HEAD = f"cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\n$namespaces:\n  mcp: {NS}\n"
TAIL = "baseCommand: echo\ninputs: []\noutputs: []\n"
FIXTURES = [
    "examples/echo-region.cwl",
    "examples/broken-hint.cwl",
    "examples/misspelled-namespace.cwl",
    "editors/test-fixtures/broken-hint.cwl",
]


def scratch(name: str) -> str:
    return uri_of(ROOT / "target" / "pytest-lsp-docs" / name)


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def markdown_ok(client: LanguageClient, path: str) -> bool:
    return types.MarkupKind.Markdown in (cap(client, path, []) or [])


def check_markup(client: LanguageClient, value, path: str) -> str:
    """`value` (documentation, tooltip or hover contents) is in a format listed at `path`;
    returns its text."""
    formats = cap(client, path, []) or []
    if isinstance(value, types.MarkupContent):
        assert value.kind in formats, f"{value.kind} sent, client lists {formats}"
        return value.value
    assert isinstance(value, str), f"unexpected content {value!r}"
    return value


async def complete(client: LanguageClient, uri: str, line: int, character: int):
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos(line, character)
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    snippets = cap(client, "text_document.completion.completion_item.snippet_support", False)
    modes = cap(
        client, "text_document.completion.completion_item.insert_text_mode_support", None
    )
    modes = list(modes.value_set) if modes else []
    preselect = cap(client, "text_document.completion.completion_item.preselect_support", False)
    for item in items:
        if not snippets:
            assert item.insert_text_format != types.InsertTextFormat.Snippet, item.label
            assert "${" not in item.text_edit.new_text, item
        if item.insert_text_mode is not None:
            assert item.insert_text_mode in modes, f"{item.label}: insertTextMode {modes}"
        if item.preselect:
            assert preselect, f"{item.label}: preselect without preselectSupport"
        if item.documentation is not None:
            doc = check_markup(
                client,
                item.documentation,
                "text_document.completion.completion_item.documentation_format",
            )
            if not markdown_ok(client, "text_document.completion.completion_item.documentation_format"):
                assert "`" not in doc and "**" not in doc, f"markdown in plain text: {doc!r}"
    return items


def by_label(items, label: str) -> types.CompletionItem:
    found = [i for i in items if i.label == label]
    assert found, f"no item {label!r} in {[i.label for i in items]}"
    return found[0]


async def test_initialize(client: LanguageClient, session):
    caps = session.result.capabilities
    offered = cap(client, "general.position_encodings", None) or ["utf-16"]
    assert caps.position_encoding in offered
    assert caps.execute_command_provider is not None
    assert PREVIEW in caps.execute_command_provider.commands
    # The command that applies a quick fix exists only for clients that get fixes as commands.
    as_commands = cap(
        client, "text_document.code_action.code_action_literal_support", None
    ) is None and cap(client, "workspace.apply_edit", False)
    assert (APPLY_EDIT in caps.execute_command_provider.commands) == bool(as_commands)
    assert caps.completion_provider is not None
    assert session.result.server_info.name == "cwl-mcp-lsp"


async def test_diagnostics_of_the_fixtures(client: LanguageClient):
    opened = {rel: open_file(client, rel) for rel in FIXTURES}
    found = {rel: await diagnostics(client, uri) for rel, (uri, _) in opened.items()}
    severe = [d for d in found["examples/echo-region.cwl"] if d.severity == types.DiagnosticSeverity.Error]
    assert severe == [], severe
    for rel in FIXTURES[1:]:
        assert found[rel], f"{rel}: no diagnostics"
        assert all(d.source == "cwl-mcp" for d in found[rel])
    codes = {d.code for d in found["editors/test-fixtures/broken-hint.cwl"]}
    assert "namespace-unbound" in codes, codes
    related = cap(client, "text_document.publish_diagnostics.related_information", False)
    for diags in found.values():
        for d in diags:
            assert related or not d.related_information
            if d.code_description is not None:
                assert cap(
                    client, "text_document.publish_diagnostics.code_description_support", False
                )


async def test_completion_places(client: LanguageClient):
    # Under `hints:` (map form): the class.
    uri = scratch("hints.cwl")
    open_text(client, uri, f"{HEAD}hints:\n  \n{TAIL}")
    items = await complete(client, uri, 6, 2)
    by_label(items, "mcp:Tool")
    # Inside `mcp:Tool`: its fields (the editor fixture's position).
    fixture_uri, text = open_file(client, "editors/test-fixtures/broken-hint.cwl")
    lines = text.split("\n")
    title = lines.index("    title: Echo a region")
    lines.insert(title + 1, "    ")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=fixture_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(lines))],
        )
    )
    items = await complete(client, fixture_uri, title + 1, 4)
    use_when = by_label(items, "useWhen")
    assert use_when.text_edit.new_text.startswith("useWhen:")
    # Annotation values: `true`/`false`, the MCP default first.
    uri = scratch("values.cwl")
    body = "hints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: tr\n"
    open_text(client, uri, f"{HEAD}{body}{TAIL}")
    items = await complete(client, uri, 8, 22)
    assert {"true", "false"} <= {i.label for i in items}
    # Annotation keys inside `annotations`, pre-filled with the value to write: with
    # `readOnlyHint: true`, `destructiveHint: false` (what the quick fix writes; `true` would be
    # `annotation-ignored`).
    uri = scratch("keys.cwl")
    body = "hints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: true\n      \n"
    text = f"{HEAD}{body}{TAIL}"
    open_text(client, uri, text)
    items = await complete(client, uri, 9, 6)
    destructive = by_label(items, "destructiveHint")
    assert accept(client, text, destructive) == text.replace(
        "      \n", "      destructiveHint: false\n"
    )
    # List form: `class: mcp:Tool` of a new item.
    uri = scratch("list.cwl")
    text = f"{HEAD}hints:\n  - \n{TAIL}"
    open_text(client, uri, text)
    items = await complete(client, uri, 6, 4)
    item = by_label(items, "class: mcp:Tool")
    assert accept(client, text, item) == f"{HEAD}hints:\n  - class: mcp:Tool\n    \n{TAIL}"


async def test_multi_line_items_come_out_as_yaml(client: LanguageClient):
    """The `annotations` item and the hint class: after the client's snippet expansion and
    indentation rule, the expected YAML."""
    uri = scratch("tool.cwl")
    text = f"{HEAD}hints:\n  mcp:Tool:\n    title: Echo\n    \n{TAIL}"
    open_text(client, uri, text)
    items = await complete(client, uri, 8, 4)
    annotations = by_label(items, "annotations")
    expected = (
        "    annotations:\n"
        "      readOnlyHint: false\n"
        "      destructiveHint: true\n"
        "      idempotentHint: false\n"
        "      openWorldHint: true\n"
    )
    assert accept(client, text, annotations) == text.replace("    \n", expected)
    uri = scratch("class.cwl")
    text = f"{HEAD}hints:\n  \n{TAIL}"
    open_text(client, uri, text)
    items = await complete(client, uri, 6, 2)
    item = by_label(items, "mcp:Tool")
    assert accept(client, text, item) == f"{HEAD}hints:\n  mcp:Tool:\n    \n{TAIL}"


async def test_hover_on_the_hint(client: LanguageClient):
    uri, text = open_file(client, "examples/echo-region.cwl")
    line = text.split("\n").index("  mcp:Tool:")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos(line, 4))
    )
    assert hover is not None
    contents = hover.contents
    assert isinstance(contents, types.MarkupContent), f"hover contents {contents!r}"
    value = check_markup(client, contents, "text_document.hover.content_format")
    assert "echo_region" in value
    if contents.kind != types.MarkupKind.Markdown:
        assert "`" not in value and "**" not in value, value


async def test_code_actions_at_a_diagnostic(client: LanguageClient, session):
    uri, text = open_file(client, "examples/broken-hint.cwl")
    diags = await diagnostics(client, uri)
    yes_line = text.split("\n").index("      readOnlyHint: yes")
    at_yes = [d for d in diags if d.range.start.line == yes_line]
    assert at_yes, diags
    diag = at_yes[0]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    assert actions
    literals = cap(client, "text_document.code_action.code_action_literal_support", None)
    if literals is None:
        assert all(isinstance(a, types.Command) for a in actions), actions
        commands = [a for a in actions if a.command != PREVIEW]
        assert any(a.command == PREVIEW for a in actions)
        assert commands, "no quick fix offered as a command"
        # Running the fix command makes the server send the edit.
        fix = commands[0]
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=fix.command, arguments=fix.arguments)
        )
        assert session.applied_edits, "the fix command sent no workspace/applyEdit"
        edit = session.applied_edits[-1]
        edits = edit.changes[uri]
    else:
        assert all(isinstance(a, types.CodeAction) for a in actions), actions
        kinds = set(literals.code_action_kind.value_set)
        preferred = cap(client, "text_document.code_action.is_preferred_support", False)
        for a in actions:
            assert a.kind is None or a.kind in kinds, f"kind {a.kind} not in {kinds}"
            assert preferred or a.is_preferred is None, f"isPreferred sent: {a.title}"
        fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
        assert fixes and any(a.diagnostics for a in fixes)
        assert any(a.command and a.command.command == PREVIEW for a in actions)
        edits = fixes[0].edit.changes[uri]
    fixed = apply_edits(text, [(e.range, e.new_text) for e in edits])
    assert "readOnlyHint: yes" not in fixed and "readOnlyHint: true" in fixed


async def test_document_symbols(client: LanguageClient):
    uri, _ = open_file(client, "examples/echo-region.cwl")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols
    kinds = cap(client, "text_document.document_symbol.symbol_kind", None)
    allowed = set(kinds.value_set) if kinds and kinds.value_set else set(range(1, 19))
    hierarchical = cap(
        client, "text_document.document_symbol.hierarchical_document_symbol_support", False
    )

    def walk(ss):
        for s in ss:
            yield s
            yield from walk(getattr(s, "children", None) or [])

    names = set()
    for s in walk(symbols):
        assert s.kind in allowed, f"symbol kind {s.kind} not in the client's set"
        names.add(s.name)
    if hierarchical:
        assert all(isinstance(s, types.DocumentSymbol) for s in symbols)
        assert any(s.children for s in symbols)
    else:
        assert all(isinstance(s, types.SymbolInformation) for s in symbols), symbols
        assert all(s.location.uri == uri for s in symbols)
        region = [s for s in symbols if s.name == "region"]
        assert region and region[0].container_name
    assert {"region", "echoed"} <= names, names


async def test_inlay_hints(client: LanguageClient):
    uri, text = open_file(client, "editors/test-fixtures/broken-hint.cwl")
    end = len(text.split("\n"))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=pos(0, 0), end=pos(end, 0)),
        )
    )
    labels = {h.label for h in hints}
    assert "destructiveHint: true (MCP default)" in labels, labels
    for h in hints:
        if h.tooltip is not None:
            value = check_markup(client, h.tooltip, "text_document.hover.content_format")
            if not markdown_ok(client, "text_document.hover.content_format"):
                assert "`" not in value, value


async def test_code_lens_and_preview(client: LanguageClient):
    uri, _ = open_file(client, "examples/echo-region.cwl")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses and lenses[0].command.command == PREVIEW
    tool = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=PREVIEW, arguments=lenses[0].command.arguments)
    )
    assert tool["name"] == "echo_region" and "inputSchema" in tool
    fixture_uri, _ = open_file(client, "editors/test-fixtures/broken-hint.cwl")
    tool = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=PREVIEW, arguments=[fixture_uri, None])
    )
    assert tool["name"] == "echo_region"


async def test_settings_change_asks_only_for_supported_refreshes(client: LanguageClient, session):
    uri, _ = open_file(client, "examples/echo-region.cwl")
    await diagnostics(client, uri)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"cwlMcp": {"inlayHints": False}})
    )
    await asyncio.sleep(0.5)
    sent = {m for m, _ in session.requests}
    if not cap(client, "workspace.inlay_hint.refresh_support", False):
        assert types.WORKSPACE_INLAY_HINT_REFRESH not in sent
    if not cap(client, "workspace.code_lens.refresh_support", False):
        assert types.WORKSPACE_CODE_LENS_REFRESH not in sent


async def test_shutdown_and_exit(client: LanguageClient):
    await asyncio.wait_for(client.shutdown_session(), timeout=10)
    assert client._server.returncode == 0


def test_snippet_expansion_helper():
    assert expand_snippet("a: ${1|false,true|}") == "a: false"
    assert expand_snippet("a: ${1:x ${2:y}} $0") == "a: x y "
    assert expand_snippet(r"p: \$HOME \} \\ $1") == "p: $HOME } \\ "
    assert SERVER
