// Lint: every file a comment names exists. Comments that point a reader at a file are how this
// repository explains itself ("see support/torture.ts"); after a move they silently point at
// nothing. A name is taken as one of ours unless the comment it sits in names the project it
// belongs to (the runtime, PerfView, pprof, ...), since comments also cite other projects' files.
// Prints one line per stale name and exits 1 when there is any.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';

// The repository to check: this one, or the one named (the check's own test makes small ones).
const ROOT = process.argv[2] ?? normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));
const SOURCE = /\.(ts|tsx|mjs|js|cjs|cpp|h|cs|sh|py|md)$/;
const NAMED = /(?<![\w./-])((?:\.{1,2}\/)?[\w@-][\w./@-]*\.(?:ts|tsx|mjs|js|cjs|cpp|h|hpp|cs|md|sh|py|csproj|props|yml|json))(?![\w/-])/g;
// A comment line (or the one before it) that names one of these is citing another project's file.
const ELSEWHERE = /(coreclr|dotnet\/|runtime's|the runtime|perfview|traceevent|microsoft|google\/|pprof's|go tool|speedscope's|datadog|async-profiler|glibc|kernel's|windows sdk|windows'|mingw|https?:|github|\bpal\b|sdk's|aspnetcore|winsock|ilspy|koffi|dotnet-trace|dotnet-gcdump|corelib|system\.private)/i;

// Headers of the Windows SDK and the CLR's own SDK, named in comments about what ours restate.
const SDK_HEADERS = new Set(['cor.h', 'corhdr.h', 'windows.h', 'winerror.h', 'winsock2.h', 'afunix.h', 'ws2tcpip.h']);
const OUR_FOLDER = /^(electron|structs|renderer|native-profiler|scripts|test)\//;

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter((p) => p !== '' && !p.startsWith('node_modules/'));
const paths = new Set(tracked);
const names = new Set(tracked.map((p) => basename(p)));
// Folders too: a comment may name "structs/wire/" files by their folder and file.
const suffixes = new Set();
for (const p of tracked) {
  const parts = p.split('/');
  for (let i = 1; i < parts.length; i++) suffixes.add(parts.slice(i).join('/'));
}

/** The text of each comment in `text`, with the line it starts on. */
function comments(file, text) {
  const out = [];
  // In the repository's own documents, every name in backquotes is a pointer.
  if (file.endsWith('.md')) {
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(/`([^`]+)`/g)) out.push({ line: i + 1, text: m[1], doc: true });
    });
    return out;
  }
  const hash = /\.(sh|py)$/.test(file);
  const lines = text.split('\n');
  let block = null;
  lines.forEach((line, i) => {
    if (hash) {
      const m = /(^|\s)#(?!!)(.*)$/.exec(line);
      if (m) out.push({ line: i + 1, text: m[2] });
      return;
    }
    if (block !== null) {
      const end = line.indexOf('*/');
      block.text += ' ' + (end >= 0 ? line.slice(0, end) : line);
      if (end >= 0) { out.push(block); block = null; }
      return;
    }
    const start = line.search(/(^|\s)\/\*/);
    if (start >= 0 && !line.slice(start).includes('*/')) { block = { line: i + 1, text: line.slice(start) }; return; }
    const m = /(^|[\s;,{}()])\/\/(.*)$/.exec(line) ?? /(\/\*.*\*\/)/.exec(line);
    if (m) out.push({ line: i + 1, text: m[2] ?? m[1] });
  });
  return out;
}

/** Whether `name`, written in a comment of `file`, names a file that exists here. */
function exists(file, name) {
  const candidates = [name];
  // Imports in TS name the compiled .js; comments follow the same habit.
  if (/\.js$/.test(name)) candidates.push(name.replace(/\.js$/, '.ts'), name.replace(/\.js$/, '.tsx'), name.replace(/\.js$/, '.mjs'));
  for (const c of candidates) {
    if (!c.includes('/')) { if (names.has(c)) return true; continue; }
    if (paths.has(c) || paths.has(normalize(join(dirname(file), c)))) return true;
    if (suffixes.has(c.replace(/^(\.{1,2}\/)+/, ''))) return true;
  }
  return false;
}

/** Whether a name that is not here is one of ours gone stale rather than another project's file or an example. */
function stale(name, elsewhere, doc) {
  const base = basename(name);
  if (/(^|\/)dist\//.test(name)) return false;
  // Ours for certain: under one of our folders, a file of ours that moved, or the shared notes
  // beside the repository that a clone does not have.
  if (OUR_FOLDER.test(name) || base === 'FACTS.md' || base === 'DESIGN.md') return true;
  if (names.has(base) && (!elsewhere || /\.(ts|tsx|mjs)$/.test(base))) return true;
  // Documents cite other projects' sources at length; there only our own kinds of file count.
  if (doc) return /\.(ts|tsx|mjs)$/.test(name) && !elsewhere;
  if (elsewhere || SDK_HEADERS.has(base)) return false;
  if (/\.(ts|tsx|mjs|cpp|h)$/.test(name)) return true;
  return name.includes('/');
}

// Joins consecutive line comments into one, so "see PerfView's" on one line covers a file on the next.
function paragraphs(list) {
  const out = [];
  for (const c of list) {
    const last = out.at(-1);
    if (last !== undefined && last.end === c.line - 1) { last.text += ' ' + c.text; last.end = c.line; last.lines.push(c); }
    else out.push({ text: c.text, end: c.line, lines: [c] });
  }
  return out;
}

const problems = [];
for (const file of tracked) {
  if (!SOURCE.test(file) || file.startsWith('scripts/lint/') || file.startsWith('test/lint/') || /(^|\/)(fixtures|testdata|bin|obj)\//.test(file)) continue;
  let text;
  try { text = readFileSync(join(ROOT, file), 'utf8'); } catch { continue; }
  for (const para of paragraphs(comments(file, text))) {
    for (const [i, c] of para.lines.entries()) {
      const elsewhere = ELSEWHERE.test(c.text) || (i > 0 && ELSEWHERE.test(para.lines[i - 1].text));
      for (const m of c.text.matchAll(NAMED)) {
        const name = m[1].replace(/[.]+$/, '');
        if (/^\d/.test(name) || name.includes('*') || name.includes('<') || exists(file, name)) continue;
        if (!stale(name, elsewhere, c.doc === true)) continue;
        problems.push(`${file}:${c.line}: the comment names ${name}, which is not in the repository`);
      }
    }
  }
}
for (const p of problems) console.log(p);
if (problems.length > 0) {
  console.log(`comment-paths: ${problems.length} comment(s) name files that are not here; point them at the file as it is now, or at the project they belong to.`);
  process.exit(1);
}
