// Numbers in sentences: digits grouped ("1,234,567"; toLocaleString would load ICU's data for
// one line of output), and a noun that agrees with its number ("1 sample", "8 samples").

export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 thread", "8 threads", "1,024 samples"; `plural` for nouns that do not just take an s. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${count(n)} ${n === 1 ? singular : plural}`;
}
