// The PROCESS record (PROTOCOL.md, workstation-side records): one process of a recording that
// holds several (`record --children`, a workstation launch with child processes), and which
// threads are its. Written after the THREAD records it names; a one-process recording has none,
// so its file is what it always was.

import { RecordingError } from '../../profile/recording-error.js';
import type { ProcessInfo, Recording } from '../../profile/recording.js';
import { MAX_STRING_BYTES } from '../../wire/records.js';
import { WireFormatError } from '../../wire/wire-format-error.js';
import { RecordTap } from './record-tap.js';

export const PROCESS_RECORD_TYPE = 0x31;

/** `u32 pid`, `str name`, `u32 count`, `u32 threadIds[count]`. */
export function encodeProcessBody(process: ProcessInfo, threadIds: readonly number[]): Uint8Array {
  let name = new TextEncoder().encode(process.name);
  // Cut on a character boundary, as the wire's strings are.
  if (name.length > MAX_STRING_BYTES) name = new TextEncoder().encode(new TextDecoder().decode(name.subarray(0, MAX_STRING_BYTES)).replace(/\uFFFD$/, ''));
  const body = new Uint8Array(12 + name.length + 4 * threadIds.length);
  const view = new DataView(body.buffer);
  view.setUint32(0, process.pid, true);
  view.setUint32(4, name.length, true);
  body.set(name, 8);
  view.setUint32(8 + name.length, threadIds.length, true);
  threadIds.forEach((id, i) => view.setUint32(12 + name.length + 4 * i, id, true));
  return body;
}

export interface DecodedProcess {
  process: ProcessInfo;
  threadIds: number[];
}

export function decodeProcessBody(body: Uint8Array, offset: number): DecodedProcess {
  const corrupt = (why: string): never => {
    throw new WireFormatError(`Corrupt clrscope file: the PROCESS record at byte ${offset} ${why}.`, offset);
  };
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (body.length < 12) corrupt('is shorter than its fields');
  const pid = view.getUint32(0, true);
  const nameLength = view.getUint32(4, true);
  if (nameLength > MAX_STRING_BYTES || 12 + nameLength > body.length) corrupt('has a name longer than the record');
  const name = new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(8, 8 + nameLength));
  const count = view.getUint32(8 + nameLength, true);
  if (12 + nameLength + 4 * count > body.length) corrupt(`names ${count} threads, more than the record holds`);
  const threadIds: number[] = [];
  for (let i = 0; i < count; i++) threadIds.push(view.getUint32(12 + nameLength + 4 * i, true));
  return { process: { pid, name }, threadIds };
}

/**
 * Declares in `recording` the process of each PROCESS record of the bytes it is fed: feed it the
 * chunks the recording's decoder accepted, after the decoder. `source` names what is read in
 * the sentence a bad record gets.
 */
export function processRecordTap(recording: Pick<Recording, 'addProcess'>, source: 'file' | 'stream' = 'file'): RecordTap {
  return new RecordTap(PROCESS_RECORD_TYPE, (body, offset) => {
    const { process, threadIds } = decodeProcessBody(body, offset);
    try {
      recording.addProcess(process, threadIds);
    } catch (err) {
      if (err instanceof RecordingError) throw new WireFormatError(`Corrupt clrscope ${source}: the PROCESS record at byte ${offset} ${err.reason}.`, offset);
      throw err;
    }
  });
}
