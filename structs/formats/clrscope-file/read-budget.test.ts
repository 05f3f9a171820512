import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Recording } from '../../profile/recording.js';
import { FILE_READ_LIMITS, ImportBudgetError, MAX_STACK_FRAMES } from '../../profile/read-budget.js';
import { WireEncoder } from '../../wire/encoder.js';
import { SampleFlags } from '../../wire/records.js';
import { RecordingFileReader } from './open-recording.js';
import { RecordingBuilder } from '../import/stream-builder.js';

function header(): WireEncoder {
  const enc = new WireEncoder(1 << 20).preamble().hello({ pid: 1, flags: 1, mono: 0, unixNs: 0n, intervalNs: 1, wallThreadsPerTick: 0, runtimeVersion: '', profilerVersion: '' });
  for (let f = 1; f <= 3; f++) {
    enc.function({ functionId: f, kind: 0, name: `F${f}`, module: '', file: '' });
    enc.frame({ frameId: f, functionId: f, offsetKind: 0, offset: 0 });
  }
  return enc.thread({ threadId: 1, osTid: 1, clrThreadId: 0, mono: 0, name: 't' });
}

test('a .clrscope file of STACK records that share all but one frame is refused by the frames they hold, not their bytes', () => {
  // Each record is ~10 bytes and names a 65,535-frame stack: 600 of them had the reader walk
  // 39 M frames from 6 KB (and store as many, had they been distinct).
  const enc = header();
  const frames = new Uint32Array(65_535).fill(2);
  for (let s = 1; s <= 600; s++) {
    frames[0] = 1 + (s % 2);
    frames[1] = s % 3 === 0 ? 3 : 2;
    enc.stack(s, 0, frames);
  }
  const bytes = enc.bytes();
  assert.ok(bytes.length < 100_000, `${bytes.length} bytes`);
  const reader = new RecordingFileReader(new Recording({ limits: FILE_READ_LIMITS }));
  assert.throws(() => reader.push(bytes), (err: Error) => err instanceof ImportBudgetError
    && /^its stacks hold more than 32,000,000 frames in all \(each STACK record counted with the frames it shares with the one before\), the most clrscope reads of one file$/.test(err.message));
  // Without limits (a live session) the same stream is read.
  const live = new RecordingFileReader(new Recording());
  live.push(bytes.subarray(0, 2000));
});

test('a .clrscope file read whole holds at most the budget\'s samples', () => {
  const enc = header().stack(1, 0, [1]);
  for (let i = 0; i < 4_200_000; i++) enc.stackSample(i, 1, SampleFlags.Cpu, 1, 0, 1);
  const reader = new RecordingFileReader(new Recording({ limits: FILE_READ_LIMITS }));
  assert.throws(() => reader.push(enc.bytes()), /^ImportBudgetError: its samples \(more than 4,194,304\) would take more than 192 MiB of memory once read, the most clrscope reads of one file$/);
});

test('an import stores at most the budget\'s frames of distinct stacks', () => {
  const b = new RecordingBuilder({ flags: 1, source: 'test' });
  const t = b.thread('t', 1);
  const ids = Array.from({ length: 200 }, (_, i) => b.frame(`F${i}`));
  const stack = new Array<number>(60_000).fill(ids[0]);
  assert.throws(() => {
    for (let s = 0; s < 200; s++) {
      stack[0] = ids[s];
      b.sample(s, t, SampleFlags.Cpu, 1, 0, stack);
    }
  }, (err: Error) => err instanceof ImportBudgetError && err.message.includes(`more than ${MAX_STACK_FRAMES.toLocaleString('en-US')} frames`));
});
