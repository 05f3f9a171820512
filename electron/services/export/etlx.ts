// Recording → PerfView .etlx. The format has no public description: it is TraceEvent's TraceLog
// serialized, and only TraceLog writes it. So clrscope writes the recording as a .nettrace to a
// temporary folder and runs its small .NET converter (electron/tools/EtlxConverter), which calls
// TraceLog.CreateFromEventPipeDataFile and renames its output into place only when complete.

import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { nettraceChunks } from '../../../structs/formats/nettrace/recording-to-nettrace.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { UserError } from '../errors/user-error.js';
import { packageRoot } from '../profiler/profiler-env.js';
import { createExclusive } from '../files/exclusive-file.js';
import { writeAll } from '../files/write-all.js';
import { moveIntoPlace } from '../files/move-into-place.js';
import { ownedTempDir } from '../files/owned-temp-dir.js';
import { SAVE_FAILED_EXIT_CODE } from './atomic-file.js';
import { fsErrorText } from '../errors/fs-error-text.js';

/** Overrides where the converter's dll is (packaged apps put it beside their resources). */
export const ETLX_CONVERTER_ENV = 'CLRSCOPE_ETLX_CONVERTER';
const CONVERTER_RELATIVE = join('electron', 'tools', 'EtlxConverter', 'bin', 'out', 'EtlxConverter.dll');

/** What the converter reports about the .etlx it wrote. */
export interface EtlxResult {
  etlx: string;
  bytes: number;
  events: number;
  samples: number;
  threads: number;
  processes: number;
  eventsLost: number;
}

export interface ToEtlxOptions {
  /** Progress of writing the intermediate .nettrace (samples written, total); conversion follows. */
  onProgress?: (done: number, total: number) => void;
  /** The converter's dll; default etlxConverterPath(). */
  converter?: string;
  /** The `dotnet` host to run it with. */
  dotnet?: string;
  /** Where the temporary folder goes (default: the OS temp folder). */
  tempRoot?: string;
}

export function etlxConverterPath(): string {
  const override = process.env[ETLX_CONVERTER_ENV];
  if (override !== undefined && override !== '') return resolve(override);
  return join(packageRoot(), CONVERTER_RELATIVE);
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[]): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.length > 0 ? lines[lines.length - 1] : '';
}

/** Writes `rec` as a PerfView .etlx at `outPath`; resolves with the converter's counts. */
export async function toEtlx(rec: Recording, outPath: string, options: ToEtlxOptions = {}): Promise<EtlxResult> {
  const converter = options.converter ?? etlxConverterPath();
  if (!readable(converter)) {
    throw new UserError(`Cannot write ${outPath}: the .etlx converter ${converter} is not built; run scripts/setup.sh (or bash scripts/build-targets.sh).`);
  }
  const folder = dirname(resolve(outPath));
  if (!isFolder(folder)) throw new UserError(`Cannot write ${outPath}: the folder ${folder} does not exist.`);
  const dir = await ownedTempDir('etlx', options.tempRoot ?? tmpdir());
  try {
    const nettrace = join(dir, 'recording.nettrace');
    // The converter writes into this private folder (its own temporary name beside its output
    // is predictable), and the result is moved into place from here.
    const etlx = join(dir, 'recording.etlx');
    const file = await createExclusive(nettrace);
    try {
      for (const chunk of nettraceChunks(rec, { onProgress: options.onProgress })) await writeAll(file, chunk);
    } catch (err) {
      throw new UserError(`Cannot write ${outPath}: the temporary .nettrace in ${dir} could not be written (${fsErrorText(err, nettrace, 'write')}).`, SAVE_FAILED_EXIT_CODE);
    } finally {
      await file.close();
    }
    let result: RunResult;
    try {
      result = await run(options.dotnet ?? 'dotnet', [converter, nettrace, etlx]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UserError(`Cannot write ${outPath}: writing .etlx needs the .NET runtime, and \`${options.dotnet ?? 'dotnet'}\` is not on PATH.`);
      }
      throw err;
    }
    if (result.code !== 0) {
      // The converter names its input, a temporary file the user never saw: keep only the reason.
      const why = (lastLine(result.stderr) || lastLine(result.stdout) || `the converter exited with code ${String(result.code)}.`)
        .replace(/^Could not convert .* to \.etlx: /, 'TraceEvent could not convert the recording: ');
      throw new UserError(`Cannot write ${outPath}: ${why.replace(/\.$/, '')}.`);
    }
    let parsed: EtlxResult;
    try {
      parsed = JSON.parse(lastLine(result.stdout)) as EtlxResult;
    } catch {
      throw new UserError(`Cannot write ${outPath}: the .etlx converter printed no result.`);
    }
    await moveIntoPlace(etlx, outPath);
    return { ...parsed, etlx: resolve(outPath) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
