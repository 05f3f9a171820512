// Starting, opening and listing sessions (session-actions.ts), driven through the controller.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeTimers, settle } from './fake-timers.test-support.js';
import { Workstation } from './workstation.js';
import { session, FakeWorker, FakeApi, setup } from './workstation.test-support.js';

describe('Workstation: session actions', () => {
  it('opens on a recording that is already running (a reload, or npm start -- --demo)', async () => {
    const api = new FakeApi();
    api.listSessions = async () => [session('old', 'stopped'), session('live', 'recording')];
    const w = new Workstation({ api, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    w.start();
    await settle();
    assert.equal(w.state.selectedSessionId, 'live');
    assert.equal(w.state.tab, 'flame');
    assert.deepEqual(api.subscribed, ['live']);
  });

  it('opens a recording file: progress while it reads, then the session shown like any other', async () => {
    const { ws, api } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const open = api.openRecording;
    api.openRecording = async (request) => {
      await gate;
      return open(request);
    };
    api.history.f1 = [{ timeMs: 5, values: { gc: { genCollections0: 1 } } }];
    const done = ws.sessions.openRecording('/traces/app.nettrace');
    const jobId = ws.state.opening?.jobId ?? '';
    assert.match(jobId, /^open-\d+-[a-z0-9]+$/);
    assert.deepEqual(ws.state.opening, { path: '/traces/app.nettrace', jobId, cancelling: false, phase: 'reading', done: 0, total: 0 });
    api.emit({ type: 'open-progress', path: '/traces/other.nettrace', phase: 'reading', done: 1, total: 9 });
    api.emit({ type: 'open-progress', path: '/traces/app.nettrace', phase: 'preparing', done: 3, total: 10 });
    assert.deepEqual(ws.state.opening, { path: '/traces/app.nettrace', jobId, cancelling: false, phase: 'preparing', done: 3, total: 10 });
    release();
    await done;
    await settle();
    assert.equal(ws.state.opening, null);
    assert.equal(ws.state.selectedSessionId, 'f1');
    assert.equal(ws.state.tab, 'flame');
    assert.deepEqual(api.subscribed, ['f1']);
    assert.equal(ws.selectedSession()?.approximateCpu, true);
    assert.equal(ws.counters.points('f1').length, 1);
  });

  it('Cancel asks the main process to stop the open by its job id; the rejection that follows is no error', async () => {
    const { ws, api } = setup();
    let reject!: (e: Error) => void;
    const cancelled: string[] = [];
    api.openRecording = (request) => new Promise((_resolve, no) => { reject = no; assert.equal(request.jobId, ws.state.opening?.jobId); });
    api.cancelJob = async (jobId) => { cancelled.push(jobId); reject(new Error(`Opening /t/big.clrscope was cancelled.`)); };
    const done = ws.sessions.openRecording('/t/big.clrscope');
    const jobId = ws.state.opening?.jobId;
    await ws.sessions.cancelOpen();
    await done;
    assert.deepEqual(cancelled, [jobId]);
    assert.equal(ws.state.opening, null);
    assert.equal(ws.state.error, null);
    assert.equal(ws.state.selectedSessionId, null);
  });

  it('shows the API\'s sentence when a file cannot be opened, and offers a dialog only when the shell has one', async () => {
    const { ws, api } = setup();
    api.openRecording = async () => { throw new Error('Cannot read /t/x.clrscope: the clrscope file is truncated.'); };
    await ws.sessions.openRecording('/t/x.clrscope');
    assert.equal(ws.state.error, 'Cannot read /t/x.clrscope: the clrscope file is truncated.');
    assert.equal(ws.state.opening, null);
    assert.equal(ws.sessions.canChooseFile, false);
    const shell = new FakeApi();
    const asked: string[] = [];
    let answer: string | null = null;
    Object.assign(shell, { chooseRecordingFile: async () => answer });
    shell.openRecording = async (request) => { asked.push(request.path); return session('f2', 'stopped'); };
    const w = new Workstation({ api: shell, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    assert.equal(w.sessions.canChooseFile, true);
    await w.sessions.chooseAndOpenRecording();
    assert.deepEqual(asked, [], 'a cancelled dialog opens nothing');
    answer = '/t/y.pb.gz';
    await w.sessions.chooseAndOpenRecording();
    assert.deepEqual(asked, ['/t/y.pb.gz']);
  });

  it('shows the API\'s sentence when a launch fails', async () => {
    const { ws } = setup();
    const api = new FakeApi();
    api.launch = async () => { throw new Error('dotnet was not found on PATH.'); };
    const w = new Workstation({ api, startWorker: () => new FakeWorker(), timers: new FakeTimers() });
    await w.sessions.launch({ command: 'dotnet', args: [] });
    assert.equal(w.state.error, 'dotnet was not found on PATH.');
    assert.equal(ws.state.error, null);
  });
});
