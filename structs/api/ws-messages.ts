// Browser mode's WebSocket messages. Requests, replies and events are JSON text frames, except
// the stream's bytes, which go as binary frames so the renderer's worker gets them without
// re-encoding: [u8 kind = 1][u16 sessionId length][sessionId UTF-8][f64 offset][bytes...].

import type { Operation, WorkstationEvent } from './contract.js';

export interface WsRequest {
  id: number;
  op: Operation;
  args: unknown[];
  /** The connection's launch nonce (its `hello`), which `launch` and `launchDemo` must carry. */
  nonce?: string;
}

/** Operations that run a program of the requester's choosing: only from the page's own form. */
export const NONCE_OPERATIONS: readonly Operation[] = ['launch', 'launchDemo'];

export type WsReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/**
 * The first message on a connection a workstation page opened (a browser sends its Origin):
 * a random nonce, known only to that page, that its launch requests must carry.
 */
export interface WsHello {
  kind: 'hello';
  launchNonce: string;
}

export type WsTextMessage = ({ kind: 'reply' } & WsReply) | { kind: 'event'; event: Exclude<WorkstationEvent, { type: 'stream' }> } | WsHello;

const STREAM_FRAME = 1;

export function encodeStreamFrame(sessionId: string, offset: number, chunk: Uint8Array): Uint8Array {
  const id = new TextEncoder().encode(sessionId);
  const out = new Uint8Array(1 + 2 + id.length + 8 + chunk.length);
  const view = new DataView(out.buffer);
  out[0] = STREAM_FRAME;
  view.setUint16(1, id.length, true);
  out.set(id, 3);
  view.setFloat64(3 + id.length, offset, true);
  out.set(chunk, 3 + id.length + 8);
  return out;
}

/** The stream event a binary frame carries; throws on anything else (one sentence). */
export function decodeStreamFrame(frame: Uint8Array): Extract<WorkstationEvent, { type: 'stream' }> {
  if (frame.length < 11 || frame[0] !== STREAM_FRAME) throw new Error('Not a clrscope stream frame.');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const idLength = view.getUint16(1, true);
  if (frame.length < 3 + idLength + 8) throw new Error('A clrscope stream frame ended inside its header.');
  const sessionId = new TextDecoder().decode(frame.subarray(3, 3 + idLength));
  const offset = view.getFloat64(3 + idLength, true);
  return { type: 'stream', sessionId, offset, chunk: frame.subarray(3 + idLength + 8) };
}
