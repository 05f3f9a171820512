import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { toCollapsed } from '../../../structs/formats/collapsed/to-collapsed.js';
import { fixtureEncoder, fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { DescriptorLoss, EndReason, HelloFlags } from '../../../structs/wire/records.js';
import { WireDecoder } from '../../../structs/wire/decoder.js';
import { Recording } from '../../../structs/profile/recording.js';
import { LAST_WORD_MS, MAX_PENDING, startCollector, type CollectedStream } from './collector.js';

const FIXTURE_CPU = [
  'App.Program.Main;App.Worker.Work;App.Worker.Hot 35',
  'App.Program.Main;a_b 1',
  '[incomplete stack];App.Worker.Work;App.Worker.Recurse;App.Worker.Recurse 4',
  'libc.so.6!start_thread;[libcoreclr.so] 7',
  '',
].join('\n');

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function open(path: string): Promise<Socket> {
  const socket = connect(path);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

function write(socket: Socket, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve())));
}

/** Writes in chunk sizes cycling through `sizes`, pausing so the reader sees separate reads. */
async function writeChunked(socket: Socket, bytes: Uint8Array, sizes: number[]): Promise<void> {
  let p = 0;
  for (let i = 0; p < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    await write(socket, bytes.subarray(p, p + size));
    p += size;
    if (i % 4 === 0) await pause(1);
  }
}

const endSocket = (socket: Socket): Promise<void> => new Promise((resolve) => socket.end(resolve));

/** A second, different process: pid 999, one thread, one function, `samples` cpu samples of 3 ns. */
function otherStream(samples: number): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 999, flags: 1, mono: 0, unixNs: 1n, intervalNs: 1000, wallThreadsPerTick: 0, runtimeVersion: '8.0.0', profilerVersion: 'p' })
    .thread({ threadId: 4, osTid: 44, clrThreadId: 4, mono: 0, name: 'child' })
    .function({ functionId: 1, kind: 0, name: 'Child.Main', module: 'Child.dll', file: '' });
  for (let i = 0; i < samples; i++) enc.sample({ mono: i + 1, threadId: 4, flags: 1, cpuNs: 3, wallNs: 0, frames: [1] });
  return enc.end({ mono: samples + 1, reason: 1 }).bytes().slice();
}

test('the socket lives in a fresh 0700 clrscope- directory and is 0600; close() removes both', async () => {
  const collector = await startCollector();
  assert.equal(dirname(collector.directory), tmpdir());
  assert.match(basename(collector.directory), /^clrscope-/);
  assert.equal(collector.socketPath, `${collector.directory}/sock`);
  assert.equal(statSync(collector.directory).mode & 0o777, 0o700);
  const sock = statSync(collector.socketPath);
  assert.ok(sock.isSocket());
  assert.equal(sock.mode & 0o777, 0o600);
  await collector.close();
  assert.equal(existsSync(collector.directory), false);
  await collector.close(); // idempotent
});

test('a stream written in odd chunk sizes decodes completely and is announced with its pid', async () => {
  const announced: [number | undefined, number][] = [];
  const closed: CollectedStream[] = [];
  const collector = await startCollector({
    onStream: (s) => announced.push([s.pid, s.recording.sampleCount]),
    onStreamClosed: (s) => closed.push(s),
  });
  try {
    const client = await open(collector.socketPath);
    const bytes = fixtureStream();
    await writeChunked(client, bytes, [1, 3, 7, 2, 13, 5, 31, 64]);
    await endSocket(client);
    while (collector.streams.length === 0) await pause(1);
    const [stream] = collector.streams;
    await stream.closed;
    assert.deepEqual(announced, [[4321, 0]]);
    assert.deepEqual(closed, [stream]);
    assert.equal(stream.id, 1);
    assert.equal(stream.pid, 4321);
    assert.equal(stream.state, 'ended');
    assert.equal(stream.error, undefined);
    assert.equal(stream.endedMidRecord, false);
    assert.equal(stream.bytesReceived, bytes.length);
    assert.equal(stream.recording.sampleCount, 8);
    assert.equal(stream.recording.cut, false);
    assert.equal(toCollapsed(stream.recording, { metric: 'cpu' }), FIXTURE_CPU);
  } finally {
    await collector.close();
  }
});

