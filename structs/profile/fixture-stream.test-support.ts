// A small stream with hand-checked totals, shared by the tests of every view and exporter so
// they all describe the same profile (collapsed text, top methods, pprof through go tool).

import { WireEncoder } from '../wire/encoder.js';
import { FunctionKind, SampleFlags } from '../wire/records.js';

export const FIXTURE_UNIX_NS = 1_700_000_000_123_456_789n;
export const FIXTURE_START_MONO = 5_000_000_000;

/**
 * Threads: 1 'main' (tid 100), 2 unnamed (tid 200), 3 'main' again (tid 300).
 * Samples, frames written root first here for reading (the wire is leaf first):
 *   t1 cpu 10        Main;Work;Hot
 *   t1 cpu 20        Main;Work;Hot
 *   t2 wall 100      Main;Work;futex_wait            (native leaf)
 *   t3 cpu 5 wall 50 Main;Work;Hot
 *   t2 cpu 7         start_thread;<unnamed in libcoreclr.so>   (no managed frame)
 *   t1 cpu 4         Work;Recurse;Recurse            (incomplete)
 *   t2 wall 30       (no frames, incomplete)
 *   t1 cpu 1         Main;a;b                         (a name containing ';')
 * Totals: cpu 47 ns, wall 180 ns, 8 samples; last sample mono = start + 8000.
 */
export function fixtureStream(options: { end?: boolean } = {}): Uint8Array {
  const enc = fixtureEncoder();
  if (options.end !== false) enc.end({ mono: FIXTURE_START_MONO + 9000, reason: 0 });
  return enc.bytes().slice();
}

/** The encoder of fixtureStream() after its last sample, before END: to write more of the same stream (wire v2 codes what follows against what came before). */
export function fixtureEncoder(): WireEncoder {
  const enc = new WireEncoder().preamble().hello({
    pid: 4321, flags: 3, mono: FIXTURE_START_MONO, unixNs: FIXTURE_UNIX_NS, intervalNs: 10_000_000,
    wallThreadsPerTick: 16, runtimeVersion: '10.0.0', profilerVersion: '0.1.0',
  });
  const fns: [number, number, string, string, string][] = [
    [1, FunctionKind.Managed, 'App.Program.Main', 'App.dll', 'Program.cs'],
    [2, FunctionKind.Managed, 'App.Worker.Work', 'App.dll', 'Worker.cs'],
    [3, FunctionKind.Managed, 'App.Worker.Hot', 'App.dll', 'Worker.cs'],
    [4, FunctionKind.Native, 'futex_wait', 'libc.so.6', ''],
    [5, FunctionKind.Native, '', 'libcoreclr.so', ''],
    [6, FunctionKind.Managed, 'App.Worker.Recurse', 'App.dll', ''],
    [7, FunctionKind.Native, 'start_thread', 'libc.so.6', ''],
    [8, FunctionKind.Managed, 'a;b', 'Lib.dll', ''],
  ];
  for (const [functionId, kind, name, module, file] of fns) enc.function({ functionId, kind, name, module, file });
  enc.thread({ threadId: 1, osTid: 100, clrThreadId: 0xa1, mono: FIXTURE_START_MONO + 1, name: 'main' });
  enc.thread({ threadId: 2, osTid: 200, clrThreadId: 0xa2, mono: FIXTURE_START_MONO + 2, name: '' });
  enc.thread({ threadId: 3, osTid: 300, clrThreadId: 0xa3, mono: FIXTURE_START_MONO + 3, name: 'main' });
  const { Cpu, Wall, Incomplete } = SampleFlags;
  const samples: [number, number, number, number, number[]][] = [
    [1, Cpu, 10, 0, [3, 2, 1]],
    [1, Cpu, 20, 0, [3, 2, 1]],
    [2, Wall, 0, 100, [4, 2, 1]],
    [3, Cpu | Wall, 5, 50, [3, 2, 1]],
    [2, Cpu, 7, 0, [5, 7]],
    [1, Cpu | Incomplete, 4, 0, [6, 6, 2]],
    [2, Wall | Incomplete, 0, 30, []],
    [1, Cpu, 1, 0, [8, 1]],
  ];
  samples.forEach(([threadId, flags, cpuNs, wallNs, frames], i) => {
    enc.sample({ mono: FIXTURE_START_MONO + 1000 * (i + 1), threadId, flags, cpuNs, wallNs, frames });
  });
  return enc;
}
