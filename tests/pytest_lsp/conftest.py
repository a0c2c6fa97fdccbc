"""The server under the recorded capabilities of every client pytest-lsp ships (its
``pytest_lsp/clients/*.json``, enumerated so that new recordings are covered), plus a minimal
plaintext-only client. Each test gets a freshly started and initialized server."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
from importlib import resources
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.capabilities import get_capability
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVER = os.environ.get("CWL_MCP_LSP") or str(ROOT / "target" / "debug" / "cwl-mcp-lsp")
if not os.path.isabs(SERVER):
    SERVER = str(ROOT / SERVER)

# A client that supports as little as LSP allows: no snippets, plain text only, no code action
# literals, flat symbols, no insertTextMode, no dynamic registration, no configuration pull.
# It can apply workspace edits (so quick fixes reach it as commands).
PLAINTEXT_CLIENT: dict[str, Any] = {
    "clientInfo": {"name": "plaintext-minimal", "version": "0"},
    "capabilities": {
        "workspace": {
            "applyEdit": True,
            "configuration": False,
            "workspaceEdit": {"documentChanges": False},
            "didChangeConfiguration": {"dynamicRegistration": False},
            "executeCommand": {"dynamicRegistration": False},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": False},
            "completion": {
                "dynamicRegistration": False,
                "completionItem": {
                    "snippetSupport": False,
                    "documentationFormat": ["plaintext"],
                },
            },
            "hover": {"dynamicRegistration": False, "contentFormat": ["plaintext"]},
            "codeAction": {"dynamicRegistration": False},
            "documentSymbol": {
                "dynamicRegistration": False,
                "hierarchicalDocumentSymbolSupport": False,
            },
            "publishDiagnostics": {},
            "codeLens": {"dynamicRegistration": False},
            "inlayHint": {"dynamicRegistration": False},
        },
    },
}


def _recorded_clients() -> dict[str, dict[str, Any]]:
    out = {}
    for res in sorted(resources.files("pytest_lsp.clients").iterdir(), key=lambda r: r.name):
        if not res.name.endswith(".json"):
            continue
        out[res.name[: -len(".json")]] = json.loads(res.read_text())
    assert out, "pytest-lsp ships no client capabilities"
    return out


CLIENTS: dict[str, dict[str, Any]] = {**_recorded_clients(), "plaintext_minimal": PLAINTEXT_CLIENT}


def cap(client: LanguageClient, path: str, default: Any = None) -> Any:
    """A client capability by its snake_case dotted path."""
    return get_capability(client.capabilities, path, default)


class Session:
    """What the tests need beside the client: the client's name and the requests the server
    sent to it."""

    def __init__(self, name: str, client: LanguageClient):
        self.name = name
        self.client = client
        self.requests: list[tuple[str, Any]] = []
        self.applied_edits: list[types.WorkspaceEdit] = []
        self.result: types.InitializeResult | None = None


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[SERVER]),
    params=list(CLIENTS),
)
async def client(request, lsp_client: LanguageClient):
    name = request.param
    recorded = CLIENTS[name]
    converter = get_converter()
    params = converter.structure(
        {
            "processId": os.getpid(),
            "rootUri": ROOT.as_uri(),
            "workspaceFolders": [{"uri": ROOT.as_uri(), "name": ROOT.name}],
            "clientInfo": recorded.get("clientInfo"),
            "capabilities": recorded["capabilities"],
        },
        types.InitializeParams,
    )
    session = Session(name, lsp_client)
    _structure_code_actions_by_their_command(lsp_client)
    lsp_client.session = session  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams):
        session.requests.append((types.WORKSPACE_APPLY_EDIT, params))
        session.applied_edits.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_refresh(params):
        session.requests.append((types.WORKSPACE_INLAY_HINT_REFRESH, params))

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        session.requests.append((types.WORKSPACE_CODE_LENS_REFRESH, params))

    # What the recorded editors do for the server's own request that pytest-lsp's client does
    # not answer by itself: accept the file watchers.
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams):
        session.requests.append((types.CLIENT_REGISTER_CAPABILITY, params))

    session.result = await lsp_client.initialize_session(params)
    yield
    server = lsp_client._server
    if server is not None and server.returncode is None:
        await asyncio.wait_for(lsp_client.shutdown_session(), timeout=10)


def _structure_code_actions_by_their_command(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads any `Command | CodeAction` with a `command` member as a
    Command, so a CodeAction that carries a command would come back as a Command whose
    `command` is the stringified object. A CodeAction's `command` is an object, a Command's a
    string."""
    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> Union[types.Command, types.CodeAction]:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)


@pytest.fixture
def session(client: LanguageClient) -> Session:
    return client.session  # type: ignore[attr-defined]
