// Runs every benchmark in turn, each in its own process so one's memory does not colour the
// next. By default with sizes that finish in about a quarter of an hour on a 2-core machine;
// `--full` uses each script's own defaults (the sizes RESULTS.md reports, including the
// 10M-sample dotnet-trace comparison, which alone needs ~20 GiB and ~15 minutes).
//   npm run build && npm run bench [-- --full] [-- --only overhead,formats]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const full = process.argv.includes('--full');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set(process.argv[onlyAt + 1]?.split(',')) : null;

const benches = [
  { name: 'ingest', quick: ['--samples', '1000000', '--runs', '3'] },
  { name: 'wire-size', quick: ['--seconds', '30'] },
  { name: 'counters-read', quick: ['--reads', '50000'] },
  { name: 'overhead', quick: ['--runs', '3'] },
  { name: 'wall-cost', quick: ['--rounds', '3'] },
  { name: 'renderer-bench', quick: ['--runs', '3'] },
  { name: 'analysis-bench', quick: ['--runs', '3'] },
  { name: 'latency', quick: ['--seconds', '10', '--targets', 'cpu-ratio'] },
  { name: 'formats', quick: ['--samples', '1000000', '--no-dotnet-trace'] },
  { name: 'measure-cost', quick: ['--runs', '3', '--seconds', '1', '--first', '3'] },
  { name: 'long-session', quick: ['--minutes', '10', '--runs', '3'] },
  { name: 'record-rss', quick: ['--seconds', '20'] },
  { name: 'merge-streams', quick: ['--samples', '1000000', '--runs', '3'] },
];

const failed = [];
for (const bench of benches) {
  if (only && !only.has(bench.name)) continue;
  const args = [join(here, `${bench.name}.mjs`), ...(full ? [] : bench.quick)];
  console.log(`\n=== ${bench.name}: node ${args.map((a) => a.replace(here + '/', '')).join(' ')}`);
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.status !== 0) failed.push(bench.name);
}
if (failed.length > 0) {
  console.error(`\nbench: ${failed.join(', ')} did not finish; see its output above.`);
  process.exit(1);
}
