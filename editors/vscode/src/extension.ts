// VS Code client of cwl-mcp-lsp (SPEC §7): starts the server for CWL documents (language `cwl`,
// and YAML documents named *.cwl), sends only the settings the user set, and shows the derived
// MCP Tool in a read-only JSON editor beside the CWL.
import * as vscode from 'vscode';
import { spawn } from 'node:child_process';
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { PREVIEW_SCHEME, PreviewProvider, SERVER_COMMAND } from './preview';
import { resolveServer } from './server';
import { SECTION, serverSettings } from './settings';

let client: LanguageClient | undefined;
let preview: PreviewProvider | undefined;
let output: vscode.LogOutputChannel | undefined;
// per server process: its last stderr lines and how it ended, for the message shown when it exits
// unexpectedly; `stopping` once the extension itself stops it (restart, setting change, deactivate)
const STDERR_LINES = 8;
interface Run { stderr: string[]; exit: string; stopping: boolean }
let run: Run | undefined;

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
  // spawned here rather than by the client, to keep the last lines of stderr (also copied to the
  // output channel) and the exit status for the message shown when the server dies
  const serverPath = resolved.path;
  const thisRun: Run = { stderr: [], exit: '', stopping: false };
  run = thisRun;
  const serverOptions: ServerOptions = async () => {
    thisRun.stderr = [];
    thisRun.exit = '';
    const child = spawn(serverPath, ['--stdio'], { stdio: 'pipe' });
    let partial = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      const lines = (partial + chunk).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const l of lines) {
        output?.appendLine(`[stderr] ${l}`);
        thisRun.stderr.push(l);
      }
      thisRun.stderr = thisRun.stderr.slice(-STDERR_LINES);
    });
    child.on('exit', (code, signal) => {
      if (partial) { thisRun.stderr = [...thisRun.stderr, partial].slice(-STDERR_LINES); partial = ''; }
      thisRun.exit = signal ? `signal ${signal}` : `exit code ${code}`;
    });
    return child;
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: () => ({ [SECTION]: serverSettings() }),
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        if (!thisRun.stopping) void reportExit(thisRun);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
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

/** The server exited without being asked to: say so, with its last stderr lines and a restart. */
async function reportExit(r: Run): Promise<void> {
  // the exit event may come just after the connection closes
  for (let i = 0; i < 20 && !r.exit; i++) await new Promise((res) => setTimeout(res, 50));
  if (r.stopping) return;
  const tail = r.stderr.filter((l) => l.trim() !== '');
  const msg = `CWL MCP: the cwl-mcp-lsp language server exited unexpectedly (${r.exit || 'connection closed'}). `
    + (tail.length ? `Last lines on its stderr: ${tail.join(' \u23CE ')}` : 'It wrote nothing on stderr.');
  output?.appendLine(msg);
  const choice = await vscode.window.showErrorMessage(msg, 'Restart', 'Show Output');
  if (choice === 'Restart') await vscode.commands.executeCommand('cwlMcp.restartServer');
  else if (choice === 'Show Output') output?.show(true);
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (run) run.stopping = true;
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
