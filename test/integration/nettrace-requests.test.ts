// HTTP requests in the nettrace export, read by TraceEvent: RequestWeb (test/targets/RequestWeb)
// recorded with `record --requests` on .NET 10 while its load generator sends requests, converted
// with `clrscope convert`, and opened by test/tools/TraceCheck --requests. Each request must come
// out as ASP.NET Core's own RequestStart/RequestStop pair (provider Microsoft.AspNetCore.Hosting,
// the Guid TraceEvent hashes from its name, opcodes Start and Stop): as many starts and stops per
// endpoint as `report --requests` counts, each pair on the recording's threads and as long as the
// recording's request within 1 µs; TraceEvent's StartStopActivityComputer must make an activity
// of each, as long within 1 µs; and PerfView's Thread Time (with StartStop Activities) must put
// under each request the CPU samples clrscope says it holds (one connection, no async stacks:
// the samples of the thread that began it, while it ran).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { requestsOf, sampleRequests, type RequestInfo } from '../../structs/analysis/requests.js';
import type { Recording } from '../../structs/profile/recording.js';
import { SampleFlags } from '../../structs/wire/records.js';
import type { EndpointRow } from './support/request-outputs.js';
import { resultOf, runCli } from './support/run-cli.js';
import { recordedRequestWeb, WEB_DLL } from './support/starved-pool.js';
import { traceCheckBuilt, traceCheckRequests, type TraceCheckRequests } from './support/trace-check.js';

/** `report --requests --format json`'s row, with the requests still in flight at the end. */
type Row = EndpointRow & { inFlight: number };

const PATHS = ['/cpu/150', '/delay/250', '/block/150', '/fail'];
/** EventSource's Guid for the name Microsoft.AspNetCore.Hosting (its name hashed; format 4/5 metadata carries only the name). */
const HOSTING_GUID = '9ded64a4-414c-5251-dcf7-1e4e20c15e70';

/** The load generator against `url` for 5 s on one connection; its RESULT. */
function load(url: string): unknown {
  const r = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '5', '--parallel', '1', '--paths', PATHS.join(',')], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return resultOf(r.stdout);
}

/** The request an activity path `/#pid/1/N/` stands for: the writer numbers them from 1 in the recording's order. */
function requestOfPath(path: string, requests: readonly RequestInfo[]): RequestInfo {
  const m = /^\/#\d+\/1\/(\d+)\/$/.exec(path);
  assert.ok(m !== null, `${path} is a root activity path`);
  const r = requests[Number(m[1]) - 1];
  assert.ok(r !== undefined, `${path} names a request of the recording`);
  return r;
}

/** Per request, the CPU samples clrscope says it holds (structs/analysis/requests.ts). */
function cpuSamplesPerRequest(rec: Recording, requests: readonly RequestInfo[]): number[] {
  const of = sampleRequests(rec, requests);
  const { flags } = rec.sampleColumns();
  const out = new Array<number>(requests.length).fill(0);
  for (let i = 0; i < of.length; i++) if (of[i] >= 0 && (flags[i] & SampleFlags.Cpu) !== 0) out[of[i]]++;
  return out;
}

