// How `clrscope counters` prints a snapshot: one JSON object per line mirroring the block, CSV
// rows, or a table like dotnet-counters'.

import type { IpcBlockSnapshot } from '../../../structs/ipcblock/decode.js';
import { COUNTER_FIELDS, SECTIONS, type SectionKey } from '../../../structs/ipcblock/layout.js';

export type CountersFormat = 'table' | 'json' | 'csv';

type SectionValues = Record<string, number>;

function section(snapshot: IpcBlockSnapshot, key: SectionKey): SectionValues {
  const values: SectionValues = {};
  const src = snapshot[key] as unknown as Record<string, number | bigint>;
  for (const field of COUNTER_FIELDS) {
    if (field.section !== key) continue;
    const v = src[field.name];
    // The two 64-bit time fields are bigints in the snapshot; JSON has numbers (they stay far below 2^53).
    values[field.name] = typeof v === 'bigint' ? Number(v) : v;
  }
  return values;
}

/** The JSON line: `timestamp`, `pid`, then one object per section with camelCase fields. */
export function countersRecord(snapshot: IpcBlockSnapshot, pid: number, timestamp: Date): Record<string, unknown> {
  const record: Record<string, unknown> = { timestamp: timestamp.toISOString(), pid };
  for (const s of SECTIONS) record[s.key] = section(snapshot, s.key);
  return record;
}

export function csvHeader(): string {
  return ['timestamp', 'pid', ...COUNTER_FIELDS.map((f) => `${f.section}.${f.name}`)].join(',');
}

export function csvRow(snapshot: IpcBlockSnapshot, pid: number, timestamp: Date): string {
  const cells: (string | number)[] = [timestamp.toISOString(), pid];
  const bySection = new Map<SectionKey, SectionValues>();
  for (const s of SECTIONS) bySection.set(s.key, section(snapshot, s.key));
  for (const f of COUNTER_FIELDS) cells.push(bySection.get(f.section)?.[f.name] ?? '');
  return cells.join(',');
}

/** % time in GC over the writer's last window, from the perf counter's ratio fields. */
export function percentTimeInGc(snapshot: IpcBlockSnapshot): number {
  return snapshot.gc.timeInGCBase > 0 ? (100 * snapshot.gc.timeInGC) / snapshot.gc.timeInGCBase : 0;
}

function bytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

/** The readable table: the counters a .NET developer watches, grouped like dotnet-counters. */
export function countersTable(snapshot: IpcBlockSnapshot, pid: number, refreshMs: number, timestamp: Date): string {
  const g = snapshot.gc;
  const rows: [string, string][] = [
    ['GC collections gen0 / gen1 / gen2', `${g.genCollections0} / ${g.genCollections1} / ${g.genCollections2}`],
    ['Induced GCs', `${g.inducedGCs}`],
    ['% time in GC (last second)', `${percentTimeInGc(snapshot).toFixed(2)}`],
    ['Heap size gen0 / gen1 / gen2', `${bytes(g.genHeapSize0)} / ${bytes(g.genHeapSize1)} / ${bytes(g.genHeapSize2)}`],
    ['Large object heap', bytes(g.lrgObjSize)],
    ['Promoted from gen0 / gen1', `${bytes(g.promotedMem0)} / ${bytes(g.promotedMem1)}`],
    ['Pinned objects / GC handles', `${g.pinnedObj} / ${g.handles}`],
    ['Exceptions thrown', `${snapshot.exceptions.thrown}`],
    ['Filters / finallys executed', `${snapshot.exceptions.filtersExecuted} / ${snapshot.exceptions.finallysExecuted}`],
    ['Methods jitted / IL bytes', `${snapshot.jit.methodsJitted} / ${snapshot.jit.ilJittedTotal}`],
    ['Threads logical / physical', `${snapshot.locksAndThreads.currentThreadsLogical} / ${snapshot.locksAndThreads.currentThreadsPhysical}`],
    ['Lock contentions', `${snapshot.locksAndThreads.contention}`],
    ['Classes / assemblies loaded', `${snapshot.loading.classesLoadedTotal} / ${snapshot.loading.assembliesCurrent}`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `clrscope counters: pid ${pid}, refresh ${refreshMs} ms, ${timestamp.toISOString()}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
  ].join('\n');
}
