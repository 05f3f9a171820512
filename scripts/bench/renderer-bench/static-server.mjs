// Serves a benchmark's bundled page from its folder on loopback (both Chromium benchmarks).
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.map': 'application/json' };

/** Resolves with the listening server; its port is server.address().port. */
export function serve(dir) {
  const server = createServer((req, res) => {
    const path = join(dir, new URL(req.url, 'http://x').pathname.replace(/^\/+/, '') || 'index.html');
    if (!path.startsWith(dir) || !existsSync(path)) {
      // Chromium asks for /favicon.ico: answer "no content" rather than log a 404.
      res.writeHead(req.url === '/favicon.ico' ? 204 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}
