// HTTP requests past the profiler's rate budget (README, "Requests"; native-profiler/core/request_duty.h):
// ASP.NET Core pays for every request the DiagnosticSource bridge hears, so past a budget of
// requests a second (83 per CPU by default, `--requests-rate N`) the profiler listens for a window
// of each second only. RequestWeb (test/targets/RequestWeb) under its own load generator, 4
// connections of cheap endpoints and a 20 ms await: the recording must say it was sampled and at
// what budget, hold every request begun while the bridge listened and no other (the windows'
// count of requests begun, less those cut, equals the table's), hold far fewer than the server
// served, and keep the latencies of those it heard (/delay's p50 within 10% of the client's). Below
// the budget nothing changes: one window, every request. Launched and attached, .NET 10.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EndpointRow } from '../../structs/analysis/requests.js';
import { resultOf, runCli } from './support/run-cli.js';
import { attachedRequestWeb, recordedRequestWeb, WEB_DLL } from './support/starved-pool.js';

interface Tracking { fraction: number; windows: number; begun: number; cut: number; maxPerS: number; sampled: boolean }
interface ClientPath { count: number; p50Ms: number }
interface Run { rows: EndpointRow[]; tracking: Tracking | undefined; text: string; served: number; client: Record<string, ClientPath> }

function load(parallel: number, paths: string): (url: string) => Record<string, ClientPath> {
  return (url) => {
    const r = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '6', '--parallel', String(parallel), '--paths', paths], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    return (resultOf(r.stdout) as { paths: Record<string, ClientPath> }).paths;
  };
}

async function outputs(file: string, stdout: string | null, client: Record<string, ClientPath>): Promise<Run> {
  const json = await runCli(['report', file, '--requests', '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { requests: EndpointRow[]; tracking?: Tracking };
  const text = await runCli(['report', file, '--requests']);
  assert.equal(text.code, 0, text.stderr);
  const served = stdout === null ? 0 : Object.values((resultOf(stdout) as { served: Record<string, number> }).served).reduce((s, n) => s + n, 0);
  return { rows: parsed.requests, tracking: parsed.tracking, text: text.stdout, served, client };
}

const heard = (run: Run): number => run.rows.reduce((s, r) => s + r.count + r.inFlight, 0);

describe('requests past the rate budget: the bridge listens part of the time (.NET 10, launched)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-requests-sampled-'));
  let run: Run;
  before(async () => {
    const file = join(dir, 'web.clrscope');
    const { loaded, stdout } = await recordedRequestWeb(file, 'dotnet', [WEB_DLL], load(4, '/cpu/0,/fail,/delay/20'));
    run = await outputs(file, stdout, loaded);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says it sampled, at the default budget of 83 requests a second per CPU', (t) => {
    t.diagnostic(JSON.stringify(run.tracking));
    assert.ok(run.tracking !== undefined, 'the report has "tracking"');
    assert.equal(run.tracking.sampled, true);
    assert.equal(run.tracking.maxPerS, 83 * availableParallelism());
    assert.ok(run.tracking.windows >= 3, `several windows (${run.tracking.windows})`);
    assert.ok(run.tracking.fraction > 0 && run.tracking.fraction < 0.9, `listened ${run.tracking.fraction} of the time`);
    assert.match(run.text, /Sampled: the profiler listened for requests [\d.]+% of the time \(budget \d+ requests\/s;/);
  });

  it('holds every request begun while it listened, and far fewer than the server served', (t) => {
    assert.ok(run.tracking !== undefined);
    t.diagnostic(`heard ${heard(run)}, begun in windows ${run.tracking.begun}, cut ${run.tracking.cut}, served ${run.served}`);
    assert.equal(heard(run), run.tracking.begun - run.tracking.cut);
    assert.ok(heard(run) > 50, `enough requests heard to compare (${heard(run)})`);
    assert.ok(heard(run) < 0.5 * run.served, `${heard(run)} heard of ${run.served} served`);
  });

  it('keeps the latencies of the requests it heard', (t) => {
    const row = run.rows.find((r) => r.endpoint === 'GET /delay/{ms}');
    const client = run.client['/delay/20'];
    assert.ok(row !== undefined && row.count > 10, `GET /delay/{ms} heard (${row?.count})`);
    t.diagnostic(`/delay/20: clrscope p50 ${row.p50Ms} ms of ${row.count}; client p50 ${client.p50Ms} ms of ${client.count}`);
    assert.ok(Math.abs(row.p50Ms - client.p50Ms) <= 0.1 * client.p50Ms, `p50 ${row.p50Ms} ms vs the client's ${client.p50Ms} ms`);
  });
});

describe('requests within the rate budget: every one (.NET 10, launched)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-requests-budget-'));
  let run: Run;
  before(async () => {
    const file = join(dir, 'web.clrscope');
    const { loaded, stdout } = await recordedRequestWeb(file, 'dotnet', [WEB_DLL], load(1, '/delay/20'));
    run = await outputs(file, stdout, loaded);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('listens all the time in one window and records every request the server served', (t) => {
    t.diagnostic(JSON.stringify(run.tracking));
    assert.ok(run.tracking !== undefined);
    assert.equal(run.tracking.sampled, false);
    assert.equal(run.tracking.windows, 1);
    // The server counts what it served before it was told to shut down; the recording has that
    // last request too.
    const served = run.rows.filter((r) => r.endpoint !== 'POST /shutdown').reduce((s, r) => s + r.count + r.inFlight, 0);
    assert.equal(served, run.served);
    assert.doesNotMatch(run.text, /Sampled:/);
  });
});

describe('requests past a budget given at an attach (.NET 10, record --pid --requests-rate 20)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-requests-attached-'));
  let run: Run;
  before(async () => {
    const file = join(dir, 'web.clrscope');
    const { loaded } = await attachedRequestWeb(file, 12, 1000, load(1, '/delay/5'), ['--requests-rate', '20']);
    run = await outputs(file, null, loaded);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('samples at that budget and holds every request begun while it listened', (t) => {
    t.diagnostic(JSON.stringify(run.tracking));
    assert.ok(run.tracking !== undefined);
    assert.equal(run.tracking.sampled, true);
    assert.equal(run.tracking.maxPerS, 20);
    assert.equal(heard(run), run.tracking.begun - run.tracking.cut);
    const sent = run.client['/delay/5'].count;
    assert.ok(heard(run) > 5 && heard(run) < 0.6 * sent, `${heard(run)} heard of ${sent} sent`);
  });
});