test('each connection reports its raw chunks in order, to the option and to listeners added later', async () => {
  const fromOption = new Map<number, Uint8Array[]>();
  const fromListener = new Map<number, Uint8Array[]>();
  const collect = (into: Map<number, Uint8Array[]>) => (s: CollectedStream, chunk: Uint8Array): void => {
    const list = into.get(s.id) ?? [];
    list.push(chunk.slice());
    into.set(s.id, list);
  };
  let chunksWithoutPid = 0;
  const collector = await startCollector({ onChunk: collect(fromOption) });
  const toListener = collect(fromListener);
  const remove = collector.onChunk((s, chunk) => {
    if (s.pid === undefined) chunksWithoutPid++;
    toListener(s, chunk);
  });
  const concat = (parts: Uint8Array[] | undefined): Uint8Array => Uint8Array.from((parts ?? []).flatMap((p) => Array.from(p)));
  try {
    const [a, b] = await Promise.all([open(collector.socketPath), open(collector.socketPath)]);
    const mine = fixtureStream();
    const other = otherStream(300);
    await Promise.all([writeChunked(a, mine, [3, 50, 1, 9]), writeChunked(b, other, [700, 2])]);
    await Promise.all([endSocket(a), endSocket(b)]);
    while (collector.streams.length < 2) await pause(1);
    await Promise.all(collector.streams.map((s) => s.closed));
    for (const stream of collector.streams) {
      const expected = stream.pid === 4321 ? mine : other;
      assert.deepEqual(concat(fromOption.get(stream.id)), expected, `stream ${stream.id}'s chunks are its bytes`);
      assert.deepEqual(concat(fromListener.get(stream.id)), expected);
    }
    // Only chunks before HELLO was complete lack the pid: a few of the 3-byte ones at most.
    assert.ok(chunksWithoutPid < 40, `${chunksWithoutPid} chunks before HELLO`);

    remove();
    const c = await open(collector.socketPath);
    await writeChunked(c, otherStream(1), [1000]);
    await endSocket(c);
    while (collector.streams.length < 3) await pause(1);
    await collector.streams[2].closed;
    assert.deepEqual(concat(fromOption.get(3)), otherStream(1));
    assert.equal(fromListener.get(3), undefined, 'a removed listener hears nothing more');
  } finally {
    await collector.close();
  }
});

test('two processes stream concurrently into separate recordings', async () => {
  const collector = await startCollector();
  try {
    const [a, b] = await Promise.all([open(collector.socketPath), open(collector.socketPath)]);
    await Promise.all([
      writeChunked(a, fixtureStream(), [5, 17, 2]),
      writeChunked(b, otherStream(500), [1000, 3, 999]),
    ]);
    await Promise.all([endSocket(a), endSocket(b)]);
    while (collector.streams.length < 2) await pause(1);
    await Promise.all(collector.streams.map((s) => s.closed));
    const byPid = new Map(collector.streams.map((s) => [s.pid, s]));
    assert.deepEqual([...byPid.keys()].sort((x, y) => (x ?? 0) - (y ?? 0)), [999, 4321]);
    assert.equal(toCollapsed(byPid.get(4321)!.recording, { metric: 'cpu' }), FIXTURE_CPU);
    const child = byPid.get(999)!;
    assert.equal(child.state, 'ended');
    assert.deepEqual(child.recording.end, { mono: 501, reason: 1 });
    assert.equal(toCollapsed(child.recording, { metric: 'cpu', groupByThread: true }), 'child;Child.Main 1500\n');
  } finally {
    await collector.close();
  }
});

