import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBlock } from '../../../structs/ipcblock/decode.js';
import { writeExtras } from '../../../structs/ipcblock/extras.test-support.js';
import { buildGoldenBlock } from '../../../structs/ipcblock/golden-fixtures.js';
import { countersRecordOf, countersTableOf, csvHeader, csvRowOf, snapshotSections } from './counters-format.js';

// The block's road through the printers (EventCounters' road is in event-counters-values.test.ts).
const block = buildGoldenBlock({
  bitness: 64, runtimeId: 1, processId: 42,
  counters: { 'm_GC.cGenCollections[0]': 5, 'm_GC.timeInGC': 25, 'm_GC.timeInGCBase': 100, 'm_Excep.cThrown.Total': 7 },
});
writeExtras(block, {
  gcHandles: 812, allocBytesPerSec: 32 * 1024 * 1024, allocatedBytes: 5e9, gcCommittedBytes: 48 * 1024 * 1024, workingSetBytes: 96 * 1024 * 1024,
  cpuPercent: 37.25, threadPoolThreads: 9, threadPoolQueueLength: 14, threadPoolCompletedPerSec: 1999.6, threadPoolCompleted: 123456,
});
const sections = snapshotSections(decodeBlock(block, 64));
const at = new Date(Date.UTC(2026, 0, 1));

test('a block snapshot fills every CSV column', () => {
  const header = csvHeader().split(',');
  const row = csvRowOf(sections, 42, at).split(',');
  assert.equal(row.length, header.length);
  assert.ok(row.every((cell) => cell !== ''), 'no empty cell: the block has every field');
  assert.equal(row[header.indexOf('gc.genCollections0')], '5');
  assert.equal(row[header.indexOf('exceptions.thrown')], '7');
  assert.equal(row[header.indexOf('pid')], '42');
});

test('a block snapshot\'s table: % time in GC from the ratio fields, no dashes', () => {
  const table = countersTableOf(sections, 42, 500, at);
  assert.match(table, /^clrscope counters: pid 42, refresh 500 ms, 2026-01-01T00:00:00.000Z$/m);
  assert.match(table, /% time in GC \(last second\)\s+25\.00$/m);
  assert.match(table, /Exceptions thrown\s+7$/m);
  assert.match(table, /Pinned objects \/ GC handles\s+0 \/ 812$/m);
  assert.match(table, /Allocation rate\s+32\.0 MiB\/s$/m);
  assert.match(table, /GC committed\s+48\.0 MiB$/m);
  assert.match(table, /Working set\s+96\.0 MiB$/m);
  assert.match(table, /CPU usage \(% of all cores\)\s+37\.3$/m);
  assert.match(table, /Thread pool threads \/ queue length\s+9 \/ 14$/m);
  assert.match(table, /Thread pool completed items \(\/s, total\)\s+2000 \/ 123456$/m);
  assert.ok(!table.includes('–'));
  const idle = snapshotSections(decodeBlock(buildGoldenBlock({ bitness: 64, runtimeId: 1 }), 64));
  assert.match(countersTableOf(idle, 42, 500, at), /% time in GC \(last second\)\s+0\.00$/m, 'a zero base is 0 %, not NaN');
  assert.match(countersTableOf(idle, 42, 500, at), /Allocation rate\s+–$/m, 'a block without extras dashes them');
});

test('a handle count the runtime has let fall below zero is hidden, with the reason, never wrapped', () => {
  const wrapped = writeExtras(buildGoldenBlock({ bitness: 64, runtimeId: 1 }), { gcHandles: -537 });
  const table = countersTableOf(snapshotSections(decodeBlock(wrapped, 64)), 42, 500, at);
  assert.match(table, /Pinned objects \/ GC handles\s+0 \/ – \(the runtime's count reads -537 until its next gen-2 GC\)$/m);
  assert.ok(!table.includes('4294966759'));
});

test('a block snapshot\'s JSON line has every section, in block order', () => {
  const json = countersRecordOf(sections, 42, at);
  assert.deepEqual(Object.keys(json), ['timestamp', 'pid', 'gc', 'contexts', 'interop', 'loading', 'exceptions', 'locksAndThreads', 'jit', 'security', 'extras']);
  assert.equal((json.exceptions as Record<string, number>).thrown, 7);
});
