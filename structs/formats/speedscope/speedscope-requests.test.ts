// speedscope of a recording with HTTP requests: one profile per endpoint and metric, holding the
// samples pprof labels with that endpoint and report --requests charges to it, on the same stacks
// (logical ones with async stacks), which clrscope's own importer does not count again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestTable } from '../../analysis/requests.js';
import { fixtureStream } from '../../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { WireEncoder } from '../../wire/encoder.js';
import { HelloFlags, SampleFlags } from '../../wire/records.js';
import { REQUESTS } from '../../wire/timeline/requests.js';
import { buildPprofProfile } from '../pprof/to-pprof.js';
import { fromSpeedscope } from './from-speedscope.js';
import { ENDPOINT_PROFILE_PREFIX, endpointProfileName } from './profile-name.js';
import { speedscopeSchemaProblems } from './schema-check.js';
import type { SpeedscopeFile } from './speedscope-file.js';
import { toSpeedscope, toSpeedscopeJson } from './to-speedscope.js';

const T = 1_000_000;
const CPU = 'GET /cpu/{ms}';
const DELAY = 'GET /delay/{ms}';

/**
 * A web server on threads 1 (tid 11) and 2 (tid 12). Requests: seq 1 GET /cpu/{ms} begun on tid
 * 11 (+0 .. +1000), seq 2 GET /delay/{ms} on tid 12 (+0 .. +1000), seq 3 GET /cpu/{ms} on tid 12
 * (+1100 .. +2000), whose continuation runs on tid 11. `async`: the profiler followed the requests
 * through their awaits (tasks, REQUEST_SAMPLES marks); else only where each began says which
 * samples are its own, so seq 3's continuation on tid 11 is no request's.
 */
function webStream(async: boolean): Uint8Array {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: HelloFlags.Cpu | HelloFlags.Wall | (async ? HelloFlags.Async : 0), mono: T, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.12', profilerVersion: '0.4.0' })
    .thread({ threadId: 1, osTid: 11, clrThreadId: 1, mono: T, name: 'pool' })
    .thread({ threadId: 2, osTid: 12, clrThreadId: 2, mono: T, name: 'pool' });
  const names = ['System.Threading.ThreadPoolWorkQueue.Dispatch', 'Web.Api+<Cpu>d__0.MoveNext', 'Web.Work.Burn', 'Web.Api+<Delay>d__1.MoveNext', 'Web.Idle.Wait', 'Web.Api+<Handle>d__2.MoveNext'];
  names.forEach((name, i) => enc.function({ functionId: i + 1, kind: 0, name, module: 'Web.dll', file: '' }).frame({ frameId: i + 1, functionId: i + 1, offsetKind: 0, offset: 0 }));
  enc.stack(1, 0, [3, 2, 1]).stack(2, 0, [4, 1]).stack(3, 0, [5, 1])
    .string(1, 'GET').string(2, '/cpu/{ms}').string(3, '/delay/{ms}').string(4, '<Cpu>d__0').string(5, '<Handle>d__2').string(6, '<Delay>d__1')
    .string(7, '0af7651916cd43dd8448eb211c80319c').string(8, 'b7ad6b7169203331').string(9, '4bf92f3577b34da6a3ce929d0e0e4736').string(10, '00f067aa0ba902b7').string(11, '53995c3f42cd8ad8');
  if (async) enc.task({ taskId: 1, awaiterId: 0, nameId: 5 }).task({ taskId: 2, awaiterId: 1, nameId: 4 }).task({ taskId: 3, awaiterId: 0, nameId: 6 });
  const both = SampleFlags.Cpu | SampleFlags.Wall;
  // [+mono, thread, cpu, wall, stack, task, request seq]
  const samples: [number, number, number, number, number, number, number][] = [
    [100, 1, 3000, 4000, 1, 2, 1],
    [200, 1, 5000, 5000, 1, 2, 1],
    [300, 2, 1000, 9000, 2, 3, 2],
    [1200, 1, 7000, 7000, 1, 2, 3],
    [1300, 2, 2000, 2000, 1, 2, 3],
    [1500, 2, 0, 6000, 3, 0, 0],
    [2500, 1, 11000, 11000, 3, 0, 0],
  ];
  for (const [at, thread, cpu, wall, stack, task, seq] of samples) {
    enc.stackSample(T + at, thread, both, cpu, wall, stack, async ? task : 0, 0, async ? seq : 0);
  }
  enc.timeline(REQUESTS, { mono: T, endMono: T + 1000, startTid: 11, endTid: 11, status: 200, method: 1, endpoint: 2, traceId: 7, spanId: 8, seq: 1 })
    .timeline(REQUESTS, { mono: T, endMono: T + 1000, startTid: 12, endTid: 12, status: 200, method: 1, endpoint: 3, traceId: 9, spanId: 10, seq: 2 })
    .timeline(REQUESTS, { mono: T + 1100, endMono: T + 2000, startTid: 12, endTid: 11, status: 200, method: 1, endpoint: 2, traceId: 9, spanId: 11, seq: 3 });
  return enc.end({ mono: T + 3000, reason: 0 }).bytes().slice();
}

/** A profile's samples as `root;…;leaf weight`, sorted. */
function stacksOf(file: SpeedscopeFile, name: string): string[] {
  const profile = file.profiles.find((p) => p.name === name);
  assert.ok(profile !== undefined && profile.type === 'sampled', `${name} is in the file`);
  const frames = file.shared.frames.map((f) => f.name);
  return profile.samples.map((s, i) => `${s.map((f) => frames[f]).join(';')} ${profile.weights[i]}`).sort();
}

