// .clrscope bytes -> Recording + counters, chunk by chunk, so a file of any size is read in
// pieces and only the model (33 bytes a sample plus distinct stacks) stays in memory.

import type { CountersPoint } from '../../api/contract.js';
import { RecordingError } from '../../profile/recording-error.js';
import { Recording } from '../../profile/recording.js';
import { WireDecoder } from '../../wire/decoder.js';
import { WireFormatError } from '../../wire/wire-format-error.js';
import { COUNTERS_RECORD_TYPE, decodeCountersBody } from './counters-record.js';
import { processRecordTap } from './process-record.js';
import { RecordTap } from './record-tap.js';
import { SPOOLED_RECORD_TYPE } from './spooled-record.js';

export interface OpenedRecording {
  recording: Recording;
  /** The counters time series, in file order. */
  counters: CountersPoint[];
}

export class RecordingFileReader {
  private readonly decoder: WireDecoder;
  private readonly counters: CountersPoint[] = [];
  private readonly tap = new RecordTap(COUNTERS_RECORD_TYPE, (body, offset) => this.counters.push(decodeCountersBody(body, offset)));
  private readonly processTap: RecordTap;
  private spooled = false;
  private readonly spoolTap = new RecordTap(SPOOLED_RECORD_TYPE, () => { this.spooled = true; });

  /**
   * `recording`: the model to read into; one made with keepSamples 'recent' lets a caller fold
   * each chunk's samples in (recentSamples, releaseSamples) instead of keeping them all.
   */
  constructor(readonly recording: Recording = new Recording()) {
    this.decoder = new WireDecoder(recording.sink);
    this.processTap = processRecordTap(recording);
  }

  get bytesRead(): number {
    return this.decoder.bytesReceived;
  }

  /** Throws WireFormatError, with a sentence naming the byte, on anything that is not a clrscope file. */
  push(chunk: Uint8Array): void {
    try {
      this.decoder.push(chunk);
    } catch (err) {
      // The model's complaints know the record but not where it is; the decoder knows that.
      if (err instanceof RecordingError) {
        throw new WireFormatError(`Corrupt clrscope file: the record at byte ${this.decoder.recordOffset} ${err.reason}.`, this.decoder.recordOffset);
      }
      throw err;
    }
    this.tap.push(chunk);
    this.processTap.push(chunk);
    this.spoolTap.push(chunk);
  }

  /**
   * Ends the file. A saved file that stops inside a record, or before its HELLO, was damaged
   * (cut short by a full disk or a copy) and is rejected rather than shown partly; a file
   * without END is a recording whose stream was cut, and opens as such (`recording.cut`).
   * A spooled file (SPOOLED record) whose writer was killed may stop inside its last record:
   * that record is dropped and the rest opens as cut.
   */
  finish(): OpenedRecording {
    const state = this.decoder.end();
    if (state.totalBytes === 0) throw new WireFormatError('The clrscope file is empty.', 0);
    if (state.midRecord && !(this.spooled && state.offset > 0)) {
      throw new WireFormatError(`The clrscope file is truncated: it ends at byte ${state.totalBytes}, inside the ${state.offset === 0 ? 'preamble' : `record that starts at byte ${state.offset}`}.`, state.offset);
    }
    if (this.recording.meta === undefined) throw new WireFormatError('The clrscope file holds no recording: it has no HELLO record.', state.totalBytes);
    this.recording.finish();
    return { recording: this.recording, counters: this.counters };
  }
}

/** Opens a whole .clrscope file held in memory. */
export function openRecording(bytes: Uint8Array): OpenedRecording {
  const reader = new RecordingFileReader();
  reader.push(bytes);
  return reader.finish();
}
