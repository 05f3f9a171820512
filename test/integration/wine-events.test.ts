// Exception samples from clrscope's Windows profiler inside a real Windows CoreCLR under Wine:
// the throwing thread walks its own stack in ExceptionThrown with the Windows unwinder (function
// tables; the runtime's C++ keeps no frame-pointer chain). Scenarios' throw-mix throws known
// counts of three types from three methods, with known messages read from the thrown objects by
// the Windows build of the same reader. Lock waits and allocations come from the runtime's
// EventPipe session, which the Wine tests leave off (test/integration/support/wine.ts says why).
// Skipped, saying why, where wine64 is missing.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventKind } from '../../structs/wire/records.js';
import { stackNames } from './support/record-target.js';
import { resultOf } from './support/run-cli.js';
import { recordUnderWine, wineSkipReason, windowsTarget, type WineRun } from './support/wine.js';

const skip = wineSkipReason();
const NS = 'Clrscope.Targets.Scenarios.';
const ROOTS = ['kernel32.dll!BaseThreadInitThunk', 'ntdll.dll!RtlUserThreadStart'];
const THROWER: Record<string, string> = {
  'System.ArgumentException': `${NS}ThrowMix.Argument`,
  'System.Collections.Generic.KeyNotFoundException': `${NS}ThrowMix.KeyNotFound`,
  [`${NS}TargetFault<System.Int32>`]: `${NS}ThrowMix.Generic`,
};

describe('Windows CoreCLR under Wine: exceptions as event samples (throw-mix)', { skip }, () => {
  let run: WineRun;
  let facts: Record<string, number>;
  const stacks: { type: string; frames: string[]; message: string | null }[] = [];
  const counts = new Map<string, number>();

  before(async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'clrscope-wine-'));
    try {
      run = await recordUnderWine(windowsTarget('Scenarios'), ['throw-mix', '--exceptions', '20', '--seconds', '1'], { logPath: join(logDir, 'profiler.log') });
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
    facts = (resultOf(run.stdout).scenarios as Record<string, Record<string, number>>)['throw-mix'];
    const e = run.rec.events();
    const strings = run.rec.strings();
    for (let i = 0; i < e.kind.length; i++) {
      if (e.kind[i] !== EventKind.Exception) continue;
      const type = strings.get(e.labelId[i]) ?? '';
      counts.set(type, (counts.get(type) ?? 0) + e.value1[i]);
      const message = e.messageId[i] === 0 ? null : strings.get(e.messageId[i]) ?? '?';
      if (e.stackId[i] >= 0 && run.rec.thread(e.threadId[i])?.name === 'throw-mix') stacks.push({ type, frames: stackNames(run.rec, e.stackId[i]), message });
    }
  });

  it('leaves the program its output and exit code', () => {
    assert.equal(run.exitCode, 0, `${run.stderr}\nprofiler log:\n${run.log}`);
    assert.match(run.log, /event samples sent/);
  });

  it('counts every exception by type, exactly', () => {
    for (const [type, n] of Object.entries(facts)) {
      if (type === 'elapsedMs') continue;
      assert.equal(counts.get(type), n, `${type}: ${counts.get(type)} of ${n}`);
    }
  });

  it('puts each exception under the method that threw it, rooted at the thread\'s start', (t) => {
    assert.ok(stacks.length >= 100, `${stacks.length} exception stacks on throw-mix`);
    const right = stacks.filter(({ type, frames }) => {
      const managed = frames.filter((f) => f.startsWith('System.') || f.startsWith('Clrscope.'));
      return managed[0] === THROWER[type] && managed[1] === `${NS}ThrowMix.Run` && managed[managed.length - 1] === 'System.Threading.Thread.StartCallback' &&
        ROOTS.includes(frames[frames.length - 1]);
    });
    const wrong = stacks.find((s) => !right.includes(s));
    t.diagnostic(`${right.length} of ${stacks.length} exception stacks thrower <- Run <- StartCallback <- thread start${wrong === undefined ? '' : `; e.g. not: ${wrong.type}: ${wrong.frames.join(' <- ')}`}`);
    assert.ok(right.length >= 0.95 * stacks.length, `${right.length} of ${stacks.length}`);
  });

  it('reads each exception\'s message as the program gave it', () => {
    const expected: Record<string, (m: string | null) => boolean> = {
      'System.ArgumentException': (m) => m === 'clrscope test',
      'System.Collections.Generic.KeyNotFoundException': (m) => m !== null && /^key \d+$/.test(m),
      [`${NS}TargetFault<System.Int32>`]: (m) => m === null,
    };
    const wrong = stacks.filter((s) => !expected[s.type](s.message));
    assert.deepEqual(wrong.map((s) => [s.type, s.message]), []);
    assert.equal(new Set(stacks.filter((s) => s.message?.startsWith('key ')).map((s) => s.message)).size, 20);
  });
});
