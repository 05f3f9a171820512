// dotnet-counters, the runtime team's own counters reader, as the peer clrscope's counters are
// checked against (found by support/diagnostics-tool.ts).

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { diagnosticsTool } from './diagnostics-tool.js';

/** dotnet-counters from CLRSCOPE_DOTNET_COUNTERS, PATH, or installed as a .NET tool under test/tools/.dotnet-counters. */
export function dotnetCounters(): { path?: string; why?: string } {
  return diagnosticsTool('dotnet-counters', 'CLRSCOPE_DOTNET_COUNTERS');
}

/** One value dotnet-counters wrote: `name` as it prints it, e.g. "dotnet.gc.heap.total_allocated (By / 1 sec)". */
export interface PeerCounter {
  timeMs: number;
  provider: string;
  name: string;
  tags: string;
  value: number;
}

/**
 * Runs `dotnet-counters collect --format json` on `pid` for `seconds` (1 s refresh) and returns
 * what it wrote. `counters` as its --counters option ("System.Runtime": the .NET 9+ meter;
 * "EventCounters\\System.Runtime": the EventCounters).
 */
export function collectCounters(tool: string, pid: number, seconds: number, counters: string, file: string): Promise<PeerCounter[]> {
  return new Promise((resolve, reject) => {
    const duration = `00:00:00:${String(seconds).padStart(2, '0')}`;
    const child = spawn(tool, ['collect', '-p', String(pid), '--format', 'json', '-o', file, '--refresh-interval', '1', '--duration', duration, '--counters', counters],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !existsSync(file)) {
        reject(new Error(`dotnet-counters collect exited ${code}: ${err.trim()}`));
        return;
      }
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { Events: { timestamp: string; provider: string; name: string; tags: string; value: number }[] };
      resolve(doc.Events.map((e) => ({ timeMs: Date.parse(e.timestamp), provider: e.provider, name: e.name, tags: e.tags, value: e.value })));
    });
  });
}
