// The Electron shell: one window showing the renderer, the workstation's API over IPC. One
// setupX() per feature, wired in main() below. Everything but this file and preload.ts runs in
// plain Node (browser mode, tests), so the shell stays thin: security, IPC, window, lifecycle.

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app, BrowserWindow, clipboard, dialog, ipcMain, protocol, session, type BrowserWindowConstructorOptions, type IpcMainInvokeEvent, type WebContents,
} from 'electron';
import { IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, OPERATIONS, type ShellOperation } from '../structs/api/contract.js';
import { defaultRendererDir } from './browser-mode/server.js';
import type { IpcReply } from './ipc-reply.js';
import { chosenPath, openRecordingDialogOptions } from './open-dialog-options.js';
import { securityHeaders } from './security/content-security-policy.js';
import { contentTypeOf, resolveRendererFile } from './security/renderer-files.js';
import { callOperation, errorSentence, logIfUnexpected } from './services/api/dispatch.js';
import { validateClipboardRequest } from './services/api/validate.js';
import { ETLX_CONVERTER_ENV } from './services/export/etlx.js';
import { createWorkstationService, type WorkstationService, type WorkstationClient, type WorkstationServiceOptions } from './services/workstation/workstation-service.js';
import { APP_ENTRY_URL, APP_HOST, APP_SCHEME, ELECTRON_CSP, isAppUrl, mainWindowOptions } from './window-options.js';

const here = dirname(fileURLToPath(import.meta.url));

// Privileges must be declared before 'ready': a standard, secure scheme behaves like https for
// the renderer (same-origin rules, module workers, fetch), without touching the network.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

/** In an installed app the profiler, the demo and the .etlx converter sit in resources/ (outside the asar archive, where .NET can load them). */
function setupPaths(): WorkstationServiceOptions {
  if (!app.isPackaged) return {};
  const library = process.platform === 'win32' ? 'clrscope.dll' : 'libclrscope.so';
  process.env.CLRSCOPE_PROFILER_PATH ??= join(process.resourcesPath, 'native-profiler', library);
  process.env[ETLX_CONVERTER_ENV] ??= join(process.resourcesPath, 'etlx-converter', 'EtlxConverter.dll');
  return { demoProgramPath: join(process.resourcesPath, 'demo', 'Demo.dll') };
}

/** The renderer's files from renderer/dist under clrscope://app/, each response with the CSP. */
function setupProtocol(rendererDir: string): void {
  const headers = securityHeaders(ELECTRON_CSP);
  const notFound = (): Response => new Response('Not found.', { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return notFound();
    const file = resolveRendererFile(rendererDir, url.pathname);
    if (file === undefined) return notFound();
    const body = await readFile(file);
    return new Response(body, { headers: { ...headers, 'Content-Type': contentTypeOf(file) } });
  });
}

/** No navigation, no new windows, no webviews, no permissions, no request leaving the app. */
function setupSecurity(): void {
  app.enableSandbox();
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  void app.whenReady().then(() => {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    ses.setPermissionCheckHandler(() => false);
    ses.setDevicePermissionHandler(() => false);
    // Belt and braces with the CSP: only the app's own scheme (and the developer tools) load.
    ses.webRequest.onBeforeRequest((details, callback) => {
      const allowed = /^(clrscope|devtools|data|blob|chrome-extension):/.test(details.url);
      callback({ cancel: !allowed });
    });
  });
}

/** Only the app's own top-level page may call the main process. */
function fromAppPage(event: IpcMainInvokeEvent): boolean {
  return isAppUrl(event.senderFrame?.url ?? '') && event.senderFrame?.parent === null;
}

const NOT_OUR_PAGE: IpcReply = { ok: false, error: 'Only the clrscope window may use the workstation.' };

