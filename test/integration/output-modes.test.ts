// Every file clrscope writes is its owner's alone (0600), however it comes to be: a recording
// the spool became by a rename, one written fresh because the program was killed (a cut
// recording is not the spool moved), one copied to another file system (a rename cannot cross
// devices), the --pauses JSON, every `convert` format (the .etlx made by another program), and
// the workstation's exports. Before, only the renamed spool was 0600; the rest were 0644.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { PROFILER, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-modes-test-'));
const env = { XDG_CACHE_HOME: join(dir, 'cache') };
let mounted: string | undefined;
after(() => {
  if (mounted !== undefined) spawnSync('umount', [mounted]);
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** A folder on another file system than the spool's (a small tmpfs, else /dev/shm), or why there is none. */
function otherFileSystem(): { path: string } | { why: string } {
  const mount = join(dir, 'other-fs');
  mkdirSync(mount);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0755', 'tmpfs', mount], { encoding: 'utf8' });
  if (m.status === 0) {
    mounted = mount;
    return { path: mount };
  }
  if (existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(dir).dev) return { path: mkdtempSync('/dev/shm/clrscope-modes-test-') };
  return { why: `cannot mount a tmpfs (${m.stderr.trim()}) and /dev/shm is not another file system` };
}

describe('every file clrscope writes is 0600', () => {
  const other = otherFileSystem();
  after(() => {
    if ('path' in other && other.path.startsWith('/dev/shm/')) rmSync(other.path, { recursive: true, force: true });
  });

  it('a cut recording written fresh when the program was killed, and the --pauses JSON', async () => {
    const file = join(dir, 'cut.clrscope');
    const pauses = join(dir, 'cut-pauses.json');
    // The recorded program is killed from the script that launched it: its stream ends without an END.
    const script = `dotnet ${JSON.stringify(targetDll('Scenarios'))} cpu-ratio --seconds 8 & p=$!; sleep 2; kill -9 $p; wait $p; exit 0`;
    const r = await runCli(['record', '-o', file, '--pauses', pauses, '--', 'bash', '-c', script], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRecordingFile(file)).recording.cut, true);
    assert.equal(modeOf(file), '600');
    assert.equal(modeOf(pauses), '600');
  });

  it('outputs on another file system: a .clrscope copied there (rename cannot cross) and a pprof', async (t) => {
    if (!('path' in other)) {
      t.skip(other.why);
      return;
    }
    const copied = join(other.path, 'whole.clrscope');
    const r = await runCli(['record', '-o', copied, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '1'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(modeOf(copied), '600');
    const pprof = join(other.path, 'whole.pb.gz');
    const p = await runCli(['record', '-o', pprof, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.5'], { env });
    assert.equal(p.code, 0, p.stderr);
    assert.equal(modeOf(pprof), '600');
    assert.deepEqual(readdirSync(other.path).sort(), ['whole.clrscope', 'whole.pb.gz']);
  });

  it('convert in every format, and the workstation\'s exports', async () => {
    const source = join(dir, 'source.clrscope');
    const r = await runCli(['record', '-o', source, '--', 'dotnet', targetDll('Scenarios'), 'sleep', '--seconds', '0.5'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(modeOf(source), '600');
    for (const ext of ['pb.gz', 'speedscope.json', 'nettrace', 'clrscope', 'etlx']) {
      const out = join(dir, `converted.${ext}`);
      const c = await runCli(['convert', source, '-o', out]);
      // The .etlx converter is a .NET tool built by setup; without it convert says so and writes nothing.
      if (ext === 'etlx' && c.code !== 0 && /etlx converter/.test(c.stderr)) continue;
      assert.equal(c.code, 0, c.stderr);
      assert.equal(modeOf(out), '600', out);
    }
    const workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports') });
    try {
      const session = await workstation.openRecording({ path: source });
      for (const format of ['pprof', 'speedscope', 'nettrace', 'clrscope'] as const) {
        const exported = await workstation.exportRecording({ sessionId: session.id, format });
        assert.equal(modeOf(exported.path), '600', exported.path);
      }
    } finally {
      await workstation.shutdown();
    }
  });
});
