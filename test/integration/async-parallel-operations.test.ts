// Parallel stacks per logical operation (issue 14), in the workstation in Chromium: AsyncChain's
// `requests` mode launched with "async stacks" serves requests from 4 clients, each request
// Handler → Service awaiting Task.Delay(200) between two bits of CPU, so at almost every moment
// the 4 requests sit suspended in the delay and no thread's stack shows them. The Parallel tab's
// "Async operations" shows them where they wait: one block [await] Handler → [await] Service →
// [suspended] → [awaiting Task.Delay] counting the operations there, never more than the 4 the
// program runs at once, and 4 on most refreshes (a request is counted from the tick after its
// operation began, and each spends ~1 ms of its 200 on CPU). "Threads" gives the threads' stacks
// back, where no [await] frame is.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { startBrowserMode } from '../../electron/browser-mode/server.js';
import { createWorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { PROFILER, targetDll } from './support/paths.js';
import { appState, checkedScreenshot, hookReady, missingForPage, openPage, parallelNodes, RENDERER, until, type HookParallelNode } from './support/workstation-page.js';

const dir = mkdtempSync(join(tmpdir(), 'clrscope-async-parallel-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const CLIENTS = 4;
const awaitOf = (method: string): RegExp => new RegExp(`^\\[await\\] (\\S+\\.)?Requests\\.${method}$`);

function missingPrerequisites(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  if (!existsSync(targetDll('AsyncChain'))) missing.push('AsyncChain.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) missing.push('dotnet on PATH');
  return missing;
}
const missing = missingPrerequisites();

/** The node of `[awaiting Task.Delay]` under [suspended] under Service under Handler, or undefined. */
function delayNode(nodes: readonly HookParallelNode[]): HookParallelNode | undefined {
  const path = (n: HookParallelNode): string[] => {
    const out: string[] = [];
    for (let i = n.index; i > 0; i = nodes[i].parent) out.unshift(nodes[i].label);
    return out;
  };
  return nodes.find((n) => {
    if (n.label !== '[awaiting Task.Delay]') return false;
    // Client, the loop awaiting each request, above Handler.
    const p = path(n).slice(-4);
    return p.length === 4 && awaitOf('Handler').test(p[0]) && awaitOf('Service').test(p[1]) && p[2] === '[suspended]';
  });
}

describe('parallel stacks per async operation (workstation, Chromium)', { skip: missing.length > 0 && !process.env.CI ? `missing: ${missing.join('; ')}` : false }, () => {
  it(`"Async operations" shows the ${CLIENTS} requests suspended in Task.Delay under Handler → Service, counted; "Threads" gives the threads back`, { timeout: 180000 }, async (t) => {
    const workstation = createWorkstationService({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    const server = await startBrowserMode({ workstation, rendererDir: RENDERER });
    const { browser, page, errors } = await openPage();
    try {
      await page.goto(`${server.url}&test`);
      await hookReady(page);
      await page.getByTestId('tab-processes').click();
      if (await page.getByTestId('launch-form').count() === 0) await page.getByTestId('launch-open').click();
      await page.getByTestId('launch-command').fill('dotnet');
      await page.getByTestId('launch-args').fill(`${targetDll('AsyncChain')} requests --count 100000 --parallel ${CLIENTS} --delay-ms 200 --work-us 500`);
      await page.getByTestId('launch-async').selectOption('events');
      await page.getByTestId('launch-submit').click();
      await until('samples with async stacks', () => appState(page), (s) => (s.summary?.sampleCount ?? 0) > 100 && s.error === null, 60000);

      await page.getByTestId('tab-parallel').click();
      await page.getByTestId('parallel-by-operations').click();
      // Several refreshes (the view re-queries live): the count there, never above what the program runs at once.
      const counts: number[] = [];
      const shown = async (): Promise<string> => (await parallelNodes(page)).slice(0, 40).map((n) => `${'  '.repeat(n.depth)}${n.label} ${n.total}`).join('\n');
      await until(`${CLIENTS} operations in Task.Delay under Handler → Service, on 5 looks`, async () => {
        const node = delayNode(await parallelNodes(page));
        if (node !== undefined) counts.push(node.total);
        return counts;
      }, (c) => c.filter((n) => n === CLIENTS).length >= 5, 60000, 300).catch(async (err: unknown) => {
        throw new Error(`${err instanceof Error ? err.message : String(err)}; the view shows:\n${await shown()}`);
      });
      t.diagnostic(`operations in Task.Delay per refresh: ${counts.join(', ')}`);
      assert.ok(counts.every((n) => n >= 1 && n <= CLIENTS), counts.join(', '));
      // The block says so in words, and nothing in this view is a thread's physical pool frames.
      const nodes = await parallelNodes(page);
      assert.ok(!nodes.some((n) => /ThreadPoolWorkQueue\.Dispatch|PortableThreadPool/.test(n.label)), 'no pool plumbing: operations are rooted at their awaiters');
      const labels = await page.getByTestId('pstack-operation-count').allInnerTexts();
      assert.ok(labels.some((l) => /^[1-4] operations?$/.test(l.trim())), labels.join(' | '));
      assert.match(await page.getByTestId('parallel-operation-count').innerText(), /^\d+ operations$/);
      await checkedScreenshot(page, 'parallel-operations');

      await page.getByTestId('parallel-by-threads').click();
      const threads = await until('threads\' stacks again', () => parallelNodes(page), (n) => n.length > 1 && n[0].threads.length > 0);
      assert.ok(!threads.some((n) => n.label.startsWith('[await]')), 'the threads view has physical stacks');
      await page.getByTestId('session-stop').click();
      await until('the session to stop', () => appState(page), (s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'stopped', 30000);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
      await workstation.shutdown();
    }
  });
});
