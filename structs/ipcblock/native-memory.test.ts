// Both ways of reading mapped memory (view and copy) against a real mapping: a temp file mapped
// with mapBlockFile, written with fs.writeSync while mapped (the page cache is the mapping's
// memory, so the writes are the "writer"), and read back through each accessor; the sequence lock
// on top of each, with a writer thread racing it; the copying functions' prototypes, parsed by
// koffi, and the Windows one linked against mingw-w64's kernel32 import library.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import koffi from 'koffi';
import { readConsistent } from './consistent-read.js';
import { IpcBlockError } from './ipc-block-error.js';
import { mapBlockFile } from './mapping.js';
import { BLOCK_ACCESS_ENV, COPY_FUNCTIONS, blockAccessFromEnv, externalViewsAllowed } from './native-memory.js';

const linux = process.platform === 'linux';
const SIZE = 4096;
let dir = '';
let path = '';
let fd = -1;

function int32(value: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, value, true);
  return b;
}

/** Writes `bytes` into the mapped file at `offset`, as another process would write the shared memory. */
function poke(offset: number, bytes: Uint8Array): void {
  assert.equal(writeSync(fd, bytes, 0, bytes.length, offset), bytes.length);
}

/** Whether this process still maps `file` (Linux: /proc/self/maps). */
function mapped(file: string): boolean {
  return readFileSync('/proc/self/maps', 'utf8').includes(file);
}

