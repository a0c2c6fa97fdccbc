// Drives a running code-server with the cwl-mcp .vsix installed (see e2e.sh), through Debian's
// Chromium and playwright-core, as a person would: opens FILE from the workspace and checks
//   language  - the file opens as language CWL, highlighted (several token colours)
//   problems  - the server's diagnostics reach the status bar and the Problems panel
//               (a `namespace-unbound` diagnostic of source cwl-mcp on `agent:Tool`)
//   hover     - hover on `readOnlyHint` shows text containing "default"
//   completion- Ctrl+Space on a new line inside `mcp:Tool` offers `useWhen`
//   preview   - "CWL MCP: Preview derived MCP Tool" opens JSON beside the CWL with
//               "name": "echo_region"
//   settings  - the workspace's cwlMcp.metaPrefix names the preview's `_meta` aliases key
//   refresh   - editing `id:` to echo-region2 refreshes the preview to "echo_region2"
//   settings-change - rewriting .vscode/settings.json re-derives the preview with the new prefix
//   yaml-mode - switched to language YAML, the *.cwl file is still served (hover)
// Env: NODE_PATH (holding playwright-core), CS_URL, FILE (name in the workspace), FIXTURE (its
// path on disk, to find positions), OUT (screenshots, result.json). Exit 1 if any check failed.
import { createRequire } from 'node:module';
import fs from 'node:fs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const url = process.env.CS_URL || 'http://127.0.0.1:18080';
const file = process.env.FILE || 'broken-hint.cwl';
const fixture = fs.readFileSync(process.env.FIXTURE || file, 'utf8').split('\n');
const out = process.env.OUT || 'target/editor-e2e/vscode';
const expectedName = process.env.EXPECT_NAME || 'echo_region';
fs.mkdirSync(out, { recursive: true });

