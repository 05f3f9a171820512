// Where spooled recordings live: $XDG_CACHE_HOME/clrscope/spool (else ~/.cache/clrscope/spool),
// a folder of this user's alone (files/private-dir.ts). A spool file's name carries the pid of
// the clrscope that wrote it, so a later run can tell a finished writer's leftover (it was
// killed before it could save) from a file still being written.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, ensurePrivateDir } from '../files/private-dir.js';
import { randomTag } from '../files/exclusive-file.js';

export function spoolDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'spool');
}

/**
 * Creates the spool folder if needed and checks that it and the clrscope folder holding it are
 * private (whoever owns a parent can swap the folder under it); throws NotPrivateError or a
 * file system error.
 */
export async function ensureSpoolDir(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  await ensurePrivateDir(cacheDir(env));
  return ensurePrivateDir(spoolDir(env));
}

const NAME = /^record-(\d{8}T\d{6}Z)-(\d+)-[0-9a-f]+\.clrscope$/;

/** record-20250101T120000Z-4242-1a2b3c4d5e6f.clrscope: when, which clrscope, and a random part. */
export function spoolFileName(now = new Date(), pid = process.pid): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `record-${stamp}-${pid}-${randomTag()}.clrscope`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LeftoverSpool {
  path: string;
  bytes: number;
  mtimeMs: number;
}

/** Spool files whose writer is gone: recordings of runs that did not finish, newest first. */
export function leftoverSpools(dir: string): LeftoverSpool[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: LeftoverSpool[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (m === null || alive(Number(m[2]))) continue;
    try {
      const s = statSync(join(dir, name));
      if (s.isFile()) found.push({ path: join(dir, name), bytes: s.size, mtimeMs: s.mtimeMs });
    } catch {
      // Removed meanwhile.
    }
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
}