test('an abrupt disconnect mid-record keeps every whole record as a cut stream', async () => {
  const collector = await startCollector();
  try {
    // The fixture's eight samples in whole records, then a ninth in a SAMPLES record of its own
    // that stops 3 bytes in.
    const enc = fixtureEncoder();
    const whole = enc.takeBytes(true);
    enc.sample({ mono: 5_000_008_500, threadId: 1, flags: 1, cpuNs: 2, wallNs: 0, frames: [3, 2, 1] });
    const bytes = Buffer.concat([whole, enc.takeBytes(true)]);
    const cutAt = whole.length + 3;
    const client = await open(collector.socketPath);
    await writeChunked(client, bytes.subarray(0, cutAt), [9, 4]);
    client.destroy();
    while (collector.streams.length === 0) await pause(1);
    const [stream] = collector.streams;
    await stream.closed;
    assert.equal(stream.state, 'cut');
    assert.equal(stream.endedMidRecord, true);
    assert.equal(stream.error, undefined);
    assert.equal(stream.recording.sampleCount, 8);
    assert.equal(stream.recording.cut, true);
    assert.equal(stream.bytesReceived, cutAt);
  } finally {
    await collector.close();
  }
});

test('a corrupt stream is closed with one sentence naming the byte; what came before is kept', async () => {
  const collector = await startCollector();
  try {
    const good = fixtureStream({ end: false });
    // The same encoder goes on, as the stream's own writer would: v2 codes samples against earlier ones.
    const meaningEncoder = fixtureEncoder();
    meaningEncoder.bytes();
    // Thread 9 on a stack the fixture defined already, so the SAMPLES record is the first thing after `good`.
    const meaningError = meaningEncoder.sample({ mono: 1, threadId: 9, flags: 1, cpuNs: 1, wallNs: 0, frames: [3, 2, 1] }).bytes().slice();
    const framing = await open(collector.socketPath);
    const framingClosed = new Promise<void>((resolve) => framing.on('close', () => resolve()));
    framing.on('error', () => undefined);
    await writeChunked(framing, good, [100]);
    // The bad length in one write: the collector hangs up once it has read it, so nothing may follow.
    await write(framing, new Uint8Array([0xff, 0xff, 0xff, 0x7f, 5])).catch(() => undefined);
    await framingClosed; // the collector hung up on it
    const meaning = await open(collector.socketPath);
    meaning.on('error', () => undefined);
    await writeChunked(meaning, meaningError, [3]);
    while (collector.streams.length < 2) await pause(1);
    await Promise.all(collector.streams.map((s) => s.closed));
    const [s1, s2] = collector.streams;
    assert.equal(s1.state, 'corrupt');
    assert.equal(s1.error, `Corrupt clrscope stream: the record at byte ${good.length} declares a length of 2147483647 bytes, more than the 1 MiB (1048576) limit.`);
    assert.equal(s1.recording.sampleCount, 8);
    assert.equal(toCollapsed(s1.recording, { metric: 'cpu' }), FIXTURE_CPU);
    assert.equal(s1.recording.cut, true);
    assert.equal(s2.state, 'corrupt');
    assert.equal(s2.error, `Corrupt clrscope stream: the record at byte ${good.length} is a SAMPLE naming thread 9, which no THREAD record defined.`);
    assert.equal(s2.pid, 4321);
    assert.equal(s2.recording.sampleCount, 8);
  } finally {
    await collector.close();
  }
});

test('close() with a writer still connected hangs up and ends the stream cleanly: an END of reason Stopped at its last time', async () => {
  // A writer that does not answer the request to finish (an older profiler) is hung up on.
  const collector = await startCollector({ finishMs: 100 });
  const client = await open(collector.socketPath);
  const clientClosed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  client.on('error', () => undefined);
  const all = otherStream(10);
  const upToEnd = all.length - 14; // everything but the END record
  await write(client, all.subarray(0, upToEnd));
  while (collector.streams.length === 0 || collector.streams[0].bytesReceived < upToEnd) await pause(1);
  await collector.close();
  await clientClosed;
  const [stream] = collector.streams;
  assert.equal(stream.state, 'ended');
  assert.equal(stream.closedByCollector, true);
  assert.equal(stream.pid, 999);
  assert.ok(stream.recording.sampleCount > 0);
  assert.equal(stream.recording.cut, false);
  assert.equal(stream.recording.end?.reason, EndReason.Stopped);
  assert.equal(stream.recording.end?.mono, stream.recording.sampleMono(stream.recording.sampleCount - 1));
  assert.equal(existsSync(collector.directory), false);
  await assert.rejects(open(collector.socketPath));
});

