// The stacks every output writes: pprof, speedscope and nettrace, whether `record` writes them
// straight, `convert` writes them from a file or the workstation exports them. A recording with
// async call stacks is written with its logical stacks (AsyncSource: the awaiting methods as
// `[await]` frames above the running continuation, suspended operations' whole chains), so no
// output has them while another lacks them. Each writer takes its stacks from here.
//
// The splice is per sample (a sample's chain is its own), so samples summed per physical stack
// cannot be spliced afterwards: whoever sums before writing (a long run's read-back, a pprof
// conversion) asks sumsLoseStacks first and reads every sample when it says so.

import { REQUESTS } from '../wire/timeline/requests.js';
import type { Recording } from '../profile/recording.js';
import { AsyncSource } from './async-source.js';

/** The logical stacks to write in place of the physical ones, or undefined when the recording has none (or `asyncStacks` is false). */
export function logicalStacks(rec: Recording, asyncStacks = true): AsyncSource | undefined {
  return asyncStacks && rec.asyncChainCount > 0 ? new AsyncSource(rec) : undefined;
}

/**
 * Whether summing the recording's samples per physical stack before writing would lose what
 * each sample carries: its logical stack, or the HTTP request it was taken in (the pprof labels
 * of structs/analysis/requests.ts). Asked of a model that keeps no samples (a live session's),
 * whose chains are only marked on samples it keeps, so the HELLO flag counts too.
 */
export function sumsLoseStacks(rec: Recording): boolean {
  return rec.hasAsync || rec.timeline(REQUESTS).length > 0;
}
