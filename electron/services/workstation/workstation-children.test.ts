// A launch with child processes through the real collector and its Unix socket, without a
// runtime: a small Node program stands in for a profiled program that starts a second one, each
// sending a wire stream under its own pid. With `children` the session's one stream holds both
// processes as they arrive; without, the second is hung up on and the recording is the first's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkstationEvent } from '../../../structs/api/contract.js';
import { RecordingFileReader } from '../../../structs/formats/clrscope-file/open-recording.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { EndReason, FunctionKind, PREAMBLE_SIZE } from '../../../structs/wire/records.js';
import { createWorkstationService } from './workstation-service.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-children-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const spool = join(dir, 'spool');
mkdirSync(spool);
chmodSync(spool, 0o700);

/** HELLO's pid field: the program writes its own pid there, as a profiler would send it. */
const PID_AT = PREAMBLE_SIZE + 5;

/**
 * Arguments: OWN CHILD END_BYTES [hold]. Sends OWN but its last END record (END_BYTES long); with
 * CHILD (not '-'), starts itself again with CHILD and waits for it to exit first; then sends the
 * END and ends, or with 'hold' keeps its connection open until it is ended.
 */
const PROGRAM = `
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const [own, child, endBytes, hold] = process.argv.slice(2);
const bytes = Buffer.from(readFileSync(own));
bytes.writeUInt32LE(process.pid, ${PID_AT});
const end = bytes.length - Number(endBytes ?? 0);
const socket = connect(process.env.CLRSCOPE_SOCKET, () => {
  socket.write(bytes.subarray(0, end), () => {
    if (child === undefined || child === '-') { socket.end(bytes.subarray(end)); return; }
    const started = spawn(process.execPath, [process.argv[1], child, '-', '0'], { stdio: 'ignore' });
    started.on('exit', () => {
      if (hold === 'hold') setInterval(() => undefined, 1000);
      else setTimeout(() => socket.end(bytes.subarray(end)), 100);
    });
  });
});
socket.on('close', () => process.exit(0));
`;

