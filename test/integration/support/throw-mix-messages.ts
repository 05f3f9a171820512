// The messages Scenarios' throw-mix gives its exceptions (test/targets/Scenarios/EventWork.cs), as
// the profiler reads them from System.Exception._message: ArgumentException always "clrscope
// test", KeyNotFoundException "key {i}" twice in each round i, TargetFault none. And the same
// tallied from a recording, so a test compares the two whole.

import { EventKind } from '../../../structs/wire/records.js';
import type { Recording } from '../../../structs/profile/recording.js';

export const TARGET_FAULT = 'Clrscope.Targets.Scenarios.TargetFault<System.Int32>';

/** Exception type → message (null: none) → count, for `rounds` rounds (--exceptions). */
export function throwMixMessages(rounds: number): Map<string, Map<string | null, number>> {
  const keys = new Map<string | null, number>();
  for (let i = 0; i < rounds; i++) keys.set(`key ${i}`, 2);
  return new Map([
    ['System.ArgumentException', new Map<string | null, number>([['clrscope test', 3 * rounds]])],
    ['System.Collections.Generic.KeyNotFoundException', keys],
    [TARGET_FAULT, new Map<string | null, number>([[null, rounds]])],
  ]);
}

/** The recording's exceptions with a stack, as type → message (null: none) → count. */
export function messagesOf(rec: Recording): Map<string, Map<string | null, number>> {
  const e = rec.events();
  const strings = rec.strings();
  const out = new Map<string, Map<string | null, number>>();
  for (let i = 0; i < e.kind.length; i++) {
    if (e.kind[i] !== EventKind.Exception || e.stackId[i] < 0) continue;
    const type = strings.get(e.labelId[i]) ?? '';
    const message = e.messageId[i] === 0 ? null : strings.get(e.messageId[i]) ?? '?';
    let byMessage = out.get(type);
    if (byMessage === undefined) out.set(type, (byMessage = new Map()));
    byMessage.set(message, (byMessage.get(message) ?? 0) + e.value1[i]);
  }
  return out;
}

/** A tally with null written as "" (how a nettrace's ExceptionMessage says none). */
export function withEmptyForNone(m: Map<string, Map<string | null, number>>): Map<string, Map<string, number>> {
  return new Map([...m].map(([type, byMessage]) => [type, new Map([...byMessage].map(([text, n]) => [text ?? '', n]))]));
}

/** TraceCheck's exceptionMessages as a tally. */
export function tallyOf(record: Record<string, Record<string, number>>): Map<string, Map<string, number>> {
  return new Map(Object.entries(record).map(([type, byMessage]) => [type, new Map(Object.entries(byMessage))]));
}
