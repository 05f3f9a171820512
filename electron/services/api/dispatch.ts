// The one place both adapters (Electron's IPC and browser mode's WebSocket) turn a request from
// the renderer into a workstation call: validate, then call the named operation.

import type { WorkstationApi } from '../../../structs/api/contract.js';
import { UserError } from '../errors/user-error.js';
import { ValidationError, validateCall, type ValidationContext } from './validate.js';

/** What the adapters call into: the contract's operations (events travel separately). */
export type OperationTarget = Omit<WorkstationApi, 'onEvent' | 'onReconnected'>;

/** Validates `op(...args)` as it came from the renderer and runs it; rejects with a ValidationError (one sentence) on a bad argument. */
export async function callOperation(target: OperationTarget, op: unknown, args: unknown, context: ValidationContext): Promise<unknown> {
  const call = validateCall(op, args, context);
  switch (call.op) {
    case 'listProcesses': return target.listProcesses();
    case 'listSessions': return target.listSessions();
    case 'launch': return target.launch(...call.args);
    case 'launchDemo': return target.launchDemo();
    case 'attach': return target.attach(...call.args);
    case 'stop': return target.stop(...call.args);
    case 'subscribe': return target.subscribe(...call.args);
    case 'unsubscribe': return target.unsubscribe(...call.args);
    case 'closeSession': return target.closeSession(...call.args);
    case 'exportRecording': return target.exportRecording(...call.args);
    case 'openRecording': return target.openRecording(...call.args);
    case 'countersHistory': return target.countersHistory(...call.args);
    case 'outputHistory': return target.outputHistory(...call.args);
    case 'loadSettings': return target.loadSettings();
    case 'saveSettings': return target.saveSettings(...call.args);
    case 'measure': return target.measure(...call.args);
    case 'revertMeasure': return target.revertMeasure(...call.args);
    case 'sourceLines': return target.sourceLines(...call.args);
    case 'sourceFile': return target.sourceFile(...call.args);
    case 'setKeepWindow': return target.setKeepWindow(...call.args);
    case 'cancelJob': return target.cancelJob(...call.args);
    case 'takeHeapSnapshot': return target.takeHeapSnapshot(...call.args);
    case 'openHeapSnapshot': return target.openHeapSnapshot(...call.args);
    case 'listHeapSnapshots': return target.listHeapSnapshots();
    case 'saveHeapSnapshot': return target.saveHeapSnapshot(...call.args);
    case 'closeHeapSnapshot': return target.closeHeapSnapshot(...call.args);
    case 'heapTypes': return target.heapTypes(...call.args);
    case 'heapPaths': return target.heapPaths(...call.args);
    case 'heapDominators': return target.heapDominators(...call.args);
  }
}

/** The sentence the renderer gets for a failed call. Errors we raise carry their sentence; anything else is reported plainly. */
export function errorSentence(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const trimmed = message.trim();
  if (trimmed === '') return 'The operation failed for an unknown reason.';
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Errors we raise for the user carry their sentence; anything else is a bug worth its stack trace in the log. */
export function logIfUnexpected(op: unknown, err: unknown): void {
  if (err instanceof UserError || err instanceof ValidationError) return;
  console.error(`clrscope: ${String(op)} failed unexpectedly:`, err);
}
