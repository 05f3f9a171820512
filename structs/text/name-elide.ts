// Long .NET names made to fit a column without losing what tells rows apart. Cutting a name at
// one end hides the part that differs: five `ImmutableDictionary<…, Nullable<WarningBehavior>>`
// rows keep the same tail, five `Microsoft.EntityFrameworkCore.…` rows the same head. So a name is
// shortened by dropping what repeats most: namespaces inside generic arguments and parameter
// lists, the namespace of the name itself (the type and method stay:
// `OrderService+<PlaceAsync>d__5.MoveNext`, or in a narrow column the method alone), generic
// arguments level by level from the deepest, every argument after the first of each list; of
// those that fit, the one that keeps most of the arguments is shown,
// and only when none fits is the middle cut out.

interface Group {
  open: string;
  close: string;
  items: Item[];
}
type Item = string | Group;

const CLOSER: Record<string, string> = { '<': '>', '[': ']', '(': ')' };

/** Whether the `<` at `i` opens generic arguments rather than a compiler-made name (`<PlaceAsync>d__5`, `<>c`). */
function opensArguments(s: string, i: number): boolean {
  if (s[i] !== '<') return true;
  return i > 0 && /[\w`\]>]/.test(s[i - 1]);
}

/** The items of `s` from `at` up to the closing `closer` (or the end); returns them and where it stopped. */
function parse(s: string, at: number, closer: string | null): { items: Item[]; end: number } {
  const items: Item[] = [];
  let text = '';
  let i = at;
  while (i < s.length) {
    const c = s[i];
    if (closer !== null && c === closer) break;
    if ((c === '<' || c === '[' || c === '(') && opensArguments(s, i)) {
      // `[]` and `[,]` are arrays, not arguments: kept as text.
      if (c === '[' && /^\[,*\]/.test(s.slice(i))) {
        const m = /^\[,*\]/.exec(s.slice(i));
        text += m?.[0] ?? '';
        i += m?.[0].length ?? 1;
        continue;
      }
      if (text !== '') items.push(text);
      text = '';
      const inner = parse(s, i + 1, CLOSER[c]);
      items.push({ open: c, close: CLOSER[c], items: inner.items });
      i = inner.end + 1;
      continue;
    }
    if (c === '<') {
      // A compiler-made name: its brackets are part of the text.
      const close = s.indexOf('>', i);
      const stop = close < 0 ? s.length : close + 1;
      text += s.slice(i, stop);
      i = stop;
      continue;
    }
    text += c;
    i++;
  }
  if (text !== '') items.push(text);
  return { items, end: i };
}


/** `A.B.C` → `C` for every qualified name in a run of argument text (constructors' `..ctor` kept). */
function lastSegments(text: string): string {
  return text.replace(/(?:[A-Za-z_][\w`]*\.)+(?=[A-Za-z_<])/g, '');
}

/**
 * The items as text, namespaces inside arguments dropped, argument levels below `levels` shown
 * as `…`; `firstOnly`: of each argument list only its first argument, the rest `…` (instances of
 * one generic type usually differ in their first argument).
 */
function render(items: readonly Item[], depth: number, levels: number, firstOnly = false): string {
  let out = '';
  for (const item of items) {
    if (typeof item === 'string') {
      const text = depth > 0 ? lastSegments(item) : item;
      const comma = firstOnly && depth > 0 ? text.indexOf(',') : -1;
      if (comma >= 0) return `${out}${text.slice(0, comma)},…`;
      out += text;
      continue;
    }
    const inner = depth + 1 > levels ? (item.items.length === 0 ? '' : '…') : render(item.items, depth + 1, levels, firstOnly);
    out += `${item.open}${inner}${item.close}`;
  }
  return out;
}

/** How deep generic arguments and parameter lists nest in `items`. */
function depthOf(items: readonly Item[]): number {
  let deepest = 0;
  for (const item of items) if (typeof item !== 'string') deepest = Math.max(deepest, 1 + depthOf(item.items));
  return deepest;
}

/** The name without the namespace of its outermost type: the last `keep` dotted parts at the top level (a method's type and name, or a type's own name). */
function dropOwnNamespace(items: readonly Item[], keep: number): Item[] {
  // Top-level dots, counted across the text items (a group sticks to the part before it).
  const dots: { item: number; at: number }[] = [];
  items.forEach((item, n) => {
    if (typeof item !== 'string') return;
    for (let i = 0; i < item.length; i++) {
      // `..ctor`: the first dot separates, the second is the name's.
      if (item[i] === '.' && item[i - 1] !== '.') dots.push({ item: n, at: i });
    }
  });
  if (dots.length < keep) return [...items];
  const cut = dots[dots.length - keep];
  const out: Item[] = [];
  for (let n = cut.item; n < items.length; n++) {
    const item = items[n];
    out.push(n === cut.item && typeof item === 'string' ? item.slice(cut.at + 1) : item);
  }
  return out;
}

/** The middle of `text` cut out so that it is `max` characters long; the end keeps a little more (method names). */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…';
  const head = Math.floor((max - 1) * 0.4);
  const tail = max - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/**
 * `name` in at most `max` characters, shortened as the file's comment says. `kind`:
 * a method's name keeps its type (`Type.Method`), a type's name only itself.
 */
export function elideName(name: string, max: number, kind: 'method' | 'type' = 'method'): string {
  if (name.length <= max) return name;
  const items = parse(name, 0, null).items;
  const own = dropOwnNamespace(items, kind === 'method' ? 2 : 1);
  // Every shortened form with how much of it is arguments: of those that fit, the one that keeps
  // most of the arguments (what tells instances apart) is shown, the longer one of equals.
  const nameChars = (parts: readonly Item[]): number => parts.reduce((n, p) => n + (typeof p === 'string' ? p.length : 0), 0);
  const forms: { text: string; args: number }[] = [];
  const add = (parts: readonly Item[], levels: number, firstOnly = false): void => {
    const text = render(parts, 0, levels, firstOnly);
    forms.push({ text, args: text.length - nameChars(parts) });
  };
  add(items, Infinity);
  // A method without its type too: in a narrow column the arguments tell instances apart better.
  const bare = kind === 'method' ? dropOwnNamespace(items, 1) : own;
  for (const parts of bare === own ? [own] : [own, bare]) {
    for (let levels = depthOf(parts); levels >= 0; levels--) {
      add(parts, levels);
      add(parts, levels, true);
    }
  }
  let best = '';
  let bestArgs = -1;
  let shortest = forms[0].text;
  for (const { text, args } of forms) {
    if (text.length <= max && (args > bestArgs || (args === bestArgs && text.length > best.length))) {
      best = text;
      bestArgs = args;
    }
    if (text.length < shortest.length) shortest = text;
  }
  if (best !== '') return best;
  return cutMiddle(shortest, max);
}
