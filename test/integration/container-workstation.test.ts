// The workstation and a .NET process in a container (issue 29): its process list, the same
// service `clrscope ps` uses, gives the process with its host pid and its pid inside; the picker
// in Chromium shows which container and attaches to it; the session records Heavy as the hottest
// method under the host pid, and stopping it leaves the program running with nothing of
// clrscope's in its /tmp. The target is made by test/integration/support/in-container.ts.
//
// Without Chromium or the built renderer the page part is skipped with a message saying what is
// missing (the service part still runs), except under CI, where that is a failure.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProcessInfo, SessionInfo } from '../../structs/api/contract.js';
import { recordingFromStream } from '../../structs/profile/recording-from-stream.js';
import { topMethods } from '../../structs/profile/top-methods.js';
import { startBrowserMode, type BrowserMode } from '../../electron/browser-mode/server.js';
import { processAlive } from '../../electron/services/recording/profiled-attach.js';
import { createWorkstationService, type WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { BrowserModeClient } from './support/browser-mode-client.js';
import { clrscopeLeftovers, startInContainer, unshareWorks, type ContainedTarget } from './support/in-container.js';
import { PROFILER, targetDll } from './support/paths.js';
import { hookReady, missingForPage, openPage, RENDERER, until } from './support/workstation-page.js';

const HEAVY = 'Clrscope.Targets.Scenarios.CpuWork.Heavy';
const skip = unshareWorks() ? false : 'unshare cannot make mount and pid namespaces here (needs root)';
const missing = missingForPage();
const noPage = missing.length > 0 && !process.env.CI;
if (noPage) process.stderr.write(`container-workstation: page checks SKIPPED, missing: ${missing.join('; ')}\n`);

describe('the workstation and a .NET process in a container', { skip, timeout: 240000 }, () => {
  let workstation: WorkstationService;
  let server: BrowserMode;
  let client: BrowserModeClient;
  let dir: string;
  let target: ContainedTarget;

  before(async () => {
    if (missing.length > 0 && !noPage) assert.fail(`CI is set and the container-workstation page checks lack: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-ws-container-'));
    workstation = createWorkstationService({ libraryPath: PROFILER, exportsDir: join(dir, 'exports') });
    server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    client = await BrowserModeClient.connect(server.wsUrl, server.token);
    target = await startInContainer(targetDll('Scenarios'), ['cpu-ratio', '--seconds', '120']);
  });

  after(async () => {
    target?.kill();
    client?.close();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('lists it with both pids, the picker shows its container and attaches; the session records Heavy under the host pid', async () => {
    const listed = (await client.call<ProcessInfo[]>('listProcesses')).find((p) => p.pid === target.hostPid);
    assert.deepEqual(listed && { attachable: listed.attachable, eventPipeOnly: listed.eventPipeOnly, inside: listed.container?.pid }, { attachable: true, eventPipeOnly: false, inside: 1 });

    let session: SessionInfo;
    if (noPage) {
      session = await client.call<SessionInfo>('attach', { pid: target.hostPid, intervalMs: 5 });
    } else {
      const { browser, page } = await openPage();
      try {
        await page.goto(`${server.url}&test`);
        await hookReady(page);
        const row = page.locator(`[data-testid="process-row"][data-pid="${target.hostPid}"]`);
        await row.waitFor({ timeout: 20000 });
        assert.match(await row.locator('[data-testid="process-container"]').innerText(), / · pid 1$/);
        await row.locator('[data-testid="process-attach"]').click();
        const sessions = await until('the picker\'s session', () => client.call<SessionInfo[]>('listSessions'), (list) => list.some((s) => s.pid === target.hostPid && s.state === 'recording'), 30000);
        session = sessions.find((s) => s.pid === target.hostPid) as SessionInfo;
        // The status bar says both pids: the host's first, as the session has it.
        const pidText = await until('the status bar\'s pid', () => page.getByTestId('status-pid').count().then((n) => (n === 0 ? '' : page.getByTestId('status-pid').innerText())), (t) => t !== '', 30000);
        assert.equal(pidText, `pid ${target.hostPid} (pid 1 in its container)`);
      } finally {
        await browser.close();
      }
    }
    assert.equal(session.pid, target.hostPid, 'the host pid, not the pid inside');
    assert.equal(session.approximateCpu, false, 'clrscope\'s own profiler, not EventPipe');
    await client.call('subscribe', session.id);
    await client.until('the stream arriving', () => (client.bytes(session.id).length > 0 ? true : undefined), 30000);
    await new Promise((r) => setTimeout(r, 5000));
    await client.call<SessionInfo>('stop', session.id);
    await client.until('the stopped session\'s stream', () => (client.lastSession(session.id)?.state === 'stopped' ? true : undefined), 30000);
    const rec = recordingFromStream([client.bytes(session.id)]);
    const top = topMethods(rec, 'cpu', 5);
    assert.equal(top.find((m) => m.name.startsWith('Clrscope.'))?.name, HEAVY, JSON.stringify(top));
    // Stopped: the program runs on, and the folder clrscope placed in its /tmp went with the session.
    assert.ok(processAlive(target.hostPid));
    const deadline = Date.now() + 10000;
    const leftovers = (): string[] => clrscopeLeftovers(target.hostPid);
    while (leftovers().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(leftovers(), []);
  });
});
