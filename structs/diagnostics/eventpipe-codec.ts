// The EventPipe commands of the diagnostics IPC: CollectTracing2 (start a session whose events
// stream back on the same connection) and StopTracing (end it, from another connection), and
// the session id their OK replies carry. Pure, like codec.ts; README.md here has the layout.

import { encodeMessage } from './codec.js';
import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';
import {
  CommandSet, EventLevel, EventPipeCommand, EventPipeFormat, IPC_HEADER_SIZE, IPC_MAX_MESSAGE_SIZE,
  type CollectTracing2Request, type EventPipeProviderConfig,
} from './protocol.js';

const U64_MAX = (1n << 64n) - 1n;
/** The runtime refuses more providers than this in one request (`max_count_configs`). */
export const MAX_PROVIDERS = 1000;

/** Collects a payload's fields; sizes are known only once every string is in. */
class PayloadWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  private add(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.size += bytes.length;
    return this;
  }

  u8(value: number): this {
    return this.add(Uint8Array.of(value));
  }

  u32(value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value, true);
    return this.add(b);
  }

  u64(value: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, value, true);
    return this.add(b);
  }

  /** u32 count of UTF-16 units with the NUL, the units, the NUL; `undefined` is count 0 (no string). */
  string(text: string | undefined): this {
    if (text === undefined) return this.u32(0);
    const units = text.length + 1;
    const b = new Uint8Array(4 + 2 * units);
    const view = new DataView(b.buffer);
    view.setUint32(0, units, true);
    for (let i = 0; i < text.length; i++) view.setUint16(4 + 2 * i, text.charCodeAt(i), true);
    return this.add(b);
  }

  take(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

function checkProvider(p: EventPipeProviderConfig, index: number): void {
  const which = `provider ${index + 1}`;
  if (p.name === '') throw new DiagnosticsProtocolError(`The name of ${which} is empty.`);
  if (p.name.includes('\0')) throw new DiagnosticsProtocolError(`The name of ${which} (${p.name}) contains a NUL character.`);
  if (p.filterData?.includes('\0')) throw new DiagnosticsProtocolError(`The arguments of ${p.name} contain a NUL character.`);
  if (p.keywords < 0n || p.keywords > U64_MAX) throw new DiagnosticsProtocolError(`The keywords of ${p.name} must fit in 64 bits, not ${p.keywords}.`);
  if (!Number.isInteger(p.level) || p.level < EventLevel.LogAlways || p.level > EventLevel.Verbose) {
    throw new DiagnosticsProtocolError(`The level of ${p.name} must be 0 to 5, not ${p.level}.`);
  }
}

/**
 * CollectTracing2 (0x02/0x03): u32 circular buffer MiB, u32 format, u8 rundown requested, u32
 * provider count, then per provider u64 keywords, u32 level, string name, string filter data.
 */
export function encodeCollectTracing2Request(request: CollectTracing2Request): Uint8Array {
  const { circularBufferMB, format, providers } = request;
  if (!Number.isInteger(circularBufferMB) || circularBufferMB < 1 || circularBufferMB > 0xffffffff) {
    throw new DiagnosticsProtocolError(`The session buffer must be 1 to 4294967295 MiB, not ${circularBufferMB}.`);
  }
  if (format !== EventPipeFormat.NetPerf && format !== EventPipeFormat.NetTrace) {
    throw new DiagnosticsProtocolError(`The serialization format is 0 (netperf) or 1 (nettrace), not ${format}.`);
  }
  if (providers.length === 0) throw new DiagnosticsProtocolError('An EventPipe session needs at least one provider.');
  if (providers.length > MAX_PROVIDERS) throw new DiagnosticsProtocolError(`An EventPipe session takes at most ${MAX_PROVIDERS} providers, not ${providers.length}.`);
  providers.forEach(checkProvider);
  const w = new PayloadWriter().u32(circularBufferMB).u32(format).u8(request.requestRundown ? 1 : 0).u32(providers.length);
  for (const p of providers) w.u64(p.keywords).u32(p.level).string(p.name).string(p.filterData);
  if (IPC_HEADER_SIZE + w.length > IPC_MAX_MESSAGE_SIZE) {
    throw new DiagnosticsProtocolError(`The CollectTracing2 request would be ${IPC_HEADER_SIZE + w.length} bytes; a diagnostics IPC message holds at most ${IPC_MAX_MESSAGE_SIZE} (fewer providers or shorter arguments).`);
  }
  return encodeMessage(CommandSet.EventPipe, EventPipeCommand.CollectTracing2, w.take());
}

/** StopTracing (0x02/0x01): the u64 session id CollectTracing's reply gave. */
export function encodeStopTracingRequest(sessionId: bigint): Uint8Array {
  if (sessionId <= 0n || sessionId > U64_MAX) throw new DiagnosticsProtocolError(`An EventPipe session id is a non-zero u64, not ${sessionId}.`);
  return encodeMessage(CommandSet.EventPipe, EventPipeCommand.StopTracing, new PayloadWriter().u64(sessionId).take());
}

/** The payload of an OK reply to CollectTracing* or StopTracing: the u64 session id (28 bytes in all). */
export function decodeSessionIdPayload(payload: Uint8Array): bigint {
  if (payload.length !== 8) {
    throw new DiagnosticsProtocolError(`An EventPipe reply carries an 8-byte session id, not ${payload.length} bytes.`, IPC_HEADER_SIZE);
  }
  const id = new DataView(payload.buffer, payload.byteOffset, 8).getBigUint64(0, true);
  if (id === 0n) throw new DiagnosticsProtocolError('The EventPipe reply names session 0, which no session has.', IPC_HEADER_SIZE);
  return id;
}
