// Runs a Node program as a child process and measures it: wall time from spawn to exit, and
// the child's own peak resident memory (getrusage's maxrss, reported by a hook the child loads
// first and prints as its last line of stderr).

import { spawn } from 'node:child_process';

export interface MeasuredRun {
  code: number | null;
  seconds: number;
  peakMiB: number;
  stdout: string;
  /** stderr without the hook's line. */
  stderr: string;
}

const MARK = 'clrscope-measured-run';
// Pipes are written synchronously on Linux, so a write in 'exit' arrives.
const HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\n${MARK} '+process.resourceUsage().maxRSS+'\\n'))`;

export function measuredRun(script: string, args: readonly string[], timeoutMs = 120_000): Promise<MeasuredRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', HOOK, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const at = stderr.lastIndexOf(`\n${MARK} `);
      const peakKiB = at < 0 ? Number.NaN : Number(stderr.slice(at + MARK.length + 2).trim());
      resolve({ code, seconds, peakMiB: peakKiB / 1024, stdout, stderr: (at < 0 ? stderr : stderr.slice(0, at)).trim() });
    });
  });
}