const res = { url, file, t_ms: {}, checks: {} };
const t0 = Date.now();
const mark = (k) => { res.t_ms[k] = Date.now() - t0; };
const check = (name, ok, detail) => {
  res.checks[name] = { ok: !!ok, detail };
  const d = (typeof detail === 'string' ? detail : JSON.stringify(detail)).replace(/\s+/g, ' ');
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${d}`.slice(0, 400));
};
const nbsp = (s) => (s || '').replace(/\u00a0/g, ' ');
/** 1-based line of the first fixture line matching re. */
const lineOf = (re) => { const i = fixture.findIndex((l) => re.test(l)); if (i < 0) throw new Error(`fixture has no ${re}`); return i + 1; };

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
let page;
async function shot(name) { await page.screenshot({ path: `${out}/${name}.png` }).catch(() => {}); }
async function goTo(line, col) {
  await page.keyboard.press('Control+G');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 10000 });
  await page.keyboard.type(`${line}:${col}`);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}
async function poll(fn, ms, step = 200) {
  const end = Date.now() + ms;
  let v;
  while (Date.now() < end) {
    v = await fn().catch(() => undefined);
    if (v) return v;
    await page.waitForTimeout(step);
  }
  return v;
}
const groupText = (i) => page.locator('.editor-group-container').nth(i).locator('.view-lines').first().innerText().then(nbsp);
// Quick Open the file; the file index may still be loading, so wait for the row, and retry
async function openFile() {
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 15000 });
    await page.keyboard.type(file);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first()
      .waitFor({ timeout: 15000 }).catch(() => {});
    await page.keyboard.press('Enter');
    if (await page.locator('.editor-group-container .monaco-editor .view-lines').first()
      .waitFor({ timeout: 10000 }).then(() => true, () => false)) return;
  }
  throw new Error(`could not open ${file} with Quick Open`);
}
async function palette(command) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 10000 });
  await page.keyboard.type(command);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first()
    .waitFor({ timeout: 10000 }).catch(() => {});
  await page.keyboard.press('Enter');
}

try {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') (res.console_errors ??= []).push(m.text().slice(0, 200)); });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForTimeout(1500);
  mark('workbench');

  await openFile();
  mark('editor_open');

  // language and highlighting
  const mode = await poll(async () => nbsp(await page.locator('#status\\.editor\\.mode').innerText()).trim(), 10000);
  // tokenization is asynchronous: wait for the YAML grammar's colours (one colour = plain text)
  const tokenColours = () => page.locator('.editor-group-container').first().locator('.view-lines span[class*="mtk"]')
    .evaluateAll((els) => [...new Set(els.map((e) => [...e.classList].find((c) => /^mtk\d+$/.test(c))))].filter(Boolean));
  const colours = await poll(async () => { const c = await tokenColours(); return c.length >= 3 ? c : undefined; }, 10000)
    || (await tokenColours().catch(() => []));
  check('language', mode === 'CWL' && colours.length >= 3, { languageMode: mode, tokenColours: colours.length });

  // diagnostics: status bar count, then the Problems panel
  const problems = page.locator('#status\\.problems');
  const label = await poll(async () => {
    const l = (await problems.getAttribute('aria-label')) || '';
    return (l.match(/\d+/g) || []).some((n) => Number(n) > 0) ? l : undefined;
  }, 30000) || (await problems.getAttribute('aria-label').catch(() => ''));
  mark('diagnostics');
  res.problems_label = label;
  await shot('01-opened');
  await page.keyboard.press('Control+Shift+M');
  const rows = await poll(async () => {
    const r = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    return r.some((t) => /namespace-unbound/.test(t)) ? r : undefined;
  }, 10000) || (await page.locator('.markers-panel .monaco-list-row').allInnerTexts().catch(() => []));
  res.problems_panel = rows.map(nbsp).slice(0, 12);
  check('problems', /[1-9]/.test(label || '') && res.problems_panel.some((t) => /cwl-mcp/.test(t) && /namespace-unbound/.test(t)),
    { status: label, panel: res.problems_panel });
  await shot('02-problems');
  await page.keyboard.press('Control+J'); // hide the panel again
  await page.keyboard.press('Control+1');  // back to the CWL editor

  // hover on readOnlyHint of the mcp:Tool hint
  const hoverLine = lineOf(/^\s+readOnlyHint:/);
  const hoverCol = fixture[hoverLine - 1].indexOf('readOnlyHint') + 3;
  await goTo(hoverLine, hoverCol);
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = page.locator('.monaco-hover:not(.hidden) .hover-contents, .monaco-hover-content .hover-contents').first();
  res.hover = nbsp(await hover.innerText({ timeout: 10000 }).catch((e) => `NO HOVER: ${e.message.split('\n')[0]}`));
  mark('hover');
  check('hover', /default/i.test(res.hover) && !/^NO HOVER/.test(res.hover), res.hover.slice(0, 300));
  await shot('03-hover');
  await page.keyboard.press('Escape');

  // completion on a new line inside mcp:Tool (after `    title: ...`)
  const titleLine = lineOf(/^ {4}title:/);
  await goTo(titleLine, fixture[titleLine - 1].length + 1);
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  await page.keyboard.press('Control+Space');
  const items = page.locator('.suggest-widget .monaco-list-row');
  const labels = await poll(async () => {
    const t = (await items.allInnerTexts()).map(nbsp);
    return t.some((x) => /\buseWhen\b/.test(x)) ? t : undefined;
  }, 10000) || (await items.allInnerTexts().catch(() => [])).map(nbsp);
  res.completion = labels.map((x) => x.split('\n')[0]);
  mark('completion');
  check('completion', res.completion.some((x) => /\buseWhen\b/.test(x)), res.completion);
  await shot('04-completion');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Z');
  await page.waitForTimeout(200);

  // the preview button in the editor title of the CWL editor
  const titleButton = page.locator('.editor-group-container').first()
    .locator('.editor-actions .action-label[aria-label*="Preview derived MCP Tool"]');
  check('title-button', await titleButton.count().catch(() => 0) > 0,
    await titleButton.first().getAttribute('aria-label').catch(() => 'no such button'));

  // the preview command, from the command palette
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 10000 });
  await page.keyboard.type('CWL MCP: Preview derived MCP Tool');
  await page.waitForTimeout(800);
  res.palette = nbsp(await page.locator('.quick-input-list .monaco-list-row').first().innerText().catch(() => ''));
  await page.keyboard.press('Enter');
  const previewText = await poll(async () => {
    if ((await page.locator('.editor-group-container').count()) < 2) return undefined;
    const t = await groupText(1);
    return /"name"/.test(t) || /\/\/ CWL MCP/.test(t) ? t : undefined;
  }, 20000) || '';
  res.preview = previewText.slice(0, 1500);
  res.preview_tab = nbsp(await page.locator('.editor-group-container').nth(1).locator('.tab.active').innerText().catch(() => ''));
  mark('preview');
  check('preview', previewText.includes(`"name": "${expectedName}"`) && /"inputSchema"/.test(previewText),
    { tab: res.preview_tab, text: previewText.slice(0, 300) });
  await shot('05-preview');

  // settings: the workspace sets cwlMcp.metaPrefix, which names the aliases' `_meta` key
  const metaKey = `"${process.env.EXPECT_META_PREFIX || 'org.example/e2e'}-aliases"`;
  check('settings', previewText.includes(metaKey), { want: metaKey });

  if (res.checks.preview.ok) {
    // refresh: edit the id in the CWL editor, the preview follows
    await page.keyboard.press('Control+1');
    const idLine = lineOf(/^id:/);
    await goTo(idLine, fixture[idLine - 1].length + 1);
    await page.keyboard.press('End');
    await page.keyboard.type('2');
    const refreshed = await poll(async () => {
      const t = await groupText(1);
      return t.includes(`"name": "${expectedName}2"`) ? t : undefined;
    }, 15000) || (await groupText(1).catch(() => ''));
    mark('refresh');
    check('refresh', refreshed.includes(`"name": "${expectedName}2"`), refreshed.slice(0, 200));
    await shot('06-preview-refreshed');

    // a settings change (the workspace's settings.json rewritten on disk) reaches the server through
    // workspace/didChangeConfiguration, and the open preview is derived again
    const wsSettings = `${process.env.FIXTURE.replace(/[^/]+$/, '')}.vscode/settings.json`;
    fs.writeFileSync(wsSettings, '{ "cwlMcp.metaPrefix": "org.example/changed" }\n');
    const changed = await poll(async () => {
      const t = await groupText(1);
      return t.includes('"org.example/changed-aliases"') ? t : undefined;
    }, 15000) || (await groupText(1).catch(() => ''));
    mark('settings_change');
    check('settings-change', changed.includes('"org.example/changed-aliases"'), changed.slice(-200));
    await shot('07-settings-changed');
  } else {
    check('refresh', false, 'skipped: no preview');
    check('settings-change', false, 'skipped: no preview');
    // still change the setting, for the on-the-wire check in e2e.sh
    fs.writeFileSync(`${process.env.FIXTURE.replace(/[^/]+$/, '')}.vscode/settings.json`,
      '{ "cwlMcp.metaPrefix": "org.example/changed" }\n');
    await page.waitForTimeout(2000);
  }

  // the same file as language YAML (Change Language Mode) is still served: hover comes back
  await page.keyboard.press('Control+1');
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { timeout: 10000 });
  await page.keyboard.type('Change Language Mode');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Change Language Mode' }).first()
    .waitFor({ timeout: 10000 }).catch(() => {});
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
  await page.keyboard.type('YAML');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: /^YAML/ }).first()
    .waitFor({ timeout: 10000 }).catch(() => {});
  await page.keyboard.press('Enter');
  const yamlMode = await poll(async () => {
    const m = nbsp(await page.locator('#status\\.editor\\.mode').innerText()).trim();
    return m === 'YAML' ? m : undefined;
  }, 10000);
  let yamlHover = '';
  for (let attempt = 0; attempt < 5 && !/default/i.test(yamlHover); attempt++) {
    await page.waitForTimeout(500);
    await goTo(hoverLine, hoverCol);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    yamlHover = nbsp(await hover.innerText({ timeout: 3000 }).catch(() => ''));
    await page.keyboard.press('Escape');
  }
  mark('yaml_mode');
  check('yaml-mode', yamlMode === 'YAML' && /default/i.test(yamlHover), { languageMode: yamlMode, hover: yamlHover.slice(0, 120) });
  await shot('08-as-yaml');

  // the server's code action "Preview derived MCP Tool" (command cwl-mcp.previewTool) opens the
  // same preview: the extension's executeCommand middleware handles it
  await palette('View: Close All Editors');
  await page.waitForTimeout(500);
  await openFile();
  await goTo(titleLine, 6);
  await page.keyboard.press('Control+.');
  const action = page.locator('.action-widget .monaco-list-row', { hasText: 'Preview derived MCP Tool' }).first();
  const offered = await action.waitFor({ timeout: 10000 }).then(() => true, () => false);
  res.code_actions = (await page.locator('.action-widget .monaco-list-row').allInnerTexts().catch(() => [])).map(nbsp);
  let viaAction = '';
  if (offered) {
    // the first action is focused; pick it from the keyboard, as a person would (a click on the
    // row is not delivered reliably to this widget)
    for (let i = 0; i < 5; i++) {
      const focused = nbsp(await page.locator('.action-widget .monaco-list-row.focused').innerText().catch(() => ''));
      if (/Preview derived MCP Tool/.test(focused)) break;
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Enter');
    viaAction = await poll(async () => {
      if ((await page.locator('.editor-group-container').count()) < 2) return undefined;
      const t = await groupText(1);
      return /"name"/.test(t) ? t : undefined;
    }, 15000) || '';
  } else {
    await page.keyboard.press('Escape');
  }
  mark('code_action');
  check('code-action', offered && viaAction.includes('"name": '), { offered: res.code_actions, preview: viaAction.slice(0, 80) });
  await shot('08b-code-action-preview');

  res.notifications = (await page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts().catch(() => [])).map(nbsp);
} catch (e) {
  res.error = String(e && e.stack || e);
  check('no-exception', false, res.error.split('\n')[0]);
  await shot('99-error');
} finally {
  await browser.close();
}
fs.writeFileSync(`${out}/result.json`, JSON.stringify(res, null, 1));
const all = Object.values(res.checks);
const failed = all.filter((c) => !c.ok).length;
const want = ['language', 'problems', 'hover', 'completion', 'preview', 'settings', 'refresh', 'settings-change', 'yaml-mode', 'title-button', 'code-action'];
const missing = want.filter((k) => !(k in res.checks));
console.log(`timings (ms since start): ${JSON.stringify(res.t_ms)}`);
console.log(`browser checks: ${all.length - failed} passed, ${failed + missing.length} failed (missing: ${missing.join(', ') || 'none'})`);
process.exit(failed + missing.length === 0 ? 0 : 1);
