import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeHresult, formatHresult, HRESULT, hresultInfo } from './hresults.js';

test('the values match the runtime headers', () => {
  // src/coreclr/inc/corerror.xml
  assert.equal(HRESULT.CORPROF_E_PROFILER_DETACHING, 0x80131367);
  assert.equal(HRESULT.CORPROF_E_PROFILER_NOT_ATTACHABLE, 0x80131368);
  assert.equal(HRESULT.CORPROF_E_PROFILER_ALREADY_ACTIVE, 0x8013136a);
  assert.equal(HRESULT.CORPROF_E_RUNTIME_UNINITIALIZED, 0x80131371);
  assert.equal(HRESULT.CORPROF_E_PROFILER_CANCEL_ACTIVATION, 0x80131375);
  assert.equal(HRESULT.CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC, 0x80131379);
  assert.equal(HRESULT.CORDIAGIPC_E_BAD_ENCODING, 0x80131384);
  assert.equal(HRESULT.CORDIAGIPC_E_UNKNOWN_COMMAND, 0x80131385);
  assert.equal(HRESULT.CORDIAGIPC_E_UNKNOWN_MAGIC, 0x80131386);
  assert.equal(HRESULT.CORDIAGIPC_E_UNKNOWN_ERROR, 0x80131387);
  // dotnet/runtime's src/native/eventpipe/ds-types.h
  assert.equal(HRESULT.CORPROF_E_NOT_YET_AVAILABLE, 0x8013135b);
  assert.equal(HRESULT.COR_E_NOTSUPPORTED, 0x80131515);
  assert.equal(HRESULT.E_FAIL, 0x80004005);
  assert.equal(HRESULT.E_INVALIDARG, 0x80070057);
});

test('known HRESULTs become a reason with the name and the value', () => {
  assert.equal(describeHresult(0x8013136a),
    'another profiler is already loaded in it (an APM agent, a debugger\'s profiler or clrscope itself), and a .NET process takes only one (CORPROF_E_PROFILER_ALREADY_ACTIVE, 0x8013136A)');
  assert.equal(describeHresult(0x80131385),
    'its runtime does not know this command (a .NET older than the command, or a runtime built without it) (CORDIAGIPC_E_UNKNOWN_COMMAND, 0x80131385)');
  assert.match(describeHresult(0x8007007e), /could not load the profiler library .* \(ERROR_MOD_NOT_FOUND, 0x8007007E\)$/);
  assert.match(describeHresult(0x80131368), /does not support attaching .* \(CORPROF_E_PROFILER_NOT_ATTACHABLE, 0x80131368\)$/);
  assert.match(describeHresult(0x80131379), /background garbage collection/);
  assert.match(describeHresult(0x80131371), /not finished starting, or is shutting down/);
});

test('signed values (as an int32 arrives in C#) mean the same', () => {
  assert.equal(hresultInfo(0x8013136a | 0)?.name, 'CORPROF_E_PROFILER_ALREADY_ACTIVE');
  assert.equal(formatHresult(-2146233494), '0x8013136A');
});

test('unknown HRESULTs are shown as numbers; Win32 ones with their error number', () => {
  assert.equal(describeHresult(0x80131234), 'error 0x80131234');
  assert.equal(describeHresult(0x80070002), 'error 0x80070002 (operating system error 2)');
  assert.equal(hresultInfo(0x12345678), undefined);
  assert.equal(formatHresult(0), '0x00000000');
});

test('every message is one clause: lower case start, no final period, no line breaks', () => {
  for (const value of Object.values(HRESULT)) {
    const info = hresultInfo(value);
    if (value === HRESULT.S_OK) { assert.equal(info, undefined); continue; }
    assert.ok(info !== undefined, formatHresult(value));
    assert.match(info.reason, /^[a-z]/, info.name);
    assert.doesNotMatch(info.reason, /\.$|\n/, info.name);
  }
});
