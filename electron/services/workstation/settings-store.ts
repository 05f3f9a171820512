// The workstation's settings between runs: one JSON file in the user's config folder
// ($CLRSCOPE_CONFIG_DIR, else $XDG_CONFIG_HOME/clrscope, else ~/.config/clrscope). The folder
// is the user's own (0700); the file is written under a fresh name (files/exclusive-file.ts:
// O_EXCL, never through a link, mode 0600), every byte counted, then renamed over the old one,
// so a crash leaves either the old settings or the new. A missing or unreadable file means the defaults.

import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { WorkstationSettings } from '../../../structs/api/contract.js';
import { checkFoldOptions, DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';
import { UserError } from '../errors/user-error.js';
import { fsErrorText } from '../errors/fs-error-text.js';
import { createExclusiveSync, randomTag } from '../files/exclusive-file.js';

const FILE = 'settings.json';
// Settings are a few hundred bytes; anything far larger is not ours.
const MAX_BYTES = 256 * 1024;

export function defaultSettings(): WorkstationSettings {
  return { fold: { ...DEFAULT_FOLD, patterns: [] } };
}

export function defaultSettingsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLRSCOPE_CONFIG_DIR !== undefined && env.CLRSCOPE_CONFIG_DIR !== '') return env.CLRSCOPE_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'clrscope');
}

/** Parsed and checked settings text; anything wrong falls back to the defaults, field by field. */
export function parseSettings(text: string): WorkstationSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return defaultSettings();
  }
  const settings = defaultSettings();
  if (typeof value === 'object' && value !== null) {
    const fold = checkFoldOptions((value as Record<string, unknown>).fold);
    if (typeof fold !== 'string') settings.fold = fold;
  }
  return settings;
}

export class SettingsStore {
  constructor(readonly dir: string = defaultSettingsDir()) {}

  get path(): string {
    return join(this.dir, FILE);
  }

  load(): WorkstationSettings {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return defaultSettings();
    }
    try {
      const size = fstatSync(fd).size;
      if (size > MAX_BYTES) return defaultSettings();
      const buffer = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const n = readSync(fd, buffer, read, size - read, read);
        if (n === 0) break;
        read += n;
      }
      return parseSettings(buffer.subarray(0, read).toString('utf8'));
    } catch {
      return defaultSettings();
    } finally {
      closeSync(fd);
    }
  }

  save(settings: WorkstationSettings): void {
    const path = this.path;
    try {
      this.ensureDir();
      const data = Buffer.from(`${JSON.stringify(settings, null, 2)}\n`, 'utf8');
      const partial = join(this.dir, `.${FILE}.${process.pid}.${randomTag()}`);
      const fd = createExclusiveSync(partial);
      let written = 0;
      try {
        while (written < data.length) written += writeSync(fd, data, written, data.length - written);
      } catch (err) {
        closeSync(fd);
        unlinkSync(partial);
        throw err;
      }
      closeSync(fd);
      if (written !== data.length) {
        unlinkSync(partial);
        throw new Error(`wrote ${written} of ${data.length} bytes`);
      }
      renameSync(partial, path);
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`The settings could not be saved to ${path}: ${fsErrorText(err, path, 'write')}.`);
    }
  }

  /** The folder, created owner-only; an existing one must be a folder of this user's, not a link. */
  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const s = lstatSync(this.dir);
    if (!s.isDirectory()) throw new UserError(`The settings folder ${this.dir} is not a folder (or is a link); settings were not saved.`);
    if (typeof process.getuid === 'function' && s.uid !== process.getuid()) throw new UserError(`The settings folder ${this.dir} belongs to another user; settings were not saved.`);
    if ((s.mode & 0o077) !== 0) throw new UserError(`The settings folder ${this.dir} can be read or written by other users; make it yours alone (chmod 700) to save settings there.`);
  }
}
