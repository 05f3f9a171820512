import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { encodeDisablePerfMapRequest, encodeEnablePerfMapRequest } from '../../../structs/diagnostics/codec.js';
import { launchPerfMap } from './perf-map.js';

test('a launch writes the perf map into a directory of its own, removed at the end', () => {
  const m = launchPerfMap({ PATH: '/usr/bin' });
  const dir = m.env.DOTNET_PerfMapJitDumpPath;
  assert.equal(m.env.DOTNET_PerfMapEnabled, '3');
  assert.equal(m.env.CLRSCOPE_PERF_MAP, '1');
  assert.ok(dir !== undefined && existsSync(dir));
  assert.equal(statSync(dir).mode & 0o777, 0o700, 'only its owner can read the method names');
  m.cleanup();
  assert.ok(!existsSync(dir));
});

test('a program that asks for its own perf map keeps it', () => {
  assert.deepEqual(launchPerfMap({ DOTNET_PerfMapEnabled: '1' }).env, {});
  assert.deepEqual(launchPerfMap({ COMPlus_PerfMapEnabled: '3' }).env, {});
});

test('EnablePerfMap and DisablePerfMap are process commands 5 and 6', () => {
  const enable = encodeEnablePerfMapRequest(3);
  assert.equal(enable.length, 24);
  assert.equal(new TextDecoder().decode(enable.subarray(0, 13)), 'DOTNET_IPC_V1');
  assert.deepEqual([...enable.subarray(14)], [24, 0, 0x04, 0x05, 0, 0, 3, 0, 0, 0]);
  assert.deepEqual([...encodeDisablePerfMapRequest().subarray(14)], [20, 0, 0x04, 0x06, 0, 0]);
});
