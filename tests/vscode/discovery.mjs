// The VS Code extension's server discovery (editors/vscode/src/discover.ts, issue 12) under plain
// Node, on fake extension folders, PATHs and homes: the setting, then the binary bundled for the
// running platform, then PATH, then ~/.cargo/bin ($CARGO_HOME/bin), then an error naming the
// install command. Run by tests/vscode/run.sh, which bundles discover.ts with the extension's
// esbuild. Ends with `discovery: N passed, M failed`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { discoverServer, INSTALL_COMMAND } = require(process.argv[2]);

let passed = 0, failed = 0;
const check = (name, cond, detail) => {
  if (cond) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${JSON.stringify(detail)}`); }
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cwl-mcp-discovery-'));
const exe = (p, mode = 0o755) => { fs.mkdirSync(path.dirname(p), { recursive: true }); fs.writeFileSync(p, '#!/bin/sh\n'); fs.chmodSync(p, mode); return p; };
const ext = path.join(tmp, 'ext');
const home = path.join(tmp, 'home');
const pathDir = path.join(tmp, 'pathdir');
fs.mkdirSync(ext, { recursive: true }); fs.mkdirSync(home, { recursive: true }); fs.mkdirSync(pathDir, { recursive: true });
const base = { extensionPath: ext, platform: 'linux', arch: 'x64', envPath: pathDir, home };

try {
  // nothing anywhere: the error, with the install command and the setting
  let r = discoverServer(base);
  check('none: an error', !r.ok, r);
  check('none: says no server found', !r.ok && /no cwl-mcp-lsp language server found/.test(r.message), r);
  check('none: names the install command', !r.ok && r.message.includes(INSTALL_COMMAND) && INSTALL_COMMAND.startsWith('cargo install --locked'), r);
  check('none: names the setting', !r.ok && r.message.includes('cwlMcp.server.path'), r);
  check('none: names ~/.cargo/bin', !r.ok && r.message.includes(path.join(home, '.cargo', 'bin')), r);

  // 4. ~/.cargo/bin, and $CARGO_HOME/bin over it
  const cargo = exe(path.join(home, '.cargo', 'bin', 'cwl-mcp-lsp'));
  r = discoverServer(base);
  check('~/.cargo/bin', r.ok && r.from === 'cargo' && r.path === cargo, r);
  const cargoHome = path.join(tmp, 'cargo-home');
  r = discoverServer({ ...base, cargoHome });
  check('$CARGO_HOME without the binary: not found', !r.ok && r.message.includes(path.join(cargoHome, 'bin')), r);
  const cargo2 = exe(path.join(cargoHome, 'bin', 'cwl-mcp-lsp'));
  r = discoverServer({ ...base, cargoHome });
  check('$CARGO_HOME/bin', r.ok && r.from === 'cargo' && r.path === cargo2, r);

  // 3. PATH before cargo
  const onPath = exe(path.join(pathDir, 'cwl-mcp-lsp'));
  r = discoverServer(base);
  check('PATH before ~/.cargo/bin', r.ok && r.from === 'PATH' && r.path === onPath, r);
  exe(path.join(tmp, 'noexec', 'cwl-mcp-lsp'), 0o644);
  r = discoverServer({ ...base, envPath: [path.join(tmp, 'noexec'), pathDir].join(path.delimiter) });
  check('PATH: a non-executable file is skipped', r.ok && r.path === onPath, r);

  // 2. bundled for the running platform before PATH; another platform's binary is not used
  exe(path.join(ext, 'bin', 'darwin-arm64', 'cwl-mcp-lsp'));
  exe(path.join(ext, 'bin', 'win32-x64', 'cwl-mcp-lsp.exe'));
  r = discoverServer(base);
  check("another platform's binary is ignored", r.ok && r.from === 'PATH', r);
  exe(path.join(ext, 'server', 'cwl-mcp-lsp')); // earlier builds: a Linux x64 binary on every platform
  r = discoverServer(base);
  check('server/ of earlier builds is not used', r.ok && r.from === 'PATH', r);
  const bundled = exe(path.join(ext, 'bin', 'linux-x64', 'cwl-mcp-lsp'), 0o644); // lost its x bit
  r = discoverServer(base);
  check('bin/linux-x64 first (and made executable again)', r.ok && r.from === 'bundled' && r.path === bundled, r);
  r = discoverServer({ ...base, platform: 'darwin', arch: 'arm64' });
  check('bin/darwin-arm64 on macOS arm64', r.ok && r.path === path.join(ext, 'bin', 'darwin-arm64', 'cwl-mcp-lsp'), r);
  r = discoverServer({ ...base, platform: 'darwin', arch: 'x64', envPath: '' , home: tmp });
  check('darwin-x64 not bundled: no binary of another arch', !r.ok && r.message.includes('darwin-x64'), r);

  // 1. the setting before everything, and a wrong setting is an error (no fallback)
  const own = exe(path.join(tmp, 'own', 'my-server'));
  r = discoverServer({ ...base, configured: own });
  check('setting: absolute path', r.ok && r.from === 'setting' && r.path === own, r);
  r = discoverServer({ ...base, configured: '~/.cargo/bin/cwl-mcp-lsp' });
  check('setting: ~/ path', r.ok && r.from === 'setting' && r.path === cargo, r);
  r = discoverServer({ ...base, configured: 'own/my-server', workspaceFolder: tmp });
  check('setting: relative to the workspace', r.ok && r.path === own, r);
  r = discoverServer({ ...base, configured: 'cwl-mcp-lsp' });
  check('setting: a command name on PATH', r.ok && r.from === 'setting' && r.path === onPath, r);
  r = discoverServer({ ...base, configured: '/no/such/binary' });
  check('setting: missing file is an error', !r.ok && r.message.includes('cwlMcp.server.path') && r.message.includes('/no/such/binary'), r);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`discovery: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
