import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { WorkstationEvent } from '../../../structs/api/contract.js';
import { readClrheap, writeClrheap } from '../../../structs/formats/clrheap/clrheap-file.js';
import { HeapSnapshotBuilder } from '../../../structs/heap/heap-snapshot.js';
import { HeapSnapshots } from './heap-snapshots.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-heapsnaps-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `items` Item objects in one static list, each holding a 100-byte array. */
function file(name: string, items: number): string {
  const b = new HeapSnapshotBuilder();
  const list = b.addNode(b.typeId('List<Item>'), 32);
  for (let i = 0; i < items; i++) {
    const item = b.addNode(b.typeId('Item'), 24);
    b.addEdge(list, item);
    b.addEdge(item, b.addNode(b.typeId('System.Byte[]'), 124));
  }
  b.addRoot('static', 'static var Cache.Items', list);
  const path = join(dir, name);
  writeFileSync(path, writeClrheap(b.build()));
  return path;
}

describe('the workstation\'s heap snapshots, each in a worker thread', () => {
  it('opens files, answers types, paths, dominator children and diffs, saves and closes', async () => {
    const events: WorkstationEvent[] = [];
    const heaps = new HeapSnapshots((e) => events.push(e));
    const a = await heaps.open(file('a.clrheap', 10));
    const b = await heaps.open(file('b.clrheap', 25));
    assert.deepEqual([a.objects, b.objects], [21, 51]);
    const types = await heaps.types(b.id);
    assert.deepEqual(types.find((t) => t.type === 'Item'), { type: 'Item', count: 25, bytes: 600, retainedBytes: 25 * 148 });
    const diff = await heaps.types(b.id, a.id);
    assert.equal(diff.find((t) => t.type === 'Item')?.countDelta, 15);
    assert.deepEqual(await heaps.paths(b.id, 'Item', a.id), [{ path: ['[static var Cache.Items]', 'List<Item>', 'Item'], count: 25, countDelta: 15 }]);
    const roots = await heaps.dominators(b.id, -1, 10);
    assert.deepEqual(roots.nodes.map((n) => [n.type, n.children]), [['List<Item>', 25]]);
    assert.equal((await heaps.dominators(b.id, roots.nodes[0].node, 3)).nodes.length, 3);
    const saved = join(dir, 'saved.clrheap');
    await heaps.save(b.id, saved);
    assert.equal(readClrheap(readFileSync(saved)).nodeCount, 51);
    await heaps.close(a.id);
    assert.deepEqual(heaps.list().map((s) => s.id), [b.id]);
    await assert.rejects(heaps.types(a.id), /^UserError: There is no heap snapshot 'h1'\.$/);
    assert.ok(events.some((e) => e.type === 'heap-snapshot' && e.closed === true && e.snapshot.id === a.id));
    await heaps.closeAll();
  });

  it('a file it cannot read is one sentence', async () => {
    const heaps = new HeapSnapshots(() => undefined);
    const bad = join(dir, 'bad.clrheap');
    writeFileSync(bad, readFileSync(file('c.clrheap', 5)).subarray(0, 100));
    await assert.rejects(heaps.open(bad), (e: Error) => e.name === 'UserError' && /^Cannot read .*bad\.clrheap as clrheap \(clrscope heap snapshot\): [^\n]+\.$/.test(e.message));
    await heaps.closeAll();
  });

  it('a shutdown ends the workers still reading, so nothing keeps the process alive', async () => {
    const heaps = new HeapSnapshots(() => undefined);
    const opening = heaps.open(file('big.clrheap', 200_000));
    await heaps.closeAll();
    await assert.rejects(opening, /The workstation is shutting down\./);
    await assert.rejects(heaps.open(file('d.clrheap', 1)), /The workstation is shutting down\./);
  });
});
