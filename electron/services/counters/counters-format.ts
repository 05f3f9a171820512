// How `clrscope counters` prints a snapshot: one JSON object per line mirroring the block, CSV
// rows, or a table like dotnet-counters'. The printers work on section values (section →
// camelCase field → number) so that counters read from System.Runtime's EventCounters, which
// fill only some fields (event-counters-values.ts), print the same way: a field that is absent
// is an empty CSV cell and a dash in the table.

import type { IpcBlockSnapshot } from '../../../structs/ipcblock/decode.js';
import { COUNTER_FIELDS, SECTIONS, type SectionKey } from '../../../structs/ipcblock/layout.js';

export type CountersFormat = 'table' | 'json' | 'csv';

/** Section → field → value, as CountersPoint.values holds them. */
export type CounterSections = Record<string, Record<string, number>>;

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

/** Every field of every section of a block snapshot. */
export function snapshotSections(snapshot: IpcBlockSnapshot): CounterSections {
  const sections: CounterSections = {};
  for (const s of SECTIONS) sections[s.key] = section(snapshot, s.key);
  return sections;
}

/** The JSON line: `timestamp`, `pid`, then one object per section with camelCase fields (every block section, then any others). */
export function countersRecordOf(sections: CounterSections, pid: number, timestamp: Date): Record<string, unknown> {
  const record: Record<string, unknown> = { timestamp: timestamp.toISOString(), pid };
  for (const s of SECTIONS) record[s.key] = sections[s.key] ?? {};
  for (const [key, values] of Object.entries(sections)) if (!(key in record)) record[key] = values;
  return record;
}

export function countersRecord(snapshot: IpcBlockSnapshot, pid: number, timestamp: Date): Record<string, unknown> {
  return countersRecordOf(snapshotSections(snapshot), pid, timestamp);
}

export function csvHeader(): string {
  return ['timestamp', 'pid', ...COUNTER_FIELDS.map((f) => `${f.section}.${f.name}`)].join(',');
}

/** One row under csvHeader(): the block's fields only, so the columns never change; absent fields are empty cells. */
export function csvRowOf(sections: CounterSections, pid: number, timestamp: Date): string {
  const cells: (string | number)[] = [timestamp.toISOString(), pid];
  for (const f of COUNTER_FIELDS) cells.push(sections[f.section]?.[f.name] ?? '');
  return cells.join(',');
}

function bytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

const MISSING = '–';

/** The readable table: the counters a .NET developer watches, grouped like dotnet-counters. */
export function countersTableOf(sections: CounterSections, pid: number, refreshMs: number, timestamp: Date, source = ''): string {
  const get = (s: string, f: string): number | undefined => sections[s]?.[f];
  const num = (s: string, f: string): string => {
    const v = get(s, f);
    return v === undefined ? MISSING : `${v}`;
  };
  const size = (s: string, f: string): string => {
    const v = get(s, f);
    return v === undefined ? MISSING : bytes(v);
  };
  const gcTime = get('gc', 'timeInGC');
  const gcBase = get('gc', 'timeInGCBase');
  const pctGc = gcTime === undefined || gcBase === undefined ? MISSING : (gcBase > 0 ? (100 * gcTime) / gcBase : 0).toFixed(2);
  const rows: [string, string][] = [
    ['GC collections gen0 / gen1 / gen2', `${num('gc', 'genCollections0')} / ${num('gc', 'genCollections1')} / ${num('gc', 'genCollections2')}`],
    ['Induced GCs', num('gc', 'inducedGCs')],
    ['% time in GC (last second)', pctGc],
    ['Heap size gen0 / gen1 / gen2', `${size('gc', 'genHeapSize0')} / ${size('gc', 'genHeapSize1')} / ${size('gc', 'genHeapSize2')}`],
    ['Large object heap', size('gc', 'lrgObjSize')],
    ['Promoted from gen0 / gen1', `${size('gc', 'promotedMem0')} / ${size('gc', 'promotedMem1')}`],
    ['Pinned objects / GC handles', `${num('gc', 'pinnedObj')} / ${num('gc', 'handles')}`],
    ['Exceptions thrown', num('exceptions', 'thrown')],
    ['Filters / finallys executed', `${num('exceptions', 'filtersExecuted')} / ${num('exceptions', 'finallysExecuted')}`],
    ['Methods jitted / IL bytes', `${num('jit', 'methodsJitted')} / ${num('jit', 'ilJittedTotal')}`],
    ['Threads logical / physical', `${num('locksAndThreads', 'currentThreadsLogical')} / ${num('locksAndThreads', 'currentThreadsPhysical')}`],
    ['Lock contentions', num('locksAndThreads', 'contention')],
    ['Classes / assemblies loaded', `${num('loading', 'classesLoadedTotal')} / ${num('loading', 'assembliesCurrent')}`],
  ];
  const runtime = sections.systemRuntime;
  if (runtime !== undefined) {
    const pool = (f: string): string => (runtime[f] === undefined ? MISSING : `${Math.round(runtime[f])}`);
    rows.push(['ThreadPool threads / queue length', `${pool('threadpoolThreadCount')} / ${pool('threadpoolQueueLength')}`]);
    if (runtime.cpuUsage !== undefined) rows.push(['CPU usage (%)', runtime.cpuUsage.toFixed(1)]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `clrscope counters: pid ${pid}, refresh ${refreshMs} ms, ${timestamp.toISOString()}${source === '' ? '' : `, ${source}`}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
  ].join('\n');
}
