// Exact measuring (measure-actions.ts, and the records session-feed.ts reads), driven through the controller.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { setup } from './workstation.test-support.js';

describe('Workstation: measure actions', () => {
  it('reads measured methods out of the selected session\'s stream and asks the API to measure and revert', async () => {
    const { ws, api } = setup();
    await ws.sessions.launchDemo();
    const body = (...parts: Uint8Array[]): Uint8Array => {
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) { all.set(p, at); at += p.length; }
      return all;
    };
    const u32 = (v: number): Uint8Array => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v, true); return b; };
    const u64 = (v: number): Uint8Array => body(u32(v), u32(0));
    const str = (t: string): Uint8Array => { const b = new TextEncoder().encode(t); return body(u32(b.length), b); };
    const method = body(u32(1), u32(0), Uint8Array.of(2, 0), str('Demo.Orders.Place'), str('Demo.dll'), str(''));
    const figures = body(u64(5), u32(1), u64(7), u64(1), u64(700), u64(300), u64(0), Uint8Array.of(1, 0), Uint8Array.of(100, 0), u64(7), Uint8Array.of(0, 0));
    const stream = new WireEncoder().preamble().hello({ pid: 1, flags: 3, mono: 1, unixNs: 1n, intervalNs: 10_000_000, wallThreadsPerTick: 64, runtimeVersion: '10.0.12', profilerVersion: '0.1.0' })
      .raw(0x20, method).raw(0x21, figures).bytes();
    api.emit({ type: 'stream', sessionId: 's1', offset: 0, chunk: stream.slice(0, 40) });
    const before = ws.state.measureVersion;
    api.emit({ type: 'stream', sessionId: 's1', offset: 40, chunk: stream.slice(40) });
    assert.ok(ws.state.measureVersion > before);
    const [m] = ws.measurements.methods();
    assert.equal(m.name, 'Demo.Orders.Place');
    assert.equal(m.state, 'active');
    assert.equal(m.calls, 7);
    assert.equal(m.exceptions, 1);
    await ws.measure.measureMethod('Demo.Orders.Ship<System.Int32>');
    assert.deepEqual(api.measured, [{ sessionId: 's1', pattern: 'Demo.Orders.Ship<System.Int32>' }]);
    assert.equal(ws.state.tab, 'measure');
    assert.equal(ws.state.measureNotice, '1 method matches Demo.Orders.Ship<System.Int32>.');
    await ws.measure.revertMeasured(0);
    assert.equal(ws.state.measureNotice, 'reverted 2 methods.');
    // Another session starts with no measured methods.
    ws.select(null);
    assert.deepEqual(ws.measurements.methods(), []);
  });
});
