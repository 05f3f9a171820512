// Encoders for the requests clrscope sends over the .NET diagnostics IPC and decoders for the
// replies, between bytes and plain objects. Pure: no Node built-ins, so it also runs in a
// browser. Every number is little-endian. Decoders accept exactly one whole message and throw
// DiagnosticsProtocolError (with the byte offset) on anything else; README.md here has the layout.

import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';
import { bytesToGuid, guidToBytes } from './guid.js';
import {
  CommandSet, GUID_SIZE, IPC_HEADER_SIZE, IPC_MAGIC, IPC_MAGIC_LENGTH, IPC_MAX_MESSAGE_SIZE, ProcessCommand, ProfilerCommand,
  ServerResponse,
  type AttachProfilerRequest, type IpcHeader, type IpcReply, type ProcessInfo, type ProcessInfo2,
} from './protocol.js';

const TWO_POW_32 = 4294967296;
const MAGIC_BYTES = Array.from(IPC_MAGIC, (c) => c.charCodeAt(0));

// ---------------------------------------------------------------------------------------------
// Requests

/** A whole message: the 20-byte header (size = 20 + payload) followed by the payload. */
export function encodeMessage(commandSet: number, commandId: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const size = IPC_HEADER_SIZE + payload.length;
  if (size > IPC_MAX_MESSAGE_SIZE) {
    throw new DiagnosticsProtocolError(`The request would be ${size} bytes; a diagnostics IPC message holds at most ${IPC_MAX_MESSAGE_SIZE}.`);
  }
  const bytes = new Uint8Array(size);
  bytes.set(MAGIC_BYTES, 0);
  const view = new DataView(bytes.buffer);
  view.setUint16(14, size, true);
  view.setUint8(16, commandSet);
  view.setUint8(17, commandId);
  view.setUint16(18, 0, true);
  bytes.set(payload, IPC_HEADER_SIZE);
  return bytes;
}

/** ProcessInfo (0x04/0x00): header only. */
export function encodeProcessInfoRequest(): Uint8Array {
  return encodeMessage(CommandSet.Process, ProcessCommand.ProcessInfo);
}

/** ProcessInfo2 (0x04/0x04): header only. */
export function encodeProcessInfo2Request(): Uint8Array {
  return encodeMessage(CommandSet.Process, ProcessCommand.ProcessInfo2);
}

/** ResumeRuntime (0x04/0x01): header only; lets a runtime paused at startup by a diagnostic port continue. */
export function encodeResumeRuntimeRequest(): Uint8Array {
  return encodeMessage(CommandSet.Process, ProcessCommand.ResumeRuntime);
}

/** EnablePerfMap (0x04/0x05, .NET 8+): u32 perf map type (1 perf map and jitdump, 2 jitdump, 3 perf map). */
export function encodeEnablePerfMapRequest(type: number): Uint8Array {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, type, true);
  return encodeMessage(CommandSet.Process, ProcessCommand.EnablePerfMap, payload);
}

/** DisablePerfMap (0x04/0x06, .NET 8+): header only. */
export function encodeDisablePerfMapRequest(): Uint8Array {
  return encodeMessage(CommandSet.Process, ProcessCommand.DisablePerfMap);
}

/** UTF-8 without a BOM or terminator, written by hand so the codec needs no TextEncoder. */
function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return Uint8Array.from(out);
}

/**
 * AttachProfiler (0x03/0x01): u32 timeout ms, the CLSID's 16 bytes (Guid.ToByteArray order),
 * the path as a string (u32 count of UTF-16 units including the NUL, then UTF-16LE), u32
 * client-data length, the client-data bytes.
 */
