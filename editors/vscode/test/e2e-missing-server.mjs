// Second, short phase of e2e.sh: the extension installed without a bundled server, no
// cwlMcp.server.path, no cwl-mcp-lsp on PATH nor in $CARGO_HOME/bin. Opening a CWL file must show a clear error
// notification (not fail silently). Env: NODE_PATH, CS_URL, FILE, OUT. Writes OUT/result-missing-server.json.
import { createRequire } from 'node:module';
import fs from 'node:fs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const url = process.env.CS_URL;
const file = process.env.FILE || 'broken-hint.cwl';
const out = process.env.OUT || 'target/editor-e2e/vscode';
const res = { checks: {} };
const nbsp = (s) => (s || '').replace(/\u00a0/g, ' ');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
let text = '';
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForTimeout(1500);
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 15000 });
    await page.keyboard.type(file);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first().waitFor({ timeout: 15000 }).catch(() => {});
    await page.keyboard.press('Enter');
    if (await page.locator('.editor-group-container .monaco-editor .view-lines').first()
      .waitFor({ timeout: 10000 }).then(() => true, () => false)) break;
  }
  const toasts = page.locator('.notifications-toasts .notification-list-item-message');
  for (let i = 0; i < 100 && !/no cwl-mcp-lsp language server found/.test(text); i++) {
    text = nbsp((await toasts.allInnerTexts().catch(() => [])).join('\n'));
    await page.waitForTimeout(200);
  }
  await page.screenshot({ path: `${out}/09-missing-server.png` });
} catch (e) {
  text += `\nexception: ${String(e).split('\n')[0]}`;
} finally {
  await browser.close();
}
// the message names the setting and the install command (src/discover.ts)
const ok = /no cwl-mcp-lsp language server found/.test(text) && /cwlMcp\.server\.path/.test(text) &&
  /cargo install --locked/.test(text);
res.checks['missing-server'] = { ok, detail: text.slice(0, 400) };
console.log(`${ok ? 'ok  ' : 'FAIL'} missing-server: ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
fs.writeFileSync(`${out}/result-missing-server.json`, JSON.stringify(res, null, 1));
process.exit(ok ? 0 : 1);
