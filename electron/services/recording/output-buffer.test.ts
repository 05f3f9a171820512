import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utf8Length } from '../../../structs/api/bounded-lines.js';
import type { OutputLine } from '../../../structs/api/contract.js';
import { OutputBuffer, noOutput } from './output-buffer.js';

const shown = (lines: readonly OutputLine[]): string[] => lines.map((l) => `${l.seq} ${l.stream}: ${l.text}`);

test('text becomes numbered lines as each stream completes them, whatever the chunks', () => {
  const out = new OutputBuffer();
  assert.deepEqual(out.write('stdout', 'READY {"pid"'), []);
  assert.deepEqual(out.partial, { stdout: 'READY {"pid"', stderr: '' });
  assert.deepEqual(shown(out.write('stderr', 'warn: slow\nwarn: ')), ['0 stderr: warn: slow']);
  assert.deepEqual(shown(out.write('stdout', ':42}\n\nINFO a\nINFO b\n')), ['1 stdout: READY {"pid":42}', '2 stdout: ', '3 stdout: INFO a', '4 stdout: INFO b']);
  assert.deepEqual(shown(out.write('stderr', 'slower\n')), ['5 stderr: warn: slower']);
  assert.deepEqual(out.partial, { stdout: '', stderr: '' });
  const history = out.history();
  assert.deepEqual(shown(history.lines), ['0 stderr: warn: slow', '1 stdout: READY {"pid":42}', '2 stdout: ', '3 stdout: INFO a', '4 stdout: INFO b', '5 stderr: warn: slower']);
  assert.equal(history.droppedLines, 0);
});

test('CRLF line ends lose their CR, even when a chunk ends between the two', () => {
  const out = new OutputBuffer();
  assert.deepEqual(shown(out.write('stdout', 'one\r\ntwo\r')), ['0 stdout: one']);
  assert.deepEqual(shown(out.write('stdout', '\nthree\r')), ['1 stdout: two']);
  assert.deepEqual(shown(out.end('stdout')), ['2 stdout: three']);
  assert.deepEqual(shown(out.write('stdout', '\r\n')), ['3 stdout: ']);
});

test('a stream that ends without a line break keeps its last line; an empty one adds nothing', () => {
  const out = new OutputBuffer();
  out.write('stdout', 'Continue? ');
  assert.deepEqual(out.history().partial, { stdout: 'Continue? ', stderr: '' });
  assert.deepEqual(shown(out.end('stdout')), ['0 stdout: Continue? ']);
  assert.deepEqual(out.end('stdout'), []);
  assert.deepEqual(out.end('stderr'), []);
  assert.deepEqual(out.partial, { stdout: '', stderr: '' });
});

test('a line that never ends is cut into lines of lineChars, never between a surrogate pair', () => {
  const out = new OutputBuffer({ lines: 100, bytes: 100_000, lineChars: 4 });
  assert.deepEqual(shown(out.write('stdout', 'abcdefghij')), ['0 stdout: abcd', '1 stdout: efgh']);
  assert.equal(out.partial.stdout, 'ij');
  assert.deepEqual(shown(out.write('stdout', 'k😀l\n')), ['2 stdout: ijk', '3 stdout: 😀l']);
  // The default bound: an endless progress line holds at most 8,192 characters unfinished.
  const big = new OutputBuffer();
  const lines = big.write('stderr', '.'.repeat(100_000));
  assert.equal(lines.length, 12);
  assert.ok(lines.every((l) => l.text.length === 8192));
  assert.equal(big.partial.stderr.length, 100_000 - 12 * 8192);
});

test('a chatty program keeps the newest 2,000 lines and counts the rest as dropped', () => {
  const out = new OutputBuffer();
  let text = '';
  for (let i = 0; i < 10_000; i++) text += `line ${i}\n`;
  const lines = out.write('stdout', text);
  assert.equal(lines.length, 10_000, 'every line is passed on live');
  const history = out.history();
  assert.equal(history.lines.length, 2000);
  assert.equal(history.droppedLines, 8000);
  assert.equal(history.lines[0].seq, 8000, 'the first kept line says how many came before');
  assert.equal(history.lines[0].text, 'line 8000');
  assert.equal(history.lines[1999].text, 'line 9999');
});

test('long lines are bounded by bytes: at most 256 KiB of text is kept', () => {
  const out = new OutputBuffer();
  const kb = 'é'.repeat(512); // 1 KiB of UTF-8 in 512 characters
  for (let i = 0; i < 1000; i++) out.write('stdout', `${kb}\n`);
  const history = out.history();
  assert.equal(history.lines.length, 256);
  assert.equal(history.droppedLines, 744);
  assert.ok(history.lines.reduce((n, l) => n + utf8Length(l.text), 0) <= 256 * 1024);
});

test('the history is a copy, and its lines cannot be changed under the buffer', () => {
  const out = new OutputBuffer();
  out.write('stdout', 'a\n');
  const first = out.history();
  first.lines.length = 0;
  first.partial.stdout = 'x';
  assert.equal(out.history().lines.length, 1);
  assert.equal(out.history().partial.stdout, '');
  assert.throws(() => { (out.history().lines[0] as { text: string }).text = 'b'; }, TypeError);
  assert.deepEqual(noOutput(), { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } });
});
