// What the workstation page and its analysis worker hold in JavaScript, read over the DevTools
// protocol (the worker through the browser's own target): the V8 heap in use, the heap's size
// (in use plus garbage not yet collected) and the array buffers' backing stores (sample columns,
// sums, stream bytes). Shared by the benchmarks that watch the page's memory.

/** The page's and its worker's heaps; `collect` first runs a collection in each (figures of what is live). */
export async function pageHeaps(browser, page, { collect = true } = {}) {
  const out = { pageJs: -1, workerJs: -1, workerHeap: -1, workerBuffers: -1 };
  try {
    const own = await page.context().newCDPSession(page);
    if (collect) await own.send('HeapProfiler.collectGarbage');
    out.pageJs = (await own.send('Runtime.getHeapUsage')).usedSize;
    await own.detach();
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    const worker = targetInfos.find((t) => t.type === 'worker');
    if (worker !== undefined) {
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
      let next = 1;
      const ask = (method) => new Promise((done) => {
        const id = next++;
        const hear = (ev) => {
          const m = JSON.parse(ev.message);
          if (m.id !== id) return;
          cdp.off('Target.receivedMessageFromTarget', hear);
          done(m.result ?? {});
        };
        cdp.on('Target.receivedMessageFromTarget', hear);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) });
      });
      if (collect) await ask('HeapProfiler.collectGarbage');
      const usage = await ask('Runtime.getHeapUsage');
      out.workerJs = usage.usedSize ?? -1;
      out.workerHeap = usage.totalSize ?? -1;
      out.workerBuffers = usage.backingStorageSize ?? -1;
      await cdp.send('Target.detachFromTarget', { sessionId });
    }
    await cdp.detach();
  } catch (err) {
    out.error = String(err).slice(0, 120);
  }
  return out;
}
