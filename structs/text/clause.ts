// Errors are written as sentences ("The reply was cut short."); when one is continued after a
// colon inside another sentence, its first word loses its capital. Acronyms and names (IPC,
// RuntimeId) keep theirs: only a capital not followed by another capital is lowered.

/** An inner sentence continued after a colon: "The reply…" becomes "the reply…". */
export function clause(message: string): string {
  return /^[A-Z](?![A-Z])/.test(message) ? message[0].toLowerCase() + message.slice(1) : message;
}
