// Where the cwl-mcp-lsp binary comes from: the `cwlMcp.server.path` setting, else the binary
// bundled in the .vsix (server/cwl-mcp-lsp), else `cwl-mcp-lsp` on PATH.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SECTION, explicitValue } from './settings';

export const BINARY = process.platform === 'win32' ? 'cwl-mcp-lsp.exe' : 'cwl-mcp-lsp';

export type Resolved =
  | { ok: true; path: string; from: 'setting' | 'bundled' | 'PATH' }
  | { ok: false; message: string };

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string): string {
  const home = process.env.HOME || process.env.USERPROFILE;
  return home && (p === '~' || p.startsWith('~/')) ? path.join(home, p.slice(1)) : p;
}

export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export function resolveServer(context: vscode.ExtensionContext): Resolved {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const configured = explicitValue<string>(cfg, 'server.path');
  if (configured !== undefined) {
    let p = expandHome(configured.trim());
    if (!path.isAbsolute(p)) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      if (folder && (p.includes('/') || p.includes('\\'))) p = path.join(folder, p);
      else p = findOnPath(p) ?? p; // a bare command name: look it up on PATH
    }
    if (isExecutableFile(p)) return { ok: true, path: p, from: 'setting' };
    return {
      ok: false,
      message: `CWL MCP: the setting cwlMcp.server.path is "${configured}", but ${p} is not an executable file.`,
    };
  }
  const bundled = context.asAbsolutePath(path.join('server', BINARY));
  if (fs.existsSync(bundled)) {
    // some unzip paths drop the executable bit of files inside a .vsix
    if (process.platform !== 'win32' && !isExecutableFile(bundled)) {
      try { fs.chmodSync(bundled, 0o755); } catch { /* reported below */ }
    }
    if (isExecutableFile(bundled)) return { ok: true, path: bundled, from: 'bundled' };
  }
  const onPath = findOnPath(BINARY);
  if (onPath) return { ok: true, path: onPath, from: 'PATH' };
  return {
    ok: false,
    message:
      'CWL MCP: no cwl-mcp-lsp language server found. This build of the extension bundles none, and ' +
      'there is no "cwl-mcp-lsp" on PATH. Install it (cargo install --path . in the cwl-mcp-lsp repository) ' +
      'or set "cwlMcp.server.path" to the binary.',
  };
}
