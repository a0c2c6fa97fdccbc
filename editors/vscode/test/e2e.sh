#!/usr/bin/env bash
# End-to-end test of the VS Code extension against a real cwl-mcp-lsp binary:
#   CWL_MCP_LSP=target/release/cwl-mcp-lsp bash editors/vscode/test/e2e.sh
# Packages the extension into a .vsix with that binary bundled, installs it into a fresh
# code-server 4.99.4 (VS Code 1.99.3, from npm), opens editors/test-fixtures/broken-hint.cwl in
# Debian's Chromium driven by playwright-core, and checks diagnostics, hover, completion and the
# "Preview derived MCP Tool" command (e2e.mjs). Screenshots and result.json: target/editor-e2e/vscode/.
#
# Installs what it needs, once (Debian 12, root; later runs skip each step in well under a second):
#   apt: chromium ripgrep + the headers code-server's native modules build against;
#   npm: code-server@4.99.4 and playwright-core into $CWL_MCP_EDITOR_TOOLS (default
#   ~/.cache/cwl-mcp-editor-tools); the extension's own devDependencies (npm ci).
# Exit 0 when every check passed; 1 when a check failed; 2 for a setup error.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/../.." && pwd)
TOOLS=${CWL_MCP_EDITOR_TOOLS:-$HOME/.cache/cwl-mcp-editor-tools}
OUT=${E2E_OUT:-$REPO/target/editor-e2e/vscode}
CODE_SERVER_VERSION=4.99.4
PLAYWRIGHT_VERSION=1.65.1
T0=$(date +%s)
log() { echo "[vscode-e2e +$(( $(date +%s) - T0 ))s] $*"; }
die() { echo "vscode-e2e: $*" >&2; exit 2; }

[ -n "${CWL_MCP_LSP:-}" ] || die "set CWL_MCP_LSP to the cwl-mcp-lsp binary (e.g. target/release/cwl-mcp-lsp)"
SERVER=$(readlink -f "$CWL_MCP_LSP") || die "CWL_MCP_LSP=$CWL_MCP_LSP not found"
[ -f "$SERVER" ] && [ -x "$SERVER" ] || die "CWL_MCP_LSP=$CWL_MCP_LSP is not an executable file"
command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed (Node 20)"

