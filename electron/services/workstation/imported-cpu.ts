// Whether an opened recording's CPU times are estimates. Files from other tools carry no
// per-sample CPU time: clrscope's nettrace reader counts one interval of CPU per sample taken
// in managed code (structs/formats/nettrace/README.md, "Samples are approximate"), speedscope
// profiles of other tools do not say what their weights are, and another tool's pprof "cpu" is
// its own sampling estimate, or not CPU at all. clrscope's own pprof and speedscope exports
// keep measured times; so do .clrscope files, unless the recording in them was itself imported
// or its HELLO says its CPU was estimated (an EventPipe recording: HELLO flag ApproximateCpu).

import { IMPORTED_PROFILER_VERSION } from '../../../structs/formats/nettrace/index.js';
import { PPROF_IMPORT_SOURCE } from '../../../structs/formats/pprof/from-pprof.js';
import { SPEEDSCOPE_IMPORT_SOURCE } from '../../../structs/formats/speedscope/from-speedscope.js';
import type { Recording } from '../../../structs/profile/recording.js';
import type { RecordingFileFormat } from '../../../structs/formats/registry.js';

/** The profilerVersion an importer gives a recording made by another tool; a re-export keeps it inside its own. */
const IMPORT_MARKERS = [IMPORTED_PROFILER_VERSION, PPROF_IMPORT_SOURCE, SPEEDSCOPE_IMPORT_SOURCE];

export function cpuIsEstimated(format: RecordingFileFormat, rec: Recording): boolean {
  // Even clrscope's own .nettrace comes back with CPU counted per sample: the format has no place for the measured time.
  if (format === 'nettrace') return true;
  if (rec.meta?.approximateCpu === true) return true;
  const version = rec.meta?.profilerVersion ?? '';
  return IMPORT_MARKERS.some((marker) => version.includes(marker));
}
