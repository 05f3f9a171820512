// How `clrscope counters` prints a snapshot: one JSON object per line mirroring the block, CSV
// rows, or a table like dotnet-counters'. The printers work on section values (section →
// camelCase field → number) so that counters read from System.Runtime's EventCounters, which
// fill only some fields (event-counters-values.ts), print the same way: a field that is absent
// is an empty CSV cell and a dash in the table.

import type { IpcBlockSnapshot } from '../../../structs/ipcblock/decode.js';
import { EXTRAS_FIELDS } from '../../../structs/ipcblock/extras.js';
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

/** The section holding clrscope's own figures (structs/ipcblock/extras.ts): only the fields that have arrived. */
export const EXTRAS_SECTION = 'extras';

/** Every field of every section of a block snapshot, and its extras when it has them. */
export function snapshotSections(snapshot: IpcBlockSnapshot): CounterSections {
  const sections: CounterSections = {};
  for (const s of SECTIONS) sections[s.key] = section(snapshot, s.key);
  if (snapshot.extras !== undefined) sections[EXTRAS_SECTION] = { ...snapshot.extras };
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
  return ['timestamp', 'pid', ...COUNTER_FIELDS.map((f) => `${f.section}.${f.name}`), ...EXTRAS_FIELDS.map(([name]) => `${EXTRAS_SECTION}.${name}`)].join(',');
}

/** One row under csvHeader(): the block's fields and the extras, so the columns never change; absent fields are empty cells. */
export function csvRowOf(sections: CounterSections, pid: number, timestamp: Date): string {
  const cells: (string | number)[] = [timestamp.toISOString(), pid];
  for (const f of COUNTER_FIELDS) cells.push(sections[f.section]?.[f.name] ?? '');
  for (const [name] of EXTRAS_FIELDS) cells.push(sections[EXTRAS_SECTION]?.[name] ?? '');
  return cells.join(',');
}

function bytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

const MISSING = '–';

/**
 * The GC handle count as the runtime's GCHeapStats gives it: a running count it resyncs only at
 * gen-2 GCs, which can read below zero in between. Such a value is no count: hidden, saying why.
 */
function handles(sections: CounterSections): string {
  const signed = sections[EXTRAS_SECTION]?.gcHandles;
  if (signed !== undefined && signed < 0) return `${MISSING} (the runtime's count reads ${signed} until its next gen-2 GC)`;
  const v = signed ?? sections.gc?.handles;
  return v === undefined ? MISSING : `${v}`;
}

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
  const extra = (f: string, show: (v: number) => string): string => {
    const v = get(EXTRAS_SECTION, f);
    return v === undefined ? MISSING : show(v);
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
    ['Pinned objects / GC handles', `${num('gc', 'pinnedObj')} / ${handles(sections)}`],
    ['Allocation rate', extra('allocBytesPerSec', (v) => `${bytes(Math.round(v))}/s`)],
    ['GC committed', extra('gcCommittedBytes', (v) => bytes(Math.round(v)))],
    ['Exceptions thrown', num('exceptions', 'thrown')],
    ['Filters / finallys executed', `${num('exceptions', 'filtersExecuted')} / ${num('exceptions', 'finallysExecuted')}`],
    ['Methods jitted / IL bytes', `${num('jit', 'methodsJitted')} / ${num('jit', 'ilJittedTotal')}`],
    ['Threads logical / physical', `${num('locksAndThreads', 'currentThreadsLogical')} / ${num('locksAndThreads', 'currentThreadsPhysical')}`],
    ['Lock contentions', num('locksAndThreads', 'contention')],
    ['Classes / assemblies loaded', `${num('loading', 'classesLoadedTotal')} / ${num('loading', 'assembliesCurrent')}`],
    ['Thread pool threads / queue length', `${extra('threadPoolThreads', (v) => `${Math.round(v)}`)} / ${extra('threadPoolQueueLength', (v) => `${Math.round(v)}`)}`],
    ['Thread pool completed items (/s, total)', `${extra('threadPoolCompletedPerSec', (v) => `${Math.round(v)}`)} / ${extra('threadPoolCompleted', (v) => `${v}`)}`],
    ['Working set', extra('workingSetBytes', (v) => bytes(Math.round(v)))],
    ['CPU usage (% of all cores)', extra('cpuPercent', (v) => v.toFixed(1))],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `clrscope counters: pid ${pid}, refresh ${refreshMs} ms, ${timestamp.toISOString()}${source === '' ? '' : `, ${source}`}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
  ].join('\n');
}
