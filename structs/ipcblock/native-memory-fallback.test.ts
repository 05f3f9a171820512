// What happens in Electron's main process, simulated in plain Node: there V8's memory cage forbids
// ArrayBuffers over outside memory and koffi.view throws ("This runtime does not support external
// buffers"). This file replaces koffi.view with one that throws the same way before anything is
// mapped (node --test runs each file in its own process, so the replacement and the remembered
// answer stay here), then maps a real file in `auto` mode: the first mapping tries a view once,
// falls back to copying, and later mappings do not try again.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import koffi from 'koffi';
import { readConsistent } from './consistent-read.js';
import { IpcBlockError } from './ipc-block-error.js';
import { mapBlockFile } from './mapping.js';
import { externalViewsAllowed } from './native-memory.js';

let viewCalls = 0;
(koffi as { view: typeof koffi.view }).view = () => {
  viewCalls++;
  throw new Error('This runtime does not support external buffers');
};

const linux = process.platform === 'linux';

describe('a runtime that forbids views of outside memory (Electron)', { skip: linux ? false : 'mapBlockFile maps /dev/shm files on Linux' }, () => {
  let dir = '';
  let path = '';
  let fd = -1;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-no-views-'));
    path = join(dir, 'block');
    fd = openSync(path, 'w+', 0o600);
    writeSync(fd, new Uint8Array(2048), 0, 2048, 0);
  });
  after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('auto: tries a view once, then copies, and reads the live memory', () => {
    assert.equal(externalViewsAllowed(), undefined, 'nothing tried yet');
    const first = mapBlockFile(path, 2048, { access: 'auto' });
    assert.equal(viewCalls, 1);
    assert.equal(externalViewsAllowed(), false);
    assert.equal(first.access, 'copy');
    const second = mapBlockFile(path, 2048, { access: 'auto' });
    assert.equal(second.access, 'copy');
    assert.equal(viewCalls, 1, 'the answer is remembered');
    try {
      const counter = new Uint8Array(4);
      new DataView(counter.buffer).setInt32(0, 4, true);
      writeSync(fd, counter, 0, 4, 0);
      writeSync(fd, Uint8Array.from([9, 8, 7]), 0, 3, 500);
      const into = new Uint8Array(2048);
      assert.equal(readConsistent(first, into), 4);
      assert.deepEqual([...into.subarray(500, 503)], [9, 8, 7]);
      assert.equal(second.readInt32(0), 4);
    } finally {
      first.close();
      second.close();
    }
  });

  it('a view asked for explicitly: IpcBlockError missing in one sentence, and the mapping is released', () => {
    assert.throws(() => mapBlockFile(path, 2048, { access: 'view' }), (e: unknown) => {
      assert.ok(e instanceof IpcBlockError);
      assert.equal(e.kind, 'missing');
      assert.equal(e.message, `This runtime forbids ArrayBuffers over outside memory, so the counters block at ${path} cannot be read through a view, as the access option asks.`);
      return true;
    });
    const saved = process.env.CLRSCOPE_BLOCK_ACCESS;
    process.env.CLRSCOPE_BLOCK_ACCESS = 'view';
    try {
      assert.throws(() => mapBlockFile(path, 2048), /cannot be read through a view, as CLRSCOPE_BLOCK_ACCESS=view asks\.$/);
    } finally {
      if (saved === undefined) delete process.env.CLRSCOPE_BLOCK_ACCESS;
      else process.env.CLRSCOPE_BLOCK_ACCESS = saved;
    }
    assert.ok(!readFileSync('/proc/self/maps', 'utf8').includes(path), 'unmapped again');
  });
});
