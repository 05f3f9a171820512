import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameLines, knownLines } from '../profile/frame-lines.js';
import { LINE_FIXTURE_FILE, lineFixture, lineFixtureLookup } from '../profile/line-fixture.test-support.js';
import { toSpeedscope } from '../formats/speedscope/to-speedscope.js';
import { NO_FOLD } from './fold-options.js';
import { hottestLines } from './hottest-lines.js';
import { LineSource } from './line-source.js';
import { ProfileAnalysis } from './profile-analysis.js';

const ms = 1_000_000;

test('per line, each frame is its method at its line; frames without a line stay their method', () => {
  const rec = lineFixture();
  let asked = 0;
  const lines = new FrameLines(rec, (m, t, il) => { asked++; return lineFixtureLookup(m, t, il); });
  const table = new ProfileAnalysis(new LineSource(rec, lines)).functions({ metric: 'cpu', fold: NO_FOLD });
  const rows = Object.fromEntries(table.name.map((n, i) => [n, [table.self[i] / ms, table.total[i] / ms]]));
  assert.deepEqual(rows, {
    'App.Program.Hot [App.cs:12]': [30, 30],
    'App.Program.Hot [App.cs:14]': [10, 10],
    'App.Program.Hot': [5, 5],
    'libc.so.6!write': [2, 2],
    'App.Program.Main [App.cs:3]': [0, 47],
  });
  // Each frame looked up once however many stacks and queries name it; the native frame never.
  new ProfileAnalysis(new LineSource(rec, lines)).functions({ metric: 'cpu', fold: NO_FOLD });
  assert.equal(asked, 4);
  // By function, as ever: the lines add up to the method.
  const plain = new ProfileAnalysis(rec).functions({ metric: 'cpu', fold: NO_FOLD });
  assert.equal(plain.self[plain.name.indexOf('App.Program.Hot')] / ms, 45);
});

test('a function\'s hottest line is the one with the most self time, else the most total', () => {
  const rec = lineFixture();
  const hot = hottestLines(rec, new FrameLines(rec, lineFixtureLookup));
  assert.deepEqual(Object.fromEntries(hot), { 'App.Program.Hot': `${LINE_FIXTURE_FILE}:12`, 'App.Program.Main': `${LINE_FIXTURE_FILE}:3` });
  // Lines known from a table (the main process's answer to the worker) give the same.
  const known = knownLines(rec, [1, 2, 3], [{ file: LINE_FIXTURE_FILE, line: 12 }, { file: LINE_FIXTURE_FILE, line: 14 }, { file: LINE_FIXTURE_FILE, line: 3 }]);
  assert.deepEqual(hottestLines(rec, known), hot);
  // No lookup finds anything: no lines, no failure.
  assert.equal(hottestLines(rec, new FrameLines(rec, () => null)).size, 0);
});

test('speedscope frames carry the file and line where known', () => {
  const rec = lineFixture();
  const file = toSpeedscope(rec, { metric: 'cpu', lines: new FrameLines(rec, lineFixtureLookup) });
  const frames = file.shared.frames;
  const hot = frames.filter((f) => f.name === 'App.Program.Hot');
  assert.deepEqual(hot.filter((f) => f.line !== undefined).map((f) => [f.file, f.line]).sort(), [[LINE_FIXTURE_FILE, 12], [LINE_FIXTURE_FILE, 14]]);
  const profile = file.profiles[0];
  assert.equal(profile.type, 'sampled');
  if (profile.type !== 'sampled') return;
  // The 30 ms sample's leaf is the line-12 frame.
  const at12 = frames.findIndex((f) => f.name === 'App.Program.Hot' && f.line === 12);
  const heaviest = profile.weights.indexOf(Math.max(...profile.weights));
  assert.equal(profile.samples[heaviest].at(-1), at12);
  // Without lines: one frame per function, as before.
  assert.equal(toSpeedscope(rec, { metric: 'cpu' }).shared.frames.filter((f) => f.name === 'App.Program.Hot').length, 1);
});
