// Process-tree benchmark (issue 11): `dotnet build` of a generated 5-project solution and
// `dotnet test` of an xunit project, each recorded with `clrscope record --children`, the cases
// people try first. Reported, from one run:
//   - the build's and the tests' wall time plain and recorded (ratio), each with a fresh build
//     server so both pay the same start-up;
//   - per recorded process: its command, samples, CPU seconds and hottest managed methods; the
//     checks: the compiler's methods (Microsoft.CodeAnalysis.*) are in the build's file, and the
//     test's own hot method (BenchTests.Work.Primes) under the test host in the tests' file;
//   - which processes are still running afterwards with clrscope's profiler library mapped (read
//     from /proc/PID/maps, independently of what `record` says), before the script stops them.
// Needs `npm run build`, the built profiler, and the NuGet feed for xunit (restored before timing).
//   node scripts/bench/children-build.mjs [--classes 150] [--tests 24] [--keep DIR]
// Prints a readable report and, last, one JSON line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { values } = parseArgs({ options: { classes: { type: 'string', default: '150' }, tests: { type: 'string', default: '24' }, keep: { type: 'string' } } });
const CLASSES = Number(values.classes);
const TESTS = Number(values.tests);
if (!(CLASSES >= 1 && CLASSES <= 2000) || !(TESTS >= 1 && TESTS <= 500)) {
  console.error('children-build: --classes takes 1..2000 and --tests 1..500.');
  process.exit(2);
}
const cli = join(root, 'electron', 'cli', 'clrscope.js');
if (!existsSync(join(root, 'dist', 'electron', 'cli', 'main.js'))) {
  console.error('dist/ is missing; run npm run build first.');
  process.exit(2);
}
const { readRecordingFile } = await import(dist('electron/services/export/recording-file.js'));
const { profilerLibraryPath } = await import(dist('electron/services/session/profiler-env.js'));
const { FunctionKind, SampleFlags } = await import(dist('structs/wire/records.js'));
const library = profilerLibraryPath();
if (!existsSync(library)) {
  console.error(`the profiler library is not built (${library}); run bash scripts/setup.sh first.`);
  process.exit(2);
}

const work = values.keep ?? mkdtempSync(join(tmpdir(), 'clrscope-children-bench-'));
mkdirSync(work, { recursive: true });
const sln = join(work, 'src');

// ---- the solution: Core <- Data <- Services <- Api <- App, and Tests -> Core ----
const PROJECTS = ['Core', 'Data', 'Services', 'Api', 'App'];
function generatedClasses(project) {
  // Enough generic, LINQ and pattern code per class that Roslyn's binder and emitter show up.
  let text = `namespace Bench.${project};\nusing System.Linq;\nusing System.Collections.Generic;\n`;
  for (let c = 0; c < CLASSES; c++) {
    text += `public sealed record Item${c}(int Id, string Name, double Weight)
{
    public static IEnumerable<Item${c}> Make(int n) => Enumerable.Range(0, n).Select(i => new Item${c}(i, $"item{i}", i * 1.5));
    public string Describe() => this switch { { Id: 0 } => "zero", { Weight: > 10 } => $"heavy {Name}", _ => Name };
    public static Dictionary<string, List<T>> Group<T>(IEnumerable<T> xs, System.Func<T, string> key) where T : notnull =>
        xs.GroupBy(key).ToDictionary(g => g.Key, g => g.OrderBy(x => x.GetHashCode()).ToList());
}
`;
  }
  return text;
}
function writeProject(name, kind, refs, extra = '') {
  const dir = join(sln, name);
  mkdirSync(dir, { recursive: true });
  const refItems = refs.map((r) => `    <ProjectReference Include="../${r}/${r}.csproj" />`).join('\n');
  writeFileSync(join(dir, `${name}.csproj`), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
    <OutputType>${kind}</OutputType>
    <Nullable>enable</Nullable>
    <ImplicitUsings>enable</ImplicitUsings>
    <IsPackable>false</IsPackable>
  </PropertyGroup>
  <ItemGroup>
${refItems}
${extra}
  </ItemGroup>
</Project>
`);
  return dir;
}
if (!existsSync(join(sln, 'Bench.slnx'))) {
  mkdirSync(sln, { recursive: true });
  PROJECTS.forEach((p, i) => {
    const dir = writeProject(p, p === 'App' ? 'Exe' : 'Library', i === 0 ? [] : [PROJECTS[i - 1]]);
    writeFileSync(join(dir, 'Generated.cs'), generatedClasses(p));
    if (p === 'App') writeFileSync(join(dir, 'Program.cs'), 'System.Console.WriteLine(Bench.App.Item0.Make(3).Count());\n');
  });
  const tests = writeProject('Tests', 'Library', ['Core'], [
    '    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="18.11.0" />',
    '    <PackageReference Include="xunit" Version="2.9.3" />',
    '    <PackageReference Include="xunit.runner.visualstudio" Version="3.1.5" />',
  ].join('\n'));
  let facts = '';
  for (let t = 0; t < TESTS; t++) facts += `    [Fact] public void Primes${t}() => Assert.True(Work.Primes(${t} * 1000, 600_000) > 0);\n`;
  writeFileSync(join(tests, 'Tests.cs'), `namespace BenchTests;
using Xunit;
public static class Work
{
    // About 0.1-0.3 s of CPU per call: the test host's hot method.
    public static int Primes(int from, int count)
    {
        int found = 0;
        for (int n = from + 2; n < from + 2 + count; n++)
        {
            bool prime = true;
            for (int d = 2; (long)d * d <= n; d++) if (n % d == 0) { prime = false; break; }
            if (prime) found++;
        }
        return found;
    }
}
public class PrimeTests
{
${facts}}
`);
  const run = (args) => {
    const r = spawnSync('dotnet', args, { cwd: sln, encoding: 'utf8' });
    if (r.status !== 0) {
      console.error(`children-build: dotnet ${args.join(' ')} failed: ${(r.stdout + r.stderr).trim().split('\n').slice(-3).join(' ')}`);
      process.exit(1);
    }
  };
  run(['new', 'sln', '-n', 'Bench', '--format', 'slnx']);
  run(['sln', 'Bench.slnx', 'add', ...PROJECTS.map((p) => `${p}/${p}.csproj`), 'Tests/Tests.csproj']);
}
const restore = spawnSync('dotnet', ['restore', 'Bench.slnx'], { cwd: sln, encoding: 'utf8' });
if (restore.status !== 0) {
  console.error(`children-build: dotnet restore failed (is the NuGet feed reachable?): ${(restore.stdout + restore.stderr).trim().split('\n').slice(-3).join(' ')}`);
  process.exit(1);
}

// ---- runs ----
const shutdownServers = () => spawnSync('dotnet', ['build-server', 'shutdown'], { cwd: sln, encoding: 'utf8' });

/** Pids of this user's processes with clrscope's profiler library mapped. */
function withProfilerLoaded() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/maps`, 'utf8').includes(library)) {
        out.push({ pid: Number(name), command: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 160) });
      }
    } catch {
      // Gone, or not ours.
    }
  }
  return out;
}

