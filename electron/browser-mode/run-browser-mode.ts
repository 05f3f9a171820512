// `npm start` without an Electron binary: the workstation in browser mode until Ctrl-C. Prints
// the address to open (with this run's token); with `demo`, the bundled demo is recording by
// the time the page opens. Ctrl-C stops every session, lets launched programs exit, and ends.

import { createWorkstationService, type WorkstationServiceOptions } from '../services/workstation/workstation-service.js';
import { startBrowserMode, type BrowserMode } from './server.js';

export interface RunBrowserModeOptions {
  demo?: boolean;
  port?: number;
  rendererDir?: string;
  workstation?: WorkstationServiceOptions;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export async function runBrowserMode(options: RunBrowserModeOptions = {}): Promise<BrowserMode> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const workstation = createWorkstationService(options.workstation);
  const server = await startBrowserMode({ workstation, port: options.port, rendererDir: options.rendererDir });
  out(`clrscope workstation: open ${server.url}`);
  if (options.demo) {
    try {
      const session = await workstation.launchDemo();
      out(`clrscope workstation: recording the demo order service (session ${session.id}, pid ${session.pid ?? '?'}).`);
    } catch (e) {
      err(`clrscope: ${(e as Error).message}`);
    }
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl-C: the user does not want to wait for programs to exit.
      err('clrscope: stopping now.');
      process.exit(130);
    }
    stopping = true;
    err(`clrscope: ${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping the sessions...`);
    void (async () => {
      try {
        await workstation.shutdown();
        await server.close();
      } finally {
        process.exit(0);
      }
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return server;
}
