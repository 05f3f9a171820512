// The source panel's side of the workstation: which source lines a session's frames have and
// the source files they name, read from the modules' PDBs. Each frame is looked up once per
// recording and each module's PDB read once per workstation.

import type { SourceFile, SourceFileRequest, SourceLineTable } from '../../../structs/api/contract.js';
import type { FrameLines } from '../../../structs/profile/frame-lines.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { UserError } from '../errors/user-error.js';
import type { RecordingSession } from '../recording/recording-session.js';
import { PdbLines } from '../source-lines/pdb-lines.js';
import { readSourceFile } from '../source-lines/source-file.js';

export class SourceLookup {
  private readonly pdbLines = new PdbLines();
  private readonly frameLines = new WeakMap<Recording, FrameLines>();

  /** The source lines of the session's frames known so far: asking again as a live recording grows costs only its new frames. */
  lines(session: RecordingSession): SourceLineTable {
    const table: SourceLineTable = { frameIds: [], fileIndex: [], lines: [], files: [], notes: [] };
    const recording = session.recording;
    if (recording === undefined || !recording.hasFrames) return table;
    let lines = this.frameLines.get(recording);
    if (lines === undefined) {
      lines = this.pdbLines.linesOf(recording);
      this.frameLines.set(recording, lines);
    }
    const fileIds = new Map<string, number>();
    for (const frame of recording.frames()) {
      const at = lines.of(frame.id);
      if (at === null) continue;
      let file = fileIds.get(at.file);
      if (file === undefined) {
        file = table.files.length;
        table.files.push(at.file);
        fileIds.set(at.file, file);
      }
      table.frameIds.push(frame.id);
      table.fileIndex.push(file);
      table.lines.push(at.line);
    }
    table.notes = [...this.pdbLines.notes];
    return table;
  }

  /**
   * A source file for the panel: only one the session's frames' lines name (their PDBs'
   * documents), so the renderer cannot make the main process read any other file.
   */
  file(session: RecordingSession, request: SourceFileRequest): SourceFile {
    const { path } = request;
    if (!this.lines(session).files.includes(path)) {
      throw new UserError(`${path} is not a source file of session ${session.id}'s frames, so it is not read.`);
    }
    const recording = session.recording;
    const spans: SourceFile['spans'] = [];
    for (const m of request.methods ?? []) {
      const module = recording?.moduleInfo(m.moduleId);
      const span = module === undefined ? null : this.pdbLines.methodSpan(module, m.token, path);
      if (span !== null) spans.push(span);
    }
    // The PDB's checksum of the file, through a module whose frames name it.
    let expected = null;
    for (const m of request.methods ?? []) {
      const module = recording?.moduleInfo(m.moduleId);
      expected = module === undefined ? null : this.pdbLines.documentHash(module, path);
      if (expected !== null) break;
    }
    const read = readSourceFile(path, undefined, expected);
    return 'text' in read ? { path, text: read.text, message: read.warning ?? null, spans } : { path, text: null, message: read.message, spans };
  }
}
