// A real recording open in the workstation in Chromium, for the tests that look at every tab
// (workstation-screens, workstation-contrast): Scenarios' gc-churn with allocations on, recorded,
// saved and opened through the page's own Open form.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { saveRecording } from '../../../structs/formats/clrscope-file/save-recording.js';
import type { Recording } from '../../../structs/profile/recording.js';
import { PROFILER, ROOT } from './paths.js';
import { recordTarget } from './record-target.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './workstation-in-chromium.js';
import { appState, hookReady, missingForPage, until } from './workstation-page.js';

const SCENARIOS = join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll');

/** What such a test needs and this machine lacks (empty: nothing). */
export function missingForChurn(): string[] {
  const missing = missingForPage();
  if (!existsSync(PROFILER)) missing.push('the profiler library (npm run build:native)');
  if (!existsSync(SCENARIOS)) missing.push('Scenarios.dll (npm run build:targets)');
  return missing;
}

export interface ChurnInWorkstation {
  ui: WorkstationInChromium;
  page: Page;
  rec: Recording;
  close(): Promise<void>;
}

/** Records gc-churn and opens it in a fresh workstation page; `prefix` names its temporary folder. */
export async function churnInWorkstation(prefix: string): Promise<ChurnInWorkstation> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, CLRSCOPE_ALLOC: '1', DOTNET_gcServer: '0', DOTNET_gcConcurrent: '0', DOTNET_GCgen0size: '0x400000' };
  const rec = (await recordTarget(SCENARIOS, ['gc-churn', '--seconds', '2'], { env })).rec;
  const file = join(dir, 'gc-churn.clrscope');
  writeFileSync(file, saveRecording(rec));
  const ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports') });
  const page = ui.page;
  await page.goto(`${ui.server.url}&test`);
  await hookReady(page);
  await page.getByTestId('recording-open').click();
  await page.getByTestId('open-path').fill(file);
  await page.getByTestId('open-submit').click();
  await until('the recording', () => appState(page), (s) => s.summary !== null && s.summary.ended && s.summary.sampleCount === rec.sampleCount, 60000);
  return {
    ui, page, rec,
    close: async () => {
      await ui.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