# 1. Debian packages
APT_PKGS=(chromium ripgrep libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null ||
    die "could not install ${missing[*]} (Debian packages; run as root or with sudo)"
fi

# 2. code-server from npm. Its postinstall builds native modules (headers above) and downloads
#    ripgrep from GitHub, which is unreachable here: pre-fill @vscode/ripgrep's download cache with
#    Debian's rg. npm 11 blocks dependency install scripts unless allowed; code-server needs them.
CS="$TOOLS/cs/node_modules/.bin/code-server"
if ! "$CS" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  log "npm install code-server@$CODE_SERVER_VERSION (about 1-3 minutes)"
  RGC=${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11
  RGSEED=$(mktemp -d)
  mkdir -p "$RGC" && cp /usr/bin/rg "$RGSEED/rg" &&
    tar czf "$RGC/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$RGSEED" rg
  rm -rf "$TOOLS/cs" "$RGSEED" && mkdir -p "$TOOLS/cs"
  (cd "$TOOLS/cs" && npm init -y >/dev/null &&
    npm_config_dangerously_allow_all_scripts=true npm_config_yes=true npm_config_unsafe_perm=true \
    npm_config_nodedir=/usr npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION") \
    >"$TOOLS/cs-install.log" 2>&1 || { tail -30 "$TOOLS/cs-install.log"; die "code-server install failed"; }
  "$CS" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION " || die "code-server installed but does not run"
fi

# 3. playwright-core (drives Debian's /usr/bin/chromium; never downloads a browser)
if [ ! -f "$TOOLS/pw/node_modules/playwright-core/package.json" ] ||
   ! grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$TOOLS/pw/node_modules/playwright-core/package.json"; then
  log "npm install playwright-core@$PLAYWRIGHT_VERSION"
  mkdir -p "$TOOLS/pw"
  (cd "$TOOLS/pw" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION") >/dev/null
fi

# 4. the extension: dependencies, bundled server, .vsix
cd "$EXT"
LOCK_SUM=$(sha256sum package-lock.json | cut -c1-64)
if [ "$(cat node_modules/.cwl-mcp-lock-sum 2>/dev/null)" != "$LOCK_SUM" ]; then
  log "npm ci (extension devDependencies)"
  # no install scripts: esbuild runs from its platform package, and vsce needs no keytar to package
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$LOCK_SUM" > node_modules/.cwl-mcp-lock-sum
fi
npm run -s bundle-server -- "$SERVER"
npm run -s typecheck
npm run -s package >/dev/null
VSIX="$EXT/cwl-mcp.vsix"
log "packaged $(basename "$VSIX"): $(stat -c %s "$VSIX") bytes"

# 5. a fresh profile, extensions folder and workspace
rm -rf "$OUT" && mkdir -p "$OUT"
# the marketplace README against package.json (settings, commands, images); counted below
node "$HERE/readme.mjs" > "$OUT/readme.txt" || true
cat "$OUT/readme.txt"
RUN=$(mktemp -d "${TMPDIR:-/tmp}/cwl-mcp-vscode-e2e.XXXXXX")
CS_PID=
stop_code_server() {
  [ -n "$CS_PID" ] || return 0
  kill -TERM -- "-$CS_PID" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
  CS_PID=
}
cleanup() {
  stop_code_server
  [ -n "${KEEP_RUN:-}" ] || rm -rf "$RUN"
}
trap cleanup EXIT

# new_profile DIR VSIX: user settings, a workspace with the fixture, the .vsix installed
new_profile() {
  local dir=$1 vsix=$2
  mkdir -p "$dir/user/User" "$dir/ext" "$dir/ws/.vscode"
  cp "$REPO/editors/test-fixtures/broken-hint.cwl" "$REPO/editors/test-fixtures/complete.cwl" "$dir/ws/"
  cat > "$dir/user/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "editor.hover.delay": 300,
  "editor.quickSuggestions": { "other": "off", "comments": "off", "strings": "off" },
  "editor.wordBasedSuggestions": "off",
  "editor.inlayHints.enabled": "on",
  "cwlMcp.trace.server": "verbose"
}
JSON
  # a workspace setting the test checks end to end (the preview's `_meta` key) and on the wire
  echo '{ "cwlMcp.metaPrefix": "org.example/e2e" }' > "$dir/ws/.vscode/settings.json"
  "$CS" --user-data-dir "$dir/user" --extensions-dir "$dir/ext" --install-extension "$vsix" >"$OUT/install-extension.log" 2>&1 ||
    { cat "$OUT/install-extension.log"; die "code-server --install-extension failed"; }
}

# start_code_server DIR [env...]: code-server on a free loopback port, in its own process group
start_code_server() {
  local dir=$1; shift
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  setsid env "$@" "$CS" --config "$dir/config.yaml" --auth none --bind-addr "127.0.0.1:$PORT" \
    --user-data-dir "$dir/user" --extensions-dir "$dir/ext" \
    --log trace --disable-telemetry --disable-update-check --disable-workspace-trust "$dir/ws" \
    >>"$OUT/code-server.log" 2>&1 &
  CS_PID=$!
  local ready=
  for _ in $(seq 300); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/healthz', timeout=1)" 2>/dev/null &&
      { ready=1; break; }
    kill -0 "$CS_PID" 2>/dev/null || { cat "$OUT/code-server.log"; die "code-server exited"; }
    sleep 0.2
  done
  [ -n "$ready" ] || { tail -20 "$OUT/code-server.log"; die "code-server did not answer on 127.0.0.1:$PORT"; }
  log "code-server $CODE_SERVER_VERSION listening on 127.0.0.1:$PORT"
}

new_profile "$RUN/main" "$VSIX"
log "installed the .vsix into a fresh code-server profile"

# 6. code-server
start_code_server "$RUN/main"

# 7. drive it (the crash check switches cwlMcp.server.path to WRAPPER, which says a line on stderr)
WRAPPER="$RUN/cwl-mcp-lsp-wrapper"
printf '#!/bin/sh\necho "e2e wrapper: starting cwl-mcp-lsp $*" >&2\nexec "%s" "$@"\n' "$SERVER" > "$WRAPPER"
chmod +x "$WRAPPER"
set +e
NODE_PATH="$TOOLS/pw/node_modules" CS_URL="http://127.0.0.1:$PORT" FILE=broken-hint.cwl SERVER="$SERVER" \
  FIXTURE="$RUN/main/ws/broken-hint.cwl" WRAPPER="$WRAPPER" CS_PGID="$CS_PID" OUT="$OUT" node "$HERE/e2e.mjs"
rc=$?
set -e
stop_code_server

# 8. No server anywhere: a .vsix without the binary, PATH without cwl-mcp-lsp, an empty
#    CARGO_HOME (the extension also looks in $CARGO_HOME/bin), no setting: the extension must say
#    so clearly (a notification with the install command), not fail silently.
MISSING_RC=0
BARE_PATH=/usr/local/bin:/usr/bin:/bin
if PATH=$BARE_PATH command -v cwl-mcp-lsp >/dev/null; then
  log "skipping the missing-server check: cwl-mcp-lsp is on $BARE_PATH"
else
  (cd "$EXT" && npm run -s bundle-server -- --clean >/dev/null &&
    npx vsce package --no-dependencies --skip-license --allow-missing-repository --no-rewrite-relative-links \
      -o "$RUN/cwl-mcp-noserver.vsix" >/dev/null)
  new_profile "$RUN/bare" "$RUN/cwl-mcp-noserver.vsix"
  mkdir -p "$RUN/bare/no-cargo"
  start_code_server "$RUN/bare" PATH=$BARE_PATH CARGO_HOME="$RUN/bare/no-cargo"
  NODE_PATH="$TOOLS/pw/node_modules" CS_URL="http://127.0.0.1:$PORT" FILE=broken-hint.cwl OUT="$OUT" \
    node "$HERE/e2e-missing-server.mjs" || MISSING_RC=1
  stop_code_server
fi

# 9. on the wire: initializationOptions carry exactly the settings the user set (SPEC §1). The
#    client's verbose trace reaches the "CWL MCP" output log because code-server runs with --log trace.
LOGFILE=$(find "$RUN/main/user/logs" -path '*cwl-mcp.cwl-mcp*' -name '*.log' 2>/dev/null | head -1 || true)
[ -n "$LOGFILE" ] && cp "$LOGFILE" "$OUT/cwl-mcp-output.log"
log "screenshots, result.json and the extension's log in ${OUT#"$REPO"/}"
python3 - "$OUT/cwl-mcp-output.log" "$OUT/result.json" "$OUT/result-missing-server.json" <<'PY' || rc=1
import json, sys
log_path, result_path = sys.argv[1], sys.argv[2]
def params_of(text, marker):
    at = text.index(marker)
    return json.JSONDecoder().raw_decode(text[text.index("Params: ", at) + len("Params: "):])[0]
checks = {}
try:
    text = open(log_path, encoding="utf-8").read()
except OSError as e:
    text = ""
try:
    got = params_of(text, "Sending request 'initialize").get("initializationOptions")
except ValueError as e:
    got = f"no initialize trace in the CWL MCP output log ({e})"
checks["wire-settings"] = (got == {"cwlMcp": {"metaPrefix": "org.example/e2e"}}, got)
try:
    i = text.index("org.example/changed")
    got = params_of(text[text.rindex("Sending notification 'workspace/didChangeConfiguration'", 0, i):],
                    "Sending notification")
except ValueError as e:
    got = f"no didChangeConfiguration with the changed prefix in the trace ({e})"
checks["wire-settings-change"] = (got == {"settings": {"cwlMcp": {"metaPrefix": "org.example/changed"}}}, got)
for name, (ok, got) in checks.items():
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {json.dumps(got)}")
res = json.load(open(result_path))
for line in open(result_path.replace("/result.json", "/readme.txt"), encoding="utf-8"):
    status, _, rest = line.partition(" ")
    name, _, detail = rest.strip().partition(": ")
    checks[name] = (status == "ok", detail)
try:
    res["checks"].update(json.load(open(sys.argv[3]))["checks"])
except OSError:
    pass
for name, (ok, got) in checks.items():
    res["checks"][name] = {"ok": ok, "detail": got}
json.dump(res, open(result_path, "w"), indent=1)
failed = sum(not c["ok"] for c in res["checks"].values())
print(f"vscode-e2e: {len(res['checks']) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
[ "$MISSING_RC" = 0 ] || rc=1
exit $rc   # the line above, "vscode-e2e: N passed, M failed", is the last one printed
