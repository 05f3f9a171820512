// Which TraceEvent (and so PerfView: a PerfView release ships the TraceEvent of its own version)
// opens clrscope's .etlx export. TraceLog's format is checked both ways: a reader refuses a file
// of a newer format and a file of an older one, so a .etlx opens only in the releases of the
// format it was written in. A real dotnet-trace recording (the nettrace fixture) is exported with
// `clrscope convert`, then opened by test/tools/EtlxOpen built against each TraceEvent version the
// NuGet feed serves; the export's description must say what the test finds.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { etlxAbout } from '../../structs/formats/etlx/about.js';
import { ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-etlx-versions-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TOOL = join(ROOT, 'test', 'tools', 'EtlxOpen');
/** Every Microsoft.Diagnostics.Tracing.TraceEvent version the feed serves, and whether it opens the export. */
const VERSIONS: { version: string; opens: boolean }[] = [
  { version: '2.0.56', opens: false },
  { version: '3.1.21', opens: false },
  { version: '3.2.5', opens: false },
  { version: '3.2.6', opens: true },
  { version: '3.2.8', opens: true },
  { version: '4.0.0', opens: true },
];

interface Opened { traceEvent: string; opened: boolean; events?: number; error?: string }

function opener(version: string): string {
  const out = join(TOOL, 'bin', version);
  const dll = join(out, 'EtlxOpen.dll');
  if (existsSync(dll)) return dll;
  // Each version restores into its own obj folder, so builds of two versions never share assets.
  const r = spawnSync('dotnet', ['build', join(TOOL, 'EtlxOpen.csproj'), '-c', 'Release', '-nologo', '-v', 'q', `-p:TraceEventVersion=${version}`,
    `-p:BaseIntermediateOutputPath=${join(TOOL, 'obj', version)}/`, '-o', out], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `building EtlxOpen against TraceEvent ${version} failed: ${r.stdout}${r.stderr}`);
  return dll;
}

describe('the .etlx export across TraceEvent versions', () => {
  it('opens in TraceEvent 3.2.6 and later, is refused by older ones, and says so', async (t) => {
    const nettrace = join(dir, 'dotnet-trace.nettrace');
    writeFileSync(nettrace, gunzipSync(readFileSync(join(ROOT, 'structs', 'formats', 'nettrace', 'fixtures', 'dotnet-trace-cpu-ratio.nettrace.gz'))));
    const etlx = join(dir, 'export.etlx');
    const conv = await runCli(['convert', nettrace, '-o', etlx], { timeoutMs: 180_000 });
    assert.equal(conv.code, 0, conv.stderr);
    const results = new Map<string, Opened>();
    for (const { version } of VERSIONS) {
      const r = spawnSync('dotnet', [opener(version), etlx], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stderr);
      results.set(version, JSON.parse(r.stdout) as Opened);
    }
    t.diagnostic(JSON.stringify(Object.fromEntries(results)));
    const events = results.get('4.0.0')?.events ?? 0;
    assert.ok(events > 100, `${events} events`);
    for (const { version, opens } of VERSIONS) {
      const got = results.get(version) as Opened;
      assert.equal(got.traceEvent.startsWith(version), true, `${got.traceEvent} built for ${version}`);
      if (opens) assert.deepEqual([got.opened, got.events], [true, events], `TraceEvent ${version}: ${got.error ?? ''}`);
      else assert.match(got.error ?? 'opened', /File format accepts apps >= 78/, `TraceEvent ${version}`);
    }
    // What the export view and `convert --help` tell a user.
    assert.match(etlxAbout.note, /3\.2\.6 or later/);
    assert.match(etlxAbout.note, /not in 3\.2\.5 or older/);
  });
});