test('close() asks the writer to finish: its own last records and END arrive before the connection closes', async () => {
  const collector = await startCollector();
  const client = await open(collector.socketPath);
  client.on('error', () => undefined);
  const bytes = otherStream(10);
  // Everything but the END record (5-byte header + 9-byte body), then the rest once asked.
  await write(client, bytes.subarray(0, bytes.length - 14));
  client.on('end', () => { client.end(bytes.subarray(bytes.length - 14)); });
  while (collector.streams.length === 0 || collector.streams[0].bytesReceived < bytes.length - 14) await pause(1);
  const started = Date.now();
  await collector.close();
  const [stream] = collector.streams;
  assert.ok(Date.now() - started < 1500, 'the writer answered; nobody waited for the deadline');
  assert.equal(stream.state, 'ended');
  assert.equal(stream.closedByCollector, true);
  assert.equal(stream.bytesReceived, bytes.length);
  assert.notEqual(stream.recording.end?.reason, EndReason.Stopped, 'the END is the writer\'s own');
});

test('a writer that goes away without END leaves a cut stream', async () => {
  const collector = await startCollector();
  try {
    const client = await open(collector.socketPath);
    const bytes = otherStream(10);
    // Everything but the END record (5-byte header + 9-byte body).
    await write(client, bytes.subarray(0, bytes.length - 14));
    await endSocket(client);
    while (collector.streams.length === 0) await pause(1);
    await collector.streams[0].closed;
    assert.equal(collector.streams[0].state, 'cut');
    assert.equal(collector.streams[0].closedByCollector, false);
    assert.equal(collector.streams[0].recording.cut, true);
  } finally {
    await collector.close();
  }
});

/** A stream of this (live) process, cut after its samples as a program's close of the descriptor cuts it. */
function ownProcessStream(samples: number): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: process.pid, flags: 3, mono: 0, unixNs: 1n, intervalNs: 1000, wallThreadsPerTick: 0, runtimeVersion: '10.0.0', profilerVersion: 'p' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: 0, name: 'main' })
    .function({ functionId: 1, kind: 0, name: 'App.Main', module: 'App.dll', file: '' });
  for (let i = 0; i < samples; i++) enc.sample({ mono: i + 1, threadId: 1, flags: 1, cpuNs: 3, wallNs: 0, frames: [1] });
  return enc.bytes().slice();
}

/** What the profiler sends on a second connection once the program took its first one's descriptor. */
function lastWord(descriptor: number): Uint8Array {
  return new WireEncoder().preamble()
    .hello({ pid: process.pid, flags: 3 | HelloFlags.AfterLoss, mono: 90, unixNs: 1n, intervalNs: 1000, wallThreadsPerTick: 0, runtimeVersion: '10.0.0', profilerVersion: 'p' })
    .stats({ mono: 90, samples: 12, droppedRingFull: 0, droppedBufferFull: 0, droppedWatchdog: 0, droppedOther: 0 })
    .end({ mono: 90, reason: EndReason.ConnectionLost, descriptor, descriptorLoss: DescriptorLoss.Replaced })
    .bytes().slice();
}

