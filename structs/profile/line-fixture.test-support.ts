// A small wire v2 recording whose frames carry IL offsets, and a lookup standing in for its
// PDB, for the source-line tests of structs and the exporters: Main (App.cs:3) calls Hot,
// which spends 30 ms of CPU on App.cs:12, 10 ms on App.cs:14 and 5 ms where no line is known;
// 2 ms are in libc under Main.

import { WireEncoder } from '../wire/encoder.js';
import { FunctionKind, ModuleKind, OffsetKind, SampleFlags } from '../wire/records.js';
import type { LineLookup } from './frame-lines.js';
import type { Recording } from './recording.js';
import { recordingFromStream } from './recording-from-stream.js';

export const LINE_FIXTURE_FILE = '/src/App/App.cs';

/** `more`: records to append (e.g. event samples on the fixture's stacks). */
export function lineFixture(more?: (enc: WireEncoder) => void): Recording {
  const enc = new WireEncoder().preamble()
    .hello({ pid: 7, flags: 1, mono: 1000, unixNs: 1_700_000_000_000_000_000n, intervalNs: 1_000_000, wallThreadsPerTick: 8, runtimeVersion: '10.0.1', profilerVersion: 'test' })
    .thread({ threadId: 1, osTid: 70, clrThreadId: 1, mono: 1000, name: 'main' })
    .module({ moduleId: 1, kind: ModuleKind.Managed, mvid: '11'.repeat(16), path: '/app/App.dll' })
    .module({ moduleId: 2, kind: ModuleKind.Native, mvid: '', path: '/lib/libc.so.6' })
    .function({ functionId: 1, kind: FunctionKind.Managed, name: 'App.Program.Main', module: '', moduleId: 1, token: 0x06000001, file: '' })
    .function({ functionId: 2, kind: FunctionKind.Managed, name: 'App.Program.Hot', module: '', moduleId: 1, token: 0x06000002, file: '' })
    .function({ functionId: 3, kind: FunctionKind.Native, name: 'write', module: '', moduleId: 2, token: 0, file: '' })
    .frame({ frameId: 1, functionId: 2, offsetKind: OffsetKind.IL, offset: 0x10 })
    .frame({ frameId: 2, functionId: 2, offsetKind: OffsetKind.IL, offset: 0x20 })
    .frame({ frameId: 3, functionId: 1, offsetKind: OffsetKind.IL, offset: 0x5 })
    .frame({ frameId: 4, functionId: 2, offsetKind: OffsetKind.IL, offset: 0x30 })
    .frame({ frameId: 5, functionId: 3, offsetKind: OffsetKind.None, offset: 0 })
    .stack(1, 0, [1, 3]).stack(2, 0, [2, 3]).stack(3, 0, [4, 3]).stack(4, 0, [5, 3]);
  const ms = 1_000_000;
  [[1, 30], [2, 10], [3, 5], [4, 2]].forEach(([stack, cpu], i) => enc.stackSample(2000 + i, 1, SampleFlags.Cpu, cpu * ms, 0, stack));
  more?.(enc);
  return recordingFromStream([enc.bytes()]);
}

/** The fixture's "PDB": IL 0x10 of Hot is line 12, 0x20 line 14, 0x30 has none; Main's 0x5 is line 3. */
export const lineFixtureLookup: LineLookup = (module, token, il) => {
  if (module.path !== '/app/App.dll') return null;
  const line = token === 0x06000002 ? ({ 0x10: 12, 0x20: 14 } as Record<number, number>)[il] : token === 0x06000001 && il === 5 ? 3 : undefined;
  return line === undefined ? null : { file: LINE_FIXTURE_FILE, line };
};
