// The clrscope command line. Every failure a user can cause ends in one sentence on stderr and
// a non-zero exit code; anything else is a bug and says so.

import { UserError } from '../services/errors/user-error.js';
import { runDemo } from './demo-command.js';
import { runCounters } from './counters-command.js';
import { runConvert } from './convert-command.js';
import { CONVERT_HELP, COUNTERS_HELP, DEMO_HELP, HEAP_HELP, MAIN_HELP, MEASURE_HELP, PS_HELP, RECORD_HELP, REPORT_HELP } from './help-text.js';
import { runHeap } from './heap-command.js';
import { runMeasure } from './measure-command.js';
import { runPs } from './ps-command.js';
import { runRecord } from './record-command.js';
import { runReport } from './report-command.js';

const HELP: Record<string, string> = { record: RECORD_HELP, counters: COUNTERS_HELP, measure: MEASURE_HELP, demo: DEMO_HELP, ps: PS_HELP, convert: CONVERT_HELP, report: REPORT_HELP, heap: HEAP_HELP };

function out(line: string): void {
  process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
}

function err(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
}

/** Ctrl-C and SIGTERM stop the recording instead of killing clrscope, so what was recorded is written. */
function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) return;
    err('clrscope: stopping; writing what was recorded...');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
        out(MAIN_HELP);
        return command === undefined ? 2 : 0;
      case 'help': {
        const topic = rest[0];
        if (topic !== undefined && HELP[topic] === undefined) throw new UserError(`Unknown command '${topic}': see clrscope --help.`);
        out(topic === undefined ? MAIN_HELP : HELP[topic]);
        return 0;
      }
      case 'record':
        return await runRecord(rest, { out, err, signal: interruptSignal() });
      case 'counters':
        return await runCounters(rest, { out, err, signal: interruptSignal() });
      case 'measure':
        return await runMeasure(rest, { out, err, signal: interruptSignal() });
      case 'demo':
        return await runDemo(rest, { out, err, signal: interruptSignal() });
      case 'ps':
        return await runPs(rest, { out, err });
      case 'convert':
        return await runConvert(rest, { out, err, progress: (text) => process.stderr.write(text), isTty: process.stderr.isTTY === true });
      case 'report':
        return await runReport(rest, {
          out, err, progress: (text) => process.stderr.write(text), isTty: process.stderr.isTTY === true,
          ...(process.stdout.isTTY === true ? { columns: process.stdout.columns } : {}),
        });
      case 'heap':
        return await runHeap(rest, { out, err });
      default:
        throw new UserError(`Unknown command '${command}': see clrscope --help.`);
    }
  } catch (e) {
    if (e instanceof UserError) {
      err(`clrscope: ${e.message}`);
      return e.exitCode;
    }
    err(`clrscope: internal error, please report it: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 70;
  }
}
