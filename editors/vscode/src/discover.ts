// Where the cwl-mcp-lsp binary comes from, in this order (issue 12):
//   1. the `cwlMcp.server.path` setting (a path, `~/...`, a path relative to the workspace, or a
//      bare command looked up on PATH);
//   2. the binary bundled for the running platform: bin/<platform>-<arch>/cwl-mcp-lsp[.exe] in
//      the extension (what a platform-specific .vsix carries: `vsce package --target
//      linux-x64|linux-arm64|darwin-x64|darwin-arm64|win32-x64`). The server/cwl-mcp-lsp of
//      earlier builds is not used: it carried a Linux x64 binary whatever the platform;
//   3. `cwl-mcp-lsp` on PATH;
//   4. $CARGO_HOME/bin, else ~/.cargo/bin (where `cargo install` puts it; GUI-started editors
//      often have a PATH without it).
// When none is found: a message naming where it looked and the install command.
// Pure (no `vscode` import), so that tests/vscode/discovery.mjs can run it under plain Node.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const INSTALL_COMMAND = 'cargo install --locked --git https://github.com/eoap/cwl-mcp-lsp cwl-mcp-lsp';

export type Resolved =
  | { ok: true; path: string; from: 'setting' | 'bundled' | 'PATH' | 'cargo' }
  | { ok: false; message: string };

export interface Environment {
  /** The `cwlMcp.server.path` the user set (undefined when unset or empty). */
  configured?: string;
  /** The extension's install folder. */
  extensionPath: string;
  /** The first workspace folder, for relative `cwlMcp.server.path` values. */
  workspaceFolder?: string;
  platform: string; // process.platform
  arch: string; // process.arch
  envPath: string;
  home?: string;
  cargoHome?: string;
}

export function binaryName(platform: string): string {
  return platform === 'win32' ? 'cwl-mcp-lsp.exe' : 'cwl-mcp-lsp';
}

function isExecutableFile(p: string, platform: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string, home: string | undefined): string {
  return home && (p === '~' || p.startsWith('~/')) ? path.join(home, p.slice(1)) : p;
}

export function findOnPath(name: string, envPath: string, platform: string): string | undefined {
  const delimiter = platform === 'win32' ? ';' : path.delimiter;
  for (const dir of envPath.split(delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate, platform)) return candidate;
  }
  return undefined;
}

/** The binary bundled for the running platform. */
export function bundledBinary(env: Environment): string {
  return path.join(env.extensionPath, 'bin', `${env.platform}-${env.arch}`, binaryName(env.platform));
}

export function cargoBin(env: Environment): string | undefined {
  const base = env.cargoHome || (env.home ? path.join(env.home, '.cargo') : undefined);
  return base ? path.join(base, 'bin', binaryName(env.platform)) : undefined;
}

export function discoverServer(env: Environment): Resolved {
  const exe = binaryName(env.platform);
  if (env.configured !== undefined) {
    let p = expandHome(env.configured.trim(), env.home);
    if (!path.isAbsolute(p)) {
      if (env.workspaceFolder && (p.includes('/') || p.includes('\\'))) p = path.join(env.workspaceFolder, p);
      else p = findOnPath(p, env.envPath, env.platform) ?? p; // a bare command name: look it up on PATH
    }
    if (isExecutableFile(p, env.platform)) return { ok: true, path: p, from: 'setting' };
    return {
      ok: false,
      message: `CWL MCP: the setting cwlMcp.server.path is "${env.configured}", but ${p} is not an executable file.`,
    };
  }
  const bundled = bundledBinary(env);
  if (fs.existsSync(bundled)) {
    // some unzip paths drop the executable bit of files inside a .vsix
    if (env.platform !== 'win32' && !isExecutableFile(bundled, env.platform)) {
      try { fs.chmodSync(bundled, 0o755); } catch { /* the next places are tried */ }
    }
    if (isExecutableFile(bundled, env.platform)) return { ok: true, path: bundled, from: 'bundled' };
  }
  const onPath = findOnPath(exe, env.envPath, env.platform);
  if (onPath) return { ok: true, path: onPath, from: 'PATH' };
  const cargo = cargoBin(env);
  if (cargo && isExecutableFile(cargo, env.platform)) return { ok: true, path: cargo, from: 'cargo' };
  return {
    ok: false,
    message:
      `CWL MCP: no cwl-mcp-lsp language server found. This build of the extension bundles none for ` +
      `${env.platform}-${env.arch}, there is no "${exe}" on PATH` +
      (cargo ? ` nor in ${path.dirname(cargo)}` : '') +
      `. Install it with \`${INSTALL_COMMAND}\` (or \`cargo install --locked --path .\` in a clone), ` +
      'or set "cwlMcp.server.path" to the binary.',
  };
}
