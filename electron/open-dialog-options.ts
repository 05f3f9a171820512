// The native "Open recording" dialog's options, kept apart from electron/main.ts (and free of
// the `electron` import) so a plain Node test can check them. The dialog only proposes a path:
// the renderer hands it to openRecording, which validates it like a typed one.

import { OPENABLE_EXTENSIONS } from '../structs/api/contract.js';

export interface OpenDialogOptions {
  title: string;
  properties: ['openFile'];
  filters: { name: string; extensions: string[] }[];
}

/** Dialog filters match the last extension only, so ".pb.gz" is offered as "gz" and checked whole later. */
export function openRecordingDialogOptions(): OpenDialogOptions {
  const extensions = [...new Set(OPENABLE_EXTENSIONS.map((ext) => ext.slice(ext.lastIndexOf('.') + 1)))];
  return {
    title: 'Open a recording',
    properties: ['openFile'],
    filters: [{ name: 'Recordings', extensions }, { name: 'All files', extensions: ['*'] }],
  };
}

/** The dialog's answer as the renderer gets it: one path, or null when the user cancelled. */
export function chosenPath(result: { canceled: boolean; filePaths: string[] }): string | null {
  return result.canceled || result.filePaths.length === 0 ? null : result.filePaths[0];
}
