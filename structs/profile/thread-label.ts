// How a thread is named wherever a view or an export needs one line of text for it.

import type { ThreadInfo } from './recording.js';

export function threadLabel(t: ThreadInfo | undefined, threadId: number): string {
  if (t === undefined) return `thread ${threadId}`;
  return t.name !== '' ? t.name : `thread ${t.osTid}`;
}
