// Attach on Windows, under Wine: a running win-x64 .NET 10 program gets clrscope's Windows
// profiler through its runtime's diagnostics named pipe \\.\pipe\dotnet-diagnostic-<pid>, sent
// by our real TypeScript codec and client (electron/services/diagnostics). No Linux process can
// open a Wine named pipe, so a Windows-side relay (test/tools/wine-tools/pipe-relay.exe, mingw)
// bridges it to loopback TCP and a Unix socket here bridges to that: the bytes on the pipe are
// exactly the client's. The product on Windows opens the pipe from Node directly.
// Skipped, saying why, where wine64 is missing.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCollector, type Collector } from '../../electron/services/collector/collector.js';
import { attachProfiler, processInfo } from '../../electron/services/diagnostics/client.js';
import { windowsPipeName } from '../../electron/services/diagnostics/socket-location.js';
import { PROFILER_CLSID } from '../../electron/services/session/profiler-env.js';
import { attachClientData } from '../../electron/services/session/profiled-attach.js';
import { WINDOWS_PROFILER, readLog, startWine, wineEnvironment, wineSkipReason, windowsTarget, wineTool, type WineProcess } from './support/wine.js';

const skip = wineSkipReason();

/** A Unix socket whose every connection is piped to 127.0.0.1:port. */
function unixToTcp(path: string, port: number): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

describe('Windows CoreCLR under Wine: attach through the diagnostics named pipe', { skip }, () => {
  let dir: string;
  let logPath: string;
  let socketPath: string;
  let target: WineProcess;
  let relay: WineProcess;
  let bridge: Server;
  let collector: Collector;
  let pid: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-wine-attach-'));
    logPath = join(dir, 'profiler.log');
    socketPath = join(dir, 'diag.sock');
    // No CORECLR_* variables: the program starts without a profiler. The log and the Wine
    // workaround (no runtime event session, see shim/engine.cpp) are read by the attached profiler.
    target = startWine(windowsTarget('Scenarios'), ['sleep', '--seconds', '30'],
      wineEnvironment({ CLRSCOPE_LOG: `Z:${logPath.replaceAll('/', '\\')}`, CLRSCOPE_RUNTIME_EVENTS: '0' }));
    pid = ((await target.line('READY')) as { pid: number }).pid;
    relay = startWine(wineTool('pipe-relay'), [windowsPipeName(pid)], wineEnvironment());
    const port = (await relay.line('PORT')) as number;
    bridge = await unixToTcp(socketPath, port);
    collector = await startCollector({ listen: 'tcp' });
  });

  after(async () => {
    relay?.child.kill('SIGKILL');
    bridge?.close();
    await collector?.close();
    target?.child.kill('SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('answers ProcessInfo through the pipe: the Windows pid, command line and OS', async () => {
    const info = await processInfo(pid, { socketPath, timeoutMs: 10000 });
    assert.equal(info.pid, pid);
    assert.equal(info.os, 'Windows');
    assert.equal(info.arch, 'x64');
    assert.match(info.commandLine, /Scenarios\.exe/);
  });

  it('loads the profiler with AttachProfiler: InitializeForAttach streams HELLO with the Windows pid and the threads already running', async () => {
    await attachProfiler(pid, {
      clsid: PROFILER_CLSID,
      path: WINDOWS_PROFILER,
      clientData: attachClientData(collector.socketPath, 10, true, true, collector.secret),
      socketPath,
      timeoutMs: 10000,
    });
    const started = Date.now();
    while (collector.streams[0] === undefined || collector.streams[0].recording.threads().length < 4) {
      assert.ok(Date.now() - started < 15000, `no HELLO and threads 15 s after the attach; log:\n${await readLog(logPath)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [stream] = collector.streams;
    assert.equal(stream.recording.meta?.pid, pid);
    const log = await readLog(logPath);
    assert.match(log, /attached to pid \d+ every 10000 us/, log);
    assert.match(log, /attached: \d+ threads were already running/, log);
    // Not asserted, because under Wine they fail (README, "What is verified where"): samples
    // after the attach (none arrive in the seconds that follow), and the detach when the
    // workstation hangs up (the program then hangs instead of running on).
  });
});
