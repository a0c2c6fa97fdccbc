// editors/vscode/README.md (the marketplace page) against package.json: its settings table lists
// exactly the contributed settings with their values (enum or type) and
// defaults; its commands table lists exactly the contributed commands, with their titles; every
// image it shows exists, is a PNG and is small (< 150 kB). Prints `ok`/`FAIL` lines; exit 1 on a failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(ext, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));
let failed = 0;
const check = (name, ok, detail) => {
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${JSON.stringify(detail)}`);
};
/** rows of the markdown table under the heading `## title` */
function table(title) {
  const at = readme.indexOf(`\n## ${title}\n`);
  if (at < 0) return [];
  const lines = readme.slice(at + 1).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  if (first < 0) return [];
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  return lines.slice(first + 2, end < 0 ? undefined : end).map((l) => l.replace(/\\\|/g, '\u0000').split('|').slice(1, -1)
    .map((c) => c.trim().replace(/\u0000/g, '|')));
}
const code = (v) => `\`${typeof v === 'string' ? (v === '' ? '""' : v) : JSON.stringify(v)}\``;

const props = pkg.contributes.configuration.properties;
const want = Object.entries(props).map(([k, p]) => ({
  key: `\`${k}\``,
  values: p.enum ? p.enum.map((e) => `\`${e}\``).join(' | ') : p.type,
  default: code(p.default),
}));
const got = table('Settings').map(([key, values, def]) => ({ key, values, default: (def || '').split(' ')[0] }));
// the README's order is the reader's (server settings first); compare as sorted lists
const byKey = (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
got.sort(byKey);
want.sort(byKey);
check('readme-settings', JSON.stringify(got) === JSON.stringify(want),
  { readme: got.map((r) => `${r.key} ${r.values} ${r.default}`), package_json: want.map((r) => `${r.key} ${r.values} ${r.default}`) });

const cmds = pkg.contributes.commands.map((c) => `**${c.category}: ${c.title}** (\`${c.command}\`)`);
const gotCmds = table('Commands').map(([c]) => c);
check('readme-commands', JSON.stringify(gotCmds) === JSON.stringify(cmds), { readme: gotCmds, package_json: cmds });

const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
const bad = images.filter((i) => {
  const p = path.join(ext, i);
  if (!fs.existsSync(p)) return true;
  const b = fs.readFileSync(p);
  return b.length > 150_000 || b.subarray(1, 4).toString() !== 'PNG';
});
check('readme-images', images.length >= 3 && bad.length === 0, { images, missing_or_large: bad });
process.exit(failed ? 1 : 0);
