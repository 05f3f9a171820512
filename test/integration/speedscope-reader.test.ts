// speedscope itself reads clrscope's speedscope exports: the release build of speedscope's npm
// package (a devDependency pinned to one version; the same app speedscope.app serves) and the
// exports of real recordings are served from a small HTTP server on 127.0.0.1, and Debian's
// Chromium opens the app with `#profileURL=` pointing at each export. speedscope must show no
// import error (no alert, no "Something went wrong", no page or console error), title the page
// with the file's name, show the file's active profile, and list in its profile picker every
// profile clrscope wrote, in order and by name (each thread's `cpu` and `wall`, each endpoint's
// `endpoint · GET /cpu/{ms} · cpu`, each event type's `events · alloc-space`, ...), each with the
// total weight the file holds, as speedscope formats it. The recordings: RequestWeb with
// --requests under a short load (recorded to .clrscope, then `clrscope convert`), and Demo with
// allocations, lock waits and exceptions (written by `record -o` straight to speedscope).
// Without Chromium or the package the test is skipped with what is missing, unless CI is set.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ENDPOINT_PROFILE_PREFIX, EVENT_PROFILE_PREFIX, parseProfileName } from '../../structs/formats/speedscope/profile-name.js';
import type { SpeedscopeFile, SpeedscopeUnit } from '../../structs/formats/speedscope/speedscope-file.js';
import { PROFILER, ROOT } from './support/paths.js';
import { runCli } from './support/run-cli.js';
import { recordedRequestWeb, WEB_DLL } from './support/starved-pool.js';
import { CHROMIUM } from './support/workstation-page.js';

const PACKAGE = join(ROOT, 'node_modules', 'speedscope');
/** speedscope's release build: its index page and the hashed script, style and font files it loads. */
const RELEASE = join(PACKAGE, 'dist', 'release');
const DEMO_DLL = join(ROOT, 'test', 'targets', 'Demo', 'bin', 'out', 'Demo.dll');

function missingPrerequisites(): string[] {
  const m: string[] = [];
  if (!existsSync(CHROMIUM)) m.push(`Chromium (${CHROMIUM}: apt-get install chromium)`);
  if (!existsSync(join(RELEASE, 'index.html'))) m.push('the speedscope package\'s release build (npm ci installs the devDependency)');
  if (!existsSync(PROFILER)) m.push('the profiler library (npm run build:native)');
  if (!existsSync(WEB_DLL)) m.push('RequestWeb.dll (npm run build:targets)');
  if (!existsSync(DEMO_DLL)) m.push('Demo.dll (npm run build:targets)');
  if (spawnSync('dotnet', ['--version']).status !== 0) m.push('dotnet on PATH');
  return m;
}

const missing = missingPrerequisites();
const skip = missing.length > 0 && !process.env.CI;
if (skip) process.stderr.write(`speedscope-reader: SKIPPED, missing: ${missing.join('; ')}\n`);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.woff2': 'font/woff2', '.png': 'image/png',
  '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
};

