// The settings sent to the server: only those the user set explicitly (SPEC §1: the editor layer
// sits above `cwl-mcp.toml`, so sending our own defaults would hide the project's file).
import * as vscode from 'vscode';

export const SECTION = 'cwlMcp';

/** Keys of the `cwlMcp` section that the server reads (server.path and trace.server stay client-side). */
export const SERVER_KEYS = ['profile', 'metaPrefix', 'protocolVersion', 'inlayHints', 'agentContext', 'cwl2mcpHints', 'clientInterop', 'clientNames'] as const;
export type ServerKey = (typeof SERVER_KEYS)[number];
export type ServerSettings = Partial<Record<ServerKey, unknown>>;

/** The value the user set for `key` in any settings scope, or undefined when only the default applies. */
export function explicitValue<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  if (!i) return undefined;
  // most specific scope first, as VS Code resolves them
  const v = i.workspaceFolderLanguageValue ?? i.workspaceFolderValue ?? i.workspaceLanguageValue ??
    i.workspaceValue ?? i.globalLanguageValue ?? i.globalValue;
  // an emptied text box in the Settings UI stores "": treat it as unset
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return undefined;
  return v;
}

/** `{profile?, metaPrefix?, protocolVersion?, inlayHints?, agentContext?, cwl2mcpHints?, clientInterop?, clientNames?}` with the explicitly set values only. */
export function serverSettings(scope?: vscode.ConfigurationScope): ServerSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION, scope);
  const out: ServerSettings = {};
  for (const k of SERVER_KEYS) {
    const v = explicitValue<unknown>(cfg, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
