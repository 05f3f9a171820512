// A workstation served in browser mode with one Chromium page on it: what every test that drives
// the UI starts from, and ends in the one order that leaves nothing running.

import { startBrowserMode, type BrowserMode } from '../../../electron/browser-mode/server.js';
import { createWorkstationService, type WorkstationService, type WorkstationServiceOptions } from '../../../electron/services/workstation/workstation-service.js';
import { openPage, RENDERER, type OpenedPage } from './workstation-page.js';

export interface WorkstationInChromium extends OpenedPage {
  workstation: WorkstationService;
  server: BrowserMode;
  /** Closes the page's browser, then the server, then the workstation (its sessions and spool). */
  close(): Promise<void>;
}

export async function openWorkstationInChromium(options: WorkstationServiceOptions, serve: (w: WorkstationService) => WorkstationService = (w) => w, browserArgs: readonly string[] = []): Promise<WorkstationInChromium> {
  const workstation = createWorkstationService(options);
  let server: BrowserMode | undefined;
  try {
    server = await startBrowserMode({ workstation: serve(workstation), rendererDir: RENDERER });
    const opened = await openPage(browserArgs);
    const started = server;
    return {
      ...opened,
      workstation,
      server: started,
      async close() {
        await opened.browser.close();
        await started.close();
        await workstation.shutdown();
      },
    };
  } catch (e) {
    await server?.close();
    await workstation.shutdown();
    throw e;
  }
}
