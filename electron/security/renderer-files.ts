// Serving the built renderer (renderer/dist) safely in both shells: a URL path maps to a file
// inside that folder or to nothing (no '..', no NUL, no backslash, no dotfiles, no symlink out of
// it), with its content type.

import { realpathSync, statSync } from 'node:fs';
import { extname, join, posix, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `root` that a URL path (still percent-encoded, without query) names, or
 * undefined when it names nothing servable. '/' is index.html.
 */
export function resolveRendererFile(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').slice(1);
  if (segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return undefined;
  const relative = posix.normalize(decoded === '/' ? '/index.html' : decoded).slice(1);
  if (relative === '' || relative.endsWith('/')) return undefined;
  let realRoot: string;
  let realFile: string;
  try {
    realRoot = realpathSync(root);
    realFile = realpathSync(join(realRoot, ...relative.split('/')));
    if (!statSync(realFile).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return realFile.startsWith(realRoot + sep) ? realFile : undefined;
}
