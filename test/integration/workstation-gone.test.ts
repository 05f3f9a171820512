// The target must outlive the workstation: when the reader disappears mid-recording, the
// profiler goes quiet and the program finishes its work with its normal output.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { CLI, targetDll } from './support/paths.js';
import { resultOf } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-gone-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('keeps the program running correctly when clrscope is killed mid-recording', async () => {
  const log = join(dir, 'profiler.log');
  // clrscope is killed with SIGKILL: no cleanup, its socket simply vanishes. The program,
  // started by it, inherits our stdout pipe, so its output still reaches the test.
  const cli = spawn(process.execPath, [CLI, 'record', '-o', join(dir, 'never.pb.gz'), '--', 'dotnet', targetDll('Scenarios'), 'cpu-ratio', 'sleep', '--seconds', '3', '--exit-code', '0'], {
    env: { ...process.env, CLRSCOPE_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  cli.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  // The pipes close only when the orphaned program has exited too.
  const closed = Promise.all([
    new Promise<void>((resolve) => cli.stdout.on('close', () => resolve())),
    new Promise<void>((resolve) => cli.stderr.on('close', () => resolve())),
  ]);
  // Kill once the program is up and sampling.
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 30000;
    const poll = setInterval(() => {
      if (stdout.includes('READY')) {
        clearInterval(poll);
        setTimeout(() => { cli.kill('SIGKILL'); resolve(); }, 1000);
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        cli.kill('SIGKILL');
        reject(new Error(`the program never printed READY; stderr:\n${stderr}`));
      }
    }, 50);
  });
  await closed;
  const result = resultOf(stdout);
  assert.equal(result.exitCode, 0);
  assert.match(stderr, /Scenarios: done/);
  const scen = result.scenarios as Record<string, Record<string, number>>;
  assert.equal(scen['cpu-ratio'].heavyCalls, scen['cpu-ratio'].lightCalls, 'the work completed');
  assert.ok(!existsSync(join(dir, 'never.pb.gz')), 'the killed clrscope wrote nothing');
  const text = readFileSync(log, 'utf8');
  assert.match(text, /the workstation stopped reading \(connection closed\); sampling stopped, the program carries on/);
});
