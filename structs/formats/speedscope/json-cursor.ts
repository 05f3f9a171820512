// A cursor over JSON text as bytes, for reading a large document a value at a time without
// building it: JSON.parse of a 94 MB speedscope file took 1.5 s and 360 MB before a single
// frame was read, and a file of empty lists (`[[],[],…]`) makes it build ~30 bytes of objects
// per byte of text. Values can be skipped (their extent checked, nothing kept) and visited again
// later from their offset, so a reader need not depend on the order of an object's keys.

/** Thrown where the text is not JSON; the reader turns it into its own sentence. */
export class JsonSyntaxError extends Error {
  constructor(
    /** Byte offset where the text stops being JSON; the text's length when it ends too early. */
    readonly at: number,
    readonly endsEarly: boolean,
  ) {
    super(endsEarly ? 'it ends too early' : `it breaks off at byte ${at}`);
    this.name = 'JsonSyntaxError';
  }
}

/** Deeper than this, a skipped value is not one a profile holds (and the nesting stack stays small). */
export const MAX_SKIP_DEPTH = 1000;

/** A value nested deeper than MAX_SKIP_DEPTH: JSON, but not a profile's. */
export class JsonTooDeepError extends Error {
  constructor(readonly at: number) {
    super(`it nests lists or objects more than ${MAX_SKIP_DEPTH} deep`);
    this.name = 'JsonTooDeepError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const MINUS = 0x2d;

const utf8 = new TextDecoder();
// What each byte is to skip(): most are nothing to it.
const ROLE_QUOTE = 1;
const ROLE_OPEN = 2;
const ROLE_CLOSE = 3;
const ROLES = new Uint8Array(256);
ROLES[QUOTE] = ROLE_QUOTE;
ROLES[OPEN_ARRAY] = ROLE_OPEN;
ROLES[OPEN_OBJECT] = ROLE_OPEN;
ROLES[CLOSE_ARRAY] = ROLE_CLOSE;
ROLES[CLOSE_OBJECT] = ROLE_CLOSE;
// The closers of the containers skip() is inside; one reader at a time uses it (skip() never nests).
const closers = new Uint8Array(MAX_SKIP_DEPTH);

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'literal';

export class JsonCursor {
  /** Offset of the next byte to read. */
  pos = 0;

  constructor(readonly bytes: Uint8Array) {}

  /** The cursor moved to `offset` (of a value found earlier). */
  at(offset: number): this {
    this.pos = offset;
    return this;
  }

  broken(at = this.pos): never {
    throw new JsonSyntaxError(Math.min(at, this.bytes.length), at >= this.bytes.length);
  }

  /** Skips white space; returns the next byte (-1 at the end). */
  peek(): number {
    const b = this.bytes;
    let p = this.pos;
    while (p < b.length) {
      const c = b[p];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
    return p < b.length ? b[p] : -1;
  }

  /** The kind of the next value. */
  kind(): JsonKind {
    const c = this.peek();
    if (c === OPEN_OBJECT) return 'object';
    if (c === OPEN_ARRAY) return 'array';
    if (c === QUOTE) return 'string';
    if (c === MINUS || (c >= 0x30 && c <= 0x39)) return 'number';
    if (c === 0x74 || c === 0x66 || c === 0x6e) return 'literal';
    return this.broken();
  }

  /** Nothing but white space is left. */
  end(): void {
    if (this.peek() !== -1) this.broken();
  }

  /**
   * Enters the list or object that comes next (`[` or `{`); returns false, having read its end
   * too, when it is empty. An object's members then start with key().
   */
  open(opener: number): boolean {
    if (this.peek() !== opener) this.broken();
    this.pos++;
    const closer = opener === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT;
    if (this.peek() === closer) {
      this.pos++;
      return false;
    }
    return true;
  }

  /** After a member: true when another follows (its comma read), false at the list's or object's end (read). */
  next(opener: number): boolean {
    const c = this.peek();
    if (c === COMMA) {
      this.pos++;
      return true;
    }
    if (c === (opener === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT)) {
      this.pos++;
      return false;
    }
    return this.broken();
  }

  /**
   * An object member's key and its colon, as its index in `keys` (-1: another key), compared
   * as bytes: a profile's events repeat three keys millions of times.
   */
  keyIndex(keys: readonly Uint8Array[]): number {
    if (this.peek() !== QUOTE) this.broken();
    const b = this.bytes;
    const start = this.pos + 1;
    let found = -1;
    for (let k = 0; k < keys.length && found < 0; k++) {
      const key = keys[k];
      const end = start + key.length;
      if (end >= b.length || b[end] !== QUOTE) continue;
      let same = true;
      for (let i = 0; i < key.length && same; i++) same = b[start + i] === key[i];
      if (same) found = k;
    }
    if (found >= 0) this.pos = start + keys[found].length + 1;
    else this.skipString();
    if (this.peek() !== COLON) this.broken();
    this.pos++;
    return found;
  }

  /** An object member's key and its colon. */
  key(): string {
    const k = this.string();
    if (this.peek() !== COLON) this.broken();
    this.pos++;
    return k;
  }

  string(): string {
    if (this.peek() !== QUOTE) this.broken();
    const start = this.pos;
    const b = this.bytes;
    let p = start + 1;
    let escaped = false;
    for (;;) {
      if (p >= b.length) this.broken(p);
      const c = b[p];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        p += 2;
      } else if (c < 0x20) {
        this.broken(p);
      } else {
        p++;
      }
    }
    this.pos = p + 1;
    if (!escaped && p - start <= 16) {
      // Short ASCII text (a speedscope event's "O"/"C") without a decoder call.
      let text = '';
      for (let i = start + 1; i < p; i++) {
        if (b[i] >= 0x80) return utf8.decode(b.subarray(start + 1, p));
        text += String.fromCharCode(b[i]);
      }
      return text;
    }
    if (!escaped) return utf8.decode(b.subarray(start + 1, p));
    try {
      return JSON.parse(utf8.decode(b.subarray(start, p + 1))) as string;
    } catch {
      return this.broken(start);
    }
  }

  number(): number {
    const b = this.bytes;
    let p = this.pos;
    if (this.peek() !== MINUS && !(b[this.pos] >= 0x30 && b[this.pos] <= 0x39)) this.broken();
    p = this.pos;
    const start = p;
    // Whole numbers up to 2^53, the common case, without making a string.
    let negative = false;
    if (b[p] === MINUS) {
      negative = true;
      p++;
    }
    let v = 0;
    let digits = 0;
    while (p < b.length && b[p] >= 0x30 && b[p] <= 0x39) {
      v = v * 10 + (b[p] - 0x30);
      p++;
      digits++;
    }
    if (digits === 0 || (digits > 1 && b[start + (negative ? 1 : 0)] === 0x30)) this.broken(p);
    const c = p < b.length ? b[p] : -1;
    if (c !== 0x2e && c !== 0x65 && c !== 0x45 && digits < 16) {
      this.pos = p;
      return negative ? -v : v;
    }
    while (p < b.length && ((b[p] >= 0x30 && b[p] <= 0x39) || b[p] === 0x2e || b[p] === 0x65 || b[p] === 0x45 || b[p] === 0x2b || b[p] === MINUS)) p++;
    let text = '';
    for (let i = start; i < p; i++) text += String.fromCharCode(b[i]);
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) this.broken(start);
    this.pos = p;
    return Number(text);
  }

  /**
   * The list of whole numbers below 2^31 that comes next (a sample's frame indexes), read in one
   * tight loop into `into.values` (grown as needed); returns how many, or -1, with the cursor
   * where it was, when the list holds anything else (for the caller's general path to read).
   */
  indexList(into: { values: Int32Array }): number {
    const b = this.bytes;
    const n = b.length;
    if (this.peek() !== OPEN_ARRAY) return -1;
    const start = this.pos;
    let p = start + 1;
    let count = 0;
    let values = into.values;
    for (;;) {
      while (p < n && (b[p] === 0x20 || b[p] === 0x0a || b[p] === 0x0d || b[p] === 0x09)) p++;
      if (p < n && b[p] === CLOSE_ARRAY && count === 0) break;
      const first = p;
      let v = 0;
      while (p < n && b[p] >= 0x30 && b[p] <= 0x39 && v < 0x80000000) v = v * 10 + (b[p++] - 0x30);
      const digits = p - first;
      if (digits === 0 || v >= 0x80000000 || (digits > 1 && b[first] === 0x30)) return -1;
      if (p < n && (b[p] === 0x2e || b[p] === 0x65 || b[p] === 0x45)) return -1;
      if (count === values.length) {
        const grown = new Int32Array(values.length * 2);
        grown.set(values);
        values = grown;
        into.values = grown;
      }
      values[count++] = v;
      while (p < n && (b[p] === 0x20 || b[p] === 0x0a || b[p] === 0x0d || b[p] === 0x09)) p++;
      if (p < n && b[p] === COMMA) {
        p++;
        continue;
      }
      if (p < n && b[p] === CLOSE_ARRAY) break;
      return -1;
    }
    this.pos = p + 1;
    return count;
  }

  /** true, false or null. */
  literal(): boolean | null {
    this.peek();
    for (const [word, value] of LITERALS) {
      if (this.matches(word)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.broken();
  }

  /**
   * The next value if it is a string, number or literal; a list or object is skipped and
   * stands as an empty one (a reader asking for a scalar only says what kind it found).
   */
  scalar(): unknown {
    switch (this.kind()) {
      case 'string': return this.string();
      case 'number': return this.number();
      case 'literal': return this.literal();
      case 'array': this.skip(); return [];
      case 'object': this.skip(); return {};
    }
  }

  /**
   * Reads past the next value, keeping nothing. Inside a list or object only strings and the
   * nesting are checked, not the commas or the scalars between them: this runs over whole
   * profiles at ~100 MB/s, and whatever a reader later uses is read again strictly.
   */
  skip(): void {
    const k = this.kind();
    if (k === 'string') return this.skipString();
    if (k === 'number') {
      this.number();
      return;
    }
    if (k === 'literal') {
      this.literal();
      return;
    }
    const b = this.bytes;
    const n = b.length;
    let p = this.pos;
    let depth = 0;
    while (p < n) {
      // One table lookup a byte: most bytes of a profile are digits and commas.
      const role = ROLES[b[p]];
      if (role === 0) {
        p++;
        continue;
      }
      const c = b[p];
      if (role === ROLE_QUOTE) {
        p++;
        for (;;) {
          if (p >= n) this.broken(p);
          const d = b[p];
          if (d === QUOTE) break;
          if (d === BACKSLASH) p += 2;
          else if (d < 0x20) this.broken(p);
          else p++;
        }
      } else if (role === ROLE_OPEN) {
        if (depth === MAX_SKIP_DEPTH) throw new JsonTooDeepError(p);
        // ']' and '}' are two after '[' and '{'.
        closers[depth++] = c + 2;
      } else {
        if (depth === 0 || closers[depth - 1] !== c) this.broken(p);
        depth--;
        if (depth === 0) {
          this.pos = p + 1;
          return;
        }
      }
      p++;
    }
    this.broken(p);
  }

  /** Reads past the string that comes next; returns its length in the text, escapes and all. */
  stringBytes(): number {
    const start = this.pos;
    this.skipString();
    return this.pos - start - 2;
  }

  private skipString(): void {
    if (this.peek() !== QUOTE) this.broken();
    const b = this.bytes;
    let p = this.pos + 1;
    for (;;) {
      if (p >= b.length) this.broken(p);
      const c = b[p];
      if (c === QUOTE) break;
      if (c === BACKSLASH) p += 2;
      else if (c < 0x20) this.broken(p);
      else p++;
    }
    this.pos = p + 1;
  }

  private matches(word: string): boolean {
    const b = this.bytes;
    for (let i = 0; i < word.length; i++) if (b[this.pos + i] !== word.charCodeAt(i)) return false;
    return true;
  }
}

const LITERALS: readonly [string, boolean | null][] = [['true', true], ['false', false], ['null', null]];

/** Keys for keyIndex(). */
export function jsonKeys(...keys: string[]): Uint8Array[] {
  return keys.map((k) => new TextEncoder().encode(k));
}

export const JSON_ARRAY = OPEN_ARRAY;
export const JSON_OBJECT = OPEN_OBJECT;
