// The profiler's cost per sample for encoding and sending, in the target: encode-cost/
// encode_cost.cpp drives WireWriter::sample() as the sampler thread does, 64 threads per tick,
// stacks of depth 25, and each tick writes the bytes to a Unix socket another thread drains, as
// the outbox does; timed by the sampling thread's CPU clock (the kernel's copying included).
// Two mixes: 5,000 stacks with skewed popularity (each sample picks one: the worst case for a
// stack table, which is hashed and compared every time), and one stack for every thread
// (threads blocked on one lock). Also encoding alone, without the socket. It is compiled twice,
// against this tree's core/wire_writer.cpp (wire v2: interning, varints) and against the one of
// an older commit (by default the last before wire v2), and both builds run interleaved.
// Everything else the sampler thread does per sample (symbolizing, the outbox) is the same code
// either way, apart from the bytes handed to the socket. Needs g++ and git.
//   node scripts/bench/encode-cost.mjs [--baseline 5e31863] [--runs 7] [--samples 2000000]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { baseline: { type: 'string', default: '5e31863' }, runs: { type: 'string', default: '7' }, samples: { type: 'string', default: '2000000' } } });
const scratch = mkdtempSync(join(tmpdir(), 'clrscope-encode-'));
try {
  // The baseline's sources, as they were at that commit.
  execFileSync('bash', ['-c', `git -C "${root}" archive "${values.baseline}" native-profiler/core | tar -x -C "${scratch}"`]);
  const driver = join(root, 'scripts/bench/encode-cost/encode_cost.cpp');
  const build = (tree, out) => {
    const core = join(tree, 'native-profiler/core');
    const sources = ['wire_writer.cpp', 'stack_table.cpp'].map((f) => join(core, f)).filter((f) => existsSync(f));
    const v1 = !readFileSync(join(core, 'wire_writer.h'), 'utf8').includes('close_batch');
    execFileSync('g++', ['-O2', '-std=c++17', '-pthread', '-fno-omit-frame-pointer', ...(v1 ? ['-DCLRSCOPE_V1_WRITER'] : []), '-I', join(tree, 'native-profiler'), driver, ...sources, '-o', out], { stdio: 'inherit' });
    return out;
  };
  const builds = { 'this tree': build(root, join(scratch, 'now')), [`baseline ${values.baseline}`]: build(scratch, join(scratch, 'base')) };
  const report = [];
  for (const [stacks, send] of [[5000, 1], [1, 1], [5000, 0], [1, 0]]) {
    const results = new Map(Object.keys(builds).map((k) => [k, []]));
    const bytes = {};
    for (let run = 0; run < Number(values.runs); run++) {
      for (const [name, exe] of Object.entries(run % 2 === 0 ? builds : Object.fromEntries(Object.entries(builds).reverse()))) {
        const r = spawnSync(exe, [values.samples, String(stacks), '25', String(send)], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
        const res = JSON.parse(r.stdout);
        results.get(name).push(res.nsPerSample);
        bytes[name] = res.bytesPerSample;
      }
    }
    // The least of the runs: on a shared machine other processes only ever add to a run's CPU
    // time (cache and memory-bus interference), so the minimum is the code's own cost.
    const min = (xs) => Math.min(...xs);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [now, base] = [...results.keys()];
    console.log(`${send ? 'encode and send' : 'encode only'}: WireWriter::sample(), ${values.samples} samples over ${stacks} stack${stacks === 1 ? '' : 's'} of depth 25, ${values.runs} interleaved runs`);
    for (const [name, xs] of results) console.log(`  ${name.padEnd(20)} ${min(xs).toFixed(1).padStart(7)} ns of CPU a sample (least), ${median(xs).toFixed(1)} (median), ${bytes[name].toFixed(1)} bytes a sample   (runs: ${xs.map((x) => x.toFixed(0)).join(' ')})`);
    const ratio = min(results.get(now)) / min(results.get(base));
    console.log(`  ratio this tree / baseline (least): ${ratio.toFixed(2)}`);
    report.push({ stacks, send: send === 1, nsPerSample: min(results.get(now)), baselineNsPerSample: min(results.get(base)), medianNsPerSample: median(results.get(now)), baselineMedianNsPerSample: median(results.get(base)), ratio: Number(ratio.toFixed(3)), bytesPerSample: bytes[now], baselineBytesPerSample: bytes[base] });
  }
  console.log(JSON.stringify({ bench: 'encode-cost', baseline: values.baseline, samples: Number(values.samples), report }));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
