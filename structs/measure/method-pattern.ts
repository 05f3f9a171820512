// Method patterns as the profiler reads them (native-profiler/core/method_pattern.h, which has
// the final word): `Ns.Type.Method`, `Ns.Type.*`, nested types with `+`, constructors as
// `Ns.Type..ctor`, generic arguments dropped. Here to refuse a bad pattern before a program is
// launched, and to tell which patterns found no method.

export interface MethodPattern {
  text: string;
  /** The type without generic arguments or arity, e.g. "Ns.Outer+Inner". */
  type: string;
  /** The method name; undefined for `*`. */
  method: string | undefined;
}

function withoutGenericArguments(s: string): string | undefined {
  let depth = 0;
  let out = '';
  for (const c of s) {
    if (c === '<') depth++;
    else if (c === '>') {
      if (--depth < 0) return undefined;
    } else if (depth === 0) out += c;
  }
  return depth === 0 ? out : undefined;
}

/** The pattern, or a sentence saying why the text is not one. */
export function parseMethodPattern(text: string): MethodPattern | string {
  let s = withoutGenericArguments(text.trim());
  if (s === undefined) return `'${text}' has generic brackets < > that do not pair up`;
  const paren = s.indexOf('(');
  if (paren >= 0 && s.endsWith(')')) s = s.slice(0, paren);
  if (/\s/.test(s)) return `'${text}' has a space inside the name`;
  let dot = s.lastIndexOf('.');
  if (dot > 0 && s[dot - 1] === '.') dot--;
  if (dot <= 0 || dot + 1 >= s.length) return `'${text}' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*`;
  const type = s.slice(0, dot);
  const method = s.slice(dot + 1);
  if (type.includes('*') || (method !== '*' && method.includes('*'))) return `'${text}' uses * where only the whole method name may be one: Namespace.Type.*`;
  return { text, type: type.replace(/`\d+/g, ''), method: method === '*' ? undefined : method };
}

/** Whether a measured method's name ("Ns.Type+Nested.Method", as the profiler reports it) is one the pattern names. */
export function patternNames(pattern: MethodPattern, methodName: string): boolean {
  if (!methodName.startsWith(`${pattern.type}.`)) return false;
  const rest = methodName.slice(pattern.type.length + 1);
  return pattern.method === undefined ? !rest.includes('.') || rest.startsWith('.') : rest === pattern.method;
}
