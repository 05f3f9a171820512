import { WireDecoder } from '../wire/decoder.js';
import { Recording } from './recording.js';

/**
 * Decodes a whole stream held in memory (a saved capture, a test's synthetic stream) into a
 * finished Recording. A stream that stops mid-record or without END yields `cut: true`.
 */
export function recordingFromStream(chunks: Iterable<Uint8Array>): Recording {
  const rec = new Recording();
  const decoder = new WireDecoder(rec.sink);
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  rec.finish();
  return rec;
}
