import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StackThreadSums } from '../../../structs/profile/aggregate.js';
import { Recording } from '../../../structs/profile/recording.js';
import { readBack } from './read-back.js';
import type { RecordingSession } from './recording-session.js';

/** A session whose model is `model` and that says which way it was read back. */
function sessionWith(model: Partial<Recording> | undefined, canSum = true): { session: RecordingSession; reads: string[]; whole: Recording; summed: Recording } {
  const reads: string[] = [];
  const whole = new Recording();
  const summed = new Recording({ keepSamples: false });
  const session = {
    recording: model as Recording | undefined,
    recordingWithSamples: async () => { reads.push('whole'); return model === undefined ? undefined : whole; },
    ...(canSum ? { recordingSummed: async () => { reads.push('summed'); return model === undefined ? undefined : { recording: summed, sums: new StackThreadSums() }; } } : {}),
  } as unknown as RecordingSession;
  return { session, reads, whole, summed };
}

const noTimeline = (() => []) as Recording['timeline'];
const spooled = { hasAsync: false, asyncChainCount: 0, keepsSamples: false, timeline: noTimeline };

test('summed when the output needs only sums; whole otherwise, and on demand', async () => {
  const s = sessionWith(spooled);
  const back = await readBack(s.session, true);
  assert.equal(back?.recording, s.summed);
  assert.ok(back?.summed !== undefined);
  assert.equal(await back.summed.whole(), s.whole, 'a writer that needs every sample after all reads them');
  assert.deepEqual(s.reads, ['summed', 'whole']);
  const w = sessionWith(spooled);
  const all = await readBack(w.session, false);
  assert.equal(all?.recording, w.whole);
  assert.equal(all?.summed, undefined);
  assert.deepEqual(w.reads, ['whole']);
});

test('read whole though sums would do: async call stacks, HTTP requests, a model that keeps its samples, a session that cannot sum', async () => {
  for (const [what, s] of [
    // A live model keeps no samples, so it marks no chain: only its HELLO says it tracks tasks.
    ['async call stacks', sessionWith({ hasAsync: true, asyncChainCount: 0, keepsSamples: false, timeline: noTimeline })],
    ['samples kept', sessionWith({ hasAsync: false, asyncChainCount: 0, keepsSamples: true, timeline: noTimeline })],
    // A request's samples carry its labels: summed per stack they would lose them.
    ['HTTP requests', sessionWith({ hasAsync: false, asyncChainCount: 0, keepsSamples: false, timeline: ((kind: { name: string }) => (kind.name === 'REQUEST' ? [{ mono: 1 }] : [])) as Recording['timeline'] })],
    ['no recordingSummed', sessionWith(spooled, false)],
  ] as const) {
    const back = await readBack(s.session, true);
    assert.equal(back?.recording, s.whole, what);
    assert.equal(back?.summed, undefined, what);
    assert.deepEqual(s.reads, ['whole'], what);
  }
});

test('nothing recorded yet: undefined, whichever way', async () => {
  assert.equal(await readBack(sessionWith(undefined).session, true), undefined);
  assert.equal(await readBack(sessionWith(undefined).session, false), undefined);
});
