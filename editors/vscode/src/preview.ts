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

/** First words of the header above the last good Tool while the current text derives none. */
export const STALE_MARK = 'CWL MCP: OUT OF DATE';

/** The last good Tool kept, below a header that says why it is out of date (issue 9 item 8:
 *  the pane keeps it, visibly marked, so that typing does not make it flicker). */
function staleText(reason: string, lastGood: string): string {
  return `// ${STALE_MARK} (the last Tool derived; the current text derives none)\n${reason}\n`
    + '// (see the Problems panel; the Tool is shown again once the text derives one)\n' + lastGood;
}

export class PreviewProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];
  /** preview URI -> the text of the last Tool derived for it */
  private readonly lastGood = new Map<string, string>();

  /** the out-of-date header, drawn as a warning */
  private readonly staleDecoration = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('inputValidation.warningBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorWarning.foreground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
  });

  constructor(private readonly derive: () => Derive | undefined) {
    this.disposables.push(
      this.changed,
      this.staleDecoration,
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === PREVIEW_SCHEME) this.decorate(e.document);
        this.sourceChanged(e.document.uri);
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((ed) => this.decorate(ed.document))),
      vscode.workspace.onDidSaveTextDocument((d) => this.sourceChanged(d.uri)),
      vscode.workspace.onDidCloseTextDocument((d) => this.lastGood.delete(d.uri.toString())),
    );
  }

  /** Marks the out-of-date header of a preview in its visible editors (or unmarks it). */
  private decorate(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== PREVIEW_SCHEME) return;
    const ranges: vscode.Range[] = [];
    if (doc.lineCount > 0 && doc.lineAt(0).text.startsWith(`// ${STALE_MARK}`)) {
      for (let l = 0; l < doc.lineCount && doc.lineAt(l).text.startsWith('//'); l++) ranges.push(doc.lineAt(l).range);
    }
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document === doc) ed.setDecorations(this.staleDecoration, ranges);
    }
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
    const key = uri.toString();
    const last = this.lastGood.get(key);
    try {
      const value = await derive(source, processId);
      if (token.isCancellationRequested) return '';
      if (value === null || value === undefined) {
        return last ? staleText('// the server derived no MCP Tool for this document', last)
          : '// CWL MCP: the server derived no MCP Tool for this document (see the Problems panel).\n';
      }
      const text = formatTool(value);
      this.lastGood.set(key, text);
      return text;
    } catch (e) {
      return last ? staleText(errorText(e), last)
        : `// CWL MCP: no MCP Tool could be derived (see the Problems panel).\n${errorText(e)}\n`;
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
