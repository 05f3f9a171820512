// Fuzzing of every reader clrscope has (the .clrscope file, the profiler's wire stream as the
// collector reads it, .nettrace, pprof, speedscope): mutated real files, from the fixtures and
// from a recording of a real target made here, each either parses or is refused with the
// reader's own format error — never another exception, never a hang, never unbounded memory —
// and what parses can be written in every format. Fixed seed, a time budget per reader; each
// reader runs in a worker whose heap is capped. The hostile files of issue 10 (a speedscope
// nesting bomb, pprof gzip and count bombs) are checked for their one sentence.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { gzippedPprof } from '../../structs/formats/pprof/pprof.test-support.js';
import { saveRecording } from '../../structs/formats/clrscope-file/save-recording.js';
import { toNettrace } from '../../structs/formats/nettrace/index.js';
import { toSpeedscopeJson } from '../../structs/formats/speedscope/to-speedscope.js';
import { fixtureStream } from '../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { parseHexText } from '../../structs/wire/hex-text.js';
import type { FuzzedReader, FuzzJob, FuzzMessage } from './support/fuzz-worker.js';
import { nettraceLargeBlock, pprofCountBomb, pprofGzipBomb, speedscopeNestedOpens } from './support/hostile-files.js';
import { ROOT, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const SEED = 20250110;
const BUDGET_MS = Number(process.env.CLRSCOPE_FUZZ_MS) || 7000;
/** A reader that makes no progress for this long is hung. */
const HANG_MS = 15000;
const dir = mkdtempSync(join(tmpdir(), 'clrscope-fuzz-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (...parts: string[]): string => join(ROOT, ...parts);
const hex = (...parts: string[]): Uint8Array => parseHexText(readFileSync(fixture(...parts), 'utf8'));

/** Seeds per reader: the repository's fixtures, our writers' output of the shared fixture, and a real recording. */
const seeds: Record<FuzzedReader, Uint8Array[]> = { clrscope: [], wire: [], nettrace: [], pprof: [], speedscope: [] };

function addRecording(bytes: Uint8Array, label: string): void {
  const rec = recordingFromStream([bytes]);
  assert.ok(rec.sampleCount > 0, `${label} has samples`);
  seeds.clrscope.push(saveRecording(rec));
  seeds.wire.push(bytes);
  seeds.nettrace.push(toNettrace(rec));
  seeds.pprof.push(gunzipSync(gzippedPprof(rec)));
  seeds.speedscope.push(Buffer.from(toSpeedscopeJson(rec)));
}

before(async () => {
  seeds.clrscope.push(hex('structs', 'formats', 'clrscope-file', 'fixtures', 'saved.hex'));
  for (const name of ['basic', 'suspensions', 'counters', 'approximate-cpu']) seeds.wire.push(hex('structs', 'wire', 'fixtures', `${name}.hex`));
  seeds.nettrace.push(hex('structs', 'formats', 'nettrace', 'fixtures', 'small.nettrace.hex'));
  seeds.nettrace.push(gunzipSync(readFileSync(fixture('structs', 'formats', 'nettrace', 'fixtures', 'dotnet-trace-cpu-ratio.nettrace.gz'))));
  for (const name of ['evented-dotnet-trace-like', 'fixture-recording']) seeds.speedscope.push(readFileSync(fixture('structs', 'formats', 'speedscope', 'fixtures', `${name}.speedscope.json`)));
  addRecording(fixtureStream(), 'the fixture stream');
  // A real target's recording, small enough that each mutation reads quickly.
  const real = join(dir, 'real.clrscope');
  if (spawnSync('dotnet', ['--version']).status === 0 && existsSync(targetDll('Scenarios'))) {
    const r = await runCli(['record', '--interval', '5', '-o', real, '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', 'async', 'exceptions', '--seconds', '0.5', '--exceptions', '20'], { env: { XDG_CACHE_HOME: join(dir, 'cache') } });
    assert.equal(r.code, 0, r.stderr);
    addRecording(readFileSync(real), 'the real recording');
  } else {
    assert.ok(!process.env.CI, 'dotnet and the Scenarios target are needed for the real-recording seeds');
  }
});

function fuzz(reader: FuzzedReader, seed: number): Promise<{ inputs: number; parsed: number; refused: number; failures: string[] }> {
  const job: FuzzJob = { reader, seeds: seeds[reader], seed, budgetMs: BUDGET_MS, memoryLimit: 400 * 1048576 };
  const worker = new Worker(new URL('./support/fuzz-worker.js', import.meta.url), {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64 },
  });
  const failures: string[] = [];
  let lastIndex = -1;
  let lastProgress = Date.now();
  return new Promise((resolve, reject) => {
    const watchdog = setInterval(() => {
      if (Date.now() - lastProgress < HANG_MS) return;
      clearInterval(watchdog);
      void worker.terminate();
      reject(new Error(`the ${reader} reader made no progress for ${HANG_MS / 1000} s after input ${lastIndex} (seed ${seed}): it hangs`));
    }, 1000);
    worker.on('message', (m: FuzzMessage) => {
      lastProgress = Date.now();
      if (m.type === 'progress') lastIndex = m.index;
      else if (m.type === 'failure') failures.push(`input ${m.index} (seed ${seed}): ${m.message}`);
      else {
        clearInterval(watchdog);
        resolve({ inputs: m.inputs, parsed: m.parsed, refused: m.refused, failures });
      }
    });
    worker.on('error', (err) => {
      clearInterval(watchdog);
      reject(new Error(`the ${reader} reader's worker died after input ${lastIndex} (seed ${seed}): ${err.message}`));
    });
  });
}

describe('every reader parses a mutated file or refuses it with its own format error', () => {
  for (const reader of ['clrscope', 'wire', 'nettrace', 'pprof', 'speedscope'] as const) {
    it(`${reader}: ${BUDGET_MS / 1000} s of mutations`, async (t) => {
      const r = await fuzz(reader, SEED);
      t.diagnostic(`${reader}: ${r.inputs} inputs, ${r.parsed} parsed, ${r.refused} refused`);
      assert.deepEqual(r.failures.slice(0, 5), [], `${r.failures.length} of ${r.inputs} inputs failed`);
      assert.ok(r.inputs >= 100, `only ${r.inputs} inputs in ${BUDGET_MS} ms`);
      assert.ok(r.refused > 0 && r.parsed > 0, `${r.parsed} parsed, ${r.refused} refused: the mutations should do both`);
    });
  }
});

describe('hostile files end in one sentence (time and memory: scripts/bench/hostile-inputs.mjs)', () => {
  for (const file of [speedscopeNestedOpens(), pprofGzipBomb(), pprofCountBomb()]) {
    it(file.name, async () => {
      const path = join(dir, `hostile${file.ext}`);
      writeFileSync(path, file.bytes);
      await assert.rejects(readRecordingFile(path), (err: Error) => {
        assert.equal(err.name, 'UserError');
        assert.match(err.message, file.expect);
        assert.match(err.message, /^Cannot read [^\n]+\.$/);
        return true;
      });
    });
  }

  it('a .nettrace block of 60 MiB read in 1 MiB pieces is read once, not once per piece', async () => {
    // Linear: the test would take minutes if each piece were joined to all before it again.
    const file = nettraceLargeBlock(60);
    const path = join(dir, 'large.nettrace');
    writeFileSync(path, file.bytes);
    const opened = await readRecordingFile(path);
    assert.equal(opened.recording.sampleCount, 0);
  });
});
