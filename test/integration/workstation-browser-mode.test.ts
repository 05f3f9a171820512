// The workstation in browser mode against real .NET programs, through the same WebSocket the
// renderer uses: the token guards it; a launched target's session and stream events arrive, and
// its bytes decode into a recording with the target's known frames; a late tab replays the same
// bytes; stop ends a recording and lets the program exit; attach and detach leave a running
// program running; exports are pprof files that Go's pprof reads.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExportResult, OutputHistory, SessionInfo } from '../../structs/api/contract.js';
import { frameLabel } from '../../structs/profile/frame-label.js';
import type { Recording } from '../../structs/profile/recording.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { BrowserModeClient } from './support/browser-mode-client.js';
import { goAvailable, goPprof, parseTop } from './support/go-pprof.js';
import { PROFILER, targetDll } from './support/paths.js';

const NS = 'Clrscope.Targets.Scenarios.';

function functionNames(rec: Recording): Set<string> {
  return new Set(rec.functions().map((fn) => frameLabel(fn)));
}

function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject).end();
  });
}

describe('the workstation in browser mode, with real .NET targets', { timeout: 240000 }, () => {
  let workstation: WorkstationService;
  let server: BrowserMode;
  let client: BrowserModeClient;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-bm-'));
    const renderer = join(dir, 'renderer');
    // A stand-in page: the renderer is the UI's; this test is about the transport and the services.
    mkdirSync(renderer);
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>clrscope</title>');
    workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports'), countersIntervalMs: 100 });
    server = await startBrowserMode({ workstation, rendererDir: renderer });
    client = await BrowserModeClient.connect(server.wsUrl, server.token);
  });

  after(async () => {
    client?.close();
    await server?.close();
    await workstation?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the page and the socket without the token, and serves them with it', async () => {
    assert.equal(await httpStatus(server.port, '/'), 403);
    assert.equal(await httpStatus(server.port, '/?token=0'), 403);
    // With the token: the cookie and a redirect to the address without it (server.test.ts follows it).
    assert.equal(await httpStatus(server.port, `/?token=${server.token}`), 303);
    await assert.rejects(BrowserModeClient.connect(server.wsUrl, 'not-the-token'), /Unexpected server response: 403/);
  });

  let launched: SessionInfo;

  it('launches a target: session events, output, counters, and stream bytes that decode into its recording', async () => {
    launched = await client.call<SessionInfo>('launch', {
      command: 'dotnet',
      args: [targetDll('Scenarios'), 'cpu-ratio', 'sleep', '--seconds', '2'],
      intervalMs: 5,
    });
    assert.equal(launched.state, 'starting');
    assert.equal(launched.attached, false);
    assert.equal(launched.intervalMs, 5);
    assert.match(launched.label, /^dotnet \S+Scenarios\.dll cpu-ratio sleep --seconds 2$/);
    await client.call('subscribe', launched.id);
    const end = await client.until('the program to exit', () => {
      const last = client.lastSession(launched.id);
      return last?.exitCode !== null && last?.state === 'stopped' ? last : undefined;
    });
    assert.equal(end.exitCode, 0);
    assert.equal(end.message, 'The runtime shut down. The program exited with code 0.');
    const states = client.sessionStates(launched.id).map((s) => s.state);
    assert.deepEqual([...new Set(states)], ['starting', 'recording', 'stopped']);

    const rec = recordingFromStream([client.bytes(launched.id)]);
    assert.equal(rec.meta?.pid, launched.pid);
    assert.ok(rec.end !== undefined, 'the stream ended with END');
    assert.ok(rec.sampleCount > 100, `${rec.sampleCount} samples`);
    const names = functionNames(rec);
    assert.ok(names.has(`${NS}CpuWork.Heavy`) && names.has(`${NS}SleepWork.Doze`), 'the target\'s known frames');

    const lines = client.events.flatMap((e) => (e.type === 'output' && e.sessionId === launched.id ? e.lines : []));
    assert.deepEqual(lines.map((l) => l.seq), lines.map((_, i) => i), 'every line once, numbered in order');
    const output = lines.map((l) => `${l.stream}:${l.text}\n`).join('');
    assert.match(output, /^stdout:READY \{/m);
    assert.match(output, /^stderr:Scenarios: done$/m);
    const history = await client.call<OutputHistory>('outputHistory', launched.id);
    assert.deepEqual(history.lines, lines, 'the history holds what the events brought');
    const counters = client.events.flatMap((e) => (e.type === 'counters' && e.sessionId === launched.id ? [e.point] : []));
    assert.ok(counters.length >= 3, `${counters.length} counters points`);
    const lastPoint = counters[counters.length - 1];
    assert.equal(typeof lastPoint.values.gc?.genCollections0, 'number');
    assert.ok((lastPoint.values.jit?.methodsJitted ?? 0) > 0, 'the final point has the JIT\'s count');
  });

  it('replays a session from byte 0 to a tab that subscribes late, without touching the other tabs', async () => {
    const before = client.frames.get(launched.id)?.length ?? 0;
    const late = await BrowserModeClient.connect(server.wsUrl, server.token);
    try {
      await late.call('subscribe', launched.id);
      assert.deepEqual(late.bytes(launched.id), client.bytes(launched.id));
      assert.equal(client.frames.get(launched.id)?.length, before, 'no replay into the first tab');
      const sessions = await late.call<SessionInfo[]>('listSessions');
      assert.deepEqual(sessions.map((s) => s.id), [launched.id]);
    } finally {
      late.close();
    }
  });

  it('exports pprof with progress, where asked and in the exports folder, readable by go tool pprof', async (t) => {
    const path = join(dir, 'scenarios.pb.gz');
    const result = await client.call<ExportResult>('exportRecording', { sessionId: launched.id, format: 'pprof', path });
    assert.equal(result.path, path);
    assert.equal(result.bytes, statSync(path).size);
    const progress = client.events.flatMap((e) => (e.type === 'export-progress' && e.sessionId === launched.id ? [`${e.done}/${e.total}`] : []));
    assert.deepEqual(progress, ['0/1', '1/1']);
    const fallback = await client.call<ExportResult>('exportRecording', { sessionId: launched.id, format: 'pprof' });
    assert.match(fallback.path, new RegExp(`^${join(dir, 'exports')}/Scenarios-${launched.id}-\\d{8}T\\d{6}Z\\.pb\\.gz$`));
    assert.ok(existsSync(fallback.path));
    await assert.rejects(client.call('exportRecording', { sessionId: launched.id, format: 'pprof', path: join(dir, 'no', 'such', 'x.pb.gz') }),
      new Error(`Cannot write ${join(dir, 'no', 'such', 'x.pb.gz')}: the folder ${join(dir, 'no', 'such')} does not exist.`));
    await assert.rejects(client.call('exportRecording', { sessionId: launched.id, format: 'pprof', path: 'relative.pb.gz' }),
      new Error('The export path must be an absolute path, not "relative.pb.gz".'));
    if (!goAvailable()) {
      t.skip('go is not installed');
      return;
    }
    const top = parseTop(goPprof(['-top', '-sample_index=cpu'], path));
    assert.ok(top.some((row) => row.name === `${NS}CpuWork.Heavy`), 'go tool pprof lists CpuWork.Heavy');
  });

  it('stops the demo: the recording ends at once, the program exits as after Ctrl-C', async () => {
    const demo = await client.call<SessionInfo>('launchDemo');
    assert.equal(demo.label, 'Demo order service (bundled demo)');
    await client.call('subscribe', demo.id);
    const isDemoFrame = (name: string): boolean => name.startsWith('Clrscope.Targets.Demo.');
    await client.until('samples in the demo\'s own code', () => {
      if (client.lastSession(demo.id)?.state !== 'recording') return undefined;
      const names = [...functionNames(recordingFromStream([client.bytes(demo.id)]))];
      return names.some(isDemoFrame) ? true : undefined;
    }, 60000);
    // A recording can be exported while it runs: what has arrived so far.
    const live = await client.call<ExportResult>('exportRecording', { sessionId: demo.id, format: 'pprof' });
    assert.ok(live.bytes > 0 && existsSync(live.path));
    const stopped = await client.call<SessionInfo>('stop', demo.id);
    assert.equal(stopped.state, 'stopped');
    assert.match(stopped.message ?? '', /^Stopped\./);
    const exited = await client.until('the demo to exit', () => {
      const last = client.lastSession(demo.id);
      return last?.exitCode !== null ? last : undefined;
    }, 30000);
    assert.equal(exited.state, 'stopped');
    assert.match(exited.message ?? '', /^Stopped\. The program (exited with code \d+|was ended by SIGINT)\.$/);
    const rec = recordingFromStream([client.bytes(demo.id)]);
    assert.ok(rec.sampleCount > 0);
    assert.ok([...functionNames(rec)].some(isDemoFrame), 'the demo\'s own frames');
    const again = await client.call<SessionInfo>('stop', demo.id);
    assert.equal(again.state, 'stopped');
  });

  it('attaches to a running target and detaches on stop, leaving it running', async (t) => {
    const target = spawn('dotnet', [targetDll('Scenarios'), 'cpu-ratio', '--seconds', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    target.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    const exited = new Promise<number | null>((resolve) => target.on('close', (code) => resolve(code)));
    t.after(() => { target.kill('SIGKILL'); });
    await client.until('the target to be ready', () => (stdout.includes('READY ') ? true : undefined), 20000);
    const pid = target.pid ?? 0;
    const attached = await client.call<SessionInfo>('attach', { pid, intervalMs: 5 });
    assert.equal(attached.attached, true);
    assert.equal(attached.pid, pid);
    // The label is the program; the views add the pid once (renderer sessionTitle).
    assert.equal(attached.label, 'Scenarios');
    await client.call('subscribe', attached.id);
    await client.until('samples from the attached target', () => (recordingFromStream([client.bytes(attached.id)]).sampleCount > 50 ? true : undefined), 20000);
    const stopped = await client.call<SessionInfo>('stop', attached.id);
    assert.equal(stopped.state, 'stopped');
    assert.equal(stopped.message, 'Stopped. The profiler detaches; the program carries on.');
    assert.equal(await exited, 0, 'the target finished its work after the detach');
    assert.match(stdout, /RESULT \{/);
    const rec = recordingFromStream([client.bytes(attached.id)]);
    assert.equal(rec.meta?.attached, true);
    assert.ok(functionNames(rec).has(`${NS}CpuWork.Heavy`));
    await assert.rejects(client.call('attach', { pid: 2 ** 30 }), new Error(`There is no process with pid ${2 ** 30}.`));
  });
});
