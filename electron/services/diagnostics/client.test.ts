// The client against a fake runtime on a Unix socket: the bytes it sends, what it makes of
// replies, errors, hangs, hang-ups and stale sockets. (The real runtime is in test/integration.)

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHexText } from '../../../structs/wire/hex-text.js';
import { attachProfiler, diagnosticsSocket, processInfo, processInfo2 } from './client.js';
import { DiagnosticsError } from './diagnostics-error.js';
import { startFakeRuntime, type FakeAnswer, type FakeRuntime } from './fake-runtime.test-support.js';

const fixture = (name: string): Uint8Array => parseHexText(readFileSync(new URL(`../../../../structs/diagnostics/fixtures/${name}`, import.meta.url), 'utf8'));
const MAGIC = [0x44, 0x4f, 0x54, 0x4e, 0x45, 0x54, 0x5f, 0x49, 0x50, 0x43, 0x5f, 0x56, 0x31, 0x00];
const work = mkdtempSync(join(tmpdir(), 'clrscope-diag-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
async function fake(answer: (request: Uint8Array) => FakeAnswer): Promise<FakeRuntime> {
  return startFakeRuntime(join(work, `rt-${n++}.sock`), answer);
}

async function failure(promise: Promise<unknown>): Promise<DiagnosticsError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof DiagnosticsError, `expected DiagnosticsError, got ${String(err)}`);
    // One sentence: ends with a period, no line breaks, no stack.
    assert.match(err.message, /\.$/);
    assert.doesNotMatch(err.message, /\n/);
    return err;
  }
  assert.fail('expected a DiagnosticsError');
}

const errorReply = (hresult: number): Uint8Array => Uint8Array.from([...MAGIC, 24, 0, 0xff, 0xff, 0, 0, hresult & 0xff, (hresult >>> 8) & 0xff, (hresult >>> 16) & 0xff, hresult >>> 24]);
const okHresult = Uint8Array.from([...MAGIC, 24, 0, 0xff, 0x00, 0, 0, 0, 0, 0, 0]);

test('ProcessInfo2: sends the bare 0x04/0x04 header and decodes the reply', async () => {
  const rt = await fake(() => fixture('process-info2-reply.hex'));
  try {
    const info = await processInfo2(4242, { socketPath: rt.path });
    assert.deepEqual(info, {
      pid: 4242, runtimeCookie: '00112233-4455-6677-8899-aabbccddeeff', commandLine: 'dotnet app.dll', os: 'Linux', arch: 'x64',
      managedEntrypointAssemblyName: 'app', clrProductVersion: '10.0.12',
    });
    assert.deepEqual(rt.requests.map((r) => Array.from(r)), [[...MAGIC, 20, 0, 0x04, 0x04, 0, 0]]);
  } finally {
    await rt.close();
  }
});

test('ProcessInfo: 0x04/0x00; a reply arriving byte by byte is put together', async () => {
  const bytes = fixture('process-info-reply.hex');
  const rt = await fake(() => ({ chunks: Array.from(bytes, (b) => Uint8Array.of(b)) }));
  try {
    const info = await processInfo(4242, { socketPath: rt.path });
    assert.equal(info.commandLine, 'dotnet app.dll');
    assert.deepEqual(Array.from(rt.requests[0]), [...MAGIC, 20, 0, 0x04, 0x00, 0, 0]);
  } finally {
    await rt.close();
  }
});

