// One spelling per method, whoever wrote the recording. clrscope's profiler writes generic
// types as C# does (`HashSet<System.__Canon>.Add`); the runtime's own events, and so nettrace
// files and TraceEvent, write the metadata form (``HashSet`1[System.__Canon].Add``); PerfView
// and dotnet-trace's speedscope add `Assembly!` in front and a parameter list behind. Views,
// diffs and patterns all see the normalized spelling, so the same method merges across
// runtimes and formats.

import { FunctionKind } from '../wire/records.js';
import type { FunctionInfo } from '../profile/frame-label.js';

/** A native library's file name: `libc.so.6`, `libcoreclr.so`, `ntdll.dll`, `libfoo.dylib`, `dotnet.exe`. */
const NATIVE_FILE = /\.(so(\.\d+)*|dll|dylib|exe)$/i;

/**
 * The managed method name in clrscope's spelling: metadata generic arities and brackets
 * (`` `1[A,B] ``) become `<A,B>`, a bare arity (`` List`1 ``) is dropped, a trailing parameter
 * list goes, and a leading `Assembly!` goes.
 */
export function normalizeMethodName(name: string): string {
  let text = name.trim();
  const bang = text.indexOf('!');
  // `Assembly!Type.Method`: an assembly name has no generic brackets or spaces before the '!'.
  if (bang > 0 && !/[<>[\]\s(]/.test(text.slice(0, bang))) text = text.slice(bang + 1);
  text = dropParameters(text);
  if (text.includes('`') || text.includes('[')) text = genericsToAngles(text);
  return text.replace(/,\s+/g, ',');
}

/** `Foo.Bar(int32,!0)` → `Foo.Bar`; only a balanced list at the very end is a parameter list. */
function dropParameters(text: string): string {
  if (!text.endsWith(')')) return text;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === ')') depth++;
    else if (c === '(') {
      depth--;
      if (depth === 0) return i > 0 ? text.slice(0, i).trimEnd() : text;
    }
  }
  return text;
}

/**
 * Rewrites every `` `N[...] `` as `<...>` (brackets nested inside such a list included) and
 * drops a `` `N `` that has no argument list. A `[` that does not follow an arity (an array
 * type's `[]`, `[,]`) is kept as it is.
 */
function genericsToAngles(text: string): string {
  let out = '';
  // For each open '[', whether it became '<'.
  const opened: boolean[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '`') {
      let j = i;
      while (text[j] === '`') j++;
      const digits = j;
      while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      if (j > digits) {
        if (text[j] === '[' && text[j + 1] !== ']' && text[j + 1] !== ',') {
          out += '<';
          opened.push(true);
          i = j + 1;
        } else {
          i = j;
        }
        continue;
      }
    }
    if (c === '[') opened.push(false);
    if (c === ']' && opened.pop() === true) out += '>';
    else out += c;
    i++;
  }
  return out;
}

/**
 * A function as the analysis sees it: managed names normalized, and a frame that an importer
 * took for native because of its `Assembly!Method` form (a module that is no library file,
 * a dotted name) turned back into the managed method it is.
 */
export function normalizeFunction(fn: FunctionInfo): FunctionInfo {
  if (fn.kind === FunctionKind.Managed) {
    const name = normalizeMethodName(fn.name);
    return name === fn.name ? fn : { ...fn, name };
  }
  if (fn.kind === FunctionKind.Native && fn.module !== '' && !NATIVE_FILE.test(fn.module) && fn.name.includes('.') && /^[\w.]+$/.test(fn.module)) {
    return { ...fn, kind: FunctionKind.Managed, name: normalizeMethodName(fn.name), module: `${fn.module}.dll` };
  }
  return fn;
}
