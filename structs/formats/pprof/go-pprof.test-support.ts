// The independent reader of our pprof files in unit tests: Go's own `go tool pprof`. Without `go`
// a check fails under CI (the install step is missing) and skips visibly elsewhere.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

let found: boolean | undefined;
let warned = false;

/** Whether `go` runs here; under CI its absence fails the test, elsewhere it skips it. */
export function requireGo(t: TestContext): boolean {
  found ??= spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
  if (found) return true;
  if (process.env.CI) assert.fail('`go` is not on PATH but CI is set: install golang-go so go tool pprof can check the exporter.');
  t.skip('go not found: install golang-go to check the pprof export with go tool pprof');
  if (!warned) console.warn('# SKIPPED the go tool pprof checks: `go` is not on PATH (apt-get install -y golang-go)');
  warned = true;
  return false;
}

/** `go tool pprof ARGS FILE`'s output; its temporary files go to `work`. */
export function goPprof(work: string, args: readonly string[], file: string): string {
  const r = spawnSync('go', ['tool', 'pprof', ...args, file], {
    encoding: 'utf8',
    env: { ...process.env, HOME: process.env.HOME ?? work, PPROF_TMPDIR: work },
  });
  assert.equal(r.status, 0, `go tool pprof ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
