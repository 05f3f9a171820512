// Fixture files write bytes as commented hex text so humans can review them line by line.

/** Parses hex text: `#` starts a comment to end of line, whitespace is ignored. */
export function parseHexText(text: string): Uint8Array {
  const digits = text.replace(/#[^\n]*/g, '').replace(/\s+/g, '');
  if (digits.length % 2 !== 0) throw new Error(`Hex text has an odd number of digits (${digits.length}).`);
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new Error('Hex text contains a character that is not a hex digit.');
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
