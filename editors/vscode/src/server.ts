// Finds the cwl-mcp-lsp binary for the extension: the settings and the extension's folder, handed
// to `discoverServer` (src/discover.ts), which says the order.
import * as vscode from 'vscode';
import { SECTION, explicitValue } from './settings';
import { discoverServer, type Resolved } from './discover';

export type { Resolved } from './discover';

export function resolveServer(context: vscode.ExtensionContext): Resolved {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return discoverServer({
    configured: explicitValue<string>(cfg, 'server.path'),
    extensionPath: context.extensionPath,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    platform: process.platform,
    arch: process.arch,
    envPath: process.env.PATH ?? '',
    home: process.env.HOME || process.env.USERPROFILE,
    cargoHome: process.env.CARGO_HOME,
  });
}
