// The launch form takes arguments as one line, the way a user would paste them from a shell;
// the API wants an array. Quotes group, a backslash escapes, nothing is expanded.

export function splitArguments(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length && (line[i + 1] === '"' || line[i + 1] === '\\')) current += line[++i];
      else current += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`The arguments have an unclosed ${quote} quote.`);
  if (inWord) out.push(current);
  return out;
}
