// Commands from the workstation to the profiler, on the stream's own socket (PROTOCOL.md,
// "Control commands"): `u32 length` (type byte + body), `u8 type`, body. Sent only to a
// profiler that announced CONTROL_READY; decoded by native-profiler/core/measure_wire.cpp.
// Both sides are tested on fixtures/control.hex.

import { MAX_STRING_BYTES } from './records.js';

export const CommandType = { Measure: 0x01, Revert: 0x02 } as const;

function frame(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length + 1, true);
  out[4] = type;
  out.set(body, 5);
  return out;
}

/** Measure every method the pattern names (`Ns.Type.Method`, `Ns.Type.*`); answered by MEASURE_REPLY with `request`. */
export function encodeMeasureCommand(request: number, pattern: string): Uint8Array {
  const text = new TextEncoder().encode(pattern);
  if (text.length > MAX_STRING_BYTES) throw new RangeError(`A method pattern of ${text.length} bytes is longer than the ${MAX_STRING_BYTES} a command carries.`);
  const body = new Uint8Array(8 + text.length);
  const view = new DataView(body.buffer);
  view.setUint32(0, request >>> 0, true);
  view.setUint32(4, text.length, true);
  body.set(text, 8);
  return frame(CommandType.Measure, body);
}

/** Give one measured method (or, with 0, every one) its original code back. */
export function encodeRevertCommand(request: number, measureId: number): Uint8Array {
  const body = new Uint8Array(8);
  const view = new DataView(body.buffer);
  view.setUint32(0, request >>> 0, true);
  view.setUint32(4, measureId >>> 0, true);
  return frame(CommandType.Revert, body);
}
