import type { SessionInfo } from '../../../structs/api/contract.js';

/** "Scenarios (pid 123)": the label with the pid once, whether or not the label already names it. */
export function sessionTitle(s: SessionInfo): string {
  if (s.pid === null) return s.label;
  const pid = `pid ${s.pid}`;
  if (s.label === pid || s.label.endsWith(`(${pid})`)) return s.label;
  return `${s.label} (${pid})`;
}
