// The parts of a normalized managed method name, `Namespace.Type+Nested<Args>.Method<Args>`:
// dots inside generic arguments (`Dictionary<System.String,System.Int32>`) and the dot of a
// constructor's name (`Type..ctor`) do not separate parts.

export interface MethodNameParts {
  /** '' for a type in the global namespace. */
  namespace: string;
  type: string;
  method: string;
}

/** Splits at the dots that separate names, not those inside `<…>`, `[…]`, `(…)`. */
function topLevelSegments(name: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === '<' || c === '[' || c === '(') depth++;
    else if ((c === '>' || c === ']' || c === ')') && depth > 0) depth--;
    else if (c === '.' && depth === 0) {
      // `..ctor`, `..cctor`: the second dot belongs to the method's name.
      if (i === start && segments.length > 0) continue;
      segments.push(name.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(name.slice(start));
  return segments;
}

export function methodNameParts(name: string): MethodNameParts {
  const segments = topLevelSegments(name);
  if (segments.length === 1) return { namespace: '', type: '', method: segments[0] };
  const method = segments[segments.length - 1];
  const type = segments[segments.length - 2];
  return { namespace: segments.slice(0, -2).join('.'), type, method };
}
