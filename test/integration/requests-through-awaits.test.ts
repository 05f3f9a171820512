// A request followed through its awaits onto other threads (README, "Requests"): RequestWeb's
// /after/{ms} awaits a 5 ms timer and then spins in Work.BurnAfterAwait on whichever pool thread
// the timer hands the continuation to. With async stacks on, the profiler marks each sample whose
// async chain ends at the request's connection, inside the request's time, with that request
// (REQUEST_SAMPLES), so the spin's CPU must sit under its endpoint's label in `go tool pprof
// -tagfocus` and in `report --requests`, whatever thread ran it. Two load loops keep the pool
// threads busy with each other's requests, where the rule by starting thread alone put 67% of it
// there (README, "Requests"). Chains read from the heap on .NET 10 launched and attached, .NET 8
// and 9 (self-contained builds); from TPL events on .NET 10. And with a connection per request
// (load --close, as curl or a client without keep-alive): each request is then its connection's
// first, begun before anything of its chain awaited, so the profiler knows its root only at its
// end and marks the samples it sent before then (REQUEST_BACKFILL); by the thread rule alone 64%.
// So is every HTTP/2 stream's request (.NET 8, the server speaking HTTP/2 alone): 60% before.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { ROOT } from './support/paths.js';
import { requestOutputs, type EndpointRow } from './support/request-outputs.js';
import { resultOf } from './support/run-cli.js';
import { attachedRequestWeb, recordedRequestWeb, WEB_DLL } from './support/starved-pool.js';

const PATHS = ['/after/40', '/cpu/40'];
const HEAP = ['--async-source', 'heap'];

interface Run { rows: Map<string, EndpointRow>; pprof: string; served: Record<string, number> }

function load(url: string, extra: readonly string[] = []): unknown {
  const r = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '6', '--parallel', '2', '--paths', PATHS.join(','), ...extra], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return resultOf(r.stdout);
}

async function outputs(dir: string, file: string, stdout: string): Promise<Run> {
  return { ...(await requestOutputs(dir, file)), served: (resultOf(stdout) as { served: Record<string, number> }).served };
}

/** Work.BurnAfterAwait's CPU seconds in the pprof file, with `args` (a -tagfocus) or without. */
function burnAfter(pprof: string, args: string[]): number {
  return parseTop(goPprof(['-top', '-sample_index=cpu', '-show=Work\\.BurnAfterAwait', ...args], pprof))
    .filter((r) => r.name.includes('Work.BurnAfterAwait')).reduce((s, r) => s + r.flat, 0);
}

// The server speaks HTTP/2 alone (without TLS: by prior knowledge), and the load stops it in it.
const HTTP2 = { Kestrel__EndpointDefaults__Protocols: 'Http2' };

const RUNTIMES: { name: string; command: string; args: string[]; attach?: boolean; source?: string[]; loadArgs?: string[]; env?: Record<string, string> }[] = [
  { name: '.NET 10', command: 'dotnet', args: [WEB_DLL] },
  { name: '.NET 10, chains from TPL events', command: 'dotnet', args: [WEB_DLL], source: ['--async'] },
  { name: '.NET 8', command: join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'net8.0', 'RequestWeb'), args: [] },
  { name: '.NET 9', command: join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'net9.0', 'RequestWeb'), args: [] },
  { name: '.NET 10, attached', command: 'dotnet', args: [WEB_DLL], attach: true },
  { name: '.NET 10, a connection per request', command: 'dotnet', args: [WEB_DLL], loadArgs: ['--close'] },
  { name: '.NET 10, chains from TPL events, a connection per request', command: 'dotnet', args: [WEB_DLL], source: ['--async'], loadArgs: ['--close'] },
  { name: '.NET 8, HTTP/2', command: join(ROOT, 'test', 'targets', 'RequestWeb', 'bin', 'net8.0', 'RequestWeb'), args: [], loadArgs: ['--http2', '--shutdown'], env: HTTP2 },
];

for (const runtime of RUNTIMES) {
  const missing = runtime.command !== 'dotnet' && !existsSync(runtime.command);
  describe(`a request followed through its awaits (${runtime.name})`, { skip: missing ? `${runtime.command} is missing: run bash scripts/build-targets.sh` : false }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'clrscope-request-awaits-'));
    let run: Run;
    before(async () => {
      const file = join(dir, 'web.clrscope');
      const source = runtime.source ?? HEAP;
      const loaded = (url: string): unknown => load(url, runtime.loadArgs);
      const { stdout } = runtime.attach === true
        ? await attachedRequestWeb(file, 14, 2000, loaded, source)
        : await recordedRequestWeb(file, runtime.command, runtime.args, loaded, source, runtime.env);
      run = await outputs(dir, file, stdout);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('counts the requests as the server did', () => {
      const row = run.rows.get('GET /after/{ms}');
      assert.ok(row !== undefined && row.count > 10, `GET /after/{ms} is in the table (${row?.count})`);
      assert.equal(row.count, run.served['GET /after/{ms}']);
    });

    it('puts at least 90% of the CPU run after the await under the endpoint, in pprof and in the table', { skip: goAvailable() ? false : 'go is not installed' }, (t) => {
      const all = burnAfter(run.pprof, []);
      const tagged = burnAfter(run.pprof, ['-tagfocus=endpoint=/after/']);
      const row = run.rows.get('GET /after/{ms}');
      t.diagnostic(`Work.BurnAfterAwait ${all.toFixed(3)} s; under endpoint=GET /after/{ms} ${tagged.toFixed(3)} s; the table's CPU ${row?.cpuMs} ms`);
      assert.ok(all > 0.3, `Work.BurnAfterAwait has CPU samples (${all} s)`);
      assert.ok(tagged >= 0.9 * all, `${((100 * tagged) / all).toFixed(1)}% of Work.BurnAfterAwait's CPU under its endpoint`);
      assert.ok(row !== undefined && row.cpuMs >= 0.9 * all * 1000, `the table charges the endpoint ${row?.cpuMs} ms of CPU, the spin alone took ${(all * 1000).toFixed(0)} ms`);
      // And never another endpoint's.
      const elsewhere = burnAfter(run.pprof, ['-tagfocus=endpoint=/cpu/']);
      assert.ok(elsewhere <= 0.02 * all, `${elsewhere} s of it under GET /cpu/{ms}`);
    });
  });
}
