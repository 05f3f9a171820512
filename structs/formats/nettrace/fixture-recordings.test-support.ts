// Recordings the nettrace tests share: small, hand-checked, built through the wire encoder.

import { recordingFromStream } from '../../profile/recording-from-stream.js';
import type { Recording } from '../../profile/recording.js';
import { WireEncoder } from '../../wire/encoder.js';
import { FunctionKind, SampleFlags, SuspensionFlags } from '../../wire/records.js';

/**
 * fixtures/small.nettrace.hex is this recording written out: thread 4243 'main', functions
 * Demo.Work.Hot (Demo.dll) and start_thread (libc.so.6), a CPU sample and a wall-only sample of
 * the stack start_thread → Hot, and between them an induced gen0 GC pause of 300 ns (100 ns to
 * stop the threads).
 */
export function smallRecording(): Recording {
  const enc = new WireEncoder().preamble().hello({
    pid: 4242, flags: 3, mono: 1_000_000_000, unixNs: 1_700_000_000_000_250_000n, intervalNs: 10_000_000, wallThreadsPerTick: 64,
    runtimeVersion: '10.0.12', profilerVersion: '0.1.0',
  });
  enc.thread({ threadId: 1, osTid: 4243, clrThreadId: 0x7f00, mono: 1_000_000_100, name: 'main' });
  enc.function({ functionId: 1, kind: FunctionKind.Managed, name: 'Demo.Work.Hot', module: 'Demo.dll', file: '' });
  enc.function({ functionId: 2, kind: FunctionKind.Native, name: 'start_thread', module: 'libc.so.6', file: '' });
  enc.sample({ mono: 1_000_001_000, threadId: 1, flags: SampleFlags.Cpu | SampleFlags.Wall, cpuNs: 10_000_000, wallNs: 10_000_000, frames: [1, 2] });
  enc.suspension({ mono: 1_000_001_500, durationNs: 300, suspendNs: 100, reason: 1, generation: 0, flags: SuspensionFlags.Induced });
  enc.sample({ mono: 1_000_002_000, threadId: 1, flags: SampleFlags.Wall, cpuNs: 0, wallNs: 10_000_000, frames: [1, 2] });
  enc.end({ mono: 1_000_003_000, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}

/** `count` samples over 3 threads and 40 stacks, some out of time order, with GC pauses. */
export function busyRecording(count: number, options: { depth?: number; shuffled?: boolean } = {}): Recording {
  const depth = options.depth ?? 6;
  const enc = new WireEncoder(1 << 16).preamble().hello({
    pid: 77, flags: 3, mono: 5_000_000_000, unixNs: 1_750_000_000_123_456_789n, intervalNs: 1_000_000, wallThreadsPerTick: 8,
    runtimeVersion: '10.0.12', profilerVersion: 'test',
  });
  for (let t = 1; t <= 3; t++) enc.thread({ threadId: t, osTid: 500 + t, clrThreadId: t, mono: 5_000_000_000 + t, name: t === 2 ? '' : `worker-${t}` });
  for (let f = 1; f <= 30; f++) {
    const native = f % 7 === 0;
    enc.function({ functionId: f, kind: native ? FunctionKind.Native : FunctionKind.Managed, name: native ? `native_${f}` : `App.Type${f % 5}.Method${f}`, module: native ? 'libcoreclr.so' : 'App.dll', file: '' });
  }
  for (let i = 0; i < count; i++) {
    const s = i % 40;
    const frames = Array.from({ length: depth + (s % 3) }, (_, k) => 1 + ((s * 7 + k * 3) % 30));
    // Every 10th sample is stamped a little earlier than the one before it.
    const jitter = options.shuffled === true && i % 10 === 9 ? -1500 : 0;
    const flags = (i % 3 === 0 ? SampleFlags.Wall : SampleFlags.Cpu | SampleFlags.Wall) | (s === 39 ? SampleFlags.Incomplete : 0);
    enc.sample({ mono: 5_000_010_000 + i * 1000 + jitter, threadId: 1 + (i % 3), flags, cpuNs: flags & SampleFlags.Cpu ? 900_000 : 0, wallNs: 1_000_000, frames });
    if (i % 500 === 250) enc.suspension({ mono: 5_000_010_000 + i * 1000 + 100, durationNs: 700, suspendNs: 200, reason: 1, generation: (i / 500) % 3 | 0, flags: 0 });
  }
  enc.end({ mono: 5_000_010_000 + count * 1000, reason: 0 });
  return recordingFromStream([enc.bytes()]);
}
