// A live session's stream through the real collector and its Unix socket: a small Node program
// launched as the profiled program connects to CLRSCOPE_SOCKET and sends a wire stream in two
// parts (the second once the test says so), so what is on disk, what a replay sends and when,
// and what closing frees can all be checked while the session is live and after.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkstationEvent } from '../../../structs/api/contract.js';
import { STREAM_PLAYER_PROGRAM, twoPartStream } from './replayed-stream.test-support.js';
import { REPLAY_CHUNK_BYTES } from '../spool/session-stream.js';
import { createWorkstationService, type WorkstationClient } from './workstation-service.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-stream-test-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const spool = join(dir, 'spool');
const work = join(dir, 'work');
mkdirSync(spool);
chmodSync(spool, 0o700);
mkdirSync(work);


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

/** A client's stream events of one session, checked to be contiguous, joined. */
function heard(events: WorkstationEvent[], sessionId: string, from = 0): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = from;
  for (const e of events) {
    if (e.type !== 'stream' || e.sessionId !== sessionId) continue;
    assert.equal(e.offset, at, 'every byte once, in order');
    parts.push(e.chunk);
    at += e.chunk.length;
  }
  const out = new Uint8Array(at - from);
  let p = 0;
  for (const c of parts) { out.set(c, p); p += c.length; }
  return out;
}

function listen(client: WorkstationClient): WorkstationEvent[] {
  const events: WorkstationEvent[] = [];
  client.onEvent((e) => events.push(e));
  return events;
}

test('a live session spools to disk, replays from any offset with back-pressure, follows live bytes, and closing frees it', async () => {
  // ~4.6 MiB before the pause: a replay takes several steps.
  const { all, first, second } = twoPartStream(500_000, { wall: true });
  assert.ok(first.length > 3 * REPLAY_CHUNK_BYTES, `${first.length} bytes`);
  const firstPath = join(work, 'first.bin');
  const secondPath = join(work, 'second.bin');
  const go = join(work, 'go');
  const program = join(work, 'program.mjs');
  writeFileSync(firstPath, first);
  writeFileSync(secondPath, second);
  writeFileSync(program, STREAM_PLAYER_PROGRAM);

  // Any existing file stands in for the profiler library: Node does not load it.
  const ws = createWorkstationService({ spoolDir: spool, libraryPath: process.execPath, listProcesses: async () => [], connectTimeoutMs: 60000, countersIntervalMs: 1000 });
  try {
    const own = listen(ws.connect());
    const info = await ws.launch({ command: process.execPath, args: [program, firstPath, secondPath, go] });
    const id = info.id;
    await until('the first part', () => ws.hasSession(id) && ws.streamStorage(id).length === first.length);

    // On disk, not in memory: the spool file is the stream plus the 5-byte SPOOLED record.
    const storage = ws.streamStorage(id);
    assert.equal(storage.bytesInMemory, 0);
    assert.ok(storage.path !== undefined && storage.path.startsWith(spool));
    assert.equal(statSync(storage.path).size, first.length + 5);
    assert.equal(statSync(storage.path).mode & 0o777, 0o600);
    assert.equal(heard(own, id).length, 0, 'a client that did not subscribe hears no bytes');

    // A replay waits for its client between steps: one step, then nothing until it drains.
    const slow = ws.connect();
    const slowEvents = listen(slow);
    let release: () => void = () => undefined;
    let waits = 0;
    slow.setDrained(() => new Promise((resolve) => { waits++; release = resolve; }));
    const replay = slow.subscribe(id);
    await until('the first step', () => waits === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(heard(slowEvents, id).length, REPLAY_CHUNK_BYTES, 'one step sent, the next held back');
    for (let step = 1; ; step++) {
      release();
      await until(`step ${step + 1}`, () => waits > step || heard(slowEvents, id).length === first.length);
      if (heard(slowEvents, id).length === first.length) break;
    }
    release();
    await replay;

    // Another client resumes from an offset (a page that reconnected) and then stops hearing.
    const resumed = ws.connect();
    const resumedEvents = listen(resumed);
    const from = 123_457;
    await resumed.subscribe(id, from);
    assert.ok(Buffer.from(heard(resumedEvents, id, from)).equals(first.subarray(from)));
    await resumed.unsubscribe(id);
    await assert.rejects(resumed.subscribe(id, first.length + 1), /holds \d+ bytes, so it cannot be resumed from byte \d+\./);

    await assert.rejects(ws.closeSession(id), /Session s1 is still recording: stop it before closing it\./);

    // The second part arrives live: the slow client hears it after its replay, the unsubscribed one does not.
    writeFileSync(go, '');
    await until('the end of the stream', () => ws.streamStorage(id).length === all.length);
    await until('the session to stop', () => own.some((e) => e.type === 'session' && e.session.id === id && e.session.state === 'stopped'));
    await until('the live bytes', () => heard(slowEvents, id).length === all.length);
    assert.ok(Buffer.from(heard(slowEvents, id)).equals(all), 'the replay and the live bytes are the stream, byte for byte');
    assert.equal(heard(resumedEvents, id, from).length, first.length - from, 'nothing after unsubscribe');

    // Closing frees the session: its file goes, every client hears so, and it is no more.
    const path = storage.path;
    await ws.closeSession(id);
    assert.equal(existsSync(path), false);
    assert.equal(ws.hasSession(id), false);
    assert.ok(own.some((e) => e.type === 'session-closed' && e.sessionId === id));
    assert.ok(slowEvents.some((e) => e.type === 'session-closed' && e.sessionId === id));
    await assert.rejects(ws.subscribe(id), /There is no session 's1'\./);
    assert.deepEqual(readdirSync(spool), []);
  } finally {
    await ws.shutdown();
  }
});
