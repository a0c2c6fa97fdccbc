#!/usr/bin/env bash
# schemas/cwl-mcp.schema.json in a real TOML linter (issue 12): taplo (npm @taplo/cli, installed
# once under target/taplo) must accept tests/taplo/good/cwl-mcp.toml and reject
# tests/taplo/bad/cwl-mcp.toml with the expected messages, both with `--schema` and through the
# project's .taplo.toml (what Even Better TOML reads). Ends with `taplo: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
TAPLO_CLI_VERSION=0.7.0 # npm @taplo/cli 0.7.0 = taplo 0.9.0
DIR="$ROOT/target/taplo"
TAPLO="$DIR/node_modules/.bin/taplo"

if ! grep -qs "\"version\": \"$TAPLO_CLI_VERSION\"" "$DIR/node_modules/@taplo/cli/package.json"; then
  mkdir -p "$DIR"
  (cd "$DIR" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --silent --save-exact "@taplo/cli@$TAPLO_CLI_VERSION" >/dev/null) ||
    { echo "taplo: cannot install @taplo/cli@$TAPLO_CLI_VERSION"; echo "taplo: 0 passed, 1 failed"; exit 1; }
fi
echo "taplo: $("$TAPLO" --version) (@taplo/cli $TAPLO_CLI_VERSION)"

SCHEMA="file://$ROOT/schemas/cwl-mcp.schema.json"
GOOD=tests/taplo/good/cwl-mcp.toml
BAD=tests/taplo/bad/cwl-mcp.toml
EXPECTED=(
  'error: "cwl2mpc" is not one of ["extension","cwl2mcp"]'
  "error: Additional properties are not allowed ('inlay-hints' was unexpected)"
  'error: "warnings" is not one of ["error","warning","information","hint"]'
)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/     /'; }

# check NAME EXPECT(pass|fail) TAPLO-ARGS...
check() {
  local name=$1 expect=$2 out code
  shift 2
  out=$(RUST_LOG=error "$TAPLO" lint --colors never "$@" 2>&1)
  code=$?
  if [ "$expect" = pass ]; then
    if [ "$code" -eq 0 ]; then ok "$name"; else fail "$name: exit $code, expected 0" "$out"; fi
    return
  fi
  if [ "$code" -eq 0 ]; then fail "$name: exit 0, expected a failure" "$out"; return; fi
  local m missing=""
  for m in "${EXPECTED[@]}"; do
    grep -qF -- "$m" <<<"$out" || missing+="$m"$'\n'
  done
  if [ -z "$missing" ]; then ok "$name"; else fail "$name: missing message(s): $missing" "$out"; fi
}

check "good file with --schema" pass --no-auto-config --schema "$SCHEMA" "$GOOD"
check "bad file with --schema" fail --no-auto-config --schema "$SCHEMA" "$BAD"
check "good file through .taplo.toml" pass "$GOOD"
check "bad file through .taplo.toml" fail "$BAD"
# the failures come from the schema: as plain TOML the bad file is valid
check "bad file without a schema is valid TOML" pass --no-auto-config --no-schema "$BAD"

echo "taplo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
