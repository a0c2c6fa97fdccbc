// The read-only "derived MCP Tool" view: a TextDocumentContentProvider on the scheme
// `cwl-mcp-preview`, whose content is the JSON value that the server's `cwl-mcp.previewTool`
// command returns, refreshed while the CWL document is edited.
import * as path from 'node:path';
import * as vscode from 'vscode';

export const PREVIEW_SCHEME = 'cwl-mcp-preview';
export const SERVER_COMMAND = 'cwl-mcp.previewTool';

/** Runs `workspace/executeCommand` `cwl-mcp.previewTool` `[uri, processId]` on the server. */
export type Derive = (sourceUri: string, processId: string | null) => Promise<unknown>;

/** Tool fields in reading order first; everything else keeps the server's order. */
const FIRST = ['name', 'title', 'description', 'annotations', 'inputSchema', 'outputSchema', '_meta'];

export function formatTool(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'name' in value) {
    const obj = value as Record<string, unknown>;
    const ordered: Record<string, unknown> = {};
    for (const k of FIRST) if (k in obj) ordered[k] = obj[k];
    for (const k of Object.keys(obj)) if (!(k in ordered)) ordered[k] = obj[k];
    value = ordered;
  }
  return JSON.stringify(value, null, 2) + '\n';
}

export function previewUri(source: vscode.Uri, processId: string | null): vscode.Uri {
  const base = path.posix.basename(source.path) || 'untitled';
  return vscode.Uri.from({
    scheme: PREVIEW_SCHEME,
    path: `/${base} - MCP Tool${processId ? ` (${processId})` : ''}.json`,
    query: source.toString(),
    fragment: processId ?? '',
  });
}

function sourceOf(preview: vscode.Uri): { source: string; processId: string | null } {
  return { source: preview.query, processId: preview.fragment || null };
}

function errorText(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n').map((l) => `// ${l}`).join('\n');
}

export class PreviewProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly derive: () => Derive | undefined) {
    this.disposables.push(
      this.changed,
      vscode.workspace.onDidChangeTextDocument((e) => this.sourceChanged(e.document.uri)),
      vscode.workspace.onDidSaveTextDocument((d) => this.sourceChanged(d.uri)),
    );
  }

  /** Open previews (visible or in tabs) whose source is `uri`. */
  private previewsOf(uri: vscode.Uri): vscode.Uri[] {
    const src = uri.toString();
    return vscode.workspace.textDocuments
      .filter((d) => d.uri.scheme === PREVIEW_SCHEME && !d.isClosed && d.uri.query === src)
      .map((d) => d.uri);
  }

  private sourceChanged(uri: vscode.Uri): void {
    if (uri.scheme === PREVIEW_SCHEME) return;
    for (const p of this.previewsOf(uri)) {
      const key = p.toString();
      clearTimeout(this.timers.get(key));
      // the server coalesces edits itself; this only avoids one request per keystroke
      this.timers.set(key, setTimeout(() => { this.timers.delete(key); this.changed.fire(p); }, 250));
    }
  }

  /** Re-derive every open preview (after a server restart or a settings change). */
  refreshAll(): void {
    for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === PREVIEW_SCHEME) this.changed.fire(d.uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const { source, processId } = sourceOf(uri);
    const derive = this.derive();
    if (!derive) return '// CWL MCP: the cwl-mcp-lsp language server is not running (see the "CWL MCP" output).\n';
    try {
      const value = await derive(source, processId);
      if (token.isCancellationRequested) return '';
      if (value === null || value === undefined) {
        return '// CWL MCP: the server derived no MCP Tool for this document (see the Problems panel).\n';
      }
      return formatTool(value);
    } catch (e) {
      return `// CWL MCP: no MCP Tool could be derived (see the Problems panel).\n${errorText(e)}\n`;
    }
  }

  /** Opens (or reveals and refreshes) the preview of `source` beside the CWL editor. */
  async show(source: vscode.Uri, processId: string | null): Promise<vscode.TextEditor> {
    const uri = previewUri(source, processId);
    const already = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    let doc = await vscode.workspace.openTextDocument(uri);
    if (already) this.changed.fire(uri);
    // JSONC, so that a "// no Tool" explanation is not flagged as invalid JSON
    if (doc.languageId !== 'jsonc') doc = await vscode.languages.setTextDocumentLanguage(doc, 'jsonc');
    return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
