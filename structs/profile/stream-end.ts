// How a stream ended, in words, where the END record says more than "cut" or "stopped": one
// sentence for the CLI's summary, the workstation's session message and a dump alike.

import { DescriptorLoss, EndReason, type EndRecord } from '../wire/records.js';

/**
 * For an END of reason ConnectionLost (the program closed the descriptor of clrscope's
 * connection, or put a file of its own at its number): says so, with the number; undefined for
 * any other END.
 */
export function connectionLostSentence(end: EndRecord | undefined): string | undefined {
  if (end?.reason !== EndReason.ConnectionLost) return undefined;
  const which = end.descriptor === undefined ? '' : ` (descriptor ${end.descriptor})`;
  const reused = end.descriptorLoss === DescriptorLoss.Replaced ? ' and reused its number' : '';
  return `The program closed clrscope's connection${which}${reused}: the recording ends there, and the program ran on without the profiler's stream.`;
}