/** Descriptors this process holds on `file`. */
function descriptors(file: string): number {
  let n = 0;
  for (const fdName of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fdName}`) === file) n++;
    } catch {
      // Closed meanwhile (the listing's own descriptor).
    }
  }
  return n;
}

describe('reading a real mapping', { skip: linux ? false : 'mapBlockFile maps /dev/shm files on Linux' }, () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'clrscope-native-memory-'));
    path = join(dir, 'block');
    fd = openSync(path, 'w+', 0o600);
    poke(0, new Uint8Array(SIZE));
  });
  after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const access of ['read', 'view', 'copy'] as const) {
    describe(`access: ${access}`, () => {
      it('sees the writes made to the file while it is mapped, at their offsets', () => {
        poke(0, new Uint8Array(SIZE));
        const block = mapBlockFile(path, 2048, { access });
        try {
          assert.equal(block.access, access);
          assert.equal(block.size, SIZE);
          assert.equal(block.source, path);
          assert.equal(block.readInt32(0), 0);
          poke(0, int32(2));
          assert.equal(block.readInt32(0), 2, 'a fresh read of the counter');
          poke(0, int32(-6));
          assert.equal(block.readInt32(0), -6, 'signed');
          poke(1000, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
          poke(SIZE - 4, int32(0x12345678));
          const into = new Uint8Array(16);
          block.read(into, 1000, 9);
          assert.deepEqual([...into.subarray(0, 10)], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
          assert.equal(block.readInt32(SIZE - 4), 0x12345678, 'the last 4 bytes');
          assert.equal(block.readInt32(1001), 0x05040302, 'unaligned');
          // Into the middle of a larger buffer: its data pointer, byte offset included.
          const outer = new Uint8Array(64).fill(0xee);
          block.read(outer.subarray(10, 20), 1002, 3);
          assert.deepEqual([...outer.subarray(8, 15)], [0xee, 0xee, 3, 4, 5, 0xee, 0xee]);
          // A large destination too (off the V8 heap from the start).
          const big = new Uint8Array(SIZE);
          block.read(big, 0, SIZE);
          assert.deepEqual(big.subarray(1000, 1009), Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
          poke(1004, Uint8Array.from([0x55]));
          block.read(into, 1000, 9);
          assert.equal(into[4], 0x55, 'the same range read again is read again');
        } finally {
          block.close();
        }
      });

      it('reads nothing outside the mapping, nor into a buffer too small (RangeError, no crash)', () => {
        const block = mapBlockFile(path, 2048, { access });
        try {
          for (const offset of [-4, SIZE - 3, SIZE, 1.5, Number.NaN, 2 ** 32]) assert.throws(() => block.readInt32(offset), RangeError, String(offset));
          assert.throws(() => block.read(new Uint8Array(16), SIZE - 8, 16), RangeError);
          assert.throws(() => block.read(new Uint8Array(16), -1, 4), RangeError);
          assert.throws(() => block.read(new Uint8Array(4), 0, 2048), /copy buffer has 4 bytes/);
        } finally {
          block.close();
        }
      });

      it('the sequence lock: a consistent copy at an even counter, unsettled at an odd one', () => {
        poke(0, new Uint8Array(SIZE).fill(0x3c));
        poke(0, int32(8));
        const block = mapBlockFile(path, 2048, { access });
        try {
          const into = new Uint8Array(2048);
          assert.equal(readConsistent(block, into), 8);
          assert.deepEqual(into.subarray(4), new Uint8Array(2044).fill(0x3c));
          poke(0, int32(9));
          assert.throws(() => readConsistent(block, into, 50), (e: unknown) => e instanceof IpcBlockError && e.kind === 'unsettled' && /all 50 attempts/.test(e.message));
          poke(0, int32(10));
          poke(100, Uint8Array.from([1]));
          assert.equal(readConsistent(block, into), 10);
          assert.equal(into[100], 1);
        } finally {
          block.close();
        }
      });

      it('close() unmaps (or closes the descriptor) once; reads after it throw instead of touching unmapped memory', () => {
        const before = descriptors(path);
        const block = mapBlockFile(path, 2048, { access });
        // Mapped, or (read) holding a descriptor of its own and no mapping at all.
        assert.equal(mapped(path), access !== 'read');
        assert.equal(descriptors(path), before + (access === 'read' ? 1 : 0));
        block.close();
        block.close();
        assert.ok(!mapped(path), 'unmapped');
        assert.equal(descriptors(path), before, 'no descriptor left open');
        assert.throws(() => block.readInt32(0), /read after it was closed/);
        assert.throws(() => block.read(new Uint8Array(4), 0, 4), /read after it was closed/);
      });

      it('never yields a torn copy while a writer thread rewrites the block under its counter', async () => {
        poke(0, new Uint8Array(SIZE));
        const block = mapBlockFile(path, 2048, { access });
        // The writer: counter odd, every payload byte = k, counter even (2k), then about 20 µs
        // outside (the profiler publishes once a millisecond), over and over.
        const writer = new Worker(`
          const { writeSync } = require('node:fs');
          const { workerData, parentPort } = require('node:worker_threads');
          const counter = new Uint8Array(4), view = new DataView(counter.buffer), payload = new Uint8Array(2044);
          let k = 0;
          parentPort.postMessage('started');
          const until = Date.now() + workerData.ms;
          while (Date.now() < until) {
            k++;
            view.setInt32(0, 2 * k - 1, true); writeSync(workerData.fd, counter, 0, 4, 0);
            payload.fill(k & 0xff); writeSync(workerData.fd, payload, 0, 2044, 4);
            view.setInt32(0, 2 * k, true); writeSync(workerData.fd, counter, 0, 4, 0);
            const pause = process.hrtime.bigint() + 20000n;
            while (process.hrtime.bigint() < pause);
          }
          parentPort.postMessage(k);
        `, { eval: true, workerData: { fd, ms: 400 } });
        const started = new Promise<void>((resolve, reject) => {
          writer.once('message', () => resolve());
          writer.once('error', reject);
        });
        const done = started.then(() => new Promise<number>((resolve, reject) => {
          writer.once('message', resolve);
          writer.once('error', reject);
        }));
        try {
          await started;
          const into = new Uint8Array(2048);
          let reads = 0;
          let unsettled = 0;
          const seen = new Set<number>();
          const until = Date.now() + 300;
          while (Date.now() < until) {
            let counter: number;
            try {
              counter = readConsistent(block, into, 10_000);
            } catch (e) {
              // On a loaded machine the writer thread can be preempted while inside: the reader
              // then gives up, which is the lock working, not a torn copy.
              if (!(e instanceof IpcBlockError) || e.kind !== 'unsettled') throw e;
              unsettled++;
              continue;
            }
            assert.equal(counter % 2, 0);
            const expected = (counter / 2) & 0xff;
            for (let i = 4; i < 2048; i += 97) assert.equal(into[i], expected, `byte ${i} of the copy at counter ${counter}`);
            assert.equal(into[2047], expected);
            seen.add(counter);
            reads++;
          }
          const written = await done;
          assert.ok(written > 10, `${written} writes`);
          assert.ok(reads > 100, `${reads} consistent reads, ${unsettled} unsettled`);
          assert.ok(seen.size > 1, `${seen.size} distinct snapshots in ${reads} reads: the writer moved while they were taken`);
        } finally {
          await done.catch(() => undefined);
          block.close();
        }
      });
    });
  }

  it('a block truncated while open is refused in one sentence when read through its descriptor (a mapping would raise SIGBUS)', () => {
    const local = join(dir, 'shrinking');
    const w = openSync(local, 'w+', 0o600);
    try {
      writeSync(w, new Uint8Array(SIZE), 0, SIZE, 0);
      const block = mapBlockFile(local, 2048);
      assert.equal(block.access, 'read');
      const into = new Uint8Array(2048);
      assert.equal(readConsistent(block, into), 0);
      ftruncateSync(w, 100);
      assert.throws(() => readConsistent(block, into), (e: unknown) => e instanceof IpcBlockError && e.kind === 'truncated' && e.message === `The counters block at ${local} shrank while it was being read.`);
      block.close();
    } finally {
      closeSync(w);
    }
  });

  it('only a regular 0600 file of this user is read: not one open to others, not a link, not a folder', () => {
    const open = join(dir, 'open-to-others');
    writeFileSync(open, new Uint8Array(SIZE), { mode: 0o644 });
    chmodSync(open, 0o644);
    assert.throws(() => mapBlockFile(open, 2048), (e: unknown) => e instanceof IpcBlockError && e.message === `The counters block at ${open} is open to other users (mode 644), so it is not clrscope's (0600): it is not read.`);
    const link = join(dir, 'link');
    symlinkSync(path, link);
    assert.throws(() => mapBlockFile(link, 2048), (e: unknown) => e instanceof IpcBlockError && /is a symbolic link, which clrscope does not follow/.test(e.message));
    assert.throws(() => mapBlockFile(dir, 2048), (e: unknown) => e instanceof IpcBlockError && /is not a regular file/.test(e.message));
  });

  it(`${BLOCK_ACCESS_ENV} picks the default (read, through the descriptor); auto takes a view in plain Node and remembers that it may`, () => {
    const saved = process.env[BLOCK_ACCESS_ENV];
    try {
      for (const [value, access] of [['copy', 'copy'], ['view', 'view'], ['auto', 'view'], ['read', 'read'], ['', 'read'], [undefined, 'read']] as const) {
        if (value === undefined) delete process.env[BLOCK_ACCESS_ENV];
        else process.env[BLOCK_ACCESS_ENV] = value;
        const block = mapBlockFile(path, 2048);
        assert.equal(block.access, access, `${BLOCK_ACCESS_ENV}=${String(value)}`);
        block.close();
      }
      assert.equal(externalViewsAllowed(), true);
      // The option wins over the environment.
      process.env[BLOCK_ACCESS_ENV] = 'copy';
      const block = mapBlockFile(path, 2048, { access: 'view' });
      assert.equal(block.access, 'view');
      block.close();
      // A misspelt switch fails instead of silently testing the other path, and leaves nothing mapped.
      process.env[BLOCK_ACCESS_ENV] = 'coyp';
      assert.throws(() => mapBlockFile(path, 2048), /^RangeError: CLRSCOPE_BLOCK_ACCESS must be read, auto, view or copy, not 'coyp'\.$/);
      assert.ok(!mapped(path));
    } finally {
      if (saved === undefined) delete process.env[BLOCK_ACCESS_ENV];
      else process.env[BLOCK_ACCESS_ENV] = saved;
    }
  });
});

