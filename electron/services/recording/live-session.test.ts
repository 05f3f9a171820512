import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CountersPoint, SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import { decodeBlock } from '../../../structs/ipcblock/decode.js';
import { buildGoldenBlock } from '../../../structs/ipcblock/golden-fixtures.js';
import { Recording } from '../../../structs/profile/recording.js';
import type { CollectedStream, Collector, StreamState } from '../collector/collector.js';
import type { CountersSource } from '../counters/counters-source.js';
import type { ProfiledLaunch, ProgramExit } from './profiled-launch.js';
import { LiveSession } from './live-session.js';
import { DescriptorLoss, EndReason } from '../../../structs/wire/records.js';

// No process has this pid (above pid_max), so the counters poller finds nothing to read.
const NO_PID = 2 ** 30;

class FakeStream implements CollectedStream {
  // Only `end` is read by the session; a real Recording would refuse an END before a HELLO.
  readonly recording = { end: undefined } as { end: { mono: number; reason: number } | undefined } & Recording;
  state: StreamState = 'open';
  error: string | undefined;
  endedMidRecord = false;
  closedByCollector = false;
  bytesReceived = 0;
  readonly closed: Promise<void>;
  readonly sent: Uint8Array[] = [];
  close!: () => void;
  send(bytes: Uint8Array): boolean {
    this.sent.push(bytes);
    return this.state === 'open';
  }
  endSending(): void {}
  constructor(readonly id: number, public pid: number | undefined) {
    this.closed = new Promise((resolve) => { this.close = () => { if (this.state === 'open') this.state = 'cut'; resolve(); }; });
  }
}

function fakeCollector(streams: FakeStream[]): Collector & { closedCount: number } {
  const collector = {
    socketPath: '/nowhere/sock',
    directory: '/nowhere',
    streams,
    closedCount: 0,
    async close() {
      collector.closedCount++;
      for (const s of streams) s.close();
      await Promise.all(streams.map((s) => s.closed));
    },
    onChunk: () => () => undefined,
  };
  return collector;
}

function newSession(attached: boolean): { session: LiveSession; events: WorkstationEvent[]; states: () => string[] } {
  const events: WorkstationEvent[] = [];
  const session = new LiveSession({ id: 's7', label: 'App (pid 1)', pid: NO_PID, intervalMs: 10, attached, emit: (e) => events.push(e), connectTimeoutMs: 60000 });
  const states = (): string[] => events.filter((e): e is { type: 'session'; session: SessionInfo } => e.type === 'session').map((e) => `${e.session.state}${e.session.message === null ? '' : `: ${e.session.message}`}`);
  return { session, events, states };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a session follows the first runtime that says hello, keeps its bytes, and ignores the rest', async () => {
  const { session, events, states } = newSession(false);
  const early = new FakeStream(1, undefined);
  const other = new FakeStream(2, NO_PID + 1);
  session.useCollector(fakeCollector([early, other]));
  session.begin();
  session.onChunk(early, Uint8Array.from([1, 2])); // before its HELLO was complete
  early.pid = NO_PID + 5;
  session.onChunk(early, Uint8Array.from([3]));
  session.onChunk(other, Uint8Array.from([9, 9])); // a second process: not this session's stream
  session.onChunk(early, Uint8Array.from([4, 5, 6]));
  const streamEvents = events.filter((e) => e.type === 'stream');
  assert.deepEqual(streamEvents.map((e) => [e.offset, Array.from(e.chunk)]), [[0, [1, 2]], [2, [3]], [3, [4, 5, 6]]]);
  assert.equal(session.stream.length, 6);
  assert.equal(session.recording, early.recording);
  assert.equal(session.snapshot.pid, NO_PID + 5, 'the pid of the process actually profiled');
  assert.deepEqual(states(), ['starting', 'recording']);

  const stopped = await session.stop();
  assert.equal(stopped.state, 'stopped');
  assert.equal(stopped.message, 'Stopped. The profiler detaches; the program carries on.');
  await flush();
  assert.deepEqual(states(), ['starting', 'recording', 'stopped: Stopped. The profiler detaches; the program carries on.']);
  assert.equal((await session.stop()).state, 'stopped', 'stopping twice is harmless');
  await session.shutdown();
});

test('an attached session takes only its own pid\'s stream, and says how the stream ended', async () => {
  const { session, states } = newSession(true);
  const stranger = new FakeStream(1, 4);
  const own = new FakeStream(2, NO_PID);
  const collector = fakeCollector([stranger, own]);
  session.useCollector(collector);
  session.begin();
  session.onChunk(stranger, Uint8Array.from([1]));
  assert.equal(session.stream.length, 0);
  session.onChunk(own, Uint8Array.from([2]));
  assert.equal(session.stream.length, 1);
  own.state = 'ended';
  own.recording.end = { mono: 1, reason: 1 };
  own.close();
  await flush();
  await flush();
  assert.deepEqual(states(), ['starting', 'recording', 'stopped: The profiler detached.']);
  assert.equal(collector.closedCount, 1, 'the collector is let go of');
});

