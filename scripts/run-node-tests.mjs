// Runs node's built-in test runner over the compiled tests (Node 20 has no --test globs).
// unit: *.test.js beside their code under dist/structs, dist/electron and dist/renderer (pure modules).
// integration: dist/test/**/*.test.js (real .NET processes, real Chromium, real go tool pprof).
import { readdirSync, statSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const kind = process.argv[2] ?? 'unit';
const roots = kind === 'integration' ? ['dist/test'] : ['dist/structs', 'dist/electron', 'dist/renderer'];
const files = [];
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js')) files.push(p);
  }
};
roots.forEach(walk);
files.sort();
if (files.length === 0) {
  console.error(`no ${kind} tests found under ${roots.join(', ')}; run npm run build first`);
  process.exit(1);
}
const extra = process.argv.slice(3);
const concurrency = kind === 'integration' ? ['--test-concurrency=1'] : [];
// A cache folder of the run's own: recordings of runs the tests kill on purpose stay in its spool,
// not in the user's ~/.cache/clrscope. Not named clrscope-*: clrscope sweeps such temp folders.
const cache = process.env.XDG_CACHE_HOME === undefined ? mkdtempSync(join(tmpdir(), 'ctest-cache-')) : undefined;
const env = cache === undefined ? process.env : { ...process.env, XDG_CACHE_HOME: cache };
const r = spawnSync(process.execPath, ['--enable-source-maps', '--test', ...concurrency, '--test-reporter=spec', ...extra, ...files], { stdio: 'inherit', env });
if (cache !== undefined) rmSync(cache, { recursive: true, force: true });
process.exit(r.status ?? 1);
