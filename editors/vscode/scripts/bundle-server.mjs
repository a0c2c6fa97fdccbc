// Copies a cwl-mcp-lsp binary into bin/<platform>-<arch>/ so that `npm run package` bundles it in
// the .vsix, where the extension looks for it (src/discover.ts).
// Usage: npm run bundle-server [-- [--target T] PATH]
//          PATH: default $CWL_MCP_LSP, else ../../target/release/cwl-mcp-lsp[.exe]
//          T: a `vsce package --target` name (linux-x64, linux-arm64, darwin-x64, darwin-arm64,
//             win32-x64); default the running platform. Other targets' binaries are removed, so
//             that a platform-specific .vsix carries its own only.
//        npm run bundle-server -- --clean     (remove them all: the .vsix then uses cwlMcp.server.path, PATH or ~/.cargo/bin)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
const args = process.argv.slice(2);

const clean = () => {
  fs.rmSync(path.join(root, 'server'), { recursive: true, force: true }); // the old single-platform layout
  fs.rmSync(path.join(root, 'bin'), { recursive: true, force: true });
};
if (args[0] === '--clean') {
  clean();
  console.log('removed bin/ and server/');
  process.exit(0);
}
let target = `${process.platform}-${process.arch}`;
const t = args.indexOf('--target');
if (t >= 0) {
  target = args[t + 1];
  args.splice(t, 2);
}
if (!TARGETS.includes(target)) {
  console.error(`bundle-server: unknown target ${target} (one of ${TARGETS.join(', ')})`);
  process.exit(1);
}
const exe = target.startsWith('win32-') ? 'cwl-mcp-lsp.exe' : 'cwl-mcp-lsp';
const src = path.resolve(args[0] || process.env.CWL_MCP_LSP || path.join(root, '..', '..', 'target', 'release', exe));
if (!fs.existsSync(src) || !fs.statSync(src).isFile()) {
  console.error(`bundle-server: no server binary at ${src} (build it with cargo build --release, or pass a path / set CWL_MCP_LSP)`);
  process.exit(1);
}
clean();
const dest = path.join(root, 'bin', target, exe);
fs.mkdirSync(path.dirname(dest), { recursive: true });
fs.copyFileSync(src, dest);
fs.chmodSync(dest, 0o755);
console.log(`bundled ${src} -> ${path.relative(root, dest)} (${(fs.statSync(dest).size / 1e6).toFixed(1)} MB)`);
