// A worker thread that holds one heap snapshot for the workstation: it takes it (the runtime's heap
// walk over EventPipe) or reads it from a file, analyses it (dominators, retained bytes) and then
// answers the Heap tab's queries. Every long step runs here, so the workstation's event loop
// serves pages meanwhile; the graph stays here too, and is freed when the worker ends.

import { parentPort, workerData } from 'node:worker_threads';
import type { HeapDominatorChildren, HeapPathRow, HeapTypeRow } from '../../../structs/api/contract.js';
import { writeClrheap } from '../../../structs/formats/clrheap/clrheap-file.js';
import { HeapAnalysis } from '../../../structs/heap/heap-analysis.js';
import type { HeapSnapshot } from '../../../structs/heap/heap-snapshot.js';
import { UserError } from '../errors/user-error.js';
import { readHeapFile } from './read-heap-file.js';
import { writeHeapFile } from './write-heap-file.js';
import { takeHeapSnapshot } from './take-heap-snapshot.js';
import type { HeapQuery, HeapQueryResult, HeapWorkerMessage, HeapWorkerRequest, HeapWorkerSource } from './heap-worker-messages.js';

const port = parentPort;
if (port === null) throw new Error('heap-worker.js runs only as a worker thread.');

function post(message: HeapWorkerMessage): void {
  port?.postMessage(message);
}

async function load(source: HeapWorkerSource): Promise<{ snapshot: HeapSnapshot; complete: boolean; pid: number | null; typeNames?: Map<number, string> }> {
  if (source.kind === 'file') {
    post({ type: 'progress', phase: 'reading', done: 0, total: 0 });
    return { snapshot: readHeapFile(source.path), complete: true, pid: null };
  }
  post({ type: 'progress', phase: 'walking', done: 0, total: 0 });
  const taken = await takeHeapSnapshot(source.pid, {
    ...(source.timeoutMs !== undefined ? { timeoutMs: source.timeoutMs } : {}),
    ...(source.knownTypeNames !== undefined ? { knownTypeNames: source.knownTypeNames } : {}),
    onObjects: (objects) => post({ type: 'progress', phase: 'walking', done: objects, total: 0 }),
  });
  return { snapshot: taken.snapshot, complete: taken.complete, pid: source.pid, typeNames: new Map(taken.typeNames) };
}

async function answer(analysis: HeapAnalysis, query: HeapQuery): Promise<HeapQueryResult> {
  switch (query.op) {
    case 'types':
      return analysis.typeStats().map((t): HeapTypeRow => ({ type: t.type, count: t.count, bytes: t.bytes, retainedBytes: t.retainedBytes }));
    case 'paths':
      return analysis.pathsTo(query.type).map((p): HeapPathRow => ({ path: p.path, count: p.count }));
    case 'dominators':
      return dominatorChildren(analysis, query.node, query.limit);
    case 'save':
      await writeHeapFile(query.path, analysis.snapshot, query.info);
      return null;
    case 'bytes':
      return writeClrheap(analysis.snapshot, query.info);
  }
}

function dominatorChildren(analysis: HeapAnalysis, node: number, limit: number): HeapDominatorChildren {
  const snap = analysis.snapshot;
  if (node >= snap.nodeCount) throw new UserError(`The snapshot has ${snap.nodeCount} objects, so it has no object ${node}.`);
  const tree = analysis.dominatorTree();
  const { retained } = analysis.dominators;
  const nodes = [...tree.topChildren(node, limit)].map((v) => ({
    node: v, type: snap.typeNames[snap.nodeType[v]], bytes: snap.nodeSize[v], retainedBytes: retained[v], children: tree.childCount(v),
  }));
  return { nodes, total: tree.childCount(node) };
}

async function run(source: HeapWorkerSource): Promise<void> {
  let analysis: HeapAnalysis;
  try {
    const { snapshot, complete, pid, typeNames } = await load(source);
    post({ type: 'progress', phase: 'analysing', done: 0, total: snapshot.nodeCount });
    analysis = new HeapAnalysis(snapshot);
    analysis.typeStats();
    let bytes = 0;
    for (let v = 0; v < snapshot.nodeCount; v++) bytes += snapshot.nodeSize[v];
    post({ type: 'ready', figures: { objects: snapshot.nodeCount, references: snapshot.edgeTarget.length, roots: snapshot.rootTarget.length, bytes, complete, pid, ...(typeNames !== undefined ? { typeNames } : {}) } });
  } catch (err) {
    post({ type: 'failed', message: err instanceof Error ? err.message : String(err), user: err instanceof UserError });
    return;
  }
  port?.on('message', async (request: HeapWorkerRequest) => {
    try {
      post({ type: 'reply', id: request.id, result: await answer(analysis, request.query) });
    } catch (err) {
      post({ type: 'reply', id: request.id, error: err instanceof Error ? err.message : String(err), user: err instanceof UserError });
    }
  });
}

void run(workerData as HeapWorkerSource);
