// The fallback session's own logic against a stand-in EventPipe session: shutting down without
// a stop, a stop already under way, and failures while finishing. The runtime side is in
// test/integration/workstation-fallback.test.ts and workstation-attach.test.ts here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionInfo, WorkstationEvent } from '../../../structs/api/contract.js';
import type { StreamEnd } from '../diagnostics/eventpipe-stream.js';
import type { EventPipeOutcome } from './eventpipe-session.js';
import { FallbackSession, type FallbackEventPipe } from './fallback-session.js';

const NO_SUCH_PID = 999999999;

class FakeEventPipe implements FallbackEventPipe {
  stops = 0;
  abandons = 0;
  private resolveEnded!: (end: StreamEnd) => void;
  readonly ended = new Promise<StreamEnd>((resolve) => { this.resolveEnded = resolve; });

  /** `stopWith` is what stop() comes to; by default it never settles, like a runtime that never finishes its rundown. */
  constructor(private readonly stopWith: () => Promise<EventPipeOutcome> = () => new Promise(() => undefined)) {}

  stop(): Promise<EventPipeOutcome> {
    this.stops++;
    return this.stopWith();
  }

  abandon(): void {
    this.abandons++;
    this.endStream('dropped');
  }

  endStream(how: StreamEnd['how']): void {
    this.resolveEnded({ bytes: 0, how });
  }
}

async function started(fake: FakeEventPipe, emit: (event: WorkstationEvent) => void = () => undefined): Promise<FallbackSession> {
  return FallbackSession.start({
    id: 's1', pid: NO_SUCH_PID, label: 'Scenarios', notice: 'Refused.', emit, openEventPipe: async () => fake,
  });
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test('shutdown drops the EventPipe session: no StopTracing, no rundown to wait for, nothing published', { timeout: 5000 }, async () => {
  const fake = new FakeEventPipe();
  const events: WorkstationEvent[] = [];
  const session = await started(fake, (e) => events.push(e));
  const before = events.length;
  assert.match(session.nothingToExport(), /^Session s1 has nothing to export yet: stop the recording first, since the runtime names the methods only when its EventPipe session ends\.$/);
  await session.shutdown();
  // The dropped stream ends, which would otherwise finish the session: it must not.
  await turns(5);
  assert.equal(fake.abandons, 1);
  assert.equal(fake.stops, 0);
  assert.deepEqual(events.slice(before), [], 'nothing announced to clients that are closing');
  assert.equal(session.recording, undefined);
  assert.equal(session.snapshot.state, 'stopped');
  assert.equal((await session.stop()).state, 'stopped', 'a stop after the shutdown is nothing to do');
  assert.equal(fake.stops, 0);
});

test('shutdown during a stop under way lets that stop finish', { timeout: 5000 }, async () => {
  let finishStop!: (outcome: EventPipeOutcome) => void;
  const fake = new FakeEventPipe(() => new Promise((resolve) => { finishStop = resolve; }));
  const session = await started(fake);
  const stopping = session.stop();
  await turns(1);
  assert.match(session.nothingToExport(), /^Session s1 has nothing to export yet: its recording is being put together/);
  const shutdown = session.shutdown();
  finishStop({ recording: undefined, problem: undefined });
  await Promise.all([stopping, shutdown]);
  assert.equal(fake.abandons, 0);
  assert.equal(fake.stops, 1);
  assert.equal(session.snapshot.state, 'stopped');
  assert.match(session.nothingToExport(), /^Session s1 has nothing to export: nothing was recorded through its EventPipe session\.$/);
});

/** Unhandled rejections while `body` runs (each would end the Electron main process). */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => { seen.push(reason); };
  process.on('unhandledRejection', listener);
  try {
    await body();
    await turns(5);
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

test('the process exits and finishing throws: the session fails with one sentence, announced, and nothing is left unhandled', { timeout: 5000 }, async () => {
  const fake = new FakeEventPipe(() => Promise.reject(new TypeError('Cannot read properties of undefined (reading \'frames\')')));
  const events: WorkstationEvent[] = [];
  const unhandled = await unhandledDuring(async () => {
    await started(fake, (e) => events.push(e));
    fake.endStream('closed');
  });
  assert.deepEqual(unhandled, []);
  const last = events.filter((e): e is Extract<WorkstationEvent, { type: 'session' }> => e.type === 'session').at(-1)?.session;
  assert.equal(last?.state, 'failed');
  assert.equal(last?.message, `Finishing the EventPipe recording of process ${NO_SUCH_PID} failed: Cannot read properties of undefined (reading 'frames').`);
});

test('publishing throws on a Stop: stop() still answers, with the failed session', { timeout: 5000 }, async () => {
  const fake = new FakeEventPipe(async () => ({ recording: undefined, problem: undefined }));
  let throwNext = false;
  const emit = (event: WorkstationEvent): void => {
    if (throwNext) {
      throwNext = false;
      throw new Error('a client went away mid-delivery');
    }
    void event;
  };
  let stopped: SessionInfo | undefined;
  const unhandled = await unhandledDuring(async () => {
    const session = await started(fake, emit);
    throwNext = true;
    stopped = await session.stop();
  });
  assert.deepEqual(unhandled, []);
  assert.equal(stopped?.state, 'failed');
  assert.equal(stopped?.message, `Finishing the EventPipe recording of process ${NO_SUCH_PID} failed: a client went away mid-delivery.`);
});
