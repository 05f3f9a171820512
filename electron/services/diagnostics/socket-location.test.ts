import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStat } from './proc.js';
import { listSockets, locateSocket, parseSocketName, socketName, tempDirOf, windowsPipeName } from './socket-location.js';

const work = mkdtempSync(join(tmpdir(), 'clrscope-sock-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

function listen(path: string): Promise<Server> {
  return new Promise((resolve) => { const s = createServer(); s.listen(path, () => resolve(s)); });
}

test('socket names', () => {
  assert.deepEqual(parseSocketName('dotnet-diagnostic-7612-547698-socket'), { pid: 7612, key: '547698' });
  assert.equal(parseSocketName('dotnet-diagnostic-7612-socket'), undefined);
  assert.equal(parseSocketName('dotnet-diagnostic-7612-547698-socket.lock'), undefined);
  assert.equal(parseSocketName('clr-debug-pipe-7612-547698-in'), undefined);
  assert.equal(socketName(7612, '547698'), 'dotnet-diagnostic-7612-547698-socket');
});

test('the runtime\'s temp directory: TMPDIR, else /tmp', () => {
  assert.equal(tempDirOf(undefined), '/tmp');
  assert.equal(tempDirOf(''), '/tmp');
  assert.equal(tempDirOf('/var/tmp/'), '/var/tmp');
  assert.equal(tempDirOf('/'), '/');
});

test('listing finds sockets only, and locating uses the start-time key', async () => {
  const key = (await readStat(process.pid))?.startTime ?? '';
  const live = join(work, socketName(process.pid, key));
  const stale = join(work, socketName(process.pid, `${key}9`));
  const server = await listen(live);
  const staleServer = await listen(stale);
  writeFileSync(join(work, socketName(12345, '1')), 'not a socket');
  try {
    const list = await listSockets([work, join(work, 'missing')]);
    assert.deepEqual(list.map((s) => [s.pid, s.key]), [[process.pid, key], [process.pid, `${key}9`]]);
    assert.equal((await locateSocket(process.pid, { tempDirs: [work] }))?.path, live);
    assert.equal(await locateSocket(process.pid, { tempDirs: [join(work, 'missing')] }), undefined);
    // Only a socket with another start time: an earlier process's, not this one's.
    server.close();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await locateSocket(process.pid, { tempDirs: [work] }), undefined);
  } finally {
    server.close();
    staleServer.close();
  }
});

test('the Windows diagnostics pipe is \\\\.\\pipe\\dotnet-diagnostic-<pid>, which Node connects to as a path', () => {
  assert.equal(windowsPipeName(4242), '\\\\.\\pipe\\dotnet-diagnostic-4242');
});