/** Serves speedscope's release folder under /speedscope/ and the named exports under /profiles/, nothing else. */
async function serve(profiles: ReadonlyMap<string, string>): Promise<{ server: Server; base: string }> {
  const release = new Set(readdirSync(RELEASE));
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    const m = /^\/(speedscope|profiles)\/([^/]+)$/.exec(path);
    const file = m === null ? undefined : m[1] === 'speedscope' ? (release.has(m[2]) ? join(RELEASE, m[2]) : undefined) : profiles.get(m[2]);
    if (req.method !== 'GET' || file === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** RequestWeb's load generator: one connection of a CPU-bound, an awaiting and a failing endpoint for 3 s. */
function shortLoad(url: string): void {
  const r = spawnSync('dotnet', [WEB_DLL, 'load', '--url', url, '--seconds', '3', '--parallel', '1', '--paths', '/cpu/20,/delay/30,/fail'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
}

/** The weight speedscope shows for a profile: what the samples with a stack weigh (an empty stack is its idle time, not counted). */
function nonIdleWeight(profile: SpeedscopeFile['profiles'][number]): number {
  assert.equal(profile.type, 'sampled', `${profile.name}: clrscope writes sampled profiles`);
  if (profile.type !== 'sampled') return 0;
  return profile.weights.reduce((sum, w, i) => sum + (profile.samples[i].length > 0 ? w : 0), 0);
}

/**
 * The values, in the profile's unit, that speedscope's formatting of a total could stand for
 * (its formatters print two decimals of the largest fitting unit, `M:SS` past a minute, bytes
 * in B/KB/MB/GB, counts with the locale's grouping): [low, high].
 */
function shownRange(text: string, unit: SpeedscopeUnit): [number, number] {
  const near = (v: number, half: number, scale: number): [number, number] => [(v - half) * scale, (v + half) * scale];
  if (unit === 'none') {
    const v = Number(text.replace(/,/g, ''));
    assert.ok(Number.isFinite(v), `a count: ${text}`);
    return [v, v];
  }
  if (unit === 'bytes') {
    const m = /^([\d.]+) (B|KB|MB|GB)$/.exec(text);
    assert.ok(m !== null, `a size: ${text}`);
    const scale = 1024 ** ['B', 'KB', 'MB', 'GB'].indexOf(m[2]);
    return near(Number(m[1]), m[2] === 'B' ? 0.5 : 0.005, scale);
  }
  const toUnit = { nanoseconds: 1e9, microseconds: 1e6, milliseconds: 1e3, seconds: 1 }[unit];
  const minutes = /^(\d+):(\d\d)$/.exec(text);
  if (minutes !== null) {
    const s = Number(minutes[1]) * 60 + Number(minutes[2]);
    return [s * toUnit, (s + 1) * toUnit];
  }
  const m = /^([\d.]+)(s|ms|µs|ns)$/.exec(text);
  assert.ok(m !== null, `a time: ${text}`);
  const seconds = { s: 1, ms: 1e-3, µs: 1e-6, ns: 1e-9 }[m[2] as 's' | 'ms' | 'µs' | 'ns'];
  return near(Number(m[1]), 0.005, seconds * toUnit);
}

interface Shown {
  title: string;
  /** The toolbar's middle: the active profile's name and "(k/N)". */
  active: string;
  rows: { index: string; name: string; weight: string }[];
}

/** A page of its own for each file (speedscope reads `#profileURL=` only as it starts); what goes wrong on it is kept in `problems`. */
async function speedscopePage(browser: Browser, base: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const problems: string[] = [];
  page.on('dialog', (d) => { problems.push(`alert: ${d.message()}`); void d.dismiss(); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  // Everything speedscope needs is in its package: a request anywhere else is refused and counted.
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(`${base}/`)) return route.continue();
    problems.push(`request outside the test's server: ${route.request().url()}`);
    return route.abort();
  });
  return { page, problems };
}

/** Opens speedscope on `profileUrl` and reads what it shows once the profile is in. */
async function openInSpeedscope(page: Page, base: string, profileUrl: string, problems: string[]): Promise<Shown> {
  await page.goto(`${base}/speedscope/index.html#profileURL=${encodeURIComponent(profileUrl)}`);
  // The profile picker's table exists once the import is done; an import that fails alerts or shows its error instead.
  const picker = page.locator('table').filter({ has: page.locator('th', { hasText: 'Total Weight' }) });
  const deadline = Date.now() + 60_000;
  while (await picker.count() === 0) {
    if (problems.length > 0 || await page.getByText('Something went wrong').count() > 0) break;
    assert.ok(Date.now() < deadline, `speedscope showed no profile in 60 s: ${await page.locator('body').innerText()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  if (await page.getByText('Something went wrong').count() > 0) problems.push(`speedscope shows its error: ${await page.locator('body').innerText()}`);
  assert.deepEqual(problems, [], 'speedscope reported no problem');
  // The profile picker opens when the pointer is over the active profile's name.
  const active = page.locator('span', { hasText: /\(\d+\/\d+\)$/ }).first();
  await active.hover();
  await picker.first().waitFor({ state: 'visible', timeout: 10_000 });
  const rows: Shown['rows'] = [];
  for (const row of await picker.first().locator('tbody tr').all()) {
    const cells = row.locator('td');
    rows.push({ index: await cells.nth(0).innerText(), name: await row.getAttribute('title') ?? '', weight: await cells.nth(2).innerText() });
  }
  return { title: await page.title(), active: await active.innerText(), rows };
}

describe('speedscope opens clrscope\'s speedscope exports', { skip: skip ? `missing: ${missing.join('; ')}` : false }, () => {
  let dir: string;
  let server: Server | undefined;
  let base: string;
  let browser: Browser | undefined;
  const files = new Map<string, string>();

  before(async () => {
    if (missing.length > 0) assert.fail(`CI is set and the speedscope reader test lacks: ${missing.join('; ')}`);
    dir = mkdtempSync(join(tmpdir(), 'clrscope-speedscope-reader-'));
    const web = join(dir, 'web.clrscope');
    await recordedRequestWeb(web, 'dotnet', [WEB_DLL], shortLoad);
    const converted = await runCli(['convert', web, '-o', join(dir, 'web.speedscope.json')], { timeoutMs: 60_000 });
    assert.equal(converted.code, 0, converted.stderr);
    files.set('web.speedscope.json', join(dir, 'web.speedscope.json'));
    const demo = await runCli(['record', '--alloc', 'on', '--locks', 'on', '--exceptions', 'on', '-o', join(dir, 'demo.speedscope.json'), '--', 'dotnet', DEMO_DLL, '--seconds', '2'], { timeoutMs: 60_000 });
    assert.equal(demo.code, 0, demo.stderr);
    files.set('demo.speedscope.json', join(dir, 'demo.speedscope.json'));
    // The same file cut in half: what speedscope must be seen refusing.
    const whole = readFileSync(join(dir, 'demo.speedscope.json'));
    writeFileSync(join(dir, 'truncated.speedscope.json'), whole.subarray(0, whole.length >> 1));
    files.set('truncated.speedscope.json', join(dir, 'truncated.speedscope.json'));
    ({ server, base } = await serve(files));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('is the version package.json pins', () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.speedscope;
    const installed = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(installed, pinned);
  });

  for (const [name, what] of [['web.speedscope.json', 'RequestWeb with --requests, converted'], ['demo.speedscope.json', 'Demo with events, written by record']] as const) {
    it(`lists every profile of ${what} with the weight the file holds`, { timeout: 120_000 }, async (t) => {
      const file = JSON.parse(readFileSync(files.get(name) ?? '', 'utf8')) as SpeedscopeFile;
      const names = file.profiles.map((p) => p.name);
      // What clrscope must have written, so the comparison below cannot pass on a thin file.
      for (const metric of ['cpu', 'wall']) {
        assert.ok(names.some((n) => parseProfileName(n)?.metric === metric), `${name}: per-thread ${metric} profiles (${names.join(' | ')})`);
      }
      if (name === 'web.speedscope.json') {
        assert.ok(names.includes(`${ENDPOINT_PROFILE_PREFIX}GET /cpu/{ms} · cpu`), `${name}: the CPU endpoint's profile (${names.join(' | ')})`);
        assert.ok(names.includes(`${ENDPOINT_PROFILE_PREFIX}GET /cpu/{ms} · wall`), `${name}: its wall profile (${names.join(' | ')})`);
      } else {
        for (const event of ['alloc-space', 'alloc-objects', 'exceptions']) {
          assert.ok(names.includes(`${EVENT_PROFILE_PREFIX}${event}`), `${name}: the ${event} profile (${names.join(' | ')})`);
        }
      }

      assert.ok(browser !== undefined);
      const { page, problems } = await speedscopePage(browser, base);
      const shown = await openInSpeedscope(page, base, `${base}/profiles/${name}`, problems);
      t.diagnostic(`${name}: ${shown.rows.length} profiles, active "${shown.active}"`);
      assert.equal(shown.title, `${file.name ?? ''} - speedscope`, 'the page is titled with the file\'s name');
      const activeIndex = file.activeProfileIndex ?? 0;
      assert.equal(shown.active, `${file.profiles[activeIndex].name} (${activeIndex + 1}/${file.profiles.length})`, 'the file\'s active profile is shown');
      assert.deepEqual(shown.rows.map((r) => r.name), names, 'every profile, in the file\'s order, by its name');
      file.profiles.forEach((profile, i) => {
        const row = shown.rows[i];
        assert.equal(row.index, String(i + 1));
        const weight = nonIdleWeight(profile);
        const [low, high] = shownRange(row.weight, profile.unit);
        assert.ok(weight > 0, `${profile.name}: a weight to show`);
        assert.ok(weight >= low - 1e-6 * weight && weight <= high + 1e-6 * weight, `${profile.name}: speedscope shows ${row.weight} (${low}-${high} ${profile.unit}), the file holds ${weight}`);
        if (parseProfileName(profile.name) === undefined) t.diagnostic(`${profile.name}: speedscope shows ${row.weight}, the file holds ${weight} ${profile.unit}`);
      });
      assert.deepEqual(problems, [], 'no alert, page error, console error or outside request while reading');
      await page.close();
    });
  }

  it('sees speedscope refuse a file it cannot read (the check above can fail)', { timeout: 60_000 }, async (t) => {
    assert.ok(browser !== undefined);
    const { page, problems } = await speedscopePage(browser, base);
    await assert.rejects(openInSpeedscope(page, base, `${base}/profiles/truncated.speedscope.json`, problems), /speedscope reported no problem/);
    t.diagnostic(problems.join('; '));
    await page.close();
  });
});
