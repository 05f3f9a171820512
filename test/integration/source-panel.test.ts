// The source panel ("Goto source") end to end, in real Chromium on a real recording: Scenarios
// hot-line, whose HotLineWork.Mix spends nearly all its CPU on the line marked `// HOT LINE`
// (found by the marker), built with its portable PDB. The Source view must show HotLine.cs
// scrolled to that line, hottest and heat-coloured, with the figures `clrscope report --source`
// prints; the lines outside Mix dimmed. A second recording runs a copy of the program whose
// PDB names a file that is not on this machine: the view says so and still lists the figures.
// The main process reads no file the recording's PDBs do not name.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { BrowserMode } from '../../electron/browser-mode/server.js';
import { readRecordingFile } from '../../electron/services/export/recording-file.js';
import type { WorkstationService } from '../../electron/services/workstation/workstation-service.js';
import { openWorkstationInChromium, type WorkstationInChromium } from './support/workstation-in-chromium.js';
import { locatePdb } from '../../electron/services/source-lines/pdb-locator.js';
import type { FunctionLines } from '../../structs/analysis/function-lines.js';
import type { Report } from '../../structs/analysis/report-model.js';
import { PROFILER, ROOT, targetDll } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { appState, checkedScreenshot, hookReady, missingForPage, until } from './support/workstation-page.js';

const ARTIFACTS = join(ROOT, 'test-artifacts', 'source-panel');
const SOURCE = join(ROOT, 'test', 'targets', 'Scenarios', 'HotLine.cs');
const METHOD = 'Clrscope.Targets.Scenarios.HotLineWork.Mix';
const TEXT = readFileSync(SOURCE, 'utf8').split('\n');
const HOT_LINE = TEXT.findIndex((l) => /;\s*\/\/ HOT LINE$/.test(l)) + 1;
const SIGNATURE = TEXT.findIndex((l) => l.includes('public static ulong Mix(')) + 1;
const RETURN = TEXT.findIndex((l, i) => i > HOT_LINE && l.trim() === 'return x;') + 1;

interface SourceHook { lines: FunctionLines | null; file: { path: string; lineCount: number | null; message: string | null; spans: { firstLine: number; lastLine: number }[] } | null }
const sourceHook = (page: Page): Promise<SourceHook> => page.evaluate('globalThis.__clrscopeTest.source()') as Promise<SourceHook>;

