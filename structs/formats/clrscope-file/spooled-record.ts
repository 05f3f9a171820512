// The SPOOLED record (PROTOCOL.md, workstation-side records): says that the file was written
// as the stream arrived (clrscope record's spool), not saved from a finished recording. Such a
// file may end inside a record when the writer was killed mid-write; readers then keep every
// whole record and open it as cut, where a saved file ending inside a record is refused as
// damaged. Empty body; placed right after the preamble, before HELLO.

export const SPOOLED_RECORD_TYPE = 0x30;

/** The whole record: u32 length 1, the type byte. */
export function spooledRecordBytes(): Uint8Array {
  return Uint8Array.of(1, 0, 0, 0, SPOOLED_RECORD_TYPE);
}