describe('blockAccessFromEnv', () => {
  it('reads auto, view and copy, and nothing else', () => {
    assert.equal(blockAccessFromEnv({}), 'auto');
    assert.equal(blockAccessFromEnv({ [BLOCK_ACCESS_ENV]: '' }), 'auto');
    assert.equal(blockAccessFromEnv({ [BLOCK_ACCESS_ENV]: 'copy' }), 'copy');
    assert.equal(blockAccessFromEnv({ [BLOCK_ACCESS_ENV]: 'view' }), 'view');
    assert.throws(() => blockAccessFromEnv({ [BLOCK_ACCESS_ENV]: 'COPY' }), RangeError);
  });
});

// ---- The copying functions' prototypes ----

interface KoffiTypeInfo { name: string; primitive: string; size: number }
interface KoffiProto { proto: { name: string; arguments: { type: KoffiTypeInfo }[]; result: KoffiTypeInfo; convention?: string } }

describe('COPY_FUNCTIONS', () => {
  it('parse with koffi: a void result, a pointer destination, a pointer-sized integer source and a size_t length', () => {
    for (const [platform, { prototype }] of Object.entries(COPY_FUNCTIONS)) {
      const name = /(\w+)\(/.exec(prototype)?.[1] ?? '';
      const p = (koffi.proto(prototype.replace(` ${name}(`, ` clrscope_check_${platform}_${name}(`)) as unknown as KoffiProto).proto;
      assert.equal(p.result.primitive, 'Void', platform);
      assert.deepEqual(p.arguments.map((a) => [a.type.primitive, a.type.size]), [
        ['Pointer', koffi.sizeof('void *')],
        [koffi.sizeof('void *') === 8 ? 'UInt64' : 'UInt32', koffi.sizeof('void *')],
        [koffi.sizeof('void *') === 8 ? 'UInt64' : 'UInt32', koffi.sizeof('void *')],
      ], platform);
    }
    assert.match(COPY_FUNCTIONS.win32.prototype, /^void __stdcall RtlMoveMemory\(/);
    assert.equal(COPY_FUNCTIONS.win32.library, 'kernel32.dll');
    assert.equal(COPY_FUNCTIONS.linux.library, 'libc.so.6');
  });
});

for (const [compiler, bits] of [['x86_64-w64-mingw32-gcc', 64], ['i686-w64-mingw32-gcc', 32]] as const) {
  const present = spawnSync(compiler, ['--version'], { encoding: 'utf8' }).status === 0;
  describe(`RtlMoveMemory against ${bits}-bit kernel32`, { skip: present ? false : `${compiler} is not installed` }, () => {
    // The SDK headers define RtlMoveMemory as a macro (memmove), so the check links a call through
    // the prototype itself against the import library: on 32-bit the stdcall name carries the
    // argument bytes (_RtlMoveMemory@12), so a wrong argument list or convention does not link.
    const program = (prototype: string, call: string): string => `#include <stdint.h>
#include <stddef.h>
__declspec(dllimport) ${prototype};
int main(void) { char a[4] = {1, 2, 3, 4}, b[4]; ${call}; return b[3] - 4; }
`;
    const link = (source: string): { status: number | null; stderr: string } => {
      const d = mkdtempSync(join(tmpdir(), 'clrscope-copy-check-'));
      try {
        writeFileSync(join(d, 'check.c'), source);
        return spawnSync(compiler, ['-Werror', join(d, 'check.c'), '-o', join(d, 'check.exe')], { encoding: 'utf8' });
      } finally {
        rmSync(d, { recursive: true, force: true });
      }
    };

    it(`links the prototype in COPY_FUNCTIONS.win32 with ${compiler}`, () => {
      const r = link(program(COPY_FUNCTIONS.win32.prototype, 'RtlMoveMemory(b, (uintptr_t)a, 4)'));
      assert.equal(r.status, 0, r.stderr);
    });

    if (bits === 32) {
      it('does not link a wrong argument list or a cdecl declaration (the check can fail)', () => {
        let r = link(program('void __stdcall RtlMoveMemory(void *Destination, uintptr_t Source, size_t Length, int Extra)', 'RtlMoveMemory(b, (uintptr_t)a, 4, 0)'));
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /RtlMoveMemory@16/);
        r = link(program('void RtlMoveMemory(void *Destination, uintptr_t Source, size_t Length)', 'RtlMoveMemory(b, (uintptr_t)a, 4)'));
        assert.notEqual(r.status, 0);
      });
    }
  });
}