/** One handler per operation: the sender must be our page; its arguments are validated; the outcome comes back as an IpcReply. */
function setupIpc(workstation: WorkstationService): void {
  const clients = new Map<number, WorkstationClient>();
  const clientFor = (contents: WebContents): WorkstationClient => {
    let client = clients.get(contents.id);
    if (client !== undefined) return client;
    client = workstation.connect();
    clients.set(contents.id, client);
    client.onEvent((event) => {
      if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event);
    });
    const drop = (): void => {
      clients.get(contents.id)?.close();
      clients.delete(contents.id);
    };
    contents.once('destroyed', drop);
    // A reload starts the page over: its subscriptions go with the old page.
    contents.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) drop();
    });
    return client;
  };
  for (const op of OPERATIONS) {
    ipcMain.handle(`${IPC_CHANNEL_PREFIX}${op}`, async (event: IpcMainInvokeEvent, ...args: unknown[]): Promise<IpcReply> => {
      if (!fromAppPage(event)) return NOT_OUR_PAGE;
      try {
        return { ok: true, result: (await callOperation(clientFor(event.sender), op, args, workstation)) ?? null };
      } catch (err) {
        logIfUnexpected(op, err);
        return { ok: false, error: errorSentence(err) };
      }
    });
  }
}

/**
 * The shell's own operation: the native open dialog, modal to the asking window. It takes no
 * arguments and only answers a path; opening it is openRecording's job, validated as usual.
 */
function setupDialogs(): void {
  const op: ShellOperation = 'chooseRecordingFile';
  ipcMain.handle(`${IPC_CHANNEL_PREFIX}${op}`, async (event: IpcMainInvokeEvent): Promise<IpcReply> => {
    if (!fromAppPage(event)) return NOT_OUR_PAGE;
    const window = BrowserWindow.fromWebContents(event.sender);
    const options = openRecordingDialogOptions();
    try {
      const result = window === null ? await dialog.showOpenDialog(options) : await dialog.showOpenDialog(window, options);
      return { ok: true, result: chosenPath(result) };
    } catch (err) {
      logIfUnexpected(op, err);
      return { ok: false, error: 'The file dialog could not be shown; type the recording\'s path instead.' };
    }
  });
}

/**
 * The shell's clipboard: the page is granted no permission, so navigator.clipboard fails there;
 * "Copy as SVG" comes here instead, its text validated (a bounded string, an SVG when it says so).
 */
function setupClipboard(): void {
  const op: ShellOperation = 'copyToClipboard';
  ipcMain.handle(`${IPC_CHANNEL_PREFIX}${op}`, (event: IpcMainInvokeEvent, request: unknown): IpcReply => {
    if (!fromAppPage(event)) return NOT_OUR_PAGE;
    try {
      const { text, svg } = validateClipboardRequest(request);
      // One write (each replaces the clipboard): the SVG's text, and as HTML the picture itself for
      // what pastes rich text (the XML declaration is no HTML).
      clipboard.write(svg === true ? { text, html: text.replace(/^<\?xml[^>]*>\s*/, '') } : { text });
      return { ok: true, result: null };
    } catch (err) {
      logIfUnexpected(op, err);
      return { ok: false, error: errorSentence(err) };
    }
  });
}

function setupWindow(): BrowserWindow {
  const options: BrowserWindowConstructorOptions = mainWindowOptions({ preloadPath: join(here, 'preload.cjs'), devTools: !app.isPackaged });
  const window = new BrowserWindow(options);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(APP_ENTRY_URL);
  return window;
}

/** Closing the last window, Ctrl-C or SIGTERM: stop every session, let launched programs exit, quit. */
function setupLifecycle(workstation: WorkstationService): void {
  let shutDown = false;
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (shutDown) return;
    event.preventDefault();
    shutDown = true;
    void workstation.shutdown().finally(() => app.quit());
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
}

async function setupDemo(workstation: WorkstationService): Promise<void> {
  if (!process.argv.includes('--demo')) return;
  try {
    await workstation.launchDemo();
  } catch (err) {
    console.error(`clrscope: ${errorSentence(err)}`);
  }
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const workstation = createWorkstationService(setupPaths());
  setupSecurity();
  setupIpc(workstation);
  setupDialogs();
  setupClipboard();
  setupLifecycle(workstation);
  await app.whenReady();
  setupProtocol(defaultRendererDir());
  let window = setupWindow();
  app.on('second-instance', () => {
    if (window.isDestroyed()) window = setupWindow();
    else window.focus();
  });
  await setupDemo(workstation);
}

void main();
