// The main window's options, kept apart from electron/main.ts (and free of the `electron`
// import) so a plain Node test can assert every security setting. main.ts passes the object to
// `new BrowserWindow`, where TypeScript checks it against Electron's own types.

import { contentSecurityPolicy } from './security/content-security-policy.js';

/** The custom scheme the renderer's files are served from (never file:// or the network). */
export const APP_SCHEME = 'clrscope';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** The renderer's CSP under Electron: everything from the app's own origin, no network at all. */
export const ELECTRON_CSP = contentSecurityPolicy();

export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  experimentalFeatures: false;
  enableWebSQL: false;
  navigateOnDragDrop: false;
  plugins: false;
  safeDialogs: true;
  spellcheck: false;
  devTools: boolean;
}

export interface MainWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  show: boolean;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  webPreferences: SecureWebPreferences;
}

export interface MainWindowSettings {
  /** Absolute path of the bundled preload (CommonJS, as a sandboxed preload must be). */
  preloadPath: string;
  /** Developer tools: on in a checkout, off in a packaged app. */
  devTools: boolean;
}

export function mainWindowOptions(settings: MainWindowSettings): MainWindowOptions {
  return {
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    title: 'clrscope',
    // Shown once the first paint is ready, so the window never flashes white.
    show: false,
    backgroundColor: '#1e1e1e',
    autoHideMenuBar: true,
    webPreferences: {
      preload: settings.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      enableWebSQL: false,
      navigateOnDragDrop: false,
      plugins: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: settings.devTools,
    },
  };
}

/** Whether the renderer may go to this URL: only the app's own pages (everything else is refused: navigation, new windows, redirects). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}