test('a stream the program took ends with the last word its profiler sends on a second connection, which is no stream of its own', async () => {
  const chunks: Uint8Array[] = [];
  const announced: number[] = [];
  const collector = await startCollector({ onChunk: (_s, chunk) => chunks.push(chunk.slice()), onStream: (s) => announced.push(s.id) });
  try {
    const client = await open(collector.socketPath);
    await write(client, ownProcessStream(12));
    await endSocket(client);
    while (collector.streams.length === 0) await pause(1);
    const [stream] = collector.streams;
    // Cut, its process alive: it waits for the word rather than settle as cut at once.
    await pause(100);
    const word = await open(collector.socketPath);
    await write(word, lastWord(803));
    await stream.closed;
    word.destroy();
    assert.equal(stream.state, 'ended');
    assert.deepEqual(stream.recording.end, { mono: 90, reason: EndReason.ConnectionLost, descriptor: 803, descriptorLoss: DescriptorLoss.Replaced });
    assert.equal(stream.recording.stats?.samples, 12);
    assert.equal(stream.recording.sampleCount, 12);
    assert.deepEqual(announced, [stream.id]);
    assert.deepEqual(collector.streams, [stream]);
    // The listeners got the STATS and END as bytes of the stream: the spool holds an ended recording.
    const again = new Recording();
    new WireDecoder(again.sink).push(Buffer.concat(chunks));
    assert.equal(again.end?.descriptor, 803);
    assert.equal(again.stats?.samples, 12);
  } finally {
    await collector.close();
  }
});

test('a stream cut while its process lives waits for a last word that does not come, then is cut; close() does not wait for it', async () => {
  const collector = await startCollector();
  try {
    const client = await open(collector.socketPath);
    await write(client, ownProcessStream(3));
    await endSocket(client);
    while (collector.streams.length === 0) await pause(1);
    const [stream] = collector.streams;
    const began = Date.now();
    await stream.closed;
    assert.ok(Date.now() - began >= LAST_WORD_MS - 50, `settled after ${Date.now() - began} ms`);
    assert.equal(stream.state, 'cut');
    assert.equal(stream.recording.cut, true);

    const second = await open(collector.socketPath);
    await write(second, ownProcessStream(3));
    await endSocket(second);
    while (collector.streams.length < 2) await pause(1);
    await pause(50);
    const closing = Date.now();
    await collector.close();
    assert.ok(Date.now() - closing < LAST_WORD_MS, 'close() waited out the last word');
    assert.equal(collector.streams[1].state, 'cut');
  } finally {
    await collector.close();
  }
});

test('extra connections are hung up on at HELLO when the session records one process, and cost nothing', async () => {
  const refused: (number | undefined)[] = [];
  const collector = await startCollector({
    accept: (pid, accepted) => pid === 4321 && accepted.length === 0,
    onRefused: (pid) => refused.push(pid),
  });
  try {
    // 60 other "processes", each trying to stream over 3 MB, and the one the session wants.
    const big = otherStream(1_500_000);
    const others = await Promise.all(Array.from({ length: 60 }, () => open(collector.socketPath)));
    const othersClosed = others.map((c) => new Promise<void>((resolve) => {
      c.on('error', () => undefined);
      c.on('close', () => resolve());
    }));
    for (const c of others) c.write(big);
    const mine = await open(collector.socketPath);
    await write(mine, fixtureStream());
    await endSocket(mine);
    await Promise.all(othersClosed);
    while (collector.streams.length === 0 || collector.streams[0].state === 'open') await pause(1);
    assert.deepEqual(collector.streams.map((s) => s.pid), [4321]);
    assert.equal(collector.streams[0].state, 'ended');
    assert.equal(refused.length, 60);
    assert.ok(refused.every((pid) => pid === 999));
    // What the refused connections sent was never decoded past their HELLO chunk.
    assert.ok(big.length > 3_000_000);
  } finally {
    await collector.close();
  }
});

