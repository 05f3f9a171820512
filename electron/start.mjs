#!/usr/bin/env node
// `npm start`: the workstation. With the Electron binary installed, the desktop app; without it
// (it cannot be downloaded on the build machines), browser mode: the same renderer and services
// on 127.0.0.1, with a URL to open that carries this run's token.
//
//   npm start [-- --demo] [--browser] [--port N]
//     --demo      launch the bundled demo program at once, so the first view is live
//     --browser   browser mode even when Electron is installed
//     --port N    browser mode's port (default: a free one)

import { existsSync, readFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const demo = argv.includes('--demo');
const forceBrowser = argv.includes('--browser');
const portAt = argv.indexOf('--port');
const port = portAt >= 0 ? Number(argv[portAt + 1]) : Number(process.env.CLRSCOPE_PORT ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('clrscope: --port must be a whole number from 0 to 65535.');
  process.exit(2);
}

const mainJs = join(root, 'dist', 'electron', 'main.js');
const browserModeJs = join(root, 'dist', 'electron', 'browser-mode', 'run-browser-mode.js');
if (!existsSync(browserModeJs) || !existsSync(mainJs)) {
  console.error('clrscope: the workstation is not built yet: run npm run build.');
  process.exit(1);
}

const index = join(root, 'renderer', 'dist', 'index.html');
if (!existsSync(index)) {
  console.error('clrscope: the renderer is not built; building it (npm run build:renderer)...');
  spawnSync(process.execPath, [join(root, 'scripts', 'build-renderer.mjs')], { cwd: root, stdio: 'inherit' });
  if (!existsSync(index)) {
    console.error('clrscope: the renderer is still missing (renderer/dist/index.html): run npm run build, then npm start again.');
    process.exit(1);
  }
}

/** The Electron binary that `npm install electron` downloads, when it did. */
function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  const pathTxt = join(dir, 'path.txt');
  if (!existsSync(pathTxt)) return undefined;
  const binary = join(dir, 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

const electron = forceBrowser ? undefined : electronBinary();
if (electron !== undefined) {
  const child = spawn(electron, [root, ...(demo ? ['--demo'] : [])], { stdio: 'inherit', env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } });
  // Ctrl-C reaches Electron too (same process group); it stops its sessions and quits.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
} else {
  const { runBrowserMode } = await import(pathToFileURL(browserModeJs).href);
  await runBrowserMode({ demo, port });
}
