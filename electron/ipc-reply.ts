// How an operation's outcome crosses Electron's IPC: as a value, never as a thrown error, since
// Electron rewrites a rejected handler's message ("Error invoking remote method …"). The preload
// turns a failure back into an Error with the workstation's one sentence.

export type IpcReply = { ok: true; result: unknown } | { ok: false; error: string };

export function isIpcReply(value: unknown): value is IpcReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: unknown };
  return v.ok === true || (v.ok === false && typeof v.error === 'string');
}
