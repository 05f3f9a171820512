import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedLines, utf8Length } from './bounded-lines.js';
import { OUTPUT_LIMITS, type OutputLine } from './contract.js';

const line = (seq: number, text = `line ${seq}`): OutputLine => ({ seq, stream: seq % 3 === 0 ? 'stderr' : 'stdout', text });
const seqs = (lines: BoundedLines): number[] => lines.all().map((l) => l.seq);

test('UTF-8 lengths are counted as an encoder would write them', () => {
  for (const text of ['', 'READY {"pid":42}', 'é', '€uro', '😀', 'a😀b', '\ud800 lone', 'lone \udc00', '日本語の行']) {
    assert.equal(utf8Length(text), new TextEncoder().encode(text).length, JSON.stringify(text));
  }
});

test('lines are kept in seq order; one that does not come after the last is refused', () => {
  const lines = new BoundedLines();
  assert.equal(lines.first, undefined);
  assert.equal(lines.push(line(0)), true);
  assert.equal(lines.push(line(1)), true);
  assert.equal(lines.push(line(5)), true, 'a gap is fine: lines before it may come from elsewhere');
  assert.equal(lines.push(line(5, 'again')), false);
  assert.equal(lines.push(line(3)), false);
  assert.deepEqual(seqs(lines), [0, 1, 5]);
  assert.equal(lines.last?.text, 'line 5');
  assert.equal(lines.dropped, 0);
});

test('past the line limit the oldest lines go, and are counted', () => {
  const lines = new BoundedLines({ lines: 3, bytes: 1000 });
  for (let i = 0; i < 10; i++) lines.push(line(i));
  assert.deepEqual(seqs(lines), [7, 8, 9]);
  assert.equal(lines.dropped, 7);
  assert.equal(lines.first?.seq, 7);
});

test('past the byte limit the oldest lines go, counted in UTF-8', () => {
  const lines = new BoundedLines({ lines: 100, bytes: 10 });
  lines.push(line(0, 'aaaa'));
  lines.push(line(1, 'ééé')); // 6 bytes: 10 in all
  assert.deepEqual(seqs(lines), [0, 1]);
  lines.push(line(2, 'b'));
  assert.deepEqual(seqs(lines), [1, 2]);
  // A line over the limit on its own is what the program just said: it stays, alone.
  lines.push(line(3, '😀😀😀'));
  assert.deepEqual(seqs(lines), [3]);
  assert.equal(lines.dropped, 3);
});

test('a long run stays within the limits and keeps the newest lines in order', () => {
  const lines = new BoundedLines({ lines: 50, bytes: 1_000_000 });
  for (let i = 0; i < 10_000; i++) lines.push(line(i));
  assert.equal(lines.length, 50);
  assert.deepEqual(seqs(lines), Array.from({ length: 50 }, (_, i) => 9950 + i));
  assert.equal(lines.dropped, 9950);
});

test('the default limits are the contract\'s: 2,000 lines within 256 KiB', () => {
  assert.deepEqual(OUTPUT_LIMITS, { lines: 2000, bytes: 262_144, lineChars: 8192 });
  const lines = new BoundedLines();
  for (let i = 0; i < 2500; i++) lines.push(line(i, 'x'));
  assert.equal(lines.length, 2000);
  const wide = new BoundedLines();
  for (let i = 0; i < 300; i++) wide.push(line(i, 'y'.repeat(1024)));
  assert.equal(wide.length, 256);
  assert.throws(() => new BoundedLines({ lines: 0, bytes: 10 }), /at least one line/);
});
