// `clrscope convert IN -o OUT`: reads a recording in one format and writes it in another, both
// picked by extension. Everything that can be checked without reading the input (formats,
// the output's folder and permissions, the input's existence) is checked first, so a long
// read never ends in "cannot write".

import { sumsLoseStacks } from '../../structs/analysis/output-stacks.js';
import { accessSync, constants as fsConstants } from 'node:fs';
import { resolve } from 'node:path';
import type { SpeedscopeMetric } from '../../structs/formats/speedscope/to-speedscope.js';
import { checkFormatAvailable, readFormatOf, readRecordingFile, writeRecordingFile, type FileProgress } from '../services/export/recording-file.js';
import { recordingFormat, type RecordingFileFormat } from '../../structs/formats/registry.js';
import { fsErrorText } from '../services/errors/fs-error-text.js';
import { UserError } from '../services/errors/user-error.js';
import { parseCommandArgs } from './cli-args.js';
import { CONVERT_HELP } from './help-text.js';
import { checkWritable, outputFormatOf } from './output-format.js';
import { counted } from '../../structs/text/count.js';

export interface ConvertIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Raw stderr text without a newline added, for a progress line that rewrites itself. */
  progress?: (text: string) => void;
  /** Whether stderr is a terminal: a line that updates in place there, occasional lines elsewhere. */
  isTty?: boolean;
  now?: () => number;
}

export interface ConvertPlan {
  input: string;
  output: string;
  inputFormat: RecordingFileFormat;
  outputFormat: RecordingFileFormat;
  metric: SpeedscopeMetric;
}

export function planConvert(argv: readonly string[]): ConvertPlan | 'help' {
  const { values, positionals, rest } = parseCommandArgs<{ output?: string; metric?: string; help?: boolean }>(argv, {
    output: { type: 'string', short: 'o' },
    metric: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'convert');
  if (values.help) return 'help';
  const args = [...positionals, ...(rest ?? [])];
  if (args.length === 0) throw new UserError('No input file: give one, e.g. clrscope convert rec.clrscope -o rec.speedscope.json.');
  if (args.length > 1) throw new UserError(`Convert takes one input file, not ${args.length} (see clrscope convert --help).`);
  if (values.output === undefined || values.output === '') throw new UserError('No output file: give one with -o, e.g. -o rec.pb.gz.');
  const metric = values.metric ?? 'both';
  if (metric !== 'cpu' && metric !== 'wall' && metric !== 'both') throw new UserError(`--metric must be cpu, wall or both, not '${metric}'.`);
  const input = args[0];
  const plan: ConvertPlan = { input, output: values.output, inputFormat: readFormatOf(input), outputFormat: outputFormatOf(values.output), metric };
  if (resolve(input) === resolve(plan.output)) throw new UserError(`The output ${plan.output} is the input file: give another name so the input is not overwritten.`);
  return plan;
}

const MB = 1 << 20;

/** The progress report: a line rewritten in place on a terminal; off a terminal, quick conversions stay quiet and long ones leave a line every few seconds. */
export class ProgressLine {
  private lastShown = Number.NEGATIVE_INFINITY;
  private readonly started: number;
  private shown = false;

  constructor(private readonly io: ConvertIo, private readonly names: { reading: string; writing: string }) {
    this.started = this.now();
  }

  readonly update: FileProgress = (step, done, total) => {
    const now = this.now();
    const tty = this.io.isTty === true && this.io.progress !== undefined;
    const every = tty ? 100 : 5000;
    if (now - this.lastShown < every || (!tty && now - this.started < every)) return;
    this.lastShown = now;
    const pct = total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 100;
    const size = step === 'reading' ? ` (${(done / MB).toFixed(0)} of ${(total / MB).toFixed(0)} MB)` : '';
    const text = `clrscope: ${step} ${this.names[step]}: ${pct}%${size}`;
    if (tty) {
      this.io.progress?.(`\r\x1b[K${text}`);
      this.shown = true;
    } else {
      this.io.err(text);
    }
  };

  /** Clears the rewritten line so the next message starts on a clean one. */
  end(): void {
    if (this.shown) this.io.progress?.('\r\x1b[K');
    this.shown = false;
  }

  private now(): number {
    return (this.io.now ?? Date.now)();
  }
}

function checkReadable(path: string): void {
  try {
    accessSync(path, fsConstants.R_OK);
  } catch (err) {
    throw new UserError(`Cannot read ${path}: ${fsErrorText(err, path, 'read')}.`);
  }
}

export async function runConvert(argv: readonly string[], io: ConvertIo): Promise<number> {
  const plan = planConvert(argv);
  if (plan === 'help') {
    io.out(CONVERT_HELP);
    return 0;
  }
  return convert(plan, io);
}

export async function convert(plan: ConvertPlan, io: ConvertIo): Promise<number> {
  await checkFormatAvailable(plan.inputFormat, 'read');
  await checkFormatAvailable(plan.outputFormat, 'write');
  checkWritable(plan.output);
  checkReadable(plan.input);
  const line = new ProgressLine(io, { reading: plan.input, writing: plan.output });
  let bytes: number;
  let opened: Awaited<ReturnType<typeof readRecordingFile>>;
  try {
    // pprof from a .clrscope needs the samples only summed per stack and thread: read that way,
    // a file of any length costs its sums. Async call stacks are spliced per sample: read again whole.
    opened = await readRecordingFile(plan.input, line.update, { summed: plan.outputFormat === 'pprof' });
    if (opened.sums !== undefined && sumsLoseStacks(opened.recording)) opened = await readRecordingFile(plan.input, line.update);
    bytes = await writeRecordingFile(plan.output, opened.recording, opened.counters, { progress: line.update, metric: plan.metric, summed: opened.sums });
  } finally {
    line.end();
  }
  const rec = opened.recording;
  const parts = [`${counted(rec.sampleCount, 'sample')} on ${counted(rec.threads().length, 'thread')}`];
  if (rec.suspensions().length > 0) parts.push(counted(rec.suspensions().length, 'runtime suspension'));
  if (opened.counters.length > 0) parts.push(counted(opened.counters.length, 'counters reading'));
  const keeps = recordingFormat(plan.outputFormat).keeps;
  io.err(`clrscope: wrote ${plan.output} (${recordingFormat(plan.outputFormat).name}, ${counted(bytes, 'byte')}) from ${plan.input}: ${parts.join(', ')}${rec.cut ? '; the recording was cut before its end' : ''}.${keeps !== undefined ? ` Note: ${keeps}.` : ''}`);
  return 0;
}