test('a stream whose connection the program took says so, with the descriptor', async () => {
  const { session, states } = newSession(true);
  const own = new FakeStream(1, NO_PID);
  session.useCollector(fakeCollector([own]));
  session.begin();
  session.onChunk(own, Uint8Array.from([2]));
  own.state = 'ended';
  own.recording.end = { mono: 1, reason: EndReason.ConnectionLost, descriptor: 803, descriptorLoss: DescriptorLoss.Closed } as { mono: number; reason: number };
  own.close();
  await flush();
  await flush();
  assert.match(states().at(-1) ?? '', /^stopped: The program closed clrscope's connection \(descriptor 803\): the recording ends there/);
});

test('a corrupt stream fails the session with its sentence; a failure before any stream too', async () => {
  const { session, states } = newSession(true);
  const own = new FakeStream(1, NO_PID);
  session.useCollector(fakeCollector([own]));
  session.begin();
  session.onChunk(own, Uint8Array.from([2]));
  own.state = 'corrupt';
  own.error = 'Corrupt clrscope stream: the record at byte 9 is bad.';
  own.close();
  await flush();
  assert.equal(states().at(-1), 'failed: Corrupt clrscope stream: the record at byte 9 is bad. What arrived before it is kept.');

  const second = newSession(false);
  second.session.begin();
  second.session.fail('The profiler could not be loaded.');
  assert.deepEqual(second.states(), ['starting', 'failed: The profiler could not be loaded.']);
  await second.session.shutdown();
});

test('a session keeps its counters history for pages that come later, and says where it came from', async () => {
  const snapshot = decodeBlock(buildGoldenBlock({ bitness: 64, runtimeId: 7, counters: { 'm_GC.cGenCollections[0]': 4 } }), 64);
  const source = { pid: process.pid, read: () => snapshot, written: () => true, close: () => undefined } as unknown as CountersSource;
  const events: WorkstationEvent[] = [];
  // This test's own process is alive, so the poller keeps reading until the session stops.
  const session = new LiveSession({
    id: 's8', label: 'App', pid: process.pid, intervalMs: 10, attached: true, emit: (e) => events.push(e), connectTimeoutMs: 60000,
    countersIntervalMs: 5, openCounters: () => source,
  });
  assert.equal(session.snapshot.source, 'attach');
  assert.equal(session.snapshot.approximateCpu, false);
  session.begin();
  const heard = (): CountersPoint[] => events.flatMap((e) => (e.type === 'counters' ? [e.point] : []));
  while (heard().length < 3) await new Promise((r) => setTimeout(r, 5));
  await session.shutdown();
  assert.deepEqual(session.countersHistory(), heard(), 'every point broadcast is in the history');
  assert.equal(session.countersHistory()[0].values.gc.genCollections0, 4);

  session.setApproximateCpu(true);
  const last = events.filter((e): e is { type: 'session'; session: SessionInfo } => e.type === 'session').at(-1);
  assert.equal(last?.session.approximateCpu, true, 'the change is announced');
  assert.equal(newSession(false).session.snapshot.source, 'launch');
});

test('a stream whose HELLO says its CPU is estimated makes the session say so', async () => {
  const { session, events } = newSession(true);
  const stream = new FakeStream(1, NO_PID);
  Object.assign(stream.recording, { meta: { approximateCpu: true } });
  session.useCollector(fakeCollector([stream]));
  session.begin();
  assert.equal(session.snapshot.approximateCpu, false);
  session.onChunk(stream, Uint8Array.from([1]));
  assert.equal(session.snapshot.approximateCpu, true);
  const announced = events.filter((e): e is { type: 'session'; session: SessionInfo } => e.type === 'session').at(-1);
  assert.equal(announced?.session.approximateCpu, true);
  await session.shutdown();
});

test('a launched program\'s output goes out as numbered lines and stays for pages that come later', async () => {
  const { session, events } = newSession(false);
  let exit!: (e: ProgramExit) => void;
  const launch: ProfiledLaunch = {
    pid: NO_PID,
    collector: fakeCollector([]),
    exited: new Promise((resolve) => { exit = resolve; }),
    stopProgram: async () => undefined,
    finish: async () => undefined,
  };
  session.followLaunch(launch);
  session.begin();
  const euro = Buffer.from('€');
  session.output('stdout', Buffer.concat([Buffer.from('READY {"pid":1}\nprice '), euro.subarray(0, 1)]));
  session.output('stderr', Buffer.from('Scenarios: done\n'));
  session.output('stdout', Buffer.concat([euro.subarray(1), Buffer.from('5\nContinue? ')]));
  const outputs = (): Extract<WorkstationEvent, { type: 'output' }>[] => events.flatMap((e) => (e.type === 'output' ? [e] : []));
  assert.deepEqual(outputs().map((e) => [e.lines.map((l) => `${l.seq} ${l.stream}: ${l.text}`), e.partial.stdout]), [
    [['0 stdout: READY {"pid":1}'], 'price '],
    [['1 stderr: Scenarios: done'], 'price '],
    [['2 stdout: price €5'], 'Continue? '],
  ], 'a character split between chunks arrives whole');
  assert.deepEqual(session.outputHistory().lines.map((l) => l.seq), [0, 1, 2]);
  assert.equal(session.outputHistory().partial.stdout, 'Continue? ');

  exit({ code: 0, signal: null });
  await flush();
  assert.deepEqual(outputs().at(-1)?.lines.map((l) => l.text), ['Continue? '], 'the unfinished line is kept when the program exits');
  assert.deepEqual(session.outputHistory().partial, { stdout: '', stderr: '' });
  assert.equal(session.outputHistory().lines.length, 4);
  await session.shutdown();
  assert.deepEqual(newSession(true).session.outputHistory(), { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } }, 'an attached process\'s output is not ours');
});
