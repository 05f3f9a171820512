// Which file format an output path asks for, and whether it can be written, before anything
// is launched: a recording must never be lost to a typo in -o.

import { accessSync, closeSync, constants, lstatSync, unlinkSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { partialPathFor } from '../services/export/atomic-file.js';
import { fsErrorText } from '../services/errors/fs-error-text.js';
import { createExclusiveSync } from '../services/files/exclusive-file.js';
import { extensionList, formatOfPath, type RecordingFileFormat } from '../../structs/formats/registry.js';
import { UserError } from '../services/errors/user-error.js';

export type OutputFormat = RecordingFileFormat;

export function outputFormatOf(path: string): OutputFormat {
  if (path.trim() === '') throw new UserError('The output file name is empty: give one with -o, e.g. -o app.pb.gz.');
  const format = formatOfPath(path, 'write');
  if (format === undefined) throw new UserError(`Unknown output format for ${path}: use a ${extensionList('write')} file name.`);
  return format;
}

/**
 * Checks that `path` can be written the way it will be (a temporary file created beside it,
 * then renamed over it), before anything is launched: by creating and removing such a file
 * in its folder. Nothing is ever opened at `path` itself, so a link planted there is not
 * followed and nothing is created at its target.
 */
export function checkWritable(path: string): void {
  const full = resolve(path);
  const fail = (why: string): never => {
    throw new UserError(`Cannot write ${path}: ${why}.`);
  };
  const existing = lstatOrUndefined(full);
  if (existing?.isDirectory() === true) fail('it is a folder');
  if (existing?.isFile() === true) {
    try {
      accessSync(full, constants.W_OK);
    } catch (err) {
      fail(fsErrorText(err, full, 'write'));
    }
  }
  const probe = partialPathFor(full);
  try {
    closeSync(createExclusiveSync(probe));
  } catch (err) {
    fail(fsErrorText(err, full, 'write'));
  }
  unlinkSync(probe);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