export function encodeAttachProfilerRequest(request: AttachProfilerRequest): Uint8Array {
  const { timeoutMs, path } = request;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > 0xffffffff) {
    throw new DiagnosticsProtocolError(`The attach timeout must be a whole number of milliseconds from 0 to ${0xffffffff}, not ${timeoutMs}.`);
  }
  if (path === '') throw new DiagnosticsProtocolError('The profiler path is empty.');
  if (path.includes('\0')) throw new DiagnosticsProtocolError('The profiler path contains a NUL character.');
  const clsid = guidToBytes(request.clsid);
  const clientData = typeof request.clientData === 'string' ? utf8(request.clientData) : (request.clientData ?? new Uint8Array(0));
  const units = path.length + 1;
  const payloadSize = 4 + GUID_SIZE + 4 + 2 * units + 4 + clientData.length;
  if (IPC_HEADER_SIZE + payloadSize > IPC_MAX_MESSAGE_SIZE) {
    throw new DiagnosticsProtocolError(`The AttachProfiler request would be ${IPC_HEADER_SIZE + payloadSize} bytes; a diagnostics IPC message holds at most ${IPC_MAX_MESSAGE_SIZE} (shorten the path or the client data).`);
  }
  const payload = new Uint8Array(payloadSize);
  const view = new DataView(payload.buffer);
  let at = 0;
  view.setUint32(at, timeoutMs, true);
  at += 4;
  payload.set(clsid, at);
  at += GUID_SIZE;
  view.setUint32(at, units, true);
  at += 4;
  for (let i = 0; i < path.length; i++, at += 2) view.setUint16(at, path.charCodeAt(i), true);
  view.setUint16(at, 0, true);
  at += 2;
  view.setUint32(at, clientData.length, true);
  at += 4;
  payload.set(clientData, at);
  return encodeMessage(CommandSet.Profiler, ProfilerCommand.AttachProfiler, payload);
}

// ---------------------------------------------------------------------------------------------
// Replies

/**
 * The header at the start of `bytes` (which may hold more, or be an unfinished read): throws
 * when there are fewer than 20 bytes, the magic is not "DOTNET_IPC_V1\0", or the size is below 20.
 */
export function decodeHeader(bytes: Uint8Array): IpcHeader {
  if (bytes.length < IPC_HEADER_SIZE) {
    throw new DiagnosticsProtocolError(`A message header has 20 bytes; only ${bytes.length} arrived.`, bytes.length);
  }
  for (let i = 0; i < IPC_MAGIC_LENGTH; i++) {
    if (bytes[i] !== MAGIC_BYTES[i]) {
      throw new DiagnosticsProtocolError(`The message does not start with "DOTNET_IPC_V1\\0" (byte ${i} is 0x${bytes[i].toString(16).padStart(2, '0')}).`, i);
    }
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, IPC_HEADER_SIZE);
  const header = { size: view.getUint16(14, true), commandSet: view.getUint8(16), commandId: view.getUint8(17), reserved: view.getUint16(18, true) };
  if (header.size < IPC_HEADER_SIZE) {
    throw new DiagnosticsProtocolError(`The header's size field is ${header.size}, smaller than the 20-byte header itself.`, 14);
  }
  return header;
}

/**
 * One whole reply. Command set 0xFF (Server) with id 0x00 (OK) carries the command's payload;
 * id 0xFF (Error) carries exactly a u32 HRESULT. The reserved field is not checked (the runtime
 * writes 0; the protocol keeps it for future use).
 */
export function decodeReply(bytes: Uint8Array): IpcReply {
  const header = decodeHeader(bytes);
  if (bytes.length < header.size) {
    throw new DiagnosticsProtocolError(`The reply is truncated: its header says ${header.size} bytes, ${bytes.length} arrived.`, bytes.length);
  }
  if (bytes.length > header.size) {
    throw new DiagnosticsProtocolError(`The reply has ${bytes.length - header.size} bytes after the ${header.size} its header announces.`, header.size);
  }
  if (header.commandSet !== CommandSet.Server) {
    throw new DiagnosticsProtocolError(`A reply has command set 0xFF (server), not 0x${hex2(header.commandSet)}.`, 16);
  }
  const payload = bytes.subarray(IPC_HEADER_SIZE, header.size);
  if (header.commandId === ServerResponse.OK) return { kind: 'ok', header, payload };
  if (header.commandId === ServerResponse.Error) {
    if (payload.length !== 4) {
      throw new DiagnosticsProtocolError(`An error reply carries a 4-byte HRESULT, not ${payload.length} bytes.`, IPC_HEADER_SIZE);
    }
    return { kind: 'error', header, hresult: new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true) };
  }
  throw new DiagnosticsProtocolError(`A reply's command id is 0x00 (OK) or 0xFF (error), not 0x${hex2(header.commandId)}.`, 17);
}

function hex2(n: number): string {
  return n.toString(16).toUpperCase().padStart(2, '0');
}

/** Reads one OK payload field by field; offsets in errors count from the message start. */
class PayloadReader {
  private readonly view: DataView;
  private at = 0;

