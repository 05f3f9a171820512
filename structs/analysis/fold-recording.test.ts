import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { streamFromCollapsed } from '../formats/collapsed/collapsed-stream.js';
import { toCollapsed } from '../formats/collapsed/to-collapsed.js';
import { flatTreeToCollapsed } from './flat-tree-text.js';
import { DEFAULT_FOLD, NO_FOLD } from './fold-options.js';
import { foldRecording } from './fold-recording.js';
import { ProfileAnalysis } from './profile-analysis.js';

const TEXT = `
  w;libc.so.6!start_thread;[libcoreclr.so];App.Run;App.Hot 30 @1 wall=40
  w;libc.so.6!start_thread;[libcoreclr.so];App.Run;[libcoreclr.so];libc.so.6!futex_wait 0 @2 wall=50
  g;[libcoreclr.so] 5 @3
  w 7 @4
`;

test('a folded recording holds the folded stacks with the same samples, times, threads and flags', () => {
  const rec = recordingFromStream([streamFromCollapsed(TEXT, { end: true, endedThreads: ['g'] })]);
  assert.equal(foldRecording(rec, NO_FOLD), rec);
  const folded = foldRecording(rec, DEFAULT_FOLD);
  assert.equal(toCollapsed(folded, { metric: 'wall', groupByThread: true }), 'g;[runtime] 5\nw;[incomplete stack] 7\nw;[runtime];App.Run;App.Hot 40\nw;[runtime];App.Run;[runtime] 50\n');
  const analysis = new ProfileAnalysis(rec);
  assert.equal(toCollapsed(folded, { metric: 'cpu' }), flatTreeToCollapsed(analysis.tree({ metric: 'cpu', fold: DEFAULT_FOLD }, false)));
  assert.equal(folded.sampleCount, rec.sampleCount);
  assert.deepEqual(Array.from(folded.sampleColumns().mono), Array.from(rec.sampleColumns().mono));
  assert.deepEqual(Array.from(folded.sampleColumns().flags), Array.from(rec.sampleColumns().flags));
  assert.deepEqual(folded.threads().map((t) => [t.name, t.ended]), [['w', false], ['g', true]]);
  assert.ok(folded.end !== undefined);
});
