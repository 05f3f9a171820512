import { FunctionKind } from '../wire/records.js';

export interface FunctionInfo {
  readonly id: number;
  /** FunctionKind: 0 managed, 1 native, 2 synthetic. */
  readonly kind: number;
  readonly name: string;
  /** The module's file name (empty when none). */
  readonly module: string;
  readonly file: string;
  /** The module (Recording.moduleInfo) the code lives in, 0 for none. */
  readonly moduleId: number;
  /** The method's metadata token (managed code, wire v2), else 0. */
  readonly token: number;
}

/**
 * The synthetic frame the profiler puts into samples taken while a thread collects garbage: the
 * root of a collector thread's stacks (server GC, background GC), and on a thread that performs
 * a collection itself, the frame between its managed frames and the runtime's (PROTOCOL.md,
 * FUNCTION).
 */
export const GC_FRAME_NAME = '[GC]';

/**
 * The text views show for a frame. Native frames say which library they ran in
 * (`libc.so.6!pthread_cond_wait`, or `[libcoreclr.so]` where the library has no symbol for
 * the address); managed frames are their full method name.
 */
export function frameLabel(fn: FunctionInfo): string {
  if (fn.kind === FunctionKind.Native && fn.module !== '') return fn.name !== '' ? `${fn.module}!${fn.name}` : `[${fn.module}]`;
  if (fn.name !== '') return fn.name;
  return '[unknown]';
}
