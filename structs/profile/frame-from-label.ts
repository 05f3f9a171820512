// Formats that keep only a frame's display text (speedscope, pprof from other tools, our own
// exports read back) give it back to the model here: the inverse of frameLabel(), so a native
// frame stays native and views that treat natives differently (self time goes to the
// innermost managed frame) show an imported profile as they showed the recording.

import { GC_FRAME_NAME } from './frame-label.js';
import { FunctionKind } from '../wire/records.js';

export interface FrameParts {
  kind: number;
  name: string;
  module: string;
}

// A library file name: no spaces, brackets or '!' (libc.so.6, ntdll.dll, and the host
// executable, often without an extension: dotnet). Synthetic markers have spaces
// ([frames elided]), except [unknown] and [GC], which are kept synthetic by name.
const LIBRARY = /^[^\s![\]]+$/;
const UNKNOWN = '[unknown]';
// The runtime's stubs named from its perf map (native-profiler/core/perf_map.cpp): synthetic frames
// whose label goes on past the bracket ("[runtime stub] JIT_CopiedWriteBarriers").
const RUNTIME_STUB = '[runtime stub]';

/**
 * `module!symbol` and `[module]` are native frames (frameLabel's two native forms), any other
 * `[...]` is a synthetic marker, and everything else a managed method. `module`, when the
 * format knows the frame's file (pprof's mapping), confirms the native forms and is kept for
 * managed frames.
 */
export function frameFromLabel(label: string, module = ''): FrameParts {
  const bang = label.indexOf('!');
  if (bang > 0) {
    const lib = label.slice(0, bang);
    if ((module === '' || module === lib) && LIBRARY.test(lib)) return { kind: FunctionKind.Native, name: label.slice(bang + 1), module: lib };
  }
  // With a module, frameLabel() draws [unknown] only for a managed method without a name.
  if (label === UNKNOWN) return module === '' ? { kind: FunctionKind.Synthetic, name: label, module: '' } : { kind: FunctionKind.Managed, name: '', module };
  if (label === GC_FRAME_NAME && module === '') return { kind: FunctionKind.Synthetic, name: label, module: '' };
  if (module === '' && (label === RUNTIME_STUB || label.startsWith(`${RUNTIME_STUB} `))) return { kind: FunctionKind.Synthetic, name: label, module: '' };
  if (label.startsWith('[') && label.endsWith(']')) {
    const inner = label.slice(1, -1);
    if ((module === '' || module === inner) && LIBRARY.test(inner)) return { kind: FunctionKind.Native, name: '', module: inner };
    if (module === '') return { kind: FunctionKind.Synthetic, name: label, module: '' };
  }
  return { kind: FunctionKind.Managed, name: label, module };
}
