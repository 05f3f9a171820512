// Opens one recording file as the workstation's "Open recording…" does, in a process of its own
// so that the process's peak memory is the open's: `node open-in-workstation.js FILE`. Prints
// "opened" or the workstation's sentence; exits 1 when the file was refused.

import { dirname } from 'node:path';
import { createWorkstationService } from '../../../electron/services/workstation/workstation-service.js';

const path = process.argv[2];
const workstation = createWorkstationService({ exportsDir: dirname(path), listProcesses: async () => [] });
try {
  await workstation.openRecording({ path });
  process.stdout.write('opened\n');
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
await workstation.shutdown();
