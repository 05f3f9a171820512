// `clrscope demo`: a first recording for newcomers, of the bundled demo service.

import { existsSync } from 'node:fs';
import { demoProgramPath } from '../services/demo/demo-program.js';
import { UserError } from '../services/errors/user-error.js';
import { numberOption, parseCommandArgs } from './cli-args.js';
import { DEMO_HELP } from './help-text.js';
import { outputFormatOf } from './output-format.js';
import { recordPlan, type RecordIo } from './record-command.js';

export async function runDemo(argv: readonly string[], io: RecordIo): Promise<number> {
  const { values } = parseCommandArgs<{ seconds?: string; output?: string; help?: boolean }>(argv, {
    seconds: { type: 'string' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  }, 'demo');
  if (values.help) {
    io.out(DEMO_HELP);
    return 0;
  }
  const seconds = numberOption(values.seconds, 'seconds', 1, 3600, false) ?? 10;
  const output = values.output ?? 'demo.pb.gz';
  outputFormatOf(output);
  const program = demoProgramPath();
  if (!existsSync(program)) {
    throw new UserError(`The demo program is not built (${program} is missing): run 'bash scripts/setup.sh' first.`);
  }
  io.err(`clrscope: recording the demo order service for ${seconds} s...`);
  // The demo runs until stopped; the duration ends it like Ctrl-C, so exit code 130 is the
  // expected outcome and not passed on.
  await recordPlan({ command: 'dotnet', args: [program], output, durationMs: seconds * 1000, intervalMs: 10, wall: true }, io);
  return 0;
}
