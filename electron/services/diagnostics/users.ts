// User names for messages, from /etc/passwd (no NSS lookup: a name we cannot find is shown as
// "uid N").

import { readFile } from 'node:fs/promises';

let names: Promise<Map<number, string>> | undefined;

async function load(): Promise<Map<number, string>> {
  const map = new Map<number, string>();
  try {
    for (const line of (await readFile('/etc/passwd', 'utf8')).split('\n')) {
      const [name, , uid] = line.split(':');
      if (name !== undefined && name !== '' && uid !== undefined && /^\d+$/.test(uid) && !map.has(Number(uid))) map.set(Number(uid), name);
    }
  } catch {
    // no passwd file: numbers only
  }
  return map;
}

/** "alice", or "uid 1001" when the name is unknown. */
export async function userName(uid: number): Promise<string> {
  names ??= load();
  return (await names).get(uid) ?? `uid ${uid}`;
}

/** Our effective user id (0 on platforms without one). */
export function currentUid(): number {
  return typeof process.geteuid === 'function' ? process.geteuid() : 0;
}
