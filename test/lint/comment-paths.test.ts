// The comment-path check (scripts/lint/comment-paths.mjs) on small repositories made here: it
// must name a moved file, a shared note a clone lacks and a path under our folders, and leave
// alone files that exist, other projects' files a comment cites, and generated output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../integration/support/paths.js';

const SCRIPT = join(ROOT, 'scripts', 'lint', 'comment-paths.mjs');
const made: string[] = [];
after(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

function repository(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'comment-paths-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const git = spawnSync('git', ['init', '-q'], { cwd: dir });
  assert.equal(git.status, 0, String(git.stderr));
  return dir;
}

function check(dir: string): { code: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { code: r.status, lines: r.stdout.split('\n').filter((l) => l.includes(': the comment names ')) };
}

describe('lint: every file a comment names exists', () => {
  it('passes a repository whose comments name files that are there, by path, by folder and by name', () => {
    const dir = repository({
      'structs/wire/decoder.ts': '// Reads what encoder.ts writes (structs/wire/encoder.ts; see wire/encoder.js).\nexport {};\n',
      'structs/wire/encoder.ts': 'export {};\n',
      'native-profiler/core/a.cpp': '// The layout of the runtime\'s src/coreclr/inc/corhdr.h and of <windows.h>.\n',
      'electron/preload.ts': '// Bundled to dist/electron/preload.cjs.\nexport {};\n',
    });
    const r = check(dir);
    assert.deepEqual(r.lines, []);
    assert.equal(r.code, 0);
  });

  it('names each stale name with its file and line, and fails', () => {
    const dir = repository({
      'electron/services/recording/live-session.ts': 'export {};\n',
      'electron/services/recording/fallback.ts': '// Started by session/live-session.ts\n// (electron/services/session/profiler-env.ts), see FACTS.md.\nexport {};\n',
      'native-profiler/core/b.cpp': '/* The old\n   helper in old_helper.cpp */\n',
      'README.md': 'The engine is `electron/services/engine.ts`.\n',
    });
    const r = check(dir);
    assert.equal(r.code, 1);
    assert.deepEqual(r.lines.sort(), [
      'README.md:1: the comment names electron/services/engine.ts, which is not in the repository',
      'electron/services/recording/fallback.ts:1: the comment names session/live-session.ts, which is not in the repository',
      'electron/services/recording/fallback.ts:2: the comment names FACTS.md, which is not in the repository',
      'electron/services/recording/fallback.ts:2: the comment names electron/services/session/profiler-env.ts, which is not in the repository',
      'native-profiler/core/b.cpp:1: the comment names old_helper.cpp, which is not in the repository',
    ]);
  });
});