test('AttachProfiler: sends exactly attach-profiler-request.hex; S_OK resolves', async () => {
  const rt = await fake(() => okHresult);
  try {
    await attachProfiler(4242, { socketPath: rt.path, clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B}', path: '/p/libclrscope.so', clientData: 'sock', timeoutMs: 5000 });
    assert.deepEqual(Array.from(rt.requests[0]), Array.from(fixture('attach-profiler-request.hex')));
  } finally {
    await rt.close();
  }
});

test('AttachProfiler refused: the HRESULT becomes a sentence and stays available', async () => {
  const rt = await fake(() => errorReply(0x8013136a));
  try {
    const err = await failure(attachProfiler(4242, { socketPath: rt.path, clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B}', path: '/p/libclrscope.so' }));
    assert.equal(err.message, 'Process 4242 did not load the profiler: another profiler is already loaded in it (an APM agent, a debugger\'s profiler or clrscope itself), and a .NET process takes only one (CORPROF_E_PROFILER_ALREADY_ACTIVE, 0x8013136A).');
    assert.equal(err.failure, 'runtime-error');
    assert.equal(err.hresult, 0x8013136a);
    assert.equal(err.exitCode, 2);
  } finally {
    await rt.close();
  }
});

test('an unknown command and an unloadable library, as the runtime words them', async () => {
  const rt = await fake((req) => errorReply(req[16] === 0x04 ? 0x80131385 : 0x8007007e));
  try {
    const a = await failure(processInfo2(4242, { socketPath: rt.path }));
    assert.match(a.message, /^Process 4242 could not answer ProcessInfo2: its runtime does not know this command .* \(CORDIAGIPC_E_UNKNOWN_COMMAND, 0x80131385\)\.$/);
    const b = await failure(attachProfiler(4242, { socketPath: rt.path, clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B}', path: '/nowhere/lib.so' }));
    assert.match(b.message, /^Process 4242 did not load the profiler: the runtime could not load the profiler library .* \(ERROR_MOD_NOT_FOUND, 0x8007007E\)\.$/);
  } finally {
    await rt.close();
  }
});

test('a runtime that never answers costs the timeout, not a hang', async () => {
  const rt = await fake(() => 'hang');
  try {
    const start = Date.now();
    const err = await failure(processInfo2(4242, { socketPath: rt.path, timeoutMs: 150 }));
    const took = Date.now() - start;
    assert.ok(took >= 140 && took < 2000, `took ${took} ms`);
    assert.equal(err.failure, 'timeout');
    assert.equal(err.message, 'Process 4242 did not answer ProcessInfo2 within 150 ms: its runtime may be hung, stopped (SIGSTOP or a debugger), or busy with another diagnostics client.');
  } finally {
    await rt.close();
  }
});

test('hang-ups, truncated and garbled replies', async () => {
  const full = fixture('process-info2-reply.hex');
  const cases: [FakeAnswer, string, RegExp][] = [
    ['close', 'closed', /^Process 4242 closed the diagnostics connection before answering ProcessInfo2 \(0 bytes arrived\): it may be exiting\.$/],
    [full.subarray(0, 60), 'closed', /\(60 bytes arrived\)/],
    [Uint8Array.from([...full.subarray(0, 19)]), 'closed', /\(19 bytes arrived\)/],
    [Uint8Array.from([0x48, 0x54, 0x54, 0x50, ...new Array<number>(30).fill(0x20)]), 'protocol', /^Process 4242 answered ProcessInfo2 with bytes that are not a diagnostics IPC reply: the message does not start with "DOTNET_IPC_V1\\0" \(byte 0 is 0x48\)\.$/],
    [Uint8Array.from([...MAGIC, 22, 0, 0x04, 0x00, 0, 0, 1, 2]), 'protocol', /cannot read: a reply has command set 0xFF \(server\), not 0x04\.$/],
    [Uint8Array.from([...full.subarray(0, 14), 30, 0, 0xff, 0x00, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1, 2]), 'protocol', /cannot read: the ProcessInfo2 reply ends inside runtime cookie/],
  ];
  for (const [answer, kind, re] of cases) {
    const rt = await fake(() => answer);
    try {
      const err = await failure(processInfo2(4242, { socketPath: rt.path, timeoutMs: 2000 }));
      assert.equal(err.failure, kind, err.message);
      assert.match(err.message, re);
    } finally {
      await rt.close();
    }
  }
});

test('a socket left by a killed process is refused; a vanished one is gone', async () => {
  const path = join(work, 'stale.sock');
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(existsSync(path), 'the socket file stays behind');
  const refused = await failure(processInfo2(4242, { socketPath: path }));
  assert.equal(refused.failure, 'exited');
  assert.match(refused.message, /^Process 4242 does not accept diagnostics connections at .*stale\.sock: the socket is left over from an exited process, or its runtime is shutting down\.$/);
  const gone = await failure(processInfo2(4242, { socketPath: join(work, 'never.sock') }));
  assert.match(gone.message, /^Process 4242's diagnostics socket .*never\.sock disappeared: the process has exited\.$/);
});

test('bad pids, and processes that are not .NET, are one sentence each', async () => {
  assert.equal((await failure(processInfo2(0))).message, '0 is not a process id.');
  assert.equal((await failure(processInfo2(1.5))).message, '1.5 is not a process id.');
  // pid_max is at most 2^22 on Linux, so this one cannot exist.
  const none = await failure(processInfo2(2 ** 31 - 2));
  assert.equal(none.failure, 'no-process');
  assert.equal(none.message, `There is no process with pid ${2 ** 31 - 2}.`);
  const self = await failure(diagnosticsSocket(process.pid, { tempDirs: [work] }));
  assert.equal(self.failure, 'not-dotnet');
  assert.equal(self.message, `Process ${process.pid} (${readFileSync('/proc/self/comm', 'utf8').trim()}) is not a .NET process: it has no .NET runtime diagnostics socket.`);
});

test('attach requests the protocol cannot carry are refused before connecting', async () => {
  const err = await failure(attachProfiler(4242, { socketPath: join(work, 'unused.sock'), clsid: 'not-a-guid', path: '/p/lib.so' }));
  assert.equal(err.failure, 'protocol');
  assert.match(err.message, /^Cannot ask process 4242 to load the profiler: 'not-a-guid' is not a GUID/);
});

test('another user\'s socket: permission denied becomes who to run as', { skip: process.getuid?.() !== 0 && 'needs root to run a client as another user' }, async (t) => {
  const open = mkdtempSync(join(tmpdir(), 'clrscope-diag-perm-'));
  chmodSync(open, 0o755);
  const rt = await startFakeRuntime(join(open, 'rt.sock'), () => fixture('process-info2-reply.hex'));
  chmodSync(rt.path, 0o600);
  try {
    const client = new URL('./client.js', import.meta.url).href;
    const script = `const { processInfo2 } = await import(${JSON.stringify(client)});
      try { await processInfo2(${process.pid}, { socketPath: ${JSON.stringify(rt.path)} }); console.log('{}'); }
      catch (e) { console.log(JSON.stringify({ failure: e.failure, message: e.message })); }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errText = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { errText += d.toString(); });
    await new Promise((r) => child.once('close', r));
    // A checkout in a private folder (mktemp -d is 0700) cannot be loaded by user nobody at all.
    if (out === '' && /EACCES|ERR_MODULE_NOT_FOUND|permission denied/i.test(errText)) {
      t.skip(`user nobody cannot read this checkout's build (${/Error[^\n]*/.exec(errText)?.[0] ?? 'EACCES'})`);
      return;
    }
    assert.equal(errText, '', 'the client run as nobody printed errors');
    assert.deepEqual(JSON.parse(out), {
      failure: 'other-user',
      message: `Process ${process.pid}'s diagnostics socket ${rt.path} belongs to root, and only root may attach clrscope to another user's process: run it as root.`,
    });
    assert.equal(rt.requests.length, 0);
  } finally {
    await rt.close();
    rmSync(open, { recursive: true, force: true });
  }
});
