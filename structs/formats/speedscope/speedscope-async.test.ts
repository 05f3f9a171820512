import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asyncFixtureStream, asyncSuspendedFixtureStream } from '../../profile/async-fixture-stream.test-support.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import { fromSpeedscope } from './from-speedscope.js';
import { ASYNC_PROFILE_PREFIX } from './profile-name.js';
import { speedscopeSchemaProblems } from './schema-check.js';
import { toSpeedscope, toSpeedscopeJson } from './to-speedscope.js';

const rec = recordingFromStream([asyncFixtureStream()]);

test('async call stacks are a profile of their own per metric: logical stacks, root first, summed', () => {
  const file = toSpeedscope(rec, { metric: 'cpu' });
  assert.deepEqual(speedscopeSchemaProblems(file), []);
  const names = file.shared.frames.map((f) => f.name);
  const asyncProfile = file.profiles.find((p) => p.name === `${ASYNC_PROFILE_PREFIX}cpu`);
  assert.ok(asyncProfile !== undefined && asyncProfile.type === 'sampled');
  const stacks = asyncProfile.samples.map((s, i) => `${s.map((f) => names[f]).join(';')} ${asyncProfile.weights[i]}`);
  assert.deepEqual(stacks, [
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 100',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Db+<Inner>d__2.MoveNext;Demo.Db.Hot 1000',
    'System.Threading.ThreadPoolWorkQueue.Dispatch;Demo.Other.Spin 400',
  ]);
  // The per-thread profile keeps the physical stacks.
  assert.ok(file.profiles.some((p) => p.name === 'pool (tid 11) · cpu'));
});

test('clrscope reads its own file back without counting the async profile twice; no async profile without async data', () => {
  const back = fromSpeedscope(toSpeedscopeJson(rec, { metric: 'cpu' }));
  let cpu = 0;
  for (let i = 0; i < back.sampleCount; i++) cpu += back.sampleCpuNs(i);
  assert.equal(cpu, 1500);
  const plain = toSpeedscope(recordingFromStream([fixtureStream()]));
  assert.ok(!plain.profiles.some((p) => p.name.startsWith(ASYNC_PROFILE_PREFIX)));
});

test("the 'async stacks · wall' profile has a suspended operation's wall time under its chain above [suspended]", () => {
  const file = toSpeedscope(recordingFromStream([asyncSuspendedFixtureStream()]), { metric: 'wall' });
  assert.deepEqual(speedscopeSchemaProblems(file), []);
  const names = file.shared.frames.map((f) => f.name);
  const wall = file.profiles.find((p) => p.name === `${ASYNC_PROFILE_PREFIX}wall`);
  assert.ok(wall !== undefined && wall.type === 'sampled');
  const stacks = wall.samples.map((s, i) => `${s.map((f) => names[f]).join(';')} ${wall.weights[i]}`).filter((l) => l.includes('[suspended]'));
  assert.deepEqual(stacks, [
    '[await] Demo.Api.Outer;[await] Demo.Db.Middle;[await] Demo.Db.Inner;[suspended];[awaiting Task.Delay] 50000000',
    '[await] Demo.Api.Outer;[suspended] 7000000',
  ]);
});
