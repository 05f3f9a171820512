import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fixtureStream } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { FORMAT_CATALOG } from './catalog.js';
import type { RecordingFormat, WriteContext } from './recording-format.js';
import { EXPORT_FORMATS, RECORDING_FORMATS, formatOfPath, recordingFormat, sniffFormat, SNIFF_BYTES, type RecordingFileFormat } from './registry.js';

const rec = recordingFromStream([fixtureStream({ end: true })]);
const context: WriteContext = { counters: [], gzip: (bytes) => gzipSync(bytes) };

/** The file a format's own writer makes of the fixture recording, whole. */
function written(format: RecordingFormat): Uint8Array {
  if (typeof format.writer !== 'function') throw new Error(`${format.id} has no pure writer`);
  const pieces = Array.from(format.writer(rec, context), (p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  return Buffer.concat(pieces);
}

test('every format with a reader and a pure writer knows its own files by their first bytes, whatever their name', () => {
  const checked: string[] = [];
  for (const format of RECORDING_FORMATS) {
    const f: RecordingFormat = format;
    if (f.reader === undefined || typeof f.writer !== 'function') continue;
    assert.equal(sniffFormat(written(f).subarray(0, SNIFF_BYTES)), f.id, f.id);
    checked.push(f.id);
  }
  assert.deepEqual(checked, ['clrscope', 'nettrace', 'speedscope', 'pprof']);
});

test('sniffing: a bare pprof profile, a speedscope file from another tool, and bytes no format claims', () => {
  const pprof = recordingFormat('pprof');
  assert.equal(sniffFormat(new Uint8Array([0x0a, 0x04, 0x08, 0x01, 0x10, 0x02])), 'pprof');
  const evented = readFileSync(new URL('../../../structs/formats/speedscope/fixtures/evented-dotnet-trace-like.speedscope.json', import.meta.url));
  assert.equal(sniffFormat(evented.subarray(0, SNIFF_BYTES)), 'speedscope');
  assert.equal(sniffFormat(new TextEncoder().encode('{"not": "speedscope"}')), undefined);
  assert.equal(sniffFormat(new TextEncoder().encode('Main;Work 42\n')), undefined);
  assert.equal(sniffFormat(new Uint8Array(0)), undefined);
  assert.equal(sniffFormat(new TextEncoder().encode('CLRSCOP')), undefined, 'a magic cut short is not the format');
  assert.equal(pprof.sniff?.(new Uint8Array([0x1f])), false);
});

test('one description per format: ids unique, extensions lower case and never claimed by two formats', () => {
  const ids = RECORDING_FORMATS.map((f) => f.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const direction of ['read', 'write'] as const) {
    const exts = RECORDING_FORMATS.flatMap((f) => [...f[direction]]);
    assert.equal(new Set(exts).size, exts.length, direction);
    for (const ext of exts) {
      assert.equal(ext, ext.toLowerCase());
      assert.equal(formatOfPath(`x${ext.toUpperCase()}`, direction), RECORDING_FORMATS.find((f) => (f[direction] as readonly string[]).includes(ext))?.id);
    }
  }
  for (const format of RECORDING_FORMATS) {
    const f: RecordingFormat = format;
    assert.equal(f.reader !== undefined, f.read.length > 0, `${f.id}: a reader exactly when it has read extensions`);
    assert.equal(f.writer !== undefined, f.write.length > 0, `${f.id}: a writer exactly when it has write extensions`);
    if (f.reader !== undefined) assert.ok(f.sniff !== undefined, `${f.id}: readers are picked by content first`);
    assert.notEqual(f.note, '');
  }
});

test('the export list is every written format, in the export view\'s order', () => {
  const expected: RecordingFileFormat[] = ['pprof', 'clrscope', 'speedscope', 'nettrace', 'etlx', 'collapsed', 'flame-html', 'flame-svg'];
  assert.deepEqual(EXPORT_FORMATS, expected);
});

test('the registry lists the catalog\'s formats, in its order, each its description with a codec', () => {
  assert.deepEqual(RECORDING_FORMATS.map((f) => f.id), FORMAT_CATALOG.map((f) => f.id));
  RECORDING_FORMATS.forEach((format, i) => {
    const { reader: _reader, writer: _writer, ...description } = format as RecordingFormat;
    assert.deepEqual(description, FORMAT_CATALOG[i], format.id);
    for (const [key, value] of Object.entries(FORMAT_CATALOG[i])) assert.equal((format as unknown as Record<string, unknown>)[key], value, `${format.id}.${key}`);
  });
});
