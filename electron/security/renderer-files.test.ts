import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentSecurityPolicy, securityHeaders } from './content-security-policy.js';
import { contentTypeOf, resolveRendererFile } from './renderer-files.js';

test('URL paths map to files inside the renderer folder only', (t) => {
  const base = mkdtempSync(join(tmpdir(), 'clrscope-files-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'dist');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html>');
  writeFileSync(join(root, 'app.js'), '');
  writeFileSync(join(root, 'assets', 'a b.css'), '');
  writeFileSync(join(root, '.env'), 'secret');
  writeFileSync(join(base, 'secret.txt'), 'secret');
  symlinkSync(join(base, 'secret.txt'), join(root, 'link.txt'));

  assert.equal(resolveRendererFile(root, '/'), join(root, 'index.html'));
  assert.equal(resolveRendererFile(root, '/index.html'), join(root, 'index.html'));
  assert.equal(resolveRendererFile(root, '/app.js'), join(root, 'app.js'));
  assert.equal(resolveRendererFile(root, '/assets/a%20b.css'), join(root, 'assets', 'a b.css'));
  for (const bad of [
    '/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt', '/assets/%2E%2E/%2E%2E/secret.txt', '/..%2fsecret.txt',
    '/..%5csecret.txt', '/assets\\..\\..\\secret.txt', '/app.js%00.html', '/.env', '/assets/', '/assets', '/missing.js', '/link.txt',
    '/%E0%A4%A', 'relative', '//etc/passwd', '/./app.js',
  ]) {
    assert.equal(resolveRendererFile(root, bad), undefined, bad);
  }
  assert.equal(resolveRendererFile(join(base, 'nowhere'), '/'), undefined);
});

test('content types and security headers', () => {
  assert.equal(contentTypeOf('/x/index.html'), 'text/html; charset=utf-8');
  assert.equal(contentTypeOf('/x/worker.js'), 'text/javascript; charset=utf-8');
  assert.equal(contentTypeOf('/x/app.js.map'), 'application/json; charset=utf-8');
  assert.equal(contentTypeOf('/x/blob'), 'application/octet-stream');
  const csp = contentSecurityPolicy({ connect: ['ws://127.0.0.1:5000'] });
  assert.equal(csp, "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self' ws://127.0.0.1:5000; style-src 'self'; img-src 'self' data:; "
    + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  const headers = securityHeaders(csp);
  assert.equal(headers['Content-Security-Policy'], csp);
  assert.equal(headers['X-Content-Type-Options'], 'nosniff');
  assert.equal(headers['X-Frame-Options'], 'DENY');
});
