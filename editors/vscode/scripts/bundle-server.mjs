// Copies a cwl-mcp-lsp binary into server/ so that `npm run package` bundles it in the .vsix.
// Usage: npm run bundle-server [-- PATH]      (default: $CWL_MCP_LSP, else ../../target/release/cwl-mcp-lsp)
//        npm run bundle-server -- --clean     (remove it again: the .vsix then uses cwlMcp.server.path or PATH)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const exe = process.platform === 'win32' ? 'cwl-mcp-lsp.exe' : 'cwl-mcp-lsp';
const dest = path.join(root, 'server', exe);
const arg = process.argv[2];

if (arg === '--clean') {
  fs.rmSync(path.join(root, 'server'), { recursive: true, force: true });
  console.log('removed server/');
  process.exit(0);
}
const src = path.resolve(arg || process.env.CWL_MCP_LSP || path.join(root, '..', '..', 'target', 'release', exe));
if (!fs.existsSync(src) || !fs.statSync(src).isFile()) {
  console.error(`bundle-server: no server binary at ${src} (build it with cargo build --release, or pass a path / set CWL_MCP_LSP)`);
  process.exit(1);
}
fs.mkdirSync(path.dirname(dest), { recursive: true });
fs.copyFileSync(src, dest);
fs.chmodSync(dest, 0o755);
console.log(`bundled ${src} -> ${path.relative(root, dest)} (${(fs.statSync(dest).size / 1e6).toFixed(1)} MB)`);
