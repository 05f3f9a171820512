import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesToGuid, guidToBytes } from './guid.js';
import { DiagnosticsProtocolError } from './diagnostics-protocol-error.js';

test('GUID text to bytes in Guid.ToByteArray() order', () => {
  // .NET: new Guid("00112233-4455-6677-8899-aabbccddeeff").ToByteArray()
  assert.deepEqual(Array.from(guidToBytes('00112233-4455-6677-8899-aabbccddeeff')),
    [0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
  // clrscope's CLSID, as native-profiler/shim/clsid.h and CORECLR_PROFILER spell it
  assert.deepEqual(Array.from(guidToBytes('{03FD9B91-24D7-4053-BF50-EAA94807A91B}')),
    [0x91, 0x9b, 0xfd, 0x03, 0xd7, 0x24, 0x53, 0x40, 0xbf, 0x50, 0xea, 0xa9, 0x48, 0x07, 0xa9, 0x1b]);
});

test('bytes to .NET Guid.ToString() text, and back', () => {
  const bytes = Uint8Array.from([0x91, 0x9b, 0xfd, 0x03, 0xd7, 0x24, 0x53, 0x40, 0xbf, 0x50, 0xea, 0xa9, 0x48, 0x07, 0xa9, 0x1b]);
  assert.equal(bytesToGuid(bytes), '03fd9b91-24d7-4053-bf50-eaa94807a91b');
  assert.deepEqual(guidToBytes(bytesToGuid(bytes)), bytes);
});

test('malformed GUIDs are refused', () => {
  for (const bad of ['', '03FD9B91', '{03FD9B91-24D7-4053-BF50-EAA94807A91B', '03FD9B91-24D7-4053-BF50-EAA94807A91B}', '03FD9B9124D74053BF50EAA94807A91B', '{03FD9B91-24D7-4053-BF50-EAA94807A91G}']) {
    assert.throws(() => guidToBytes(bad), DiagnosticsProtocolError, bad);
  }
  assert.throws(() => bytesToGuid(new Uint8Array(15)), /16 bytes, not 15/);
});
