// A command and its arguments as one line a shell would run as the same words: what the
// workstation names a launched session and what its Launch form shows before it runs.

export function commandLineOf(command: string, args: readonly string[]): string {
  const quote = (a: string): string => (a === '' || /[\s"'\\$`]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a);
  return [command, ...args].map(quote).join(' ');
}
