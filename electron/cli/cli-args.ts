// Splits a command line into clrscope's own options and the program to run after `--`, with
// node's parser, turning its errors into one sentence.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../services/session/user-error.js';

export interface SplitArgs<T> {
  values: T;
  positionals: string[];
  /** Everything after the first `--`. */
  rest: string[] | undefined;
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<T>(argv: readonly string[], options: Options, command: string): SplitArgs<T> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : [...argv];
  const rest = dash >= 0 ? argv.slice(dash + 1) : undefined;
  try {
    const parsed = parseArgs({ args: own, options, allowPositionals: true, strict: true });
    return { values: parsed.values as T, positionals: parsed.positionals, rest };
  } catch (err) {
    const message = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/\.$/, '');
    throw new UserError(`${message} (see clrscope ${command} --help).`);
  }
}

/** A number option within [min, max]; `integer` rejects fractions. */
export function numberOption(value: string | undefined, name: string, min: number, max: number, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const kind = integer ? 'a whole number' : 'a number';
    throw new UserError(`--${name} must be ${kind} from ${min} to ${max}, not '${value}'.`);
  }
  return n;
}