function childStream(): Uint8Array {
  return new WireEncoder().preamble()
    .hello({ pid: 0, flags: 3, mono: 5_000_000_100, unixNs: 1_700_000_000_500_000_000n, intervalNs: 10_000_000, wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0' })
    .module({ moduleId: 1, kind: 0, mvid: '0'.repeat(32), path: '/app/Child.dll' })
    .function({ functionId: 1, kind: FunctionKind.Managed, name: 'Child.Work.HashAlpha', module: '', file: '', moduleId: 1, token: 0x06000001 })
    .frame({ frameId: 1, functionId: 1, offsetKind: 0, offset: 0 })
    .thread({ threadId: 1, osTid: 901, clrThreadId: 1, mono: 5_000_000_100, name: 'main' })
    .stack(1, 0, [1])
    .stackSample(5_000_001_500, 1, 1, 11, 0, 1)
    .end({ mono: 5_000_002_000, reason: 0 })
    .bytes().slice();
}

function until(what: string, check: () => boolean, ms = 20000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

/** The session's stream as one client heard it live, read as a .clrscope file reads. */
function heardRecording(events: WorkstationEvent[], sessionId: string): RecordingFileReader {
  const reader = new RecordingFileReader();
  let at = 0;
  for (const e of events) {
    if (e.type !== 'stream' || e.sessionId !== sessionId) continue;
    assert.equal(e.offset, at, 'every byte once, in order');
    reader.push(e.chunk);
    at += e.chunk.length;
  }
  return reader;
}

async function launchTree(children: boolean, hold = false, alone = false): Promise<{ events: WorkstationEvent[]; reader: RecordingFileReader; exported: Recording | undefined; heard: Uint8Array; sent: Uint8Array }> {
  const work = mkdtempSync(join(dir, 'work-'));
  const parent = fixtureStream();
  const endBytes = parent.length - fixtureStream({ end: false }).length;
  writeFileSync(join(work, 'parent.bin'), parent);
  writeFileSync(join(work, 'child.bin'), childStream());
  writeFileSync(join(work, 'program.mjs'), PROGRAM);
  // Any existing file stands in for the profiler library: Node does not load it.
  const ws = createWorkstationService({ spoolDir: spool, libraryPath: process.execPath, listProcesses: async () => [], connectTimeoutMs: 60000, countersIntervalMs: 1000 });
  try {
    const client = ws.connect();
    const events: WorkstationEvent[] = [];
    client.onEvent((e) => events.push(e));
    const info = await ws.launch({ command: process.execPath, args: [join(work, 'program.mjs'), join(work, 'parent.bin'), alone ? '-' : join(work, 'child.bin'), String(endBytes), ...(hold ? ['hold'] : [])], children });
    await client.subscribe(info.id);
    if (hold) {
      // Both processes have sent everything but the parent's END: the session still records.
      await until('both processes\' samples', () => ws.sessionObject(info.id).recording?.sampleCount === 9);
      assert.equal(ws.sessionObject(info.id).snapshot.state, 'recording');
      await ws.stop(info.id);
    }
    await until('the session to stop', () => events.some((e) => e.type === 'session' && e.session.id === info.id && e.session.state === 'stopped'));
    const exported = await ws.sessionObject(info.id).recordingWithSamples();
    const heard = Buffer.concat(events.flatMap((e) => (e.type === 'stream' && e.sessionId === info.id ? [e.chunk] : [])));
    // What the program sent: the stream with its own pid in HELLO.
    const sent = Buffer.from(parent);
    sent.writeUInt32LE(ws.sessionObject(info.id).snapshot.pid ?? 0, PID_AT);
    return { events, reader: heardRecording(events, info.id), exported, heard, sent };
  } finally {
    await ws.shutdown();
  }
}

test('with children, every process\'s stream is merged into the session\'s one stream as it arrives', async () => {
  const { reader, exported } = await launchTree(true);
  const rec = reader.finish().recording;
  assert.equal(rec.processes().length, 2);
  const [parent, child] = rec.processes();
  assert.equal(rec.meta?.pid, parent.pid, 'the launched program\'s HELLO is the recording\'s');
  assert.equal(parent.name, 'node');
  for (const t of rec.threads()) {
    const p = rec.processOf(t.id);
    assert.ok(p !== undefined && t.name.startsWith(`[${p.pid} node] `), t.name);
  }
  const childThreads = rec.threads().filter((t) => rec.processOf(t.id) === child);
  assert.deepEqual(childThreads.map((t) => t.name), [`[${child.pid} node] main`]);
  assert.equal(rec.sampleCount, 9, 'the fixture\'s 8 samples and the child\'s one');
  assert.equal(rec.end?.reason, 0, 'the launched program\'s END, after the child\'s stream');
  // An export reads the same recording back from the spool file, processes included.
  assert.deepEqual(exported?.processes().map((p) => p.pid), [parent.pid, child.pid]);
  assert.equal(exported?.sampleCount, 9);
});

test('without children, the second process is hung up on and the stream is the first one\'s own', async () => {
  const { reader, events } = await launchTree(false);
  const rec = reader.finish().recording;
  assert.equal(rec.processes().length, 0);
  assert.ok(rec.threads().every((t) => !t.name.startsWith('[')));
  assert.equal(rec.sampleCount, 8);
  assert.ok(!events.some((e) => e.type === 'session' && /Still running/.test(e.session.message ?? '')), 'the child is gone by the end');
});

test('stopped while the program runs, the merged stream ends with the stop\'s END and is not cut', async () => {
  const { reader, events } = await launchTree(true, true);
  const rec = reader.finish().recording;
  assert.equal(rec.processes().length, 2);
  assert.equal(rec.end?.reason, EndReason.Stopped);
  assert.equal(rec.cut, false);
  const last = events.filter((e) => e.type === 'session').at(-1);
  assert.ok(last?.type === 'session' && /^Stopped\./.test(last.session.message ?? ''), JSON.stringify(last));
});

test('with children but none started, the session\'s stream is the program\'s own bytes, byte for byte', async () => {
  const { heard, sent, exported } = await launchTree(true, false, true);
  assert.ok(Buffer.from(heard).equals(sent));
  assert.equal(exported?.processes().length, 0);
  assert.equal(exported?.end?.reason, 0);
});
