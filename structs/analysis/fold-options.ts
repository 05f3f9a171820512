// The folding and grouping a user picks, as one value every view, export and `clrscope report`
// take, the workstation saves with its settings, and the CLI writes as `--fold` text.

export type GroupBy = 'none' | 'assembly' | 'namespace';

export interface FoldPattern {
  /** 'fold': matching frames disappear into their caller; 'group': a run of matching frames becomes one frame named after the pattern. */
  action: 'fold' | 'group';
  /** A glob over the frame's name: `*` any run of characters, `?` one character; the whole name must match. */
  glob: string;
}

export interface FoldOptions {
  /** Runs of the runtime's and the C library's native frames become one `[runtime]` frame. */
  runtime: boolean;
  /** Frames outside the program's own assemblies fold into their caller (the first one called from own code stays, as the call into the library). */
  myCode: boolean;
  groupBy: GroupBy;
  patterns: readonly FoldPattern[];
}

export const DEFAULT_FOLD: FoldOptions = Object.freeze({ runtime: true, myCode: false, groupBy: 'none', patterns: Object.freeze([]) as readonly FoldPattern[] });
export const NO_FOLD: FoldOptions = Object.freeze({ runtime: false, myCode: false, groupBy: 'none', patterns: Object.freeze([]) as readonly FoldPattern[] });

export const MAX_PATTERNS = 64;
export const MAX_GLOB_LENGTH = 512;

/** A stable text key of the options (equal options, equal keys): for caches. */
export function foldKey(options: FoldOptions): string {
  return JSON.stringify([options.runtime, options.myCode, options.groupBy, options.patterns.map((p) => [p.action, p.glob])]);
}

export function isNoFold(options: FoldOptions): boolean {
  return !options.runtime && !options.myCode && options.groupBy === 'none' && options.patterns.length === 0;
}

/** The glob as an anchored regular expression; everything but `*` and `?` is literal. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const c of glob) {
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/**
 * Checks a value that came from outside (the renderer, a settings file) and returns it as
 * FoldOptions, or a sentence saying what is wrong.
 */
export function checkFoldOptions(value: unknown): FoldOptions | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The folding options must be an object.';
  const v = value as Record<string, unknown>;
  if (typeof v.runtime !== 'boolean') return 'The folding option runtime must be true or false.';
  if (typeof v.myCode !== 'boolean') return 'The folding option myCode must be true or false.';
  if (v.groupBy !== 'none' && v.groupBy !== 'assembly' && v.groupBy !== 'namespace') return 'The folding option groupBy must be none, assembly or namespace.';
  if (!Array.isArray(v.patterns)) return 'The folding patterns must be a list.';
  if (v.patterns.length > MAX_PATTERNS) return `At most ${MAX_PATTERNS} folding patterns are kept, not ${v.patterns.length}.`;
  const patterns: FoldPattern[] = [];
  for (const p of v.patterns as unknown[]) {
    if (typeof p !== 'object' || p === null) return 'Each folding pattern must be an object with an action and a glob.';
    const { action, glob } = p as Record<string, unknown>;
    if (action !== 'fold' && action !== 'group') return 'A folding pattern\'s action must be fold or group.';
    if (typeof glob !== 'string' || glob.trim() === '') return 'A folding pattern needs a glob, e.g. System.Linq.*.';
    if (glob.length > MAX_GLOB_LENGTH) return `A folding pattern may be at most ${MAX_GLOB_LENGTH} characters long.`;
    patterns.push({ action, glob: glob.trim() });
  }
  return { runtime: v.runtime, myCode: v.myCode, groupBy: v.groupBy, patterns };
}

/**
 * `--fold` text, comma-separated words applied in order to the defaults: `runtime` /
 * `no-runtime`, `mycode` / `no-mycode`, `assembly`, `namespace`, `no-group`, `none` (nothing
 * folded at all), and `fold:GLOB` or `group:GLOB`, which take the rest of the value (so a glob
 * may contain commas). Throws an Error with one sentence for a word it does not know.
 */
export function parseFoldSpec(specs: readonly string[], start: FoldOptions = DEFAULT_FOLD): FoldOptions {
  let runtime = start.runtime;
  let myCode = start.myCode;
  let groupBy = start.groupBy;
  const patterns = [...start.patterns];
  for (const spec of specs) {
    let rest = spec.trim();
    while (rest !== '') {
      const lower = rest.toLowerCase();
      if (lower.startsWith('fold:') || lower.startsWith('group:')) {
        const colon = rest.indexOf(':');
        const glob = rest.slice(colon + 1).trim();
        if (glob === '') throw new Error(`--fold ${rest.slice(0, colon)}: needs a glob after the colon, e.g. ${rest.slice(0, colon)}:System.Linq.*.`);
        patterns.push({ action: lower.startsWith('fold:') ? 'fold' : 'group', glob });
        break;
      }
      const comma = rest.indexOf(',');
      const word = (comma < 0 ? rest : rest.slice(0, comma)).trim().toLowerCase();
      rest = comma < 0 ? '' : rest.slice(comma + 1).trim();
      switch (word) {
        case '': break;
        case 'runtime': runtime = true; break;
        case 'no-runtime': runtime = false; break;
        case 'mycode': myCode = true; break;
        case 'no-mycode': myCode = false; break;
        case 'assembly': groupBy = 'assembly'; break;
        case 'namespace': groupBy = 'namespace'; break;
        case 'no-group': groupBy = 'none'; break;
        case 'none': runtime = false; myCode = false; groupBy = 'none'; patterns.length = 0; break;
        default:
          throw new Error(`--fold does not know '${word}': use runtime, no-runtime, mycode, assembly, namespace, no-group, none, fold:GLOB or group:GLOB.`);
      }
    }
  }
  if (patterns.length > MAX_PATTERNS) throw new Error(`--fold takes at most ${MAX_PATTERNS} patterns.`);
  return { runtime, myCode, groupBy, patterns };
}

/** The options as `--fold` words (the inverse of parseFoldSpec from NO_FOLD), for messages and JSON output. */
export function describeFold(options: FoldOptions): string {
  const words: string[] = [];
  if (options.runtime) words.push('runtime');
  if (options.myCode) words.push('mycode');
  if (options.groupBy !== 'none') words.push(options.groupBy);
  for (const p of options.patterns) words.push(`${p.action}:${p.glob}`);
  return words.length === 0 ? 'none' : words.join(', ');
}
