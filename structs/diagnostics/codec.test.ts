import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  decodeHeader, decodeHresultPayload, decodeProcessInfo, decodeProcessInfo2, decodeReply, encodeAttachProfilerRequest, encodeMessage,
  encodeProcessInfo2Request, encodeProcessInfoRequest, encodeResumeRuntimeRequest,
} from './codec.js';
import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';
import { parseHexText } from '../wire/hex-text.js';

// Tests run from dist/structs/diagnostics/; the fixtures stay in the source tree.
const fixture = (name: string): Uint8Array => parseHexText(readFileSync(new URL(`../../../structs/diagnostics/fixtures/${name}`, import.meta.url), 'utf8'));

/** "DOTNET_IPC_V1\0", spelled out once so every expected message below is readable bytes. */
const MAGIC = [0x44, 0x4f, 0x54, 0x4e, 0x45, 0x54, 0x5f, 0x49, 0x50, 0x43, 0x5f, 0x56, 0x31, 0x00];

function header(size: number, set: number, id: number): number[] {
  return [...MAGIC, size & 0xff, size >> 8, set, id, 0x00, 0x00];
}

function protocolError(fn: () => unknown): DiagnosticsProtocolError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DiagnosticsProtocolError, `expected DiagnosticsProtocolError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a DiagnosticsProtocolError');
}

/** The payload of an OK reply (the header and framing are valid in these tests). */
function payloadOf(bytes: Uint8Array): Uint8Array {
  const reply = decodeReply(bytes);
  assert.ok(reply.kind === 'ok');
  return reply.payload;
}

const PROCESS_INFO = {
  pid: 4242,
  runtimeCookie: '00112233-4455-6677-8899-aabbccddeeff',
  commandLine: 'dotnet app.dll',
  os: 'Linux',
  arch: 'x64',
};

// ---------------------------------------------------------------------------------------------
// Requests

test('ProcessInfo, ProcessInfo2 and ResumeRuntime requests are a bare 20-byte header', () => {
  assert.deepEqual(Array.from(encodeProcessInfoRequest()), [...MAGIC, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00]);
  assert.deepEqual(Array.from(encodeProcessInfo2Request()), [...MAGIC, 0x14, 0x00, 0x04, 0x04, 0x00, 0x00]);
  assert.deepEqual(Array.from(encodeResumeRuntimeRequest()), [...MAGIC, 0x14, 0x00, 0x04, 0x01, 0x00, 0x00]);
});

test('AttachProfiler request matches attach-profiler-request.hex byte for byte', () => {
  const bytes = encodeAttachProfilerRequest({
    timeoutMs: 5000,
    clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B}',
    path: '/p/libclrscope.so',
    clientData: Uint8Array.from([0x73, 0x6f, 0x63, 0x6b]),
  });
  assert.deepEqual(Array.from(bytes), Array.from(fixture('attach-profiler-request.hex')));
  // A string client data is sent as its UTF-8 bytes; braces and case of the CLSID do not matter.
  const again = encodeAttachProfilerRequest({ timeoutMs: 5000, clsid: '03fd9b91-24d7-4053-bf50-eaa94807a91b', path: '/p/libclrscope.so', clientData: 'sock' });
  assert.deepEqual(Array.from(again), Array.from(bytes));
});

test('AttachProfiler: no client data, a non-ASCII path, UTF-8 client data', () => {
  const bytes = encodeAttachProfilerRequest({ timeoutMs: 0x01020304, clsid: '{00112233-4455-6677-8899-AABBCCDDEEFF}', path: 'é😀', clientData: 'é' });
  assert.deepEqual(Array.from(bytes), [
    ...header(20 + 4 + 16 + 4 + 8 + 4 + 2, 0x03, 0x01),
    0x04, 0x03, 0x02, 0x01, // timeout
    0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x04, 0x00, 0x00, 0x00, // 'é' + surrogate pair + NUL = 4 units
    0xe9, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0xc3, 0xa9, // 'é' in UTF-8
  ]);
  const empty = encodeAttachProfilerRequest({ timeoutMs: 0, clsid: '{00000000-0000-0000-0000-000000000000}', path: 'x' });
  assert.deepEqual(Array.from(empty.subarray(20)), [0, 0, 0, 0, ...new Array<number>(16).fill(0), 2, 0, 0, 0, 0x78, 0, 0, 0, 0, 0, 0, 0]);
});

test('requests the runtime could not take are refused with one sentence', () => {
  const base = { timeoutMs: 1000, clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B}', path: '/p/lib.so' };
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, path: '' })).message, /path is empty/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, path: 'a\0b' })).message, /NUL/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, timeoutMs: -1 })).message, /timeout/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, timeoutMs: 2 ** 32 })).message, /timeout/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, timeoutMs: 1.5 })).message, /timeout/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, clsid: 'clrscope' })).message, /not a GUID/);
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, clsid: '{03FD9B91-24D7-4053-BF50-EAA94807A91B' })).message, /not a GUID/);
  // The u16 size field caps a message at 65535 bytes: header 20 + timeout 4 + CLSID 16 + path (4 + 2 * 10 units)
  // + data length 4 = 68, so 65468 bytes of client data are one too many.
  assert.match(protocolError(() => encodeAttachProfilerRequest({ ...base, clientData: new Uint8Array(65468) })).message, /65536 bytes.*at most 65535/);
  assert.equal(encodeAttachProfilerRequest({ ...base, clientData: new Uint8Array(65467) }).length, 65535);
  assert.match(protocolError(() => encodeMessage(4, 0, new Uint8Array(65516))).message, /at most 65535/);
});

// ---------------------------------------------------------------------------------------------
// Replies

test('process-info2-reply.hex decodes field by field', () => {
  const reply = decodeReply(fixture('process-info2-reply.hex'));
  assert.equal(reply.kind, 'ok');
  if (reply.kind !== 'ok') return;
  assert.deepEqual(reply.header, { size: 138, commandSet: 0xff, commandId: 0x00, reserved: 0 });
  assert.equal(reply.payload.length, 118);
  assert.deepEqual(decodeProcessInfo2(reply.payload), { ...PROCESS_INFO, managedEntrypointAssemblyName: 'app', clrProductVersion: '10.0.12' });
});

test('process-info-reply.hex decodes; ProcessInfo2 fields are not read from a ProcessInfo reply', () => {
  const reply = decodeReply(fixture('process-info-reply.hex'));
  assert.ok(reply.kind === 'ok');
  assert.deepEqual(decodeProcessInfo(reply.payload), PROCESS_INFO);
  const err = protocolError(() => decodeProcessInfo2(reply.payload));
  assert.match(err.message, /ProcessInfo2 reply ends inside entrypoint assembly name's length/);
  assert.equal(err.offset, 106);
  // And a ProcessInfo2 payload has two strings too many for ProcessInfo.
  const two = decodeReply(fixture('process-info2-reply.hex'));
  assert.ok(two.kind === 'ok');
  assert.match(protocolError(() => decodeProcessInfo(two.payload)).message, /ProcessInfo reply has 32 bytes after its last field/);
});

test('error-reply.hex is an error with the HRESULT, unsigned', () => {
  const reply = decodeReply(fixture('error-reply.hex'));
  assert.deepEqual(reply, { kind: 'error', header: { size: 24, commandSet: 0xff, commandId: 0xff, reserved: 0 }, hresult: 0x8013136a });
});

test('an OK reply to AttachProfiler or ResumeRuntime carries a 4-byte HRESULT (24 bytes in all)', () => {
  const reply = decodeReply(Uint8Array.from([...header(24, 0xff, 0x00), 0, 0, 0, 0]));
  assert.ok(reply.kind === 'ok');
  assert.equal(decodeHresultPayload(reply.payload), 0);
  assert.match(protocolError(() => decodeHresultPayload(new Uint8Array(8))).message, /4-byte HRESULT, not 8/);
});

test('strings: length 0 is the empty string, a surrogate pair survives, long strings decode', () => {
  const units = (s: string): number[] => Array.from(s).flatMap((c) => {
    const out: number[] = [];
    for (let i = 0; i < c.length; i++) out.push(c.charCodeAt(i) & 0xff, c.charCodeAt(i) >> 8);
    return out;
  });
  const str = (s: string): number[] => { const n = s.length + 1; return [n & 0xff, (n >> 8) & 0xff, n >> 16, 0, ...units(s), 0, 0]; };
  const long = 'x'.repeat(10000);
  const payload = Uint8Array.from([
    0x01, 0, 0, 0, 0, 0, 0, 0, ...new Array<number>(16).fill(0),
    ...str('C:\\Prög 😀\\app.exe'), 0, 0, 0, 0 /* OS: length 0 */, ...str(long),
  ]);
  assert.deepEqual(decodeProcessInfo(payload), { pid: 1, runtimeCookie: '00000000-0000-0000-0000-000000000000', commandLine: 'C:\\Prög 😀\\app.exe', os: '', arch: long });
});

test('every truncation of a reply is rejected, never misread', () => {
  for (const name of ['process-info2-reply.hex', 'process-info-reply.hex', 'error-reply.hex']) {
    const bytes = fixture(name);
    for (let n = 0; n < bytes.length; n++) {
      const err = protocolError(() => decodeReply(bytes.subarray(0, n)));
      assert.match(err.message, n < 20 ? /header has 20 bytes; only \d+ arrived/ : /truncated: its header says \d+ bytes, \d+ arrived/, `${name} cut at ${n}`);
    }
  }
});

test('a payload cut inside a field names the field and its offset', () => {
  const reply = decodeReply(fixture('process-info2-reply.hex'));
  assert.ok(reply.kind === 'ok');
  const cases: [number, RegExp][] = [
    [0, /ends inside process id/],
    [7, /ends inside process id/],
    [8, /ends inside runtime cookie/],
    [23, /ends inside runtime cookie/],
    [26, /ends inside command line's length/],
    [28, /command line claims 15 UTF-16 units \(30 bytes\) at payload offset 24, but only 0 bytes follow/],
    [57, /command line claims 15 UTF-16 units \(30 bytes\) at payload offset 24, but only 29 bytes follow/],
    [117, /CLR product version claims 8 UTF-16 units/],
  ];
  for (const [n, re] of cases) assert.match(protocolError(() => decodeProcessInfo2(reply.payload.subarray(0, n))).message, re, `cut at ${n}`);
});

test('garbled replies are rejected with what is wrong', () => {
  const good = fixture('process-info2-reply.hex');
  const garble = (at: number, value: number): Uint8Array => { const b = good.slice(); b[at] = value; return b; };

  let err = protocolError(() => decodeReply(garble(0, 0x64)));
  assert.match(err.message, /does not start with "DOTNET_IPC_V1\\0" \(byte 0 is 0x64\)/);
  err = protocolError(() => decodeReply(garble(13, 0x20)));
  assert.match(err.message, /byte 13 is 0x20/);
  assert.equal(err.offset, 13);

  // size smaller than a header
  err = protocolError(() => decodeHeader(Uint8Array.from(header(19, 0xff, 0))));
  assert.match(err.message, /size field is 19, smaller than the 20-byte header/);
  // more bytes than the header announces
  assert.match(protocolError(() => decodeReply(Uint8Array.from([...good, 0]))).message, /1 bytes after the 138 its header announces/);
  // not a reply: a request echoed back
  assert.match(protocolError(() => decodeReply(encodeProcessInfo2Request())).message, /command set 0xFF \(server\), not 0x04/);
  // unknown reply id
  assert.match(protocolError(() => decodeReply(garble(17, 0x01))).message, /command id is 0x00 \(OK\) or 0xFF \(error\), not 0x01/);
  // a string whose last unit is not NUL
  err = protocolError(() => decodeProcessInfo2(payloadOf(garble(20 + 24 + 4 + 28, 0x41))));
  assert.match(err.message, /command line does not end with a NUL \(its last unit is 0x0041\)/);
  assert.equal(err.offset, 20 + 24 + 4 + 28);
  // a string length far beyond the message
  const huge = good.slice();
  huge.set([0xff, 0xff, 0xff, 0x7f], 20 + 24);
  err = protocolError(() => decodeProcessInfo2(payloadOf(huge)));
  assert.match(err.message, /command line claims 2147483647 UTF-16 units/);
  // a pid that cannot be one
  const bigPid = good.slice();
  bigPid.set([0, 0, 0, 0x80], 20 + 4);
  assert.match(protocolError(() => decodeProcessInfo2(payloadOf(bigPid))).message, /too large to be a process id/);
});

test('error replies with the documented-but-wrong 8-byte code, or none, are rejected', () => {
  // ipc-protocol.md's example error message is 28 bytes with an 8-byte code; the runtime sends 24.
  assert.match(protocolError(() => decodeReply(Uint8Array.from([...header(28, 0xff, 0xff), 0x84, 0x13, 0x13, 0x80, 0, 0, 0, 0]))).message, /4-byte HRESULT, not 8 bytes/);
  assert.match(protocolError(() => decodeReply(Uint8Array.from(header(20, 0xff, 0xff)))).message, /4-byte HRESULT, not 0 bytes/);
});
