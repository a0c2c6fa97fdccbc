// VS Code client of cwl-mcp-lsp (SPEC §7): starts the server for CWL documents (language `cwl`,
// and YAML documents named *.cwl), sends only the settings the user set, and shows the derived
// MCP Tool in a read-only JSON editor beside the CWL.
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { PREVIEW_SCHEME, PreviewProvider, SERVER_COMMAND } from './preview';
import { resolveServer } from './server';
import { SECTION, serverSettings } from './settings';

let client: LanguageClient | undefined;
let preview: PreviewProvider | undefined;
let output: vscode.LogOutputChannel | undefined;

const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'cwl' },
  { scheme: 'untitled', language: 'cwl' },
  { scheme: 'file', language: 'yaml', pattern: '**/*.cwl' },
];

function isCwlDocument(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'cwl' || doc.uri.path.toLowerCase().endsWith('.cwl');
}

async function deriveOnServer(source: string, processId: string | null): Promise<unknown> {
  if (!client || client.state !== State.Running) throw new Error('the cwl-mcp-lsp language server is not running');
  return client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMAND, arguments: [source, processId] });
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const resolved = resolveServer(context);
  if (!resolved.ok) {
    output?.appendLine(resolved.message);
    // not awaited: activation must not wait for the user to dismiss the message
    void vscode.window.showErrorMessage(resolved.message, 'Open Settings').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'cwlMcp.server.path');
      }
    });
    return;
  }
  output?.appendLine(`Starting ${resolved.path} (from ${resolved.from})`);
  const serverOptions: ServerOptions = {
    command: resolved.path,
    // TransportKind.stdio makes the client append `--stdio`, which the server accepts (SPEC §1)
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: () => ({ [SECTION]: serverSettings() }),
    middleware: {
      workspace: {
        // answer `workspace/configuration` for our section with the explicit settings only
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return params.items.map((item, i) => {
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            if (item.section === SECTION) return serverSettings(scope);
            if (item.section?.startsWith(`${SECTION}.`)) {
              // one key: its explicit value, else null (never VS Code's default)
              return (serverSettings(scope) as Record<string, unknown>)[item.section.slice(SECTION.length + 1)] ?? null;
            }
            if (item.section === undefined || item.section === null) return { [SECTION]: serverSettings(scope) };
            return result[i];
          });
        },
      },
      // the server's own "Preview derived MCP Tool" code action opens the same view
      executeCommand: async (command, args, next) => {
        if (command === SERVER_COMMAND && preview && typeof args[0] === 'string') {
          await preview.show(vscode.Uri.parse(args[0]), typeof args[1] === 'string' ? args[1] : null);
          return undefined;
        }
        return next(command, args);
      },
    },
  };
  client = new LanguageClient('cwlMcp', 'CWL MCP', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (e) {
    const msg = `CWL MCP: could not start ${resolved.path}: ${e instanceof Error ? e.message : String(e)}`;
    output?.appendLine(msg);
    void vscode.window.showErrorMessage(msg);
    return;
  }
  preview?.refreshAll();
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try { await c.stop(); } catch { /* already dead */ }
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('CWL MCP', { log: true });
  preview = new PreviewProvider(() => (client ? deriveOnServer : undefined));
  context.subscriptions.push(
    output,
    preview,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, preview),
    vscode.commands.registerCommand('cwlMcp.previewTool', async (arg?: vscode.Uri) => {
      const doc = arg instanceof vscode.Uri
        ? await vscode.workspace.openTextDocument(arg)
        : vscode.window.activeTextEditor?.document;
      if (!doc || !isCwlDocument(doc)) {
        void vscode.window.showWarningMessage('CWL MCP: open a CWL document (*.cwl) to preview its MCP Tool.');
        return;
      }
      if (!client) await startClient(context);
      if (!client) return;
      await preview!.show(doc.uri, null);
    }),
    vscode.commands.registerCommand('cwlMcp.restartServer', async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      if (e.affectsConfiguration(`${SECTION}.server.path`)) {
        await stopClient();
        await startClient(context);
        return;
      }
      if (client && client.state === State.Running) {
        // the whole editor layer each time: keys the user removed are absent, so the server
        // falls back to cwl-mcp.toml / its defaults for them
        await client.sendNotification('workspace/didChangeConfiguration', { settings: { [SECTION]: serverSettings() } });
        preview?.refreshAll();
      }
    }),
  );
  // activation also happens for every YAML file: start the server only once a CWL document is open
  let starting: Promise<void> | undefined;
  const ensureStarted = (doc: vscode.TextDocument) => {
    if (!starting && isCwlDocument(doc) && doc.uri.scheme !== PREVIEW_SCHEME) starting = startClient(context);
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(ensureStarted));
  vscode.workspace.textDocuments.forEach(ensureStarted);
  await starting;
}

export function deactivate(): Thenable<void> | undefined {
  return stopClient();
}