  constructor(private readonly bytes: Uint8Array, private readonly what: string) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number, field: string): void {
    if (this.at + n > this.bytes.length) {
      throw new DiagnosticsProtocolError(`The ${this.what} reply ends inside ${field}: it needs ${n} bytes at payload offset ${this.at}, ${this.bytes.length - this.at} remain.`, IPC_HEADER_SIZE + this.at);
    }
  }

  u32(field: string): number {
    this.need(4, field);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  u64(field: string): number {
    this.need(8, field);
    const lo = this.view.getUint32(this.at, true);
    const hi = this.view.getUint32(this.at + 4, true);
    if (hi >= 0x200000) throw new DiagnosticsProtocolError(`The ${this.what} reply's ${field} (high word 0x${hi.toString(16)}) is too large to be a process id.`, IPC_HEADER_SIZE + this.at);
    this.at += 8;
    return hi * TWO_POW_32 + lo;
  }

  guid(field: string): string {
    this.need(GUID_SIZE, field);
    const v = bytesToGuid(this.bytes.subarray(this.at, this.at + GUID_SIZE));
    this.at += GUID_SIZE;
    return v;
  }

  /** u32 count of UTF-16 units including the terminating NUL (0 = empty), then the units. */
  string(field: string): string {
    const start = this.at;
    const count = this.u32(`${field}'s length`);
    if (count === 0) return '';
    if (this.at + 2 * count > this.bytes.length) {
      throw new DiagnosticsProtocolError(`The ${this.what} reply's ${field} claims ${count} UTF-16 units (${2 * count} bytes) at payload offset ${start}, but only ${this.bytes.length - start - 4} bytes follow.`, IPC_HEADER_SIZE + start);
    }
    const last = this.view.getUint16(this.at + 2 * (count - 1), true);
    if (last !== 0) {
      throw new DiagnosticsProtocolError(`The ${this.what} reply's ${field} does not end with a NUL (its last unit is 0x${last.toString(16).padStart(4, '0')}).`, IPC_HEADER_SIZE + this.at + 2 * (count - 1));
    }
    let text = '';
    const chunk: number[] = [];
    for (let i = 0; i < count - 1; i++) {
      chunk.push(this.view.getUint16(this.at + 2 * i, true));
      if (chunk.length === 4096) {
        text += String.fromCharCode(...chunk);
        chunk.length = 0;
      }
    }
    text += String.fromCharCode(...chunk);
    this.at += 2 * count;
    return text;
  }

  end(): void {
    if (this.at !== this.bytes.length) {
      throw new DiagnosticsProtocolError(`The ${this.what} reply has ${this.bytes.length - this.at} bytes after its last field.`, IPC_HEADER_SIZE + this.at);
    }
  }
}

function readProcessInfo(r: PayloadReader): ProcessInfo {
  const pid = r.u64('process id');
  const runtimeCookie = r.guid('runtime cookie');
  const commandLine = r.string('command line');
  const os = r.string('OS');
  const arch = r.string('architecture');
  return { pid, runtimeCookie, commandLine, os, arch };
}

/** The payload of an OK reply to ProcessInfo: u64 pid, GUID cookie, strings command line, OS, arch. */
export function decodeProcessInfo(payload: Uint8Array): ProcessInfo {
  const r = new PayloadReader(payload, 'ProcessInfo');
  const info = readProcessInfo(r);
  r.end();
  return info;
}

/** The payload of an OK reply to ProcessInfo2: ProcessInfo's fields, then entrypoint assembly name and CLR product version. */
export function decodeProcessInfo2(payload: Uint8Array): ProcessInfo2 {
  const r = new PayloadReader(payload, 'ProcessInfo2');
  const info = readProcessInfo(r);
  const managedEntrypointAssemblyName = r.string('entrypoint assembly name');
  const clrProductVersion = r.string('CLR product version');
  r.end();
  return { ...info, managedEntrypointAssemblyName, clrProductVersion };
}

/** The payload of an OK reply to AttachProfiler or ResumeRuntime: a u32 HRESULT (0 = S_OK). */
export function decodeHresultPayload(payload: Uint8Array): number {
  if (payload.length !== 4) {
    throw new DiagnosticsProtocolError(`This OK reply carries a 4-byte HRESULT, not ${payload.length} bytes.`, IPC_HEADER_SIZE);
  }
  return new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true);
}
