// Public API of the .nettrace writer and reader (README.md explains the format decisions).

export { nettraceChunks, toNettrace, MAX_STACK_FRAMES, type NettraceWriteOptions } from './recording-to-nettrace.js';
export { fromNettrace, fromNettraceAsync, NettraceReader, type NettraceReaderOptions, type NettraceReadOptions, type ReadProgress } from './nettrace-reader.js';
export type { EventCounterValue } from './event-counters.js';
export type { ImportOptions } from './import-to-recording.js';
export { NettraceFormatError } from './nettrace-format-error.js';
export { IMPORTED_PROFILER_VERSION } from './import-to-recording.js';
