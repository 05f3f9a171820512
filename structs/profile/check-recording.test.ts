import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StackThreadSums } from './aggregate.js';
import { checkRecording } from './check-recording.js';
import { FIXTURE_START_MONO, fixtureEncoder, fixtureStream } from './fixture-stream.test-support.js';
import { Recording, type FunctionInfo, type ThreadInfo } from './recording.js';
import { WireDecoder } from '../wire/decoder.js';
import { EventKind, type SuspensionRecord } from '../wire/records.js';

// The decoder refuses streams that break the rules, so a broken model is made here by hiding
// what a real one holds: the check must notice without trusting the model's own bookkeeping.
function decoded<T extends Recording>(rec: T, bytes: Uint8Array): T {
  const decoder = new WireDecoder(rec.sink);
  decoder.push(bytes);
  decoder.end();
  return rec;
}

test('a decoded recording, events and pauses included, checks clean', () => {
  const enc = fixtureEncoder();
  enc.stack(90, 0, [3, 2, 1]).string(1, 'System.Byte[]');
  enc.event({ kind: EventKind.Allocation, mono: FIXTURE_START_MONO + 90, threadId: 1, stackId: 90, labelId: 1, value1: 1000, value2: 10 });
  enc.event({ kind: EventKind.Exception, mono: FIXTURE_START_MONO + 95, threadId: 0, stackId: 0, labelId: 1, value1: 4 });
  enc.suspension({ mono: FIXTURE_START_MONO + 100, durationNs: 2_000_000, suspendNs: 100_000, reason: 1, generation: 0, flags: 0 });
  const rec = decoded(new Recording(), enc.bytes());
  assert.equal(rec.eventCount, 2);
  assert.equal(rec.suspensions().length, 1);
  assert.deepEqual(checkRecording(rec), []);
  assert.deepEqual(checkRecording(decoded(new Recording(), fixtureStream({ end: true }))), []);
});

test('samples on unknown threads, stacks naming unknown functions and negative pauses are each named', () => {
  class NoThreads extends Recording {
    override thread(): ThreadInfo | undefined {
      return undefined;
    }
  }
  const noThreads = checkRecording(decoded(new NoThreads(), fixtureStream({ end: true })));
  assert.match(noThreads[0], /^sample 0 is on thread \d+, which is not defined$/);

  class NoFunctions extends Recording {
    override functionInfo(): FunctionInfo | undefined {
      return undefined;
    }
  }
  assert.match(checkRecording(decoded(new NoFunctions(), fixtureStream({ end: true })))[0], /^stack 0 names function \d+, which is not defined$/);

  class NegativePause extends Recording {
    override suspensions(): readonly SuspensionRecord[] {
      return [{ mono: 5, durationNs: -1, suspendNs: 0, reason: 1, generation: 0, flags: 0 }];
    }
  }
  assert.deepEqual(checkRecording(decoded(new NegativePause(), fixtureStream({ end: true }))), ['runtime suspension 0 at 5 has duration -1 ns and suspend 0 ns']);
});

test('at most ten problems are listed', () => {
  class NoThreads extends Recording {
    override thread(): ThreadInfo | undefined {
      return undefined;
    }
  }
  const enc = fixtureEncoder();
  for (let i = 0; i < 30; i++) enc.sample({ mono: FIXTURE_START_MONO + 10_000 + i, threadId: 1, flags: 1, cpuNs: 1, wallNs: 1, frames: [1] });
  assert.equal(checkRecording(decoded(new NoThreads(), enc.bytes())).length, 10);
});

test('a recording that keeps no samples is checked by its sums', () => {
  const rec = decoded(new Recording({ keepSamples: 'recent' }), fixtureStream({ end: true }));
  const sums = new StackThreadSums();
  sums.add(rec.recentSamples().columns);
  assert.deepEqual(checkRecording(rec, sums), []);
  assert.deepEqual(checkRecording(rec), [], 'no samples kept, none checked');
  sums.list.push({ stackId: rec.stackCount, threadId: 1, samples: 1, cpuNs: 1, wallNs: 1 });
  assert.deepEqual(checkRecording(rec, sums), [`the sum ${sums.list.length - 1} names stack ${rec.stackCount} of ${rec.stackCount}`]);
});