describe('HTTP requests in the nettrace export, read by TraceEvent (.NET 10)', { skip: traceCheckBuilt() ? false : 'TraceCheck is not built: run bash scripts/build-targets.sh' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-nettrace-requests-'));
  let rows: Row[];
  let requests: RequestInfo[];
  let rec: Recording;
  let tc: TraceCheckRequests;

  before(async () => {
    const saved = join(dir, 'web.clrscope');
    const nettrace = join(dir, 'web.nettrace');
    await recordedRequestWeb(saved, 'dotnet', [WEB_DLL], load);
    const report = await runCli(['report', saved, '--requests', '--format', 'json']);
    assert.equal(report.code, 0, report.stderr);
    rows = (JSON.parse(report.stdout) as { requests: Row[] }).requests;
    const conv = await runCli(['convert', saved, '-o', nettrace]);
    assert.equal(conv.code, 0, conv.stderr);
    rec = (await readRecordingFile(saved)).recording;
    requests = requestsOf(rec);
    tc = traceCheckRequests(nettrace);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one RequestStart per request and one RequestStop per ended one, per endpoint as report --requests counts them', (t) => {
    const h = tc.hosting;
    t.diagnostic(`starts ${h.starts}, stops ${h.stops}; ${JSON.stringify(h.startsByEndpoint)}; report ${JSON.stringify(rows.map((r) => [r.endpoint, r.count]))}`);
    assert.equal(h.providerGuid, HOSTING_GUID);
    assert.equal(h.expectedProviderGuid, HOSTING_GUID, 'TraceEvent hashes the name to the same Guid');
    const ended = rows.reduce((s, r) => s + r.count, 0);
    const begun = rows.reduce((s, r) => s + r.count + r.inFlight, 0);
    assert.ok(ended >= 12, `enough requests to compare (${ended})`);
    assert.equal(h.starts, begun, 'starts = the recording\'s requests');
    assert.equal(h.stops, ended, 'stops = the requests that ended');
    assert.equal(requests.length, begun);
    assert.deepEqual(h.opcodes, { '3:Start': begun, '4:Stop': ended });
    assert.equal(h.startsWithActivityPath, begun, 'every ActivityId is an EventSource activity path');
    for (const r of rows) assert.equal(h.startsByEndpoint[r.endpoint], r.count + r.inFlight, r.endpoint);
    for (const path of PATHS) assert.ok(rows.some((r) => r.endpoint.startsWith(`GET ${path.replace(/\/\d+$/, '')}`) && r.count > 2), `${path} was served`);
  });

  it('pairs each start with its stop on the recording\'s threads, as long as the recording\'s request within 1 µs', (t) => {
    let worst = 0;
    const firstPair = tc.hosting.pairs[0];
    const first = requestOfPath(firstPair.activity, requests);
    for (const p of tc.hosting.pairs) {
      const r = requestOfPath(p.activity, requests);
      assert.equal(p.endpoint, r.endpoint, p.activity);
      assert.equal(p.startTid, r.startTid, `${p.activity}: start thread`);
      // Start times against TraceEvent's clock, from the first request's.
      assert.ok(Math.abs((p.startMs - firstPair.startMs) * 1e6 - (r.startNs - first.startNs)) <= 1000, `${p.activity}: start time`);
      if (r.endNs === undefined) {
        assert.equal(p.durationNs, undefined, `${p.activity} is in flight: no stop`);
        continue;
      }
      assert.equal(p.stopTid, r.endTid, `${p.activity}: stop thread`);
      const diff = Math.abs((p.durationNs ?? Number.NaN) - (r.endNs - r.startNs));
      assert.ok(diff <= 1000, `${p.activity} (${r.endpoint}): TraceEvent ${p.durationNs} ns, recording ${r.endNs - r.startNs} ns`);
      worst = Math.max(worst, diff);
    }
    t.diagnostic(`${tc.hosting.pairs.length} pairs, largest duration difference ${worst} ns`);
    assert.ok(worst <= 1000);
  });

  it('makes a start/stop activity of each request in TraceEvent\'s StartStopActivityComputer, as long within 1 µs', (t) => {
    t.diagnostic(`${tc.activities.length} activities, e.g. ${tc.activities[0]?.name}`);
    assert.equal(tc.activities.length, requests.length);
    for (const a of tc.activities) {
      const r = requestOfPath(a.path, requests);
      assert.equal(a.taskName, 'Request');
      assert.match(a.name, /^Request\(\/#\d+\/1\/\d+\/,\/method=[A-Z]+\)$/);
      // One connection: each request ends before the next begins, so none is another's child.
      assert.equal(a.nested, false, a.name);
      if (r.endNs === undefined) continue;
      assert.ok(a.durationMs !== undefined, `${a.name} stopped`);
      assert.ok(Math.abs(a.durationMs * 1e6 - (r.endNs - r.startNs)) <= 1000, `${a.name}: ${a.durationMs} ms vs ${(r.endNs - r.startNs) / 1e6} ms`);
    }
  });

  it('puts under each request in PerfView\'s Thread Time (with StartStop Activities) the CPU samples clrscope says it holds', (t) => {
    const ours = cpuSamplesPerRequest(rec, requests);
    const theirs = new Array<number>(requests.length).fill(0);
    for (const [name, under] of Object.entries(tc.threadTime.byActivity)) {
      const m = /\(\/#\d+\/1\/(\d+)\//.exec(name);
      assert.ok(m !== null, name);
      theirs[Number(m[1]) - 1] += under.cpuSamples;
    }
    const total = ours.reduce((s, n) => s + n, 0);
    const cpuTotal = requests.reduce((s, r, i) => s + (r.endpoint === 'GET /cpu/{ms}' ? theirs[i] : 0), 0);
    t.diagnostic(`CPU samples in requests: clrscope ${total}, TraceEvent ${theirs.reduce((s, n) => s + n, 0)} (GET /cpu/{ms}: ${cpuTotal}); outside any ${tc.threadTime.outsideCpuSamples}`);
    assert.ok(cpuTotal >= 20, `GET /cpu/{ms} holds CPU samples (${cpuTotal})`);
    // A sample stamped at a request's very start or end may fall either side.
    for (let i = 0; i < requests.length; i++) assert.ok(Math.abs(ours[i] - theirs[i]) <= 1, `${requests[i].endpoint} #${i + 1}: clrscope ${ours[i]}, TraceEvent ${theirs[i]}`);
    assert.ok(Math.abs(theirs.reduce((s, n) => s + n, 0) - total) <= Math.max(1, 0.01 * total), 'totals within 1%');
  });
});
