// Issue 23: a speedscope file of nested opens broke the 5 s / 500 MB promise. The 8 MB file of
// 200,000 nested opens was refused only after 15-26 s and 3.1 GB, through `convert`, `report`
// and the workstation's Open, whose server answered no other client meanwhile; a 100 MB one
// was still running at 30 s and 4 GB. Each run here is a process of its own, measured from
// outside: wall time and its own peak resident memory. And while the workstation opens such a
// file, another client of its browser-mode server is answered within half a second.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { BrowserModeClient } from './support/browser-mode-client.js';
import { writeSpeedscopeNestedOpens } from './support/hostile-files.js';
import { measuredRun } from './support/measured-run.js';
import { CLI } from './support/paths.js';

// Generous for a busy 2-core machine, and still far below what the files used to cost.
const MAX_SECONDS = 5;
const MAX_PEAK_MIB = 500;
const OPEN_IN_WORKSTATION = fileURLToPath(new URL('./support/open-in-workstation.js', import.meta.url));
const BROWSER_MODE_PROCESS = fileURLToPath(new URL('./support/browser-mode-process.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'clrscope-hostile-'));
const files = [
  { label: '8 MB, 200,000 nested opens', path: join(dir, 'nested-200k.speedscope.json'), opens: 200_000, minBytes: 7.5e6 },
  { label: '100 MB, 2,500,000 nested opens', path: join(dir, 'nested-2500k.speedscope.json'), opens: 2_500_000, minBytes: 95e6 },
];

before(() => {
  for (const f of files) assert.ok(writeSpeedscopeNestedOpens(f.path, f.opens) > f.minBytes);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const SENTENCE = /^(clrscope: )?Cannot read \S+: not a readable speedscope file: evented profile 0 opens frames so deeply \(8,000 at once\) that its samples would hold more than 32,000,000 frames in all, the most clrscope reads of one file\.$/;

function assertRefusedInBudget(how: string, run: { code: number | null; seconds: number; peakMiB: number; stderr: string }): void {
  assert.notEqual(run.code, 0, `${how}: exit code`);
  assert.match(run.stderr, SENTENCE, `${how}: ${run.stderr}`);
  assert.ok(run.seconds < MAX_SECONDS, `${how}: ${run.seconds.toFixed(2)} s`);
  assert.ok(run.peakMiB < MAX_PEAK_MIB, `${how}: ${run.peakMiB.toFixed(0)} MiB peak`);
}

describe('speedscope files of nested opens are refused within 5 s and 500 MB', () => {
  for (const f of files) {
    it(`${f.label}: convert, report and the workstation's Open`, async (t) => {
      const runs = {
        convert: await measuredRun(CLI, ['convert', f.path, '-o', join(dir, 'out.pb.gz')]),
        report: await measuredRun(CLI, ['report', f.path]),
        open: await measuredRun(OPEN_IN_WORKSTATION, [f.path]),
      };
      for (const [how, run] of Object.entries(runs)) {
        t.diagnostic(`${how}: ${run.seconds.toFixed(2)} s, ${run.peakMiB.toFixed(0)} MiB peak`);
        assertRefusedInBudget(how, run);
      }
      assert.equal(runs.open.stdout, '');
    });
  }
});

describe('opening a file never holds up the workstation\'s other clients', () => {
  let server: ChildProcess;
  let address: { wsUrl: string; token: string };

  before(async () => {
    server = spawn(process.execPath, [BROWSER_MODE_PROCESS, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    address = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as { wsUrl: string; token: string });
      });
      server.once('exit', (code) => reject(new Error(`browser mode exited (${code}) before it listened`)));
    });
  });
  after(async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.stdin?.end();
    await exited;
  });

  it('another client\'s requests are answered within 500 ms while the 100 MB file is read', async (t) => {
    // The server runs in a process of its own: a client here measures it from outside.
    const opener = await BrowserModeClient.connect(address.wsUrl, address.token, false);
    const other = await BrowserModeClient.connect(address.wsUrl, address.token, false);
    let opening = true;
    const opened = opener.call('openRecording', { path: files[1].path }).then(
      () => 'opened',
      (err: Error) => err.message,
    ).finally(() => { opening = false; });
    const latencies: number[] = [];
    while (opening) {
      const sent = performance.now();
      await other.call('listSessions');
      latencies.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sentence = await opened;
    opener.close();
    other.close();
    const worst = Math.max(...latencies);
    t.diagnostic(`${latencies.length} requests answered while the file was read; the slowest in ${worst.toFixed(0)} ms`);
    assert.match(sentence, SENTENCE);
    assert.ok(latencies.length >= 5, `only ${latencies.length} requests answered during the open`);
    assert.ok(worst < 500, `a request waited ${worst.toFixed(0)} ms`);
  });
});