function timed(cmd, args, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: sln, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  return { ms: performance.now() - t0, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function summarize(file) {
  const { recording: rec } = await readRecordingFile(file);
  const byPid = new Map();
  rec.forEachSample((_i, _mono, threadId, stackId, cpuNs, _wallNs, flags) => {
    const p = rec.processOf(threadId);
    const pid = p?.pid ?? rec.meta?.pid ?? 0;
    let s = byPid.get(pid);
    if (s === undefined) {
      s = { pid, command: p?.name ?? '', samples: 0, cpuNs: 0, self: new Map() };
      byPid.set(pid, s);
    }
    s.samples++;
    if ((flags & SampleFlags.Cpu) === 0) return;
    s.cpuNs += cpuNs;
    for (const f of rec.stackFrames(stackId)) {
      const fn = rec.functionInfo(f);
      if (fn === undefined || fn.kind !== FunctionKind.Managed) continue;
      s.self.set(fn.name, (s.self.get(fn.name) ?? 0) + cpuNs);
      break;
    }
  });
  return [...byPid.values()].sort((a, b) => b.cpuNs - a.cpuNs).map((s) => ({
    pid: s.pid,
    command: s.command.slice(0, 120),
    samples: s.samples,
    cpuSeconds: Number((s.cpuNs / 1e9).toFixed(2)),
    top: [...s.self].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, ns]) => ({ name, cpuSeconds: Number((ns / 1e9).toFixed(3)) })),
  }));
}

const report = { bench: 'children-build', classesPerProject: CLASSES, tests: TESTS, load: loadavg()[0] };
const cases = [
  { name: 'build', args: ['build', 'Bench.slnx', '--no-restore', '--no-incremental'], check: (ps) => ps.some((p) => p.top.some((t) => t.name.startsWith('Microsoft.CodeAnalysis.'))), want: "the compiler's methods (Microsoft.CodeAnalysis.*) among a process's hottest" },
  { name: 'test', args: ['test', 'Bench.slnx', '--no-restore', '--no-build'], check: (ps) => ps.some((p) => p.top[0]?.name === 'BenchTests.Work.Primes'), want: "BenchTests.Work.Primes the test host's hottest method" },
];
let failed = false;
for (const c of cases) {
  shutdownServers();
  const plain = timed('dotnet', c.args);
  if (plain.code !== 0) {
    console.error(`children-build: plain dotnet ${c.args.join(' ')} failed: ${plain.stdout.trim().split('\n').slice(-3).join(' ')}`);
    process.exit(1);
  }
  shutdownServers();
  const out = join(work, `${c.name}.clrscope`);
  rmSync(out, { force: true });
  const rec = timed(process.execPath, [cli, 'record', '--children', '-o', out, '--', 'dotnet', ...c.args]);
  const left = withProfilerLoaded();
  const processes = existsSync(out) ? await summarize(out) : [];
  const ok = rec.code === 0 && c.check(processes);
  failed ||= !ok;
  report[c.name] = { plainMs: Math.round(plain.ms), recordedMs: Math.round(rec.ms), ratio: Number((rec.ms / plain.ms).toFixed(3)), recordExit: rec.code, processes, leftRunning: left, check: { want: c.want, ok } };
  console.log(`\n== dotnet ${c.args.join(' ')} ==`);
  console.log(`plain ${(plain.ms / 1000).toFixed(1)} s, recorded with --children ${(rec.ms / 1000).toFixed(1)} s (×${(rec.ms / plain.ms).toFixed(3)}), record exit ${rec.code}`);
  for (const p of processes) {
    console.log(`  pid ${p.pid} ${p.command}: ${p.samples} samples, ${p.cpuSeconds} s CPU; hottest: ${p.top.map((t) => `${t.name} ${t.cpuSeconds}s`).join(', ')}`);
  }
  console.log(`  check (${c.want}): ${ok ? 'yes' : 'NO'}`);
  console.log(`  still running with the profiler loaded afterwards: ${left.length === 0 ? 'none' : left.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
  const tail = rec.stderr.trim().split('\n').filter((l) => l.includes('still running'));
  if (tail.length > 0) console.log(`  record said: ${tail.join(' ')}`);
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}
shutdownServers();
if (values.keep === undefined) rmSync(work, { recursive: true, force: true });
console.log(JSON.stringify(report));
process.exit(failed ? 1 : 0);
