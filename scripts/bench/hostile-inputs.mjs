// Hostile recording files (test/integration/support/hostile-files.ts) through `clrscope
// convert` and the workstation's "Open recording…": each must end in one sentence within 5 s
// and 500 MB of peak memory (issue 10). Each run is its own process, so its peak RSS is its own.
// Run after `npm run build`:
//   node scripts/bench/hostile-inputs.mjs [--keep]
// Prints a table and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'test', 'integration', 'support', 'hostile-files.js'))) {
  console.error('dist/ is missing or stale; run npm run build first.');
  process.exit(1);
}

// One measurement in this process: `--run convert|open FILE`.
const runAt = process.argv.indexOf('--run');
if (runAt > 0) {
  const [how, file] = process.argv.slice(runAt + 1);
  const started = process.hrtime.bigint();
  let sentence = '';
  if (how === 'convert') {
    const { runConvert } = await import(dist('electron/cli/convert-command.js'));
    const lines = [];
    try {
      await runConvert([file, '-o', `${file}.out.pb.gz`], { out: (l) => lines.push(l), err: (l) => lines.push(l), progress: () => undefined, isTty: false });
      sentence = lines.join(' ');
    } catch (err) {
      sentence = `${err.name}: ${err.message}`;
    }
  } else {
    const { createWorkstation } = await import(dist('electron/services/workstation/workstation.js'));
    const ws = createWorkstation({ exportsDir: dirname(file) });
    try {
      await ws.openRecording({ path: file });
      sentence = 'opened';
    } catch (err) {
      sentence = `${err.name}: ${err.message}`;
    }
    await ws.shutdown();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ seconds, peakMiB: process.resourceUsage().maxRSS / 1024, sentence }));
  process.exit(0);
}

const hostile = await import(dist('test/integration/support/hostile-files.js'));
const dir = mkdtempSync(join(tmpdir(), 'clrscope-hostile-'));
const files = [hostile.speedscopeNestedOpens(), hostile.pprofGzipBomb(), hostile.pprofGzipBomb(7.5), hostile.pprofCountBomb(), hostile.nettraceLargeBlock()];
const rows = [];
try {
  for (const f of files) {
    const path = join(dir, `input${f.ext}`);
    writeFileSync(path, f.bytes);
    for (const how of ['convert', 'open']) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--run', how, path], { encoding: 'utf8', timeout: 120_000 });
      let m;
      try {
        m = JSON.parse(r.stdout.trim().split('\n').pop());
      } catch {
        m = { seconds: NaN, peakMiB: NaN, sentence: `crashed (${r.status ?? r.signal}): ${r.stderr.split('\n').slice(0, 3).join(' ')}` };
      }
      rows.push({ file: f.name, inputMiB: f.bytes.length / 1048576, how, ...m, ok: m.seconds < 5 && m.peakMiB < 500 });
      rmSync(`${path}.out.pb.gz`, { force: true });
    }
  }
} finally {
  if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}
for (const r of rows) {
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.how.padEnd(7)} ${r.file.padEnd(46)} ${r.inputMiB.toFixed(2).padStart(7)} MiB in  ${r.seconds.toFixed(2).padStart(6)} s  ${r.peakMiB.toFixed(0).padStart(5)} MiB peak  ${r.sentence.slice(0, 160)}`);
}
console.log(JSON.stringify({ bench: 'hostile-inputs', rows }));
