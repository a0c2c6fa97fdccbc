#!/usr/bin/env bash
# End-to-end tests with pytest-lsp: the real server under the recorded capabilities of every
# client pytest-lsp ships, plus a plaintext-only client. Server binary: $CWL_MCP_LSP (default
# target/debug/cwl-mcp-lsp, built if missing). The venv lives under target/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/pytest-lsp-venv"
export CWL_MCP_LSP="${CWL_MCP_LSP:-$root/target/debug/cwl-mcp-lsp}"
if [ ! -x "$CWL_MCP_LSP" ]; then
    (cd "$root" && cargo build --quiet --bin cwl-mcp-lsp)
fi
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
cd "$here"
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -p no:cacheprovider "$@"
