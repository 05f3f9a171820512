/** A PE file or portable PDB clrscope cannot read; the message is one sentence for the user. */
export class PdbFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdbFormatError';
  }
}
