// What an imported profile may make clrscope hold and walk, in memory rather than in counts of
// the file's own items: a speedscope event, a pprof row or a location's line list can each stand
// for thousands of frames, so a limit on them says nothing about the memory a file asks for.
// Every importer adds up what it will ask for before it builds anything, and RecordingBuilder
// checks each stack and function again as it stores them. The figures keep a reader of any file
// up to 100 MB within 5 s and 500 MB (scripts/bench/hostile-inputs.mjs), with room for profiles
// far larger than real ones (an hour of dotnet-trace's speedscope holds a few million frames).

/**
 * Frames summed over every sample an import builds (each interval of a speedscope evented
 * profile is one, carrying every open frame): what the reader and the builder walk and hash,
 * 30-50 ns a frame in all, so 1-2 s at the limit on a quiet machine.
 */
export const MAX_SAMPLE_FRAMES = 32_000_000;

/**
 * Frames of the distinct stacks an import stores: each is kept twice (the builder's stack table
 * and the recording's), 4 bytes each in tables that grow by doubling, so about 32 bytes a frame
 * at the worst moment: 8 M frames stay near 256 MiB.
 */
export const MAX_STACK_FRAMES = 8_000_000;

/**
 * Samples an import makes: 33 bytes each in the recording's columns, which grow by doubling
 * (about 210 MiB at the worst moment for 4 M).
 */
export const MAX_SAMPLES = 4_000_000;

/**
 * Samples a .clrscope file read without keeping them (summed for pprof, or opened in the
 * workstation, where the file is the stream) may hold: memory stays flat however many there are,
 * but each costs its decoding, ~6 M a second (an hour at the wall-sampling cap is 23 M).
 */
export const MAX_SUMMED_SAMPLES = 24_000_000;

/** Distinct stacks an import stores: each costs about 40 bytes of tables beyond its frames. */
export const MAX_STACKS = 2_000_000;

/**
 * Functions an import defines (each a wire definition, model objects and map entries: about
 * 1 KB with its name, measured: 400,000 took 429 MiB), and the bytes of their names and files.
 */
export const MAX_FUNCTIONS = 200_000;
export const MAX_FUNCTION_TEXT_BYTES = 64 * 1024 * 1024;

/** A profile asks for more than the budget: the message is a clause ("its samples would hold …"). */
export class ImportBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportBudgetError';
  }
}

/** 12345678 → "12,345,678", as messages print counts. */
export function counted(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The clause for samples beyond MAX_SAMPLES. */
export function samplesClause(whose: string, most = MAX_SAMPLES): string {
  return `${whose} would make more than ${counted(most)} samples, the most clrscope reads of one file`;
}

/** Bytes as MiB or GiB for a message. */
export function bytesText(bytes: number): string {
  const mib = bytes / 1048576;
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${Math.round(mib)} MiB`;
}

/** The clause for frames summed over samples beyond MAX_SAMPLE_FRAMES ("its samples would hold …"). */
export function sampleFramesClause(whose: string): string {
  return `${whose} would hold more than ${counted(MAX_SAMPLE_FRAMES)} frames in all, the most clrscope reads of one file`;
}

/**
 * What a Recording read from a file may hold (RecordingOptions.limits); a live session's has
 * none. Checked before each definition, new stack or growth of the sample columns is stored.
 */
export interface RecordingLimits {
  /** Estimated bytes of samples (their columns' capacity), stacks and definitions. */
  readonly maxBytes: number;
  /** Frames summed over every stack the stream defines (or v1 sample it carries): the walk. */
  readonly maxWalkedFrames: number;
}

/**
 * Frames of every STACK record a stream defines, each with the frames it shares with the one
 * before (a 10-byte record can name 65,535): copied and hashed, about 25 ns a frame.
 */
export const MAX_WALKED_STACK_FRAMES = 32_000_000;

/**
 * For a file read whole: 192 MiB of model leaves room, within 500 MB, for the doubling of its
 * tables, the process itself and a writer (4,194,304 samples fit; the next doubling does not).
 */
export const FILE_READ_LIMITS: RecordingLimits = Object.freeze({ maxBytes: 192 * 1048576, maxWalkedFrames: MAX_WALKED_STACK_FRAMES });
