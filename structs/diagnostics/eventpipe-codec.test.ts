import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeReply } from './codec.js';
import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';
import { decodeSessionIdPayload, encodeCollectTracing2Request, encodeStopTracingRequest, MAX_PROVIDERS } from './eventpipe-codec.js';
import { EventLevel, EventPipeFormat, type CollectTracing2Request } from './protocol.js';
import { parseHexText } from '../wire/hex-text.js';

// Tests run from dist/structs/diagnostics/; the fixtures stay in the source tree.
const fixture = (name: string): Uint8Array => parseHexText(readFileSync(new URL(`../../../structs/diagnostics/fixtures/${name}`, import.meta.url), 'utf8'));

const MAGIC = [0x44, 0x4f, 0x54, 0x4e, 0x45, 0x54, 0x5f, 0x49, 0x50, 0x43, 0x5f, 0x56, 0x31, 0x00];

function protocolError(fn: () => unknown): DiagnosticsProtocolError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DiagnosticsProtocolError, `expected DiagnosticsProtocolError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a DiagnosticsProtocolError');
}

const TWO_PROVIDERS: CollectTracing2Request = {
  circularBufferMB: 256,
  format: EventPipeFormat.NetTrace,
  requestRundown: true,
  providers: [
    { name: 'Microsoft-DotNETCore-SampleProfiler', keywords: 0n, level: EventLevel.Informational },
    { name: 'System.Runtime', keywords: 0xffffffffn, level: EventLevel.Verbose, filterData: 'EventCounterIntervalSec=1' },
  ],
};

test('CollectTracing2 request matches collect-tracing2-request.hex byte for byte', () => {
  const bytes = encodeCollectTracing2Request(TWO_PROVIDERS);
  assert.equal(bytes.length, 227);
  assert.deepEqual(Array.from(bytes), Array.from(fixture('collect-tracing2-request.hex')));
});

test('CollectTracing2: no rundown, a large keyword mask, an empty filter string is sent as a string', () => {
  const bytes = encodeCollectTracing2Request({
    circularBufferMB: 1, format: EventPipeFormat.NetTrace, requestRundown: false,
    providers: [{ name: 'P', keywords: 0x8000000000000001n, level: EventLevel.LogAlways, filterData: '' }],
  });
  assert.deepEqual(Array.from(bytes), [
    ...MAGIC, 0x3b, 0x00, 0x02, 0x03, 0x00, 0x00, // size 59
    0x01, 0x00, 0x00, 0x00, // 1 MiB
    0x01, 0x00, 0x00, 0x00, // nettrace
    0x00, // no rundown
    0x01, 0x00, 0x00, 0x00, // one provider
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, // keywords, little-endian
    0x00, 0x00, 0x00, 0x00, // level 0
    0x02, 0x00, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00, // "P": 2 units
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, // "": 1 unit, the NUL alone
  ]);
});

test('StopTracing request matches stop-tracing-request.hex', () => {
  assert.deepEqual(Array.from(encodeStopTracingRequest(0x7f44dc001560n)), Array.from(fixture('stop-tracing-request.hex')));
  // All 64 bits travel: the id is the runtime's pointer to its session.
  assert.deepEqual(Array.from(encodeStopTracingRequest(0xfedcba9876543210n).subarray(20)), [0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]);
});

test('session-id-reply.hex is an OK reply whose payload is the u64 session id', () => {
  const reply = decodeReply(fixture('session-id-reply.hex'));
  assert.ok(reply.kind === 'ok');
  assert.deepEqual(reply.header, { size: 28, commandSet: 0xff, commandId: 0x00, reserved: 0 });
  assert.equal(decodeSessionIdPayload(reply.payload), 0x7f44dc001560n);
  const big = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  assert.equal(decodeSessionIdPayload(big), (1n << 64n) - 1n);
});

test('a session-id payload of the wrong size, or session 0, is refused', () => {
  assert.match(protocolError(() => decodeSessionIdPayload(new Uint8Array(4))).message, /8-byte session id, not 4 bytes/);
  assert.match(protocolError(() => decodeSessionIdPayload(new Uint8Array(12))).message, /not 12 bytes/);
  assert.match(protocolError(() => decodeSessionIdPayload(new Uint8Array(8))).message, /session 0/);
  // Every truncation of the whole reply is refused by the framing, never misread.
  const bytes = fixture('session-id-reply.hex');
  for (let n = 0; n < bytes.length; n++) protocolError(() => decodeReply(bytes.subarray(0, n)));
});

test('requests the runtime would refuse, or that would not fit, are refused with one sentence', () => {
  const base = TWO_PROVIDERS;
  const one = base.providers[0];
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, circularBufferMB: 0 })).message, /1 to 4294967295 MiB, not 0/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, circularBufferMB: 1.5 })).message, /MiB/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, format: 2 })).message, /0 \(netperf\) or 1 \(nettrace\), not 2/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [] })).message, /at least one provider/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: new Array(MAX_PROVIDERS + 1).fill(one) })).message, /at most 1000 providers/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...one, name: '' }] })).message, /name of provider 1 is empty/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [one, { ...one, name: 'a\0b' }] })).message, /provider 2 .* NUL/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...one, filterData: 'x\0' }] })).message, /arguments .* NUL/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...one, level: 6 }] })).message, /level .* 0 to 5, not 6/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...one, keywords: 1n << 64n }] })).message, /64 bits/);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...one, keywords: -1n }] })).message, /64 bits/);
  // header 20 + 13 + one provider (keywords 8 + level 4 + name 4 + 2 × 2 + filter 4 + 2 × (length + 1)) = 65535 at length 32738.
  const fits = { ...base, providers: [{ name: 'P', keywords: 0n, level: 4, filterData: 'x'.repeat(32738) }] };
  assert.equal(encodeCollectTracing2Request(fits).length, 65535);
  assert.match(protocolError(() => encodeCollectTracing2Request({ ...base, providers: [{ ...fits.providers[0], filterData: 'x'.repeat(32739) }] })).message, /65537 bytes.*at most 65535/);
  assert.match(protocolError(() => encodeStopTracingRequest(0n)).message, /non-zero u64/);
  assert.match(protocolError(() => encodeStopTracingRequest(1n << 64n)).message, /non-zero u64/);
});
