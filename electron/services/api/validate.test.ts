import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_EXTENSIONS, MAX_CLIPBOARD_CHARS, OPENABLE_EXTENSIONS, OPERATIONS } from '../../../structs/api/contract.js';
import { formatOfPath } from '../../../structs/formats/registry.js';
import { callOperation, errorSentence, type OperationTarget } from './dispatch.js';
import { ValidationError, describeValue, isOperation, validateCall, validateClipboardRequest } from './validate.js';
import { DEFAULT_FOLD } from '../../../structs/analysis/fold-options.js';

const known = { hasSession: (id: string) => id === 's1' };

function rejects(op: unknown, args: unknown, message: string | RegExp): void {
  assert.throws(() => validateCall(op, args, known), (err: unknown) => {
    assert.ok(err instanceof ValidationError, `a ValidationError, not ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    // One sentence: a capital letter first, one full stop at the end, no line breaks or stack.
    assert.match(err.message, /^[A-Z][^\n]*\.$/);
    return true;
  });
}

const launch = (fields: Record<string, unknown>): unknown[] => [{ command: 'dotnet', args: ['app.dll'], ...fields }];

test('the operation allowlist is the contract\'s OPERATIONS, nothing else', () => {
  for (const op of OPERATIONS) assert.equal(isOperation(op), true, op);
  for (const op of ['', 'onEvent', 'constructor', '__proto__', 'toString', 'shutdown', 'connect', 'LAUNCH', 'launch ', 42, null, undefined]) {
    assert.equal(isOperation(op), false, String(op));
  }
  rejects('shutdown', [], 'Unknown operation "shutdown".');
  rejects('__proto__', [], 'Unknown operation "__proto__".');
  rejects(7, [], 'Unknown operation 7.');
});

test('arguments must be a list with the operation\'s number of arguments', () => {
  rejects('listSessions', 'x', 'The arguments of listSessions must be a list, not "x".');
  rejects('listSessions', { 0: 1 }, 'The arguments of listSessions must be a list, not an object.');
  rejects('listSessions', [1], 'The operation listSessions takes no arguments, not 1.');
  rejects('launch', [], 'The operation launch takes one argument, not 0.');
  rejects('stop', ['s1', 's1'], 'The operation stop takes one argument, not 2.');
  // An omitted optional argument arrives as a trailing undefined over IPC: it does not count.
  assert.deepEqual(validateCall('listProcesses', [undefined], known), { op: 'listProcesses', args: [] });
  assert.deepEqual(validateCall('launchDemo', [], known), { op: 'launchDemo', args: [] });
});

test('bad pids are refused with one sentence', () => {
  rejects('attach', [{ pid: 0 }], 'The pid must be a positive whole number, not 0.');
  rejects('attach', [{ pid: -5 }], 'The pid must be a positive whole number, not -5.');
  rejects('attach', [{ pid: 12.5 }], 'The pid must be a positive whole number, not 12.5.');
  rejects('attach', [{ pid: '123' }], 'The pid must be a positive whole number, not "123".');
  rejects('attach', [{ pid: Number.NaN }], 'The pid must be a positive whole number, not NaN.');
  rejects('attach', [{ pid: Number.POSITIVE_INFINITY }], 'The pid must be a positive whole number, not Infinity.');
  rejects('attach', [{ pid: 2 ** 31 }], 'The pid must be a positive whole number, not 2147483648.');
  rejects('attach', [{}], 'The pid must be a positive whole number, not nothing.');
  rejects('attach', [{ pid: null }], 'The pid must be a positive whole number, not null.');
  rejects('attach', [123], 'The attach request must be an object, not 123.');
  rejects('attach', [[123]], 'The attach request must be an object, not a list.');
  rejects('attach', [{ pid: 1, intervalMs: 0 }], 'The sampling interval (intervalMs) must be a whole number from 1 to 1000, not 0.');
  rejects('attach', [{ pid: 1, wall: 'yes' }], 'The wall-time switch (wall) must be true or false, not "yes".');
  rejects('attach', [{ pid: 1, signal: 9 }], 'The attach request has an unknown field "signal".');
  assert.deepEqual(validateCall('attach', [{ pid: 4242, intervalMs: 5, wall: false }], known), { op: 'attach', args: [{ pid: 4242, intervalMs: 5, wall: false }] });
});

test("attach requests: async stacks left to the process's await rate (asyncAuto), or chosen, not both", () => {
  rejects('attach', [{ pid: 1, asyncAuto: 'yes' }], 'The automatic async call stacks switch (asyncAuto) must be true or false, not "yes".');
  rejects('attach', [{ pid: 1, asyncAuto: true, async: false }], "Async call stacks are either chosen (async) or left to the process's await rate (asyncAuto), not both.");
  rejects('launch', [{ command: 'dotnet', args: [], asyncAuto: true }], 'The launch request has an unknown field "asyncAuto".');
  assert.deepEqual(validateCall('attach', [{ pid: 7, asyncAuto: true }], known), { op: 'attach', args: [{ pid: 7, asyncAuto: true }] });
});

test('launch and attach requests: the allocations, locks and exceptions switches are true or false', () => {
  rejects('attach', [{ pid: 1, alloc: 1 }], 'The allocations switch (alloc) must be true or false, not 1.');
  rejects('attach', [{ pid: 1, locks: 'on' }], 'The lock waits switch (locks) must be true or false, not "on".');
  rejects('launch', launch({ exceptions: null }), 'The exceptions switch (exceptions) must be true or false, not null.');
  assert.deepEqual(validateCall('attach', [{ pid: 7, alloc: true, locks: false, exceptions: true }], known), { op: 'attach', args: [{ pid: 7, alloc: true, locks: false, exceptions: true }] });
  assert.deepEqual(validateCall('launch', launch({ alloc: true }), known), { op: 'launch', args: [{ command: 'dotnet', args: ['app.dll'], alloc: true }] });
});

test('launch requests: command, arguments, working directory and interval are checked', () => {
  rejects('launch', launch({ command: '' }), 'The command must not be empty.');
  rejects('launch', launch({ command: '   ' }), 'The command must not be empty.');
  rejects('launch', launch({ command: 42 }), 'The command must be text, not 42.');
  rejects('launch', launch({ command: 'dot\0net' }), 'The command must not contain a NUL character.');
  rejects('launch', launch({ command: 'x'.repeat(5000) }), 'The command is 5000 characters long; at most 4096 are allowed.');
  rejects('launch', launch({ args: 'app.dll' }), 'The program\'s arguments (args) must be a list of text, not "app.dll".');
  rejects('launch', launch({ args: undefined }), 'The program\'s arguments (args) must be a list of text, not nothing.');
  rejects('launch', launch({ args: ['ok', 3] }), 'Argument 2 of the program must be text, not 3.');
  rejects('launch', launch({ args: ['a\0b'] }), 'Argument 1 of the program must not contain a NUL character.');
  rejects('launch', launch({ args: ['x'.repeat(40000)] }), 'Argument 1 of the program is 40000 characters long; at most 32768 are allowed.');
  rejects('launch', launch({ args: new Array(1001).fill('a') }), 'The program has 1001 arguments; at most 1000 are allowed.');
  rejects('launch', launch({ args: new Array(10).fill('y'.repeat(30000)) }), 'The program\'s arguments add up to 300000 characters; at most 262144 are allowed.');
  rejects('launch', launch({ cwd: 'relative/dir' }), 'The working directory (cwd) must be an absolute path, not "relative/dir".');
  rejects('launch', launch({ cwd: '/tmp/a\0b' }), 'The working directory (cwd) must not contain a NUL character.');
  rejects('launch', launch({ cwd: '' }), 'The working directory (cwd) must not be empty.');
  rejects('launch', launch({ intervalMs: 1001 }), 'The sampling interval (intervalMs) must be a whole number from 1 to 1000, not 1001.');
  rejects('launch', launch({ intervalMs: 2.5 }), 'The sampling interval (intervalMs) must be a whole number from 1 to 1000, not 2.5.');
  rejects('launch', launch({ intervalMs: '10' }), 'The sampling interval (intervalMs) must be a whole number from 1 to 1000, not "10".');
  rejects('launch', launch({ children: 'yes' }), 'The child processes switch (children) must be true or false, not "yes".');
  rejects('launch', launch({ env: { X: '1' } }), 'The launch request has an unknown field "env".');
  rejects('launch', [null], 'The launch request must be an object, not null.');
  rejects('launch', [Object.create({ command: 'dotnet' })], 'The launch request must be a plain object.');
  // Empty arguments are legitimate ("" passed to a program); only the fields the contract has survive.
  const call = validateCall('launch', launch({ args: ['', 'b'], cwd: '/srv/app', intervalMs: 1, wall: true, children: true }), known);
  assert.deepEqual(call, { op: 'launch', args: [{ command: 'dotnet', args: ['', 'b'], cwd: '/srv/app', intervalMs: 1, wall: true, children: true }] });
});

test('session ids must name a known session', () => {
  rejects('stop', ['s9'], 'There is no session "s9".');
  rejects('subscribe', [''], 'The session id must not be empty.');
  rejects('subscribe', [1], 'The session id must be text, not 1.');
  rejects('stop', ['s'.repeat(101)], 'The session id is 101 characters long; at most 100 are allowed.');
  assert.deepEqual(validateCall('stop', ['s1'], known), { op: 'stop', args: ['s1'] });
});

test('subscribe takes an optional offset; closeSession a known session; unsubscribe any id', () => {
  assert.deepEqual(validateCall('subscribe', ['s1'], known), { op: 'subscribe', args: ['s1'] });
  assert.deepEqual(validateCall('subscribe', ['s1', 4096], known), { op: 'subscribe', args: ['s1', 4096] });
  assert.deepEqual(validateCall('subscribe', ['s1', undefined], known), { op: 'subscribe', args: ['s1'] });
  rejects('subscribe', ['s1', -1], 'The stream offset (fromOffset) must be a whole number from 0 to 9007199254740991, not -1.');
  rejects('subscribe', ['s1', 1.5], /^The stream offset \(fromOffset\) must be a whole number/);
  rejects('subscribe', ['s1', '10'], /^The stream offset \(fromOffset\) must be a whole number from 0 to \d+, not "10"\.$/);
  rejects('subscribe', ['s1', 0, 0], 'The operation subscribe takes one argument (and 1 optional), not 3.');
  rejects('subscribe', ['s9', 0], 'There is no session "s9".');
  assert.deepEqual(validateCall('closeSession', ['s1'], known), { op: 'closeSession', args: ['s1'] });
  rejects('closeSession', ['s9'], 'There is no session "s9".');
  rejects('closeSession', [], 'The operation closeSession takes one argument, not 0.');
  // A page may stop hearing a session another page closed meanwhile.
  assert.deepEqual(validateCall('unsubscribe', ['s9'], known), { op: 'unsubscribe', args: ['s9'] });
  rejects('unsubscribe', [{}], 'The session id must be text, not an object.');
});

test('export requests: a known session, a known format, an absolute path', () => {
  rejects('exportRecording', [{ sessionId: 's2', format: 'pprof' }], 'There is no session "s2".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'svg' }], 'The export format must be one of pprof, clrscope, speedscope, nettrace, etlx, collapsed, flame-html, flame-svg, not "svg".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'toString' }], 'The export format must be one of pprof, clrscope, speedscope, nettrace, etlx, collapsed, flame-html, flame-svg, not "toString".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'nettrace', path: '/tmp/out.pb.gz' }], 'The export path must end in .nettrace for the nettrace format, not "out.pb.gz".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', path: '/tmp/out.json' }], 'The export path must end in .pb.gz, .pb or .pprof for the pprof format, not "out.json".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', path: 'out.pb.gz' }], 'The export path must be an absolute path, not "out.pb.gz".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', path: '../../etc/passwd' }], 'The export path must be an absolute path, not "../../etc/passwd".');
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', path: '/tmp/x\0.pb.gz' }], 'The export path must not contain a NUL character.');
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', path: ['/tmp/x'] }], 'The export path must be text, not a list.');
  assert.deepEqual(validateCall('exportRecording', [{ sessionId: 's1', format: 'pprof', path: '/tmp/out.pb.gz' }], known), {
    op: 'exportRecording', args: [{ sessionId: 's1', format: 'pprof', path: '/tmp/out.pb.gz' }],
  });
});

test('every export format the contract lists is accepted, with a path in its own extension', () => {
  assert.deepEqual(Object.keys(EXPORT_EXTENSIONS), ['pprof', 'clrscope', 'speedscope', 'nettrace', 'etlx', 'collapsed', 'flame-html', 'flame-svg']);
  assert.deepEqual(Object.values(EXPORT_EXTENSIONS), ['.pb.gz', '.clrscope', '.speedscope.json', '.nettrace', '.etlx', '.collapsed', '.html', '.svg']);
  for (const [format, ext] of Object.entries(EXPORT_EXTENSIONS)) {
    const request = { sessionId: 's1', format, path: `/tmp/out${ext}` };
    assert.deepEqual(validateCall('exportRecording', [request], known), { op: 'exportRecording', args: [request] });
    assert.deepEqual(validateCall('exportRecording', [{ sessionId: 's1', format }], known), { op: 'exportRecording', args: [{ sessionId: 's1', format }] });
  }
});

test('open requests: an absolute path to an existing recording file, known by its content or its extension', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'clrscope-validate-open-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string): string => {
    writeFileSync(join(dir, name), 'x');
    return join(dir, name);
  };
  for (const name of ['a.clrscope', 'b.nettrace', 'c.pb.gz', 'd.pb', 'e.pprof', 'f.speedscope.json', 'G.NETTRACE']) {
    const path = file(name);
    assert.deepEqual(validateCall('openRecording', [{ path }], known), { op: 'openRecording', args: [{ path }] });
  }
  const known6 = '.clrscope, .nettrace, .speedscope.json, .pb.gz, .pb or .pprof';
  // What validation lets through, the file readers can read.
  for (const ext of OPENABLE_EXTENSIONS) assert.notEqual(formatOfPath(`/t/x${ext}`, 'read'), undefined, ext);
  rejects('openRecording', [{ path: 'traces/a.clrscope' }], 'The recording path must be an absolute path, not "traces/a.clrscope".');
  rejects('openRecording', [{ path: '' }], 'The recording path must not be empty.');
  rejects('openRecording', [{ path: 42 }], 'The recording path must be text, not 42.');
  rejects('openRecording', [{ path: ['/tmp/a.clrscope'] }], 'The recording path must be text, not a list.');
  rejects('openRecording', [{}], 'The recording path must be text, not nothing.');
  rejects('openRecording', [{ path: '/tmp/a\0.clrscope' }], 'The recording path must not contain a NUL character.');
  rejects('openRecording', ['/tmp/a.clrscope'], 'The open request must be an object, not "/tmp/a.clrscope".');
  rejects('openRecording', [{ path: file('a.clrscope'), format: 'nettrace' }], 'The open request has an unknown field "format".');
  // Named otherwise, a file is taken for what its content is (readers go by content first).
  const unknown = (name: string): string => `The file ${JSON.stringify(name)} is not a recording clrscope reads: its content is none of the formats it knows and its name does not end in ${known6}.`;
  rejects('openRecording', [{ path: file('notes.txt') }], unknown('notes.txt'));
  rejects('openRecording', [{ path: file('trace.json') }], unknown('trace.json'));
  rejects('openRecording', [{ path: file('x.etlx') }], unknown('x.etlx'));
  rejects('openRecording', [{ path: file('.clrscope') }], unknown('.clrscope'));
  for (const [name, head] of [['saved-run', 'CLRSCOPE'], ['trace.bin', 'Nettrace'], ['profile.json', '{"$schema":"https://www.speedscope.app/file-format-schema.json"}']]) {
    writeFileSync(join(dir, name), head);
    assert.deepEqual(validateCall('openRecording', [{ path: join(dir, name) }], known), { op: 'openRecording', args: [{ path: join(dir, name) }] }, name);
  }
  rejects('openRecording', [{ path: join(dir, 'missing.nettrace') }], `There is no file at ${join(dir, 'missing.nettrace')}.`);
  mkdirSync(join(dir, 'folder.clrscope'));
  rejects('openRecording', [{ path: join(dir, 'folder.clrscope') }], `The recording path ${join(dir, 'folder.clrscope')} is a folder, not a file.`);
  if (process.getuid?.() !== 0) {
    mkdirSync(join(dir, 'locked'));
    writeFileSync(join(dir, 'locked', 'r.clrscope'), 'x');
    chmodSync(join(dir, 'locked'), 0o000);
    t.after(() => chmodSync(join(dir, 'locked'), 0o700));
    rejects('openRecording', [{ path: join(dir, 'locked', 'r.clrscope') }], `Cannot read ${join(dir, 'locked', 'r.clrscope')}: permission denied.`);
  }
});

test('counters history asks for a known session', () => {
  rejects('countersHistory', ['s2'], 'There is no session "s2".');
  rejects('countersHistory', [], 'The operation countersHistory takes one argument, not 0.');
  assert.deepEqual(validateCall('countersHistory', ['s1'], known), { op: 'countersHistory', args: ['s1'] });
});

test('output history asks for a known session, by its id alone', () => {
  rejects('outputHistory', ['s2'], 'There is no session "s2".');
  rejects('outputHistory', [], 'The operation outputHistory takes one argument, not 0.');
  rejects('outputHistory', ['s1', 0], 'The operation outputHistory takes one argument, not 2.');
  rejects('outputHistory', [{ id: 's1' }], 'The session id must be text, not an object.');
  assert.deepEqual(validateCall('outputHistory', ['s1'], known), { op: 'outputHistory', args: ['s1'] });
});

test('values in messages are short and printable', () => {
  assert.equal(describeValue('a\nb\u0000c'), '"a?b?c"');
  assert.equal(describeValue('z'.repeat(100)), `"${'z'.repeat(40)}…"`);
  assert.equal(describeValue(() => 1), 'a function');
  assert.equal(describeValue(10n), '10');
});

test('callOperation validates before anything reaches the workstation', async () => {
  const calls: string[] = [];
  const target: OperationTarget = {
    listProcesses: async () => { calls.push('listProcesses'); return []; },
    listSessions: async () => { calls.push('listSessions'); return []; },
    launch: async (r) => { calls.push(`launch ${r.command}`); throw new Error('never'); },
    launchDemo: async () => { throw new Error('never'); },
    attach: async () => { throw new Error('never'); },
    stop: async () => { throw new Error('never'); },
    subscribe: async (id, from) => { calls.push(`subscribe ${id}${from === undefined ? '' : ` from ${from}`}`); },
    unsubscribe: async (id) => { calls.push(`unsubscribe ${id}`); },
    closeSession: async (id) => { calls.push(`closeSession ${id}`); },
    exportRecording: async () => { throw new Error('never'); },
    openRecording: async () => { throw new Error('never'); },
    cancelJob: async (id) => { calls.push(`cancelJob ${id}`); },
    measure: async (r) => { calls.push(`measure ${r.pattern}`); return { ok: true, matched: 1, message: 'm' }; },
    revertMeasure: async () => { throw new Error('never'); },
    setKeepWindow: async (r) => { calls.push(`setKeepWindow ${r.sessionId} ${r.keepMinutes}`); throw new Error('never'); },
    sourceLines: async (id) => { calls.push(`sourceLines ${id}`); return { frameIds: [], fileIndex: [], lines: [], files: [], notes: [] }; },
    sourceFile: async (r) => { calls.push(`sourceFile ${r.path} ${JSON.stringify(r.methods ?? null)}`); return { path: r.path, text: null, message: 'm', spans: [] }; },
    countersHistory: async (id) => { calls.push(`countersHistory ${id}`); return []; },
    outputHistory: async (id) => { calls.push(`outputHistory ${id}`); return { lines: [], droppedLines: 0, partial: { stdout: '', stderr: '' } }; },
    loadSettings: async () => { calls.push('loadSettings'); return { fold: DEFAULT_FOLD }; },
    saveSettings: async (s) => { calls.push(`saveSettings ${s.fold.myCode}`); },
    takeHeapSnapshot: async () => { throw new Error('never'); },
    openHeapSnapshot: async () => { throw new Error('never'); },
    listHeapSnapshots: async () => [],
    saveHeapSnapshot: async () => { throw new Error('never'); },
    closeHeapSnapshot: async () => { throw new Error('never'); },
    heapTypes: async () => { throw new Error('never'); },
    heapPaths: async () => { throw new Error('never'); },
    heapDominators: async () => { throw new Error('never'); },
  };
  await assert.rejects(callOperation(target, 'attach', [{ pid: -1 }], known), /^ValidationError: The pid must be a positive whole number, not -1\.$/);
  await assert.rejects(callOperation(target, 'launch', [{ command: '', args: [] }], known), ValidationError);
  await assert.rejects(callOperation(target, 'openRecording', [{ path: 'relative.clrscope' }], known), ValidationError);
  await assert.rejects(callOperation(target, 'outputHistory', ['s9'], known), /^ValidationError: There is no session "s9"\.$/);
  await assert.rejects(callOperation(target, 'sourceLines', ['s9'], known), /^ValidationError: There is no session "s9"\.$/);
  await assert.rejects(callOperation(target, 'sourceLines', [7], known), ValidationError);
  // A source file request: a known session, a path of text, at most 64 methods of whole numbers, nothing else.
  const file = (r: unknown): Promise<unknown> => callOperation(target, 'sourceFile', [r], known);
  await assert.rejects(file({ sessionId: 's9', path: '/a.cs' }), /^ValidationError: There is no session "s9"\.$/);
  await assert.rejects(file({ sessionId: 's1', path: 7 }), /^ValidationError: The source file path must be text, not 7\.$/);
  await assert.rejects(file({ sessionId: 's1', path: '' }), /must not be empty/);
  await assert.rejects(file({ sessionId: 's1', path: '/a\u0000.cs' }), /NUL/);
  await assert.rejects(file({ sessionId: 's1', path: `/${'a'.repeat(5000)}` }), /at most 4096/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', extra: 1 }), /unknown field "extra"/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', methods: 'all' }), /must be a list/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', methods: Array(65).fill({ moduleId: 1, token: 0x06000001 }) }), /65 methods; at most 64/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', methods: [{ moduleId: 1, token: 5 }] }), /token must be a whole number from 100663297/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', methods: [{ moduleId: -1, token: 0x06000001 }] }), /module id/);
  await assert.rejects(file({ sessionId: 's1', path: '/a.cs', methods: [{ moduleId: 1, token: 0x06000001, x: 1 }] }), /unknown field "x"/);
  await assert.rejects(callOperation(target, 'sourceFile', [{ sessionId: 's1', path: '/a.cs' }, 2], known), /takes one argument/);
  assert.deepEqual(calls, []);
  await file({ sessionId: 's1', path: '/a.cs', methods: [{ moduleId: 1, token: 0x06000002 }] });
  assert.deepEqual(calls, ['sourceFile /a.cs [{"moduleId":1,"token":100663298}]']);
  calls.length = 0;
  assert.deepEqual((await callOperation(target, 'sourceLines', ['s1'], known) as { frameIds: number[] }).frameIds, []);
  assert.deepEqual(await callOperation(target, 'countersHistory', ['s1'], known), []);
  assert.deepEqual((await callOperation(target, 'outputHistory', ['s1'], known) as { droppedLines: number }).droppedLines, 0);
  calls.length = 0;
  assert.deepEqual(await callOperation(target, 'listSessions', [], known), []);
  assert.equal(await callOperation(target, 'subscribe', ['s1'], known), undefined);
  await callOperation(target, 'subscribe', ['s1', 12], known);
  await callOperation(target, 'unsubscribe', ['s2'], known);
  await callOperation(target, 'closeSession', ['s1'], known);
  assert.deepEqual(calls, ['listSessions', 'subscribe s1', 'subscribe s1 from 12', 'unsubscribe s2', 'closeSession s1']);
  // A job's name: letters, digits, - and _, at most 64; in an open or export request too.
  calls.length = 0;
  await assert.rejects(callOperation(target, 'cancelJob', ['a b'], known), /^ValidationError: A job id must be 1 to 64 letters/);
  await assert.rejects(callOperation(target, 'cancelJob', ['x'.repeat(65)], known), /A job id/);
  await assert.rejects(callOperation(target, 'openRecording', [{ path: '/tmp/x.clrscope', jobId: 7 }], known), /A job id/);
  await assert.rejects(callOperation(target, 'exportRecording', [{ sessionId: 's1', format: 'pprof', jobId: '' }], known), /A job id/);
  await assert.rejects(callOperation(target, 'takeHeapSnapshot', [{ sessionId: 's1', jobId: 'a/b' }], known), /A job id/);
  await callOperation(target, 'cancelJob', ['open-1_a'], known);
  assert.deepEqual(calls, ['cancelJob open-1_a']);
});

test('settings and an export\'s folding are checked field by field', async () => {
  const fold = { runtime: true, myCode: true, groupBy: 'namespace', patterns: [{ action: 'fold', glob: 'System.Linq.*' }] };
  assert.deepEqual(validateCall('saveSettings', [{ fold }], known), { op: 'saveSettings', args: [{ fold }] });
  assert.deepEqual(validateCall('loadSettings', [], known), { op: 'loadSettings', args: [] });
  rejects('saveSettings', [{ fold, theme: 'dark' }], 'The settings has an unknown field "theme".');
  rejects('saveSettings', [{ fold: { ...fold, groupBy: 'module' } }], 'The folding option groupBy must be none, assembly or namespace.');
  rejects('saveSettings', [{ fold: { ...fold, patterns: [{ action: 'hide', glob: 'x' }] } }], 'A folding pattern\'s action must be fold or group.');
  rejects('saveSettings', [{ fold: { ...fold, patterns: 'System.*' } }], 'The folding patterns must be a list.');
  rejects('saveSettings', [], 'The operation saveSettings takes one argument, not 0.');
  assert.deepEqual(validateCall('exportRecording', [{ sessionId: 's1', format: 'pprof', fold }], known), { op: 'exportRecording', args: [{ sessionId: 's1', format: 'pprof', fold }] });
  rejects('exportRecording', [{ sessionId: 's1', format: 'pprof', fold: { runtime: 'yes' } }], 'The folding option runtime must be true or false.');
});

test('errorSentence gives the renderer a sentence', () => {
  assert.equal(errorSentence(new Error('Command not found: foo.')), 'Command not found: foo.');
  assert.equal(errorSentence(new Error('socket hang up')), 'socket hang up.');
  assert.equal(errorSentence('plain'), 'plain.');
  assert.equal(errorSentence(new Error('')), 'The operation failed for an unknown reason.');
});

test('launch and attach take the minutes the views keep, 1 to 1440; setKeepWindow a known session and minutes or null', () => {
  assert.deepEqual(validateCall('launch', launch({ keepMinutes: 10 }), known), { op: 'launch', args: [{ command: 'dotnet', args: ['app.dll'], keepMinutes: 10 }] });
  assert.deepEqual(validateCall('attach', [{ pid: 7, keepMinutes: 1440 }], known), { op: 'attach', args: [{ pid: 7, keepMinutes: 1440 }] });
  rejects('launch', launch({ keepMinutes: 0 }), 'The minutes the views keep (keepMinutes) must be a whole number from 1 to 1440, not 0.');
  rejects('attach', [{ pid: 7, keepMinutes: 2.5 }], 'The minutes the views keep (keepMinutes) must be a whole number from 1 to 1440, not 2.5.');
  rejects('attach', [{ pid: 7, keepMinutes: null }], /keepMinutes\) must be a whole number/);
  assert.deepEqual(validateCall('setKeepWindow', [{ sessionId: 's1', keepMinutes: 5 }], known), { op: 'setKeepWindow', args: [{ sessionId: 's1', keepMinutes: 5 }] });
  assert.deepEqual(validateCall('setKeepWindow', [{ sessionId: 's1', keepMinutes: null }], known), { op: 'setKeepWindow', args: [{ sessionId: 's1', keepMinutes: null }] });
  rejects('setKeepWindow', [{ sessionId: 's2', keepMinutes: 5 }], 'There is no session "s2".');
  rejects('setKeepWindow', [{ sessionId: 's1' }], /keepMinutes\) must be a whole number from 1 to 1440, not nothing/);
  rejects('setKeepWindow', [{ sessionId: 's1', keepMinutes: 5, all: true }], 'The kept window request has an unknown field "all".');
  rejects('setKeepWindow', [{ sessionId: 's1', keepMinutes: 1441 }], /not 1441\.$/);
});

test('launch and attach take an async call stacks switch, a boolean', () => {
  assert.deepEqual(validateCall('launch', launch({ async: true }), known), { op: 'launch', args: [{ command: 'dotnet', args: ['app.dll'], async: true }] });
  assert.deepEqual(validateCall('attach', [{ pid: 7, async: false }], known), { op: 'attach', args: [{ pid: 7, async: false }] });
  rejects('launch', launch({ async: 'yes' }), /The async call stacks switch \(async\)/);
  rejects('attach', [{ pid: 7, async: 1 }], /The async call stacks switch \(async\)/);
});

test('launch and attach say where async call stacks come from: events or heap, only with async on', () => {
  assert.deepEqual(validateCall('launch', launch({ async: true, asyncSource: 'heap' }), known), { op: 'launch', args: [{ command: 'dotnet', args: ['app.dll'], async: true, asyncSource: 'heap' }] });
  assert.deepEqual(validateCall('attach', [{ pid: 7, async: true, asyncSource: 'events' }], known), { op: 'attach', args: [{ pid: 7, async: true, asyncSource: 'events' }] });
  rejects('attach', [{ pid: 7, async: true, asyncSource: 'stack' }], "Async call stacks come from 'events' or 'heap', not \"stack\".");
  rejects('launch', launch({ asyncSource: 'heap' }), 'Where async call stacks come from (asyncSource) is said only with async: true.');
  rejects('attach', [{ pid: 7, async: false, asyncSource: 'heap' }], 'Where async call stacks come from (asyncSource) is said only with async: true.');
});

test('heap operations: only known snapshots, whole numbers in range, .clrheap to save, a baseline other than the snapshot', () => {
  const heaps = { hasSession: (id: string) => id === 's1', hasHeapSnapshot: (id: string) => id === 'h1' || id === 'h2' };
  const rejects = (op: string, args: unknown[], message: string): void => {
    assert.throws(() => validateCall(op, args, heaps), (e: Error) => e instanceof ValidationError && e.message === message);
  };
  assert.deepEqual(validateCall('takeHeapSnapshot', [{ sessionId: 's1' }], heaps), { op: 'takeHeapSnapshot', args: [{ sessionId: 's1' }] });
  rejects('takeHeapSnapshot', [{ sessionId: 's2' }], 'There is no session "s2".');
  rejects('takeHeapSnapshot', [{ sessionId: 's1', pid: 1 }], 'The heap snapshot request has an unknown field "pid".');
  assert.deepEqual(validateCall('heapTypes', [{ snapshotId: 'h2', baselineId: 'h1' }], heaps), { op: 'heapTypes', args: [{ snapshotId: 'h2', baselineId: 'h1' }] });
  rejects('heapTypes', [{ snapshotId: 'h3' }], 'There is no heap snapshot "h3".');
  rejects('heapTypes', [{ snapshotId: 'h1', baselineId: 'h1' }], 'A heap snapshot is compared with another snapshot, not with itself.');
  rejects('heapDominators', [{ snapshotId: 'h1', node: -2, limit: 10 }], 'The object (node) must be a whole number from -1 to 2147483646, not -2.');
  rejects('heapDominators', [{ snapshotId: 'h1', node: 0, limit: 5000 }], 'The most children (limit) must be a whole number from 1 to 1000, not 5000.');
  rejects('heapPaths', [{ snapshotId: 'h1', type: '' }], 'The type name must not be empty.');
  rejects('saveHeapSnapshot', [{ snapshotId: 'h1', path: '/tmp/x.gcdump' }], 'A heap snapshot is saved as a .clrheap file, not "x.gcdump".');
  rejects('saveHeapSnapshot', [{ snapshotId: 'h1', path: 'x.clrheap' }], 'The heap snapshot path must be an absolute path, not "x.clrheap".');
  rejects('openHeapSnapshot', [{ path: '/nonexistent/a.gcdump' }], 'There is no file at /nonexistent/a.gcdump.');
  rejects('openHeapSnapshot', [{ path: '/tmp' }], 'The heap snapshot path /tmp is not a regular file.');
  rejects('closeHeapSnapshot', ['h9'], 'There is no heap snapshot "h9".');
  // A context that holds no heap snapshots (an adapter's own) knows none.
  assert.throws(() => validateCall('heapTypes', [{ snapshotId: 'h1' }], known), /There is no heap snapshot "h1"\./);
});

test('the shell\'s copyToClipboard takes text within its limit, and an SVG only when the text is one', () => {
  const svg = '<?xml version="1.0" standalone="no"?>\n<svg version="1.1" width="1200"></svg>\n';
  assert.deepEqual(validateClipboardRequest({ text: svg, svg: true }), { text: svg, svg: true });
  assert.deepEqual(validateClipboardRequest({ text: 'plain', svg: false }), { text: 'plain' });
  const bad = (value: unknown, message: RegExp): void => {
    assert.throws(() => validateClipboardRequest(value), (err: unknown) => err instanceof ValidationError && message.test(err.message) && /^[A-Z][^\n]*\.$/.test(err.message));
  };
  bad({ text: 'not a picture', svg: true }, /is not an SVG document/);
  bad({ text: '<html><svg></svg></html>', svg: true }, /is not an SVG document/);
  bad({ text: 'x'.repeat(MAX_CLIPBOARD_CHARS + 1) }, /at most/);
  bad({ text: 42 }, /must be text/);
  bad({ text: 'a', path: '/etc/passwd' }, /unknown field/);
  bad({ text: 'a', svg: 'yes' }, /true or false/);
  bad('text', /must be an object/);
});
