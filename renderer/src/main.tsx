// The renderer's entry: find the API (bridge), start the controller and its profile worker,
// and mount the UI. `?test` in the URL adds the read-only diagnostics hook the Chromium tests
// and the latency benchmark read (views/diagnostics-hook.ts).

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getApi, onBridgeFailure } from './bridge/get-api.js';
import { startProfileWorker } from './state/profile-worker-client.js';
import { Workstation } from './state/workstation.js';
import { App } from './views/app.js';
import { installDiagnosticsHook } from './views/diagnostics-hook.js';
import { WorkstationContext } from './views/use-app-state.js';

const workstation = new Workstation({ api: getApi(), startWorker: startProfileWorker });
onBridgeFailure((message) => workstation.showError(message));
workstation.start();
if (new URLSearchParams(window.location.search).has('test')) installDiagnosticsHook(workstation);

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element.');
createRoot(container).render(
  <StrictMode>
    <WorkstationContext.Provider value={workstation}>
      <App />
    </WorkstationContext.Provider>
  </StrictMode>,
);