test('connections that say no HELLO are bounded: too many bytes, or too many waiting at once', async () => {
  const reasons: string[] = [];
  const collector = await startCollector({ onRefused: (_pid, why) => reasons.push(why) });
  try {
    // A preamble, then unknown records (which a reader skips) and never a HELLO.
    const noisy = await open(collector.socketPath);
    noisy.on('error', () => undefined);
    const noisyClosed = new Promise<void>((resolve) => noisy.on('close', () => resolve()));
    const junk = new WireEncoder().preamble().bytes().slice();
    const record = new Uint8Array(1005);
    new DataView(record.buffer).setUint32(0, 1001, true);
    record[4] = 0x60;
    for (let i = 0; i < 100; i++) noisy.write(i === 0 ? Buffer.concat([junk, record]) : record);
    await noisyClosed;
    assert.match(reasons[0], /^it sent \d+ bytes without a HELLO$/);
    // MAX_PENDING silent connections wait; the next one is hung up on at once.
    const silent = await Promise.all(Array.from({ length: MAX_PENDING }, () => open(collector.socketPath)));
    const extra = await open(collector.socketPath);
    await new Promise<void>((resolve) => extra.on('close', () => resolve()));
    assert.match(reasons[1], /other connections were already waiting to say HELLO/);
    for (const c of silent) c.destroy();
  } finally {
    await collector.close();
  }
});

async function openTcp(endpoint: string): Promise<Socket> {
  const m = /^tcp:127\.0\.0\.1:(\d+)$/.exec(endpoint);
  assert.ok(m, `${endpoint} is a loopback TCP endpoint`);
  const socket = connect({ host: '127.0.0.1', port: Number(m[1]) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

const closedBy = (socket: Socket): Promise<void> => new Promise((resolve) => {
  socket.on('error', () => undefined);
  if (socket.closed) resolve();
  else socket.once('close', () => resolve());
});

test('over TCP: loopback only, a fresh 32-byte secret per run, and the stream decodes after the secret even when it arrives split', async () => {
  const collector = await startCollector({ listen: 'tcp' });
  const other = await startCollector({ listen: 'tcp' });
  try {
    assert.match(collector.socketPath, /^tcp:127\.0\.0\.1:\d+$/);
    assert.match(collector.secret ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(collector.secret, other.secret);
    const client = await openTcp(collector.socketPath);
    const bytes = fixtureStream();
    const secret = Buffer.from(collector.secret ?? '', 'hex');
    // The secret in pieces, its last byte in the same write as the stream's first bytes.
    await write(client, secret.subarray(0, 5));
    await pause(5);
    await write(client, secret.subarray(5, 31));
    await pause(5);
    await writeChunked(client, Buffer.concat([secret.subarray(31), bytes]), [2, 9, 40]);
    await endSocket(client);
    while (collector.streams.length === 0) await pause(1);
    const [stream] = collector.streams;
    await stream.closed;
    assert.equal(stream.state, 'ended');
    assert.equal(stream.pid, 4321);
    assert.equal(stream.bytesReceived, bytes.length);
    assert.equal(toCollapsed(stream.recording, { metric: 'cpu' }), FIXTURE_CPU);
  } finally {
    await collector.close();
    await other.close();
  }
});

test('over TCP: a wrong secret, a stream without one, or silence past the deadline is closed and never becomes a stream', async () => {
  const streams: CollectedStream[] = [];
  const collector = await startCollector({ listen: 'tcp', secretDeadlineMs: 200, onStream: (s) => streams.push(s) });
  try {
    const secret = Buffer.from(collector.secret ?? '', 'hex');
    const wrong = Buffer.from(secret);
    wrong[31] ^= 1;
    const a = await openTcp(collector.socketPath);
    const aClosed = closedBy(a);
    await write(a, Buffer.concat([wrong, fixtureStream()]));
    // The very first byte differs: closed before the rest of a secret's length arrives.
    const b = await openTcp(collector.socketPath);
    const bClosed = closedBy(b);
    await write(b, fixtureStream().subarray(0, 3));
    const c = await openTcp(collector.socketPath);
    const started = Date.now();
    await closedBy(c);
    assert.ok(Date.now() - started >= 150, 'the silent connection was held until the deadline');
    await aClosed;
    await bClosed;
    assert.equal(collector.streams.length, 0);
    assert.deepEqual(streams, []);
  } finally {
    await collector.close();
  }
});
