import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecording } from '../../../structs/formats/clrscope-file/open-recording.js';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { SessionStream } from './session-stream.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-session-stream-test-'));
chmodSync(dir, 0o700);
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Appends `bytes` in chunks of 1, 7, 300, 2, 13 ... bytes, as a socket might deliver them. */
function fill(stream: SessionStream, bytes: Uint8Array): void {
  const sizes = [1, 7, 300, 2, 13];
  for (let p = 0, i = 0; p < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    stream.append(bytes.subarray(p, p + size));
    p += size;
  }
}

async function readAll(stream: SessionStream, from: number, step: number, to = stream.length): Promise<Uint8Array> {
  const parts: number[] = [];
  for (let at = from; at < to;) {
    const chunk = await stream.read(at, Math.min(step, to - at));
    assert.ok(chunk.length > 0 && chunk.length <= step);
    parts.push(...chunk);
    at += chunk.length;
  }
  return Uint8Array.from(parts);
}

test('a spooled stream keeps no bytes in memory and reads back exactly, from any offset, across the SPOOLED record', async () => {
  const wire = fixtureStream();
  const stream = SessionStream.create(dir, `s${++n}.clrscope`);
  fill(stream, wire);
  assert.equal(stream.length, wire.length);
  assert.equal(stream.bytesInMemory, 0);
  const path = stream.path;
  assert.ok(path !== undefined);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  // Steps of 5 bytes straddle the 16-byte preamble's end, where the file has 5 more bytes.
  for (const [from, step] of [[0, 5], [3, 5], [14, 4], [17, 1 << 20], [0, 1 << 20]]) {
    assert.deepEqual(await readAll(stream, from, step), wire.subarray(from), `from ${from} in steps of ${step}`);
  }
  assert.deepEqual(await readAll(stream, 10, 1, 30), wire.subarray(10, 30), 'byte by byte around the preamble\'s end');
  assert.equal((await stream.read(wire.length)).length, 0, 'nothing past the end');
  // The file is a recording of its own, read by the file reader rather than by this class.
  stream.end();
  const fromFile = openRecording(readFileSync(path)).recording;
  assert.equal(toCollapsed(fromFile, { metric: 'cpu' }), toCollapsed(recordingFromStream([wire]), { metric: 'cpu' }));
  await stream.close();
  assert.equal(existsSync(path), false, 'closing deletes the file');
  await assert.rejects(stream.read(0), /The session was closed\./);
});

test('reads keep working while bytes keep arriving', async () => {
  const wire = fixtureStream();
  const stream = SessionStream.create(dir, `s${++n}.clrscope`);
  const half = 200;
  fill(stream, wire.subarray(0, half));
  const first = await stream.read(0, 1000);
  assert.equal(first.length, half);
  fill(stream, wire.subarray(half));
  assert.deepEqual(await readAll(stream, half, 64), wire.subarray(half));
  await stream.close();
});

test('without a usable folder the stream is kept in memory, and says why once', async () => {
  const wire = fixtureStream();
  const told: string[] = [];
  const stream = SessionStream.create(join(dir, 'missing', 'folder'), 'x.clrscope', (s) => told.push(s));
  fill(stream, wire);
  assert.equal(told.length, 1);
  assert.match(told[0], /^The recording cannot be kept on disk \(.+\); it is kept in memory\.$/);
  assert.equal(stream.path, undefined);
  assert.equal(stream.bytesInMemory, wire.length);
  assert.deepEqual(await readAll(stream, 0, 7), wire);
  assert.deepEqual(await readAll(stream, 100, 1 << 20), wire.subarray(100));
  await stream.close();
  assert.equal(stream.bytesInMemory, 0);
});

test('appended chunks come back as tight copies with running offsets', () => {
  const stream = SessionStream.inMemory();
  const pool = new Uint8Array(100).fill(7);
  const a = stream.append(pool.subarray(10, 13));
  const b = stream.append(Uint8Array.of(1, 2));
  assert.deepEqual(a, { offset: 0, chunk: Uint8Array.of(7, 7, 7) });
  assert.equal(a.chunk.buffer.byteLength, 3, 'its own buffer: Electron IPC clones whole buffers');
  assert.deepEqual(b.offset, 3);
  assert.equal(stream.length, 5);
});