/** pprof's samples labelled endpoint=`endpoint`, summed per stack, as `root;…;leaf weight`, sorted. */
function pprofStacks(rec: Recording, endpoint: string, metric: 'cpu' | 'wall'): string[] {
  const profile = buildPprofProfile(rec);
  const str = (i: unknown): string => profile.stringTable.strings[Number(i)];
  const valueIndex = profile.sampleType.findIndex((t) => str(t.type) === metric);
  const nameOfLocation = new Map(profile.location.map((l) => [Number(l.id), str(profile.function.find((f) => f.id === l.line[0].functionId)?.name)]));
  const sums = new Map<string, number>();
  for (const s of profile.sample) {
    if (!s.label.some((l) => str(l.key) === 'endpoint' && str(l.str) === endpoint)) continue;
    const key = s.locationId.map((id) => nameOfLocation.get(Number(id))).reverse().join(';');
    sums.set(key, (sums.get(key) ?? 0) + Number(s.value[valueIndex]));
  }
  return [...sums].filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).sort();
}

const total = (stacks: string[]): number => stacks.reduce((sum, s) => sum + Number(s.slice(s.lastIndexOf(' ') + 1)), 0);

for (const async of [false, true]) {
  const rec = recordingFromStream([webStream(async)]);
  const kind = async ? 'followed through their awaits (async stacks)' : 'by the thread that began them';

  test(`requests ${kind}: one profile per endpoint and metric, its samples pprof's labelled ones, its CPU report --requests's`, () => {
    const file = toSpeedscope(rec);
    assert.deepEqual(speedscopeSchemaProblems(file), []);
    assert.deepEqual(file.profiles.filter((p) => p.name.startsWith(ENDPOINT_PROFILE_PREFIX)).map((p) => p.name),
      [endpointProfileName(CPU, 'cpu'), endpointProfileName(CPU, 'wall'), endpointProfileName(DELAY, 'cpu'), endpointProfileName(DELAY, 'wall')]);
    const rows = new Map(requestTable(rec).map((r) => [r.endpoint, r]));
    for (const endpoint of [CPU, DELAY]) {
      for (const metric of ['cpu', 'wall'] as const) {
        const stacks = stacksOf(file, endpointProfileName(endpoint, metric));
        assert.deepEqual(stacks, pprofStacks(rec, endpoint, metric), `${endpoint} ${metric}: pprof's samples labelled with it`);
        const profile = file.profiles.find((p) => p.name === endpointProfileName(endpoint, metric));
        assert.equal(profile?.endValue, total(stacks));
      }
      assert.equal(total(stacksOf(file, endpointProfileName(endpoint, 'cpu'))), (rows.get(endpoint)?.cpuMs ?? NaN) * 1e6, `${endpoint}: report --requests's CPU`);
    }
    // Every thread's profile stays whole: the endpoint profiles add to the file, take nothing away.
    const perThread = file.profiles.filter((p) => p.name.endsWith('(tid 11) · cpu') || p.name.endsWith('(tid 12) · cpu'));
    assert.equal(perThread.reduce((sum, p) => sum + p.endValue, 0), 29000);
  });

  test(`requests ${kind}: the figures, by hand`, () => {
    const file = toSpeedscope(rec);
    if (!async) {
      // seq 3's continuation on tid 11 is nobody's; tid 12's idle wait in seq 3's time is seq 3's.
      assert.deepEqual(stacksOf(file, endpointProfileName(CPU, 'cpu')), ['System.Threading.ThreadPoolWorkQueue.Dispatch;Web.Api+<Cpu>d__0.MoveNext;Web.Work.Burn 10000']);
      assert.deepEqual(stacksOf(file, endpointProfileName(CPU, 'wall')), [
        'System.Threading.ThreadPoolWorkQueue.Dispatch;Web.Api+<Cpu>d__0.MoveNext;Web.Work.Burn 11000',
        'System.Threading.ThreadPoolWorkQueue.Dispatch;Web.Idle.Wait 6000',
      ]);
    } else {
      // Marked samples alone, wherever they ran, with their awaiting method above them.
      assert.deepEqual(stacksOf(file, endpointProfileName(CPU, 'cpu')), ['[await] Web.Api.Handle;Web.Api+<Cpu>d__0.MoveNext;Web.Work.Burn 17000']);
      assert.deepEqual(stacksOf(file, endpointProfileName(CPU, 'wall')), ['[await] Web.Api.Handle;Web.Api+<Cpu>d__0.MoveNext;Web.Work.Burn 18000']);
    }
    assert.equal(total(stacksOf(file, endpointProfileName(DELAY, 'cpu'))), 1000);
    assert.equal(total(stacksOf(file, endpointProfileName(DELAY, 'wall'))), 9000);
  });

  test(`requests ${kind}: the metric option picks the endpoint profiles; clrscope reads its file back without counting them again`, () => {
    const cpu = toSpeedscope(rec, { metric: 'cpu' });
    assert.deepEqual(cpu.profiles.filter((p) => p.name.startsWith(ENDPOINT_PROFILE_PREFIX)).map((p) => p.name), [endpointProfileName(CPU, 'cpu'), endpointProfileName(DELAY, 'cpu')]);
    const back = fromSpeedscope(toSpeedscopeJson(rec));
    let backCpu = 0;
    let backWall = 0;
    for (let i = 0; i < back.sampleCount; i++) {
      backCpu += back.sampleCpuNs(i);
      backWall += back.sampleWallNs(i);
    }
    assert.equal(backCpu, 29000);
    assert.equal(backWall, 44000);
    assert.deepEqual(back.threads().map((t) => t.osTid).sort(), [11, 12]);
  });
}

test('a recording without requests has no endpoint profile', () => {
  assert.ok(!toSpeedscope(recordingFromStream([fixtureStream()])).profiles.some((p) => p.name.startsWith(ENDPOINT_PROFILE_PREFIX)));
});
