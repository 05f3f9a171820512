// Inputs the soak makes once and keeps in test/soak/.cache: csharpier's source tree, ilspycmd's C#
// of System.Private.CoreLib, with a .csharpierignore naming the files csharpier cannot parse
// (decompiled C# is not always valid C#), so that a bare csharpier run formats the rest and exits 0.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE_DIR, coreLib, csharpierDll, CSHARPIER_INPUT, ilspyDll, writeCsharpierIgnore } from './soak-programs.js';
import { plainEnv } from './soak-run.js';

export function ensureCsharpierInput(log: (line: string) => void = () => undefined): void {
  if (existsSync(join(CSHARPIER_INPUT, '.csharpierignore'))) return;
  const making = `${CSHARPIER_INPUT}.making`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(CACHE_DIR, { recursive: true });
  log(`soak: making csharpier's input once (ilspycmd decompiles System.Private.CoreLib into ${CSHARPIER_INPUT}, a few minutes)`);
  const ilspy = spawnSync('dotnet', ['--roll-forward', 'Major', ilspyDll(), '--disable-updatecheck', '-p', '-o', making, coreLib()], { env: plainEnv(), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (ilspy.status !== 0) throw new Error(`ilspycmd failed (${ilspy.status}): ${(ilspy.stdout + ilspy.stderr).trim().split('\n').slice(-3).join(' ')}`);
  // csharpier on a copy: its errors name the files it cannot parse. The copy is outside the
  // repository, whose .gitignore (test/soak/.cache/) csharpier would honour, formatting nothing.
  const trial = mkdtempSync(join(tmpdir(), 'clrscope-soak-csharpier-'));
  cpSync(making, trial, { recursive: true });
  const cs = spawnSync('dotnet', [csharpierDll(), 'format', '--no-cache', '.'], { cwd: trial, env: plainEnv(), encoding: 'utf8', maxBuffer: 64 << 20 });
  rmSync(trial, { recursive: true, force: true });
  const unparsable = [...(cs.stdout + cs.stderr).matchAll(/^Error \.\/(\S+) - Was not formatted due to syntax errors/gm)].map((m) => m[1]);
  const formatted = Number(/^Formatted (\d+) files/m.exec(cs.stdout)?.[1] ?? 0);
  if (formatted < 100) throw new Error(`csharpier did not format ${making}: ${(cs.stdout + cs.stderr).trim().split('\n').slice(-3).join(' ')}`);
  writeCsharpierIgnore(making, unparsable);
  renameSync(making, CSHARPIER_INPUT);
  log(`soak: csharpier's input ready (${unparsable.length} file(s) csharpier cannot parse are ignored: ${unparsable.join(', ')})`);
}
