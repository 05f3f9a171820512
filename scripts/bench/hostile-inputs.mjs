// Hostile recording files through `clrscope convert` (to pprof), `clrscope report` and the
// workstation's "Open recording…": each must be read or refused with one sentence within 5 s
// and 500 MB of peak memory (issues 10 and 23). The files are the worst shapes of each format
// at sizes up to 100 MB (test/integration/support/hostile-corpus.ts), written one at a time
// and deleted after their runs. Each run is a process of its own, measured from outside: wall
// time, and peak RSS through /usr/bin/time (which sees a run killed at the time limit too;
// without it, the run's own getrusage).
// Run after `npm run build`:
//   node scripts/bench/hostile-inputs.mjs [--only speedscope,pprof] [--how convert,report,open] [--limit 60] [--keep DIR]
// --root DIR measures another checkout's dist/ (a build of the code before a change) with this
// script's files. Prints a table and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    run: { type: 'string' },
    file: { type: 'string' },
    only: { type: 'string' },
    how: { type: 'string', default: 'convert,report,open' },
    limit: { type: 'string', default: '60' },
    keep: { type: 'string' },
    root: { type: 'string', default: join(here, '..', '..') },
  },
});
const root = resolve(values.root);
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;

// One measurement in this process: `--run convert|report|open --file FILE`.
if (values.run !== undefined) {
  const file = values.file;
  const how = values.run;
  let sentence = '';
  let code = 0;
  if (how === 'convert' || how === 'report') {
    const { main } = await import(dist('electron/cli/main.js'));
    const lines = [];
    const [err, out] = [process.stderr.write, process.stdout.write];
    // The CLI's own words, kept for the table (its report on stdout is left out).
    process.stderr.write = (text) => { lines.push(String(text)); return true; };
    process.stdout.write = () => true;
    code = await main(how === 'convert' ? ['convert', file, '-o', `${file}.out.pb.gz`] : ['report', file]);
    [process.stderr.write, process.stdout.write] = [err, out];
    sentence = lines.join('').trim().split('\n').pop() ?? '';
    if (code === 0) sentence = how === 'convert' ? 'converted' : 'reported';
  } else {
    const { createWorkstationService } = await import(dist('electron/services/workstation/workstation-service.js'));
    const ws = createWorkstationService({ exportsDir: dirname(file), listProcesses: async () => [] });
    try {
      await ws.openRecording({ path: file });
      sentence = 'opened';
    } catch (err) {
      sentence = `${err.name}: ${err.message}`;
      code = 1;
    }
    await ws.shutdown();
  }
  console.log(JSON.stringify({ code, sentence, ownPeakMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

if (!existsSync(join(root, 'dist', 'electron', 'cli', 'main.js'))) {
  console.error(`${root}/dist/ is missing or stale; run npm run build first.`);
  process.exit(1);
}
const corpus = await import(pathToFileURL(join(here, '..', '..', 'dist', 'test', 'integration', 'support', 'hostile-corpus.js')).href);
const only = values.only?.split(',');
const hows = values.how.split(',');
const limit = Number(values.limit);
const timed = existsSync('/usr/bin/time');
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'clrscope-hostile-'));
mkdirSync(dir, { recursive: true });

function measure(how, path) {
  const node = [process.execPath, fileURLToPath(import.meta.url), '--root', root, '--run', how, '--file', path];
  const started = performance.now();
  const r = timed
    ? spawnSync('/usr/bin/time', ['-f', 'BENCH-TIME %e %M', 'timeout', '-s', 'KILL', String(limit), ...node], { encoding: 'utf8', maxBuffer: 64 << 20 })
    : spawnSync(node[0], node.slice(1), { encoding: 'utf8', timeout: limit * 1000, maxBuffer: 64 << 20 });
  const seconds = (performance.now() - started) / 1000;
  let m;
  try {
    m = JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    m = { code: null, sentence: seconds >= limit ? `still running at ${limit} s (killed)` : `crashed: ${r.stderr.split('\n').slice(0, 3).join(' ')}` };
  }
  const timeLine = r.stderr.split('\n').find((l) => l.startsWith('BENCH-TIME '));
  const peakMiB = timeLine !== undefined ? Number(timeLine.split(' ')[2]) / 1024 : m.ownPeakMiB ?? Number.NaN;
  return { seconds, peakMiB, code: m.code, sentence: m.sentence };
}

const rows = [];
try {
  for (const shape of corpus.ALL_SHAPES) {
    if (only !== undefined && !only.some((o) => shape.name.includes(o))) continue;
    const f = shape.make(dir);
    for (const how of hows) {
      const m = measure(how, f.path);
      const row = { file: f.name, inputMB: f.bytes / 1e6, how, ...m, ok: m.seconds < 5 && m.peakMiB < 500 && m.code !== null };
      rows.push(row);
      console.log(`${row.ok ? 'ok  ' : 'FAIL'} ${how.padEnd(7)} ${f.name.padEnd(58)} ${row.inputMB.toFixed(1).padStart(6)} MB  ${m.seconds.toFixed(2).padStart(6)} s  ${m.peakMiB.toFixed(0).padStart(5)} MiB  ${m.sentence.slice(0, 220)}`);
      rmSync(`${f.path}.out.pb.gz`, { force: true });
    }
    if (values.keep === undefined) rmSync(f.path, { force: true });
  }
} finally {
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: 'hostile-inputs', root, limitSeconds: limit, rows }));
