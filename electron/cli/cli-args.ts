// Splits a command line into clrscope's own options and the program to run after `--`, with
// node's parser, turning its errors into one sentence.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../services/errors/user-error.js';

export interface SplitArgs<T> {
  values: T;
  positionals: string[];
  /** Everything after the first `--`. */
  rest: string[] | undefined;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What each value-taking option wants, for "--pid needs a process id". */
const VALUE_NAMES: Record<string, string> = {
  pid: 'a process id',
  output: 'a file name',
  pauses: 'a .json file name',
  duration: 'a number of seconds',
  interval: 'a number of milliseconds',
  refresh: 'a number of milliseconds',
  timeout: 'a number of milliseconds',
  seconds: 'a number of seconds',
  format: 'a format name',
  metric: 'a metric name',
  paths: 'a type name',
  diff: 'a file name',
  top: 'a number',
  'requests-rate': 'all or a number of requests a second',
};

/**
 * A value that starts with a dash is taken as the option's value only when it is a negative
 * number (`--pid -1`, then refused by the option's own check); anything else (`--pid -o x`)
 * means the value is missing, which node's parser calls "ambiguous".
 */
function joinNegativeValues(args: string[], options: Options): string[] {
  const takesValue = (arg: string): boolean => {
    const long = /^--([^=]+)$/.exec(arg);
    if (long !== null) return options[long[1]]?.type === 'string';
    const short = /^-(\w)$/.exec(arg);
    return short !== null && Object.values(options).some((o) => o.short === short[1] && o.type === 'string');
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (takesValue(args[i]) && i + 1 < args.length && /^-[\d.]/.test(args[i + 1])) {
      out.push(`${args[i]}=${args[i + 1]}`.replace(/^-(\w)=/, '-$1'));
      i++;
    } else {
      out.push(args[i]);
    }
  }
  return out;
}

function optionName(message: string, options: Options): string | undefined {
  const long = /--([\w-]+)/.exec(message);
  if (long !== null) return long[1];
  const short = /'-(\w)'/.exec(message);
  return short === null ? undefined : Object.entries(options).find(([, o]) => o.short === short[1])?.[0];
}

export function parseCommandArgs<T>(argv: readonly string[], options: Options, command: string): SplitArgs<T> {
  const dash = argv.indexOf('--');
  const own = joinNegativeValues(dash >= 0 ? argv.slice(0, dash) : [...argv], options);
  const rest = dash >= 0 ? argv.slice(dash + 1) : undefined;
  try {
    const parsed = parseArgs({ args: own, options, allowPositionals: true, strict: true });
    return { values: parsed.values as T, positionals: parsed.positionals, rest };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const name = optionName(e.message, options);
      if (name !== undefined) throw new UserError(`--${name} needs ${VALUE_NAMES[name] ?? 'a value'} after it (see clrscope ${command} --help).`);
    }
    const message = e.message.replace(/\. To specify a positional argument.*$/s, '').replace(/\.$/, '');
    throw new UserError(`${message} (see clrscope ${command} --help).`);
  }
}

/** A number option within [min, max]; `integer` rejects fractions. */
export function numberOption(value: string | undefined, name: string, min: number, max: number, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  // Plain decimals only: Number() would also take 0x10, 1e3, ' 5 ' and Infinity.
  if (!/^-?\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const kind = integer ? 'a whole number' : 'a number';
    if (value.trim() === '') throw new UserError(`--${name} needs ${VALUE_NAMES[name] ?? 'a value'}; it was given an empty one.`);
    throw new UserError(`--${name} must be ${kind} from ${min} to ${max}, not '${value}'.`);
  }
  return n;
}
