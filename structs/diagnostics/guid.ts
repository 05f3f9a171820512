// GUIDs on the wire are the 16 bytes of Windows' GUID struct in little-endian memory, which is
// .NET's Guid.ToByteArray() order: Data1 (u32) and Data2, Data3 (u16) little-endian, then the
// last eight bytes as written. "00112233-4455-6677-8899-aabbccddeeff" is
// 33 22 11 00 55 44 77 66 88 99 aa bb cc dd ee ff.

import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';
import { GUID_SIZE } from './protocol.js';

const GUID_TEXT = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i;

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

/** "{8-4-4-4-12}" (braces optional, any case) to the 16 wire bytes. */
export function guidToBytes(text: string): Uint8Array {
  const m = GUID_TEXT.exec(text.trim());
  if (m === null || (text.trim().startsWith('{') !== text.trim().endsWith('}'))) {
    throw new DiagnosticsProtocolError(`'${text}' is not a GUID: write it as {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}.`);
  }
  const [data1, data2, data3, data4a, data4b] = [hexBytes(m[1]), hexBytes(m[2]), hexBytes(m[3]), hexBytes(m[4]), hexBytes(m[5])];
  return Uint8Array.from([...data1.reverse(), ...data2.reverse(), ...data3.reverse(), ...data4a, ...data4b]);
}

function hex(bytes: ArrayLike<number>): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, '0');
  return s;
}

/** The 16 wire bytes to .NET's Guid.ToString() form (lower case, no braces). */
export function bytesToGuid(bytes: Uint8Array): string {
  if (bytes.length !== GUID_SIZE) throw new DiagnosticsProtocolError(`A GUID has 16 bytes, not ${bytes.length}.`);
  const b = Array.from(bytes);
  return `${hex(b.slice(0, 4).reverse())}-${hex(b.slice(4, 6).reverse())}-${hex(b.slice(6, 8).reverse())}-${hex(b.slice(8, 10))}-${hex(b.slice(10, 16))}`;
}
