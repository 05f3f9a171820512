// Browser mode's server in a process of its own, for tests that must see it from outside: a
// client in the test's process would stop with the server whenever its event loop is held.
// `node browser-mode-process.js RENDERER_DIR` prints one JSON line {"wsUrl", "token"} once it
// listens, and runs until its stdin closes.

import { startBrowserMode } from '../../../electron/browser-mode/server.js';
import { createWorkstationService } from '../../../electron/services/workstation/workstation-service.js';

const workstation = createWorkstationService({ listProcesses: async () => [], libraryPath: process.execPath });
const server = await startBrowserMode({ workstation, rendererDir: process.argv[2] });
process.stdout.write(`${JSON.stringify({ wsUrl: server.wsUrl, token: server.token })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => workstation.shutdown()).then(() => process.exit(0));
});
