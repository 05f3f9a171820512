// Every error the UI shows is one sentence: the API's own when it gave one, never a stack.

export function userMessage(error: unknown, fallback = 'Something went wrong.'): string {
  const raw = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const line = raw.split('\n')[0].trim();
  if (line === '') return fallback;
  return /[.!?]$/.test(line) ? line : `${line}.`;
}
