// For tests of live sessions without a runtime: a profiler stream in two parts and a small Node
// program that plays it into the workstation's socket as a profiled process would, the second
// part only once a file appears, so a test can look at a session between the two.

import { fixtureEncoder } from '../../../structs/profile/fixture-stream.test-support.js';
import { SampleFlags } from '../../../structs/wire/records.js';

export interface TwoPartStream {
  /** Everything up to END, then END: the stream as the session ends up with it. */
  all: Uint8Array;
  first: Uint8Array;
  second: Uint8Array;
}

/** The fixture's stream and `samples` more on one stack; `wall` adds wall time and varies the CPU. */
export function twoPartStream(samples: number, options: { wall: boolean }): TwoPartStream {
  const enc = fixtureEncoder();
  enc.stack(100, 0, [3, 2, 1]);
  for (let i = 0; i < samples; i++) {
    const mono = 6_000_000_000 + i * 10_000;
    if (options.wall) enc.stackSample(mono, 1 + (i % 3), SampleFlags.Cpu | SampleFlags.Wall, 10_000 + (i % 7), 10_000, 100);
    else enc.stackSample(mono, 1 + (i % 3), SampleFlags.Cpu, 10_000, 0, 100);
  }
  const first = enc.bytes().slice();
  enc.end({ mono: 6_000_000_000 + samples * 10_000, reason: 0 });
  const all = enc.bytes().slice();
  return { all, first, second: all.subarray(first.length) };
}

/** Arguments: FIRST SECOND GO (three paths). Sends FIRST, waits for GO to exist, sends SECOND and ends. */
export const STREAM_PLAYER_PROGRAM = `
import { connect } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
const [first, second, go] = process.argv.slice(2);
const socket = connect(process.env.CLRSCOPE_SOCKET, () => {
  socket.write(readFileSync(first));
  const timer = setInterval(() => {
    if (!existsSync(go)) return;
    clearInterval(timer);
    socket.end(readFileSync(second));
  }, 20);
});
socket.on('close', () => process.exit(0));
`;
