import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { APP_ENTRY_URL, ELECTRON_CSP, isAppUrl, mainWindowOptions } from './window-options.js';

const options = mainWindowOptions({ preloadPath: '/opt/clrscope/dist/electron/preload.cjs', devTools: false });

test('the window isolates the renderer: context isolation, sandbox, no Node', () => {
  const web = options.webPreferences;
  assert.equal(web.contextIsolation, true);
  assert.equal(web.sandbox, true);
  assert.equal(web.nodeIntegration, false);
  assert.equal(web.nodeIntegrationInWorker, false);
  assert.equal(web.nodeIntegrationInSubFrames, false);
  assert.equal(web.preload, '/opt/clrscope/dist/electron/preload.cjs');
  assert.match(web.preload, /\.cjs$/, 'a sandboxed preload is CommonJS');
});

test('the window keeps web security on and the risky features off', () => {
  const web = options.webPreferences;
  assert.equal(web.webSecurity, true);
  assert.equal(web.allowRunningInsecureContent, false);
  assert.equal(web.webviewTag, false);
  assert.equal(web.experimentalFeatures, false);
  assert.equal(web.enableWebSQL, false);
  assert.equal(web.navigateOnDragDrop, false);
  assert.equal(web.plugins, false);
  assert.equal(web.safeDialogs, true);
  assert.equal(web.devTools, false, 'no developer tools in a packaged app');
  assert.equal(mainWindowOptions({ preloadPath: '/p.cjs', devTools: true }).webPreferences.devTools, true);
  // Nothing else sneaks in (enableBlinkFeatures, additionalArguments, a partition, ...).
  assert.deepEqual(Object.keys(web).sort(), [
    'allowRunningInsecureContent', 'contextIsolation', 'devTools', 'enableWebSQL', 'experimentalFeatures', 'navigateOnDragDrop', 'nodeIntegration',
    'nodeIntegrationInSubFrames', 'nodeIntegrationInWorker', 'plugins', 'preload', 'safeDialogs', 'sandbox', 'spellcheck', 'webSecurity', 'webviewTag',
  ]);
});

test('the renderer comes from the app\'s own scheme, and only its URLs are navigable', () => {
  assert.equal(APP_ENTRY_URL, 'clrscope://app/index.html');
  assert.equal(isAppUrl(APP_ENTRY_URL), true);
  assert.equal(isAppUrl('clrscope://app/worker.js'), true);
  for (const url of ['https://example.com/', 'http://127.0.0.1:8080/', 'file:///etc/passwd', 'clrscope://evil/index.html', 'javascript:alert(1)', 'data:text/html,x', 'not a url']) {
    assert.equal(isAppUrl(url), false, url);
  }
});

test('the Electron CSP allows the app\'s own files only', () => {
  const directives = new Map(ELECTRON_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
  assert.equal(directives.get('default-src'), "'self'");
  assert.equal(directives.get('script-src'), "'self'");
  assert.equal(directives.get('worker-src'), "'self'");
  assert.equal(directives.get('connect-src'), "'self'");
  assert.equal(directives.get('style-src'), "'self'");
  assert.equal(directives.get('img-src'), "'self' data:");
  assert.equal(directives.get('object-src'), "'none'");
  assert.equal(directives.get('base-uri'), "'none'");
  assert.equal(directives.get('frame-ancestors'), "'none'");
  assert.doesNotMatch(ELECTRON_CSP, /unsafe-inline|unsafe-eval|\*/);
});

test('only main.ts and preload.ts import electron; window-options.ts does not', () => {
  const source = readFileSync(new URL('../../electron/window-options.ts', import.meta.url), 'utf8');
  assert.doesNotMatch(source, /from 'electron'/);
  const main = readFileSync(new URL('../../electron/main.ts', import.meta.url), 'utf8');
  assert.match(main, /mainWindowOptions\(/, 'main.ts builds its window from these options');
  assert.match(main, /setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
  assert.match(main, /'will-navigate'/);
  assert.match(main, /setPermissionRequestHandler\(\(_contents, _permission, callback\) => callback\(false\)\)/);
});
