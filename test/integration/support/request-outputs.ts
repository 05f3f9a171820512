// What the tests of HTTP requests read of a recording made with --requests: `report --requests
// --format json`'s rows by endpoint, and the recording converted to pprof for `go tool pprof`.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from './run-cli.js';

export interface EndpointRow { endpoint: string; count: number; p50Ms: number; p90Ms: number; p99Ms: number; maxMs: number; cpuMs: number; errors: number }

export async function requestOutputs(dir: string, file: string): Promise<{ rows: Map<string, EndpointRow>; pprof: string }> {
  const report = await runCli(['report', file, '--requests', '--format', 'json']);
  assert.equal(report.code, 0, report.stderr);
  const rows = new Map((JSON.parse(report.stdout) as { requests: EndpointRow[] }).requests.map((r) => [r.endpoint, r]));
  const pprof = join(dir, 'web.pb.gz');
  const convert = await runCli(['convert', file, '-o', pprof]);
  assert.equal(convert.code, 0, convert.stderr);
  return { rows, pprof };
}
