// The harmlessness soak (issue 23): real programs nobody here wrote, each run bare, launched under
// `clrscope record` and attached to with `clrscope record --pid`, at --interval 1 with every event
// type on (--alloc on --locks on --exceptions on --async), comparing exit code, output and written
// files with the bare run of the same round (`--modes ...,detach` adds an attach that detaches
// while the program runs on). Programs and how each is compared:
// test/soak/soak-programs.ts; one run: test/soak/soak-run.ts.
//
//   node scripts/soak.mjs [--rounds N] [--programs pwsh,aspnet,...] [--modes bare,launch,attach[,detach]]
//                         [--budget-minutes M] [--keep DIR] [--json FILE]
//
// Needs `npm run build`, the profiler (scripts/build-native.sh) and the soak's installs
// (scripts/soak/setup-soak.sh, which scripts/setup.sh calls). Prints a line per run, then the
// failures, differences and recording problems one per line, a table, and the markdown table for
// scripts/bench/RESULTS.md. Exits 1 when any profiled run failed, differed or recorded badly.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
if (!existsSync(join(root, 'dist', 'test', 'soak', 'soak-run.js'))) {
  console.error('soak: dist/ is missing the soak; run npm run build first.');
  process.exit(2);
}
const { PROGRAMS, programByName } = await import(dist('test/soak/soak-programs.js'));
const { runOnce, differences, failureOf, MODES, ALL_MODES } = await import(dist('test/soak/soak-run.js'));
const { summarize, markdownTable, detailLines } = await import(dist('test/soak/soak-report.js'));
const { ensureCsharpierInput } = await import(dist('test/soak/soak-prepare.js'));
const { PROFILER } = await import(dist('test/integration/support/paths.js'));

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1' },
    programs: { type: 'string', default: PROGRAMS.map((p) => p.name).join(',') },
    modes: { type: 'string', default: MODES.join(',') },
    'budget-minutes': { type: 'string', default: '600' },
    keep: { type: 'string' },
    json: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const budgetMs = Number(values['budget-minutes']) * 60_000;
const modes = values.modes.split(',').filter(Boolean);
if (!(rounds >= 1 && rounds <= 100) || !(budgetMs > 0) || modes.some((m) => !ALL_MODES.includes(m)) || modes[0] !== 'bare') {
  console.error(`soak: --rounds takes 1..100, --budget-minutes a positive number, --modes a list of ${ALL_MODES.join(', ')} starting with bare (the runs compare with it).`);
  process.exit(2);
}
let programs;
try {
  programs = values.programs.split(',').filter(Boolean).map(programByName);
} catch (e) {
  console.error(`soak: ${e.message}`);
  process.exit(2);
}
if (!existsSync(PROFILER)) {
  console.error(`soak: the profiler is not built (${PROFILER}); run bash scripts/build-native.sh.`);
  process.exit(2);
}

const workDir = values.keep ?? mkdtempSync(join(tmpdir(), 'clrscope-soak-'));
mkdirSync(workDir, { recursive: true });
const log = (line) => console.log(line);
try {
  if (programs.some((p) => p.name === 'csharpier')) ensureCsharpierInput(log);
} catch (e) {
  console.error(`soak: ${e.message}`);
  process.exit(2);
}

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = Date.now();
const results = [];
let stoppedEarly = false;
console.log(`soak: ${programs.map((p) => p.name).join(', ')}; ${rounds} round(s) of ${modes.join(', ')}; record ${['--interval 1', '--alloc on', '--locks on', '--exceptions on', '--async'].join(' ')}; work in ${workDir}`);
outer: for (let round = 1; round <= rounds; round++) {
  for (const program of programs) {
    if (Date.now() - started > budgetMs) {
      stoppedEarly = true;
      console.log(`soak: the time budget (${values['budget-minutes']} min) is spent; no further runs.`);
      break outer;
    }
    let bare;
    for (const mode of modes) {
      const load = loadavg()[0].toFixed(1);
      const r = await runOnce(program, mode, { round, workDir, keep: values.keep !== undefined, log });
      results.push(r);
      if (mode === 'bare') bare = r;
      const failed = failureOf(r);
      const diff = mode !== 'bare' && bare !== undefined && failureOf(bare) === undefined ? differences(bare, r) : [];
      const verdict = failed !== undefined ? `FAILED: ${failed}` : diff.length > 0 ? `DIFFERENT: ${diff.join('; ')}` : mode === 'bare' ? 'ok' : 'same as bare';
      const cost = `wall ${secs(r.wallMs)}, CPU ${secs(r.cpuMs)}${r.clrscopeCpuMs !== undefined ? `, clrscope ${secs(r.clrscopeCpuMs)}` : ''}${r.samples !== undefined ? `, ${r.samples.toLocaleString('en-US')} samples` : ''}`;
      console.log(`round ${round} ${program.name.padEnd(12)} ${mode.padEnd(6)} ${cost} (load ${load}): ${verdict}${r.problems.length > 0 ? ` [recording: ${r.problems.join('; ')}]` : ''}`);
      if (failed !== undefined && r.stderrTail !== '') console.log(r.stderrTail.split('\n').map((l) => `      | ${l}`).join('\n'));
    }
  }
}

const summaries = summarize(results);
console.log('');
const details = detailLines(summaries);
console.log(details.length === 0 ? 'soak: no failure, no difference, every recording sane.' : details.join('\n'));
console.log('');
console.log(`soak: ${results.length} runs in ${secs(Date.now() - started)}${stoppedEarly ? ' (stopped by the time budget)' : ''}; wall and CPU are medians, the program's own (its process tree), start delays left out; clrscope's own CPU is the record CLI and its collector.`);
console.log('');
console.log(markdownTable(summaries));
if (values.json !== undefined) {
  writeFileSync(values.json, JSON.stringify({ summaries, runs: results.map((r) => ({ ...r, files: r.files === undefined ? undefined : { count: r.files.count, digest: r.files.digest } })) }, null, 1));
}
if (values.keep === undefined) rmSync(workDir, { recursive: true, force: true });
const bad = summaries.some((s) => s.failures.length + s.differences.length + s.recordingProblems.length > 0);
process.exit(bad ? 1 : 0);
