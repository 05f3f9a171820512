import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COUNTERS_HISTORY_POINTS, type CountersPoint } from '../../../structs/api/contract.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { readRecordingFile, writeRecordingFile } from '../export/recording-file.js';
import { CountersSeries, MAX_SERIES_POINTS, pageHistory } from './counters-series.js';
import { createWorkstationService } from '../workstation/workstation-service.js';

const point = (timeMs: number, gen0: number): CountersPoint => ({
  timeMs, values: { gc: { genCollections0: gen0, timeInGC: gen0 / 4 }, jit: { methodsJitted: 1000 + gen0 } },
});

test('the series keeps every point as it was read, in time order', () => {
  const series = new CountersSeries();
  const points = [point(1000, 0), point(1250, 1), point(1500, 3), point(1500, 4)];
  for (const p of points) series.add(p);
  assert.deepEqual(series.all(), points);
  // A clock that stepped back: the point is dropped rather than put out of order.
  series.add(point(900, 9));
  assert.equal(series.length, 4);
  // Fresh objects: a caller changing them does not change the series.
  series.all()[0].values.gc.genCollections0 = 99;
  assert.equal(series.all()[0].values.gc.genCollections0, 0);
});

test('points with other sections or fields keep their own names', () => {
  const series = new CountersSeries();
  const odd: CountersPoint = { timeMs: 2000, values: { exceptions: { thrown: 7 } } };
  series.add(point(1000, 1));
  series.add(odd);
  series.add(point(3000, 2));
  assert.deepEqual(series.all(), [point(1000, 1), odd, point(3000, 2)]);
});

test('a full series keeps every other point and then every other reading, so it spans the whole session evenly', () => {
  const series = new CountersSeries(8);
  const kept = (): number[] => series.all().map((p) => p.values.gc.genCollections0);
  for (let i = 0; i < 8; i++) series.add(point(i * 250, i));
  assert.deepEqual(kept(), [0, 2, 4, 6, 7], 'the newest reading stays too');
  for (let i = 8; i < 20; i++) series.add(point(i * 250, i));
  assert.deepEqual(kept(), [0, 4, 8, 12, 16, 19]);
  assert.ok(series.length <= 8 + 1);
});

test('the bound is four hours of the poller\'s 250 ms readings', () => {
  assert.equal(MAX_SERIES_POINTS, 4 * 3600 * 4);
  assert.throws(() => new CountersSeries(1), /at least 2 points/);
});

test('a page gets the newest points it keeps, the same objects, oldest first', () => {
  const few = [point(1000, 0), point(1250, 1)];
  assert.equal(pageHistory(few), few);
  const many = Array.from({ length: COUNTERS_HISTORY_POINTS + 10 }, (_, i) => point(1000 + 250 * i, i));
  const page = pageHistory(many);
  assert.equal(page.length, COUNTERS_HISTORY_POINTS);
  assert.equal(page[0], many[10]);
  assert.equal(page[page.length - 1], many[many.length - 1]);
  assert.ok(COUNTERS_HISTORY_POINTS < MAX_SERIES_POINTS, 'the series holds more than a page keeps');
});

test('the countersHistory operation answers at most COUNTERS_HISTORY_POINTS; an export keeps every point', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-counters-series-test-'));
  const ws = createWorkstationService({ exportsDir: join(dir, 'exports') });
  t.after(async () => {
    await ws.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  const counters = Array.from({ length: COUNTERS_HISTORY_POINTS + 100 }, (_, i) => point(1_700_000_000_000 + 250 * i, i));
  const path = join(dir, 'long.clrscope');
  await writeRecordingFile(path, recordingFromStream([fixtureStream()]), counters);
  const client = ws.connect();
  const info = await client.openRecording({ path });
  assert.deepEqual(await client.countersHistory(info.id), counters.slice(100));
  const exported = join(dir, 'again.clrscope');
  await client.exportRecording({ sessionId: info.id, format: 'clrscope', path: exported });
  assert.deepEqual((await readRecordingFile(exported)).counters, counters);
});