function missingPrerequisites(): string[] {
  const m = missingForPage();
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(join(ROOT, 'test', 'targets', 'Scenarios', 'bin', 'out', 'Scenarios.dll'))) m.push('Scenarios.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`source-panel: SKIPPED, missing: ${missing.join('; ')}\n`);

async function reportSource(file: string): Promise<NonNullable<Report['source']>> {
  const run = await runCli(['report', file, '--source', 'HotLineWork.Mix', '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as Report;
  assert.equal(report.functions, undefined, '--source alone prints no functions table');
  return report.source!;
}

describe('the Source view and report --source', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let hot: string;
  let moved: string;
  let ui: WorkstationInChromium;
  let workstation: WorkstationService;
  let server: BrowserMode;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the source-panel test lacks: ${missing.join('; ')}`);
    assert.ok(HOT_LINE > 0 && SIGNATURE > 0 && SIGNATURE < HOT_LINE && RETURN > HOT_LINE, 'the marked lines of HotLine.cs');
    dir = mkdtempSync(join(tmpdir(), 'clrscope-source-panel-'));
    hot = join(dir, 'hot.clrscope');
    const r = await runCli(['record', '-o', hot, '--', 'dotnet', targetDll('Scenarios'), 'hot-line', '--seconds', '3'], { timeoutMs: 90000 });
    assert.equal(r.code, 0, r.stderr);
    // The same program from a copy whose PDB names HotLine.cq: a source file not on this machine.
    const copy = join(dir, 'elsewhere');
    cpSync(dirname(targetDll('Scenarios')), copy, { recursive: true });
    const pdbPath = join(copy, 'Scenarios.pdb');
    const pdb = readFileSync(pdbPath);
    const from = Buffer.from('HotLine.cs');
    let at = pdb.indexOf(from);
    assert.ok(at >= 0, 'the PDB names HotLine.cs');
    for (; at >= 0; at = pdb.indexOf(from, at + 1)) pdb.write('HotLine.cq', at);
    writeFileSync(pdbPath, pdb);
    moved = join(dir, 'moved.clrscope');
    const m = await runCli(['record', '-o', moved, '--', 'dotnet', join(copy, 'Scenarios.dll'), 'hot-line', '--seconds', '2'], { timeoutMs: 90000 });
    assert.equal(m.code, 0, m.stderr);
    ui = await openWorkstationInChromium({ exportsDir: join(dir, 'exports'), settingsDir: join(dir, 'settings') });
    ({ workstation, server, page, errors: pageErrors } = ui);
  });

  after(async () => {
    await ui?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function openFile(file: string): Promise<string> {
    await page.getByTestId('tab-processes').click();
    if (await page.getByTestId('open-form').count() === 0) await page.getByTestId('recording-open').click();
    await page.getByTestId('open-path').fill(file);
    const before = (await appState(page)).selectedSessionId;
    await page.getByTestId('open-submit').click();
    const opened = await until('the recording to open', () => appState(page), (s) => s.opening === null && s.selectedSessionId !== null && s.selectedSessionId !== before, 60000);
    assert.equal(opened.error, null);
    const samples = (await readRecordingFile(file)).recording.sampleCount;
    await until('the whole recording in the worker', () => appState(page), (s) => s.summary !== null && s.summary.sampleCount === samples, 30000);
    return opened.selectedSessionId!;
  }

  /** Selects Mix in the functions table. */
  async function selectMix(): Promise<void> {
    await page.getByTestId('tab-functions').click();
    await page.getByTestId('flame-search').fill('HotLineWork.Mix');
    const row = page.locator('[data-testid=functions-table] .vrow').filter({ hasText: METHOD }).first();
    await until('Mix in the functions table', () => row.count(), (n) => n === 1, 30000);
    await row.click();
    await until('Mix selected', () => page.evaluate('globalThis.__clrscopeTest.state().selectedFunction') as Promise<string | null>, (name) => name === METHOD);
  }

  it('report --source puts Mix\'s time on its lines, the hot line hottest', async () => {
    const s = await reportSource(hot);
    assert.equal(s.name, METHOD);
    assert.equal(s.file, SOURCE);
    const inFile = s.lines.filter((l) => l.file === SOURCE);
    const hotLine = inFile.find((l) => l.line === HOT_LINE);
    assert.ok(hotLine !== undefined, JSON.stringify(s.lines));
    assert.ok(hotLine.selfSamples >= 10, `enough samples on the hot line: ${JSON.stringify(hotLine)}`);
    assert.ok(hotLine.self / s.self >= 0.8, `${(100 * hotLine.self / s.self).toFixed(1)}% of Mix's self on line ${HOT_LINE}: ${JSON.stringify(s.lines)}`);
    for (const l of s.lines) assert.ok(l.total <= hotLine.total && l.self <= hotLine.self, `line ${l.line} is not hotter than the hot line`);
    // Every line lies within Mix's braces.
    for (const l of inFile) assert.ok(l.line > SIGNATURE && l.line <= RETURN + 1, `line ${l.line} of Mix`);
    // The text form: file:line with self and total; csv one row per line.
    const text = await runCli(['report', hot, '--source', 'HotLineWork.Mix']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`Source lines of ${METHOD.replace(/\./g, '\\.')}: self`));
    assert.match(text.stdout, new RegExp(`^\\s*\\d+\\.\\d% +\\S+ \\S+ +\\d+\\.\\d% +\\S+ \\S+ +\\d+  \\S*HotLine\\.cs:${HOT_LINE}$`, 'm'));
    const csv = await runCli(['report', hot, '--source', 'HotLineWork.Mix', '--format', 'csv']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.equal(csv.stdout.split('\n')[0], 'file,line,self,self_percent,total,total_percent,self_samples,total_samples');
    assert.ok(csv.stdout.includes(`${SOURCE},${HOT_LINE},${hotLine.self},`), csv.stdout);
    // A name that is no function: one sentence, no stack trace.
    const none = await runCli(['report', hot, '--source', 'NoSuchMethodAnywhere']);
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /--source NoSuchMethodAnywhere: no function of that name has samples/);
    assert.doesNotMatch(none.stderr, /\n\s+at /);
  });

  it('shows HotLine.cs scrolled to the hot line, hottest and heat-coloured, the lines outside Mix dimmed', { timeout: 120000 }, async () => {
    await page.goto(`${server.url}&test`);
    await hookReady(page);
    const sessionId = await openFile(hot);
    await selectMix();
    await page.getByTestId('show-source').click();
    await until('the Source view', () => appState(page), (s) => s.tab === 'source');
    const src = await until('the file and its figures', () => sourceHook(page), (s) => s.lines?.file === SOURCE && s.file?.lineCount !== null && s.file?.lineCount !== undefined, 30000);
    // The same figures as the report's (whole recording, CPU).
    const rep = await reportSource(hot);
    assert.deepEqual(src.lines!.lines.map((l) => [l.file, l.line, l.self, l.total]), rep.lines.map((l) => [l.file, l.line, l.self, l.total]));
    assert.equal(src.lines!.self, rep.self);
    assert.equal(src.file!.lineCount, TEXT.length);
    // Mix's span from its PDB's sequence points: from its loop to its return (a release build
    // has none on the braces, which the view takes in), the hot line inside, the signature not.
    assert.ok(src.file!.spans.some((s) => s.firstLine > SIGNATURE && s.firstLine < HOT_LINE && s.lastLine >= RETURN), JSON.stringify(src.file!.spans));

    const table = page.getByTestId('source-file');
    const hottest = table.locator('.vrow.hottest');
    await until('the hottest line drawn', () => hottest.count(), (n) => n === 1);
    assert.equal(await hottest.getAttribute('data-row'), String(HOT_LINE - 1));
    assert.match(await hottest.getAttribute('class') ?? '', /\bheat-8\b/);
    assert.match(await hottest.innerText(), /\/\/ HOT LINE/);
    // Scrolled to it: the row is within the visible part of the table's body.
    const body = (await page.getByTestId('source-file-body').boundingBox())!;
    const row = (await hottest.boundingBox())!;
    assert.ok(HOT_LINE > 1 && row.y >= body.y && row.y + row.height <= body.y + body.height, `row at ${row.y} in ${body.y}..${body.y + body.height}`);
    // The lines outside Mix are dimmed; Mix's own are not.
    const at = (line: number) => table.locator(`.vrow[data-row="${line - 1}"]`);
    assert.match(await at(SIGNATURE).getAttribute('class') ?? '', /\boutside\b/);
    for (const line of [SIGNATURE + 1, HOT_LINE, RETURN, RETURN + 1]) assert.doesNotMatch(await at(line).getAttribute('class') ?? '', /\boutside\b/, `line ${line}`);
    assert.match(await at(RETURN + 2).getAttribute('class') ?? '', /\boutside\b/);
    // The hot line's cells: the report's value, and the recording's share.
    const cells = await hottest.locator('[role=cell]').allInnerTexts();
    assert.equal(cells[0], String(HOT_LINE));
    assert.match(cells[3], /^\d+(\.\d)?%$/);
    await checkedScreenshot(page, 'source-hot-line', { dir: ARTIFACTS });

    // The file is the one the build was compiled from: its checksum is the PDB's, so no warning.
    const located = locatePdb(targetDll('Scenarios'));
    assert.ok(typeof located !== 'string', String(located));
    const recorded = located.pdb.documentHash(SOURCE);
    assert.ok(recorded !== null, 'the PDB keeps a checksum of HotLine.cs');
    assert.deepEqual(Buffer.from(recorded.hash), createHash(recorded.algorithm).update(readFileSync(SOURCE)).digest());
    const direct = await workstation.sourceFile({ sessionId, path: SOURCE, methods: src.lines!.methods });
    assert.equal(direct.message, null);
    assert.equal(direct.text, readFileSync(SOURCE, 'utf8'));
    assert.equal(await page.getByTestId('source-message').count(), 0);
    // The main process reads only files the session's PDBs name.
    await assert.rejects(workstation.sourceFile({ sessionId, path: '/etc/passwd' }), /\/etc\/passwd is not a source file of session/);
    await assert.rejects(workstation.sourceFile({ sessionId, path: join(dirname(SOURCE), 'Scenarios.csproj') }), /is not a source file of session/);
    assert.deepEqual(pageErrors, []);
  });

  it('says when the file is not on this machine and still lists the figures, from the flame graph\'s Source', { timeout: 120000 }, async () => {
    await openFile(moved);
    await selectMix();
    // Source from the flame graph: the selection's chip there.
    await page.getByTestId('tab-flame').click();
    await page.getByTestId('flame-selected-source').click();
    await until('the Source view', () => appState(page), (s) => s.tab === 'source');
    const message = page.getByTestId('source-message');
    await until('the sentence', () => message.count(), (n) => n === 1, 30000);
    assert.match(await message.innerText(), /^\S+\/HotLine\.cq is not on this machine, so only its lines' figures are shown\.$/);
    const figures = page.getByTestId('source-figures');
    const hottest = figures.locator('.vrow.hottest');
    await until('the hottest line listed', () => hottest.count(), (n) => n === 1);
    assert.match(await hottest.innerText(), new RegExp(`HotLine\\.cq:${HOT_LINE}`));
    assert.match(await hottest.getAttribute('class') ?? '', /\bheat-8\b/);
    assert.equal(await page.getByTestId('source-file').count(), 0);
    await checkedScreenshot(page, 'source-not-here', { dir: ARTIFACTS });
    assert.deepEqual(pageErrors, []);
  });
});
