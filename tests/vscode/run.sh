#!/usr/bin/env bash
# Runs tests/vscode/discovery.mjs: bundles editors/vscode/src/discover.ts with the extension's own
# esbuild (installed by `npm ci --ignore-scripts` in editors/vscode when missing, as e2e.sh does).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=editors/vscode
if [ ! -x "$EXT/node_modules/.bin/esbuild" ]; then
  (cd "$EXT" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
fi
OUT=target/vscode-discovery
mkdir -p "$OUT"
"$EXT/node_modules/.bin/esbuild" "$EXT/src/discover.ts" --bundle --platform=node --format=cjs \
  --target=node20 --log-level=warning --outfile="$OUT/discover.cjs"
node tests/vscode/discovery.mjs "$PWD/$OUT/discover.cjs"
