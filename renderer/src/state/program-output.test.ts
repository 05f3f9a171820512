import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputHistory, OutputLine } from '../../../structs/api/contract.js';
import { ProgramOutput } from './program-output.js';

const line = (seq: number): OutputLine => ({ seq, stream: seq % 2 === 0 ? 'stdout' : 'stderr', text: `line ${seq}` });
const lines = (from: number, to: number): OutputLine[] => Array.from({ length: to - from }, (_, i) => line(from + i));
const history = (from: number, to: number, partial = ''): OutputHistory => ({ lines: lines(from, to), droppedLines: from, partial: { stdout: partial, stderr: '' } });
const seqs = (out: ProgramOutput, id: string): number[] => out.get(id).lines.map((l) => l.seq);

describe('ProgramOutput', () => {
  it('merges history and live lines by seq whichever came first, and may be merged again', () => {
    const out = new ProgramOutput();
    out.add('s1', lines(5, 8), { stdout: '', stderr: 'live' });
    out.merge('s1', history(0, 6, 'older'));
    assert.deepEqual(seqs(out, 's1'), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(out.get('s1').partial.stderr, 'live', 'live lines past the history\'s end: their unfinished lines are newer');
    out.merge('s1', history(0, 9, 'newest'));
    assert.deepEqual(seqs(out, 's1'), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(out.get('s1').partial.stdout, 'newest');
  });

  it('stays within its limits and counts the lines it no longer holds', () => {
    const out = new ProgramOutput({ lines: 4, bytes: 1000 });
    out.merge('s1', history(0, 3));
    out.add('s1', lines(3, 10), { stdout: '', stderr: '' });
    assert.deepEqual(seqs(out, 's1'), [6, 7, 8, 9]);
    assert.equal(out.get('s1').droppedLines, 6);
    // A history already past its own limit: what the workstation dropped counts too.
    out.merge('s2', history(100, 102));
    assert.equal(out.get('s2').droppedLines, 100);
    out.merge('s3', { lines: [], droppedLines: 7, partial: { stdout: '', stderr: '' } });
    assert.equal(out.get('s3').droppedLines, 7);
    assert.equal(out.get('s3').loaded, true);
  });

  it('holds at most the contract\'s 2,000 lines by default', () => {
    const out = new ProgramOutput();
    out.merge('s1', history(0, 1500));
    out.add('s1', lines(1500, 5000), { stdout: '', stderr: '' });
    assert.equal(out.get('s1').lines.length, 2000);
    assert.equal(out.get('s1').droppedLines, 3000);
    assert.deepEqual(out.get('unknown'), { lines: [], partial: { stdout: '', stderr: '' }, droppedLines: 0, loaded: false });
  });
});
