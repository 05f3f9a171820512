// The one place that finds the API object: Electron's preload global when the page runs in
// the Electron shell, otherwise a WebSocket to the browser-mode server that served the page
// (same origin, so the token cookie it set on the page authenticates the socket).

import { OPERATIONS, PRELOAD_GLOBAL, type WorkstationApi } from '../../../structs/api/contract.js';
import { WsApi } from './ws-api.js';

let api: WorkstationApi | null = null;
const failureListeners = new Set<(message: string) => void>();
let failure: string | null = null;

function preloadApi(): WorkstationApi | null {
  const candidate: unknown = (window as unknown as Record<string, unknown>)[PRELOAD_GLOBAL];
  if (typeof candidate !== 'object' || candidate === null) return null;
  const record = candidate as Record<string, unknown>;
  if (![...OPERATIONS, 'onEvent'].every((op) => typeof record[op] === 'function')) return null;
  return candidate as WorkstationApi;
}

export function wsUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

export function getApi(): WorkstationApi {
  if (api !== null) return api;
  const preload = preloadApi();
  if (preload !== null) {
    api = preload;
    return api;
  }
  const ws = new WsApi(wsUrl(window.location));
  ws.onFailure((message) => {
    failure = message;
    for (const l of [...failureListeners]) l(message);
  });
  api = ws;
  return api;
}

/** The transport failed for good (browser mode only; Electron's IPC does not fail this way). */
export function onBridgeFailure(listener: (message: string) => void): () => void {
  if (failure !== null) listener(failure);
  failureListeners.add(listener);
  return () => { failureListeners.delete(listener); };
}
