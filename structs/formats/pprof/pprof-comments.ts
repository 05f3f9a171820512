// The comments clrscope's pprof export writes, in one place for the writer and the reader:
// pprof has no field for the profiler, the process or whether CPU was measured, and comments
// are the one place every pprof tool shows (`go tool pprof -raw` prints them).

import type { RecordingMeta } from '../../profile/recording.js';

/** The comment a profile whose CPU values are estimates carries (HELLO flag ApproximateCpu). */
export const APPROXIMATE_CPU_COMMENT = 'CPU time is approximate: sampled by the runtime\'s EventPipe sample profiler; a sample counts as CPU when its thread was in managed code.';

const OWN_PREFIX = 'clrscope ';

export function ownComment(meta: Pick<RecordingMeta, 'profilerVersion' | 'pid' | 'runtimeVersion' | 'attached'>): string {
  return `${OWN_PREFIX}${meta.profilerVersion}, pid ${meta.pid}, .NET runtime ${meta.runtimeVersion}${meta.attached ? ', attached' : ''}`;
}

export function isOwnComment(comment: string): boolean {
  return comment.startsWith(OWN_PREFIX);
}

// Greedy, so the tail matched is the last one: the profiler version may hold commas of its
// own (the EventPipe fallback's does), the pid and the runtime's version do not.
const OWN_TAIL = /^(.*), pid \d+, \.NET runtime .*$/s;

/** "clrscope VERSION" from ownComment()'s text; a clrscope comment without the tail is kept whole. */
export function ownCommentSource(comment: string): string {
  return OWN_TAIL.exec(comment)?.[1] ?? comment;
}
