// The renderer's profile worker (a module Web Worker): decodes one session's wire stream and
// answers flame, parallel-stacks and summary queries (protocol.ts), so merging stacks never
// blocks the UI thread. Messages are handled in arrival order, so a query sees every chunk
// posted before it.

import type { WorkerRequest } from './protocol.js';
import { ProfileWorkerCore } from './worker-core.js';

interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
const core = new ProfileWorkerCore();

scope.onmessage = (event) => {
  const out = core.handle(event.data);
  if (out !== null) scope.postMessage(out.reply, out.transfer);
};
