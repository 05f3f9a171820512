// The soak's load generator for SoakWeb: a fixed list of requests (the same on every run) sent
// over 8 keep-alive connections to 127.0.0.1, then POST /shutdown. What it returns is what the
// soak compares: per request kind and status how many, and one digest over every response's
// index, status and body, so a single changed byte in any response shows.

import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';

export const LOAD_REQUESTS = 20000;
const CONNECTIONS = 8;

interface Planned {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const FAILURES = ['invalid', 'key', 'format', 'null', 'deep'];

/** Request i of the plan: a mix weighted towards the cheap endpoints, with failures throughout. */
export function planned(i: number): Planned {
  switch (i % 12) {
    case 0: case 6: return { kind: 'hello', method: 'GET', path: '/hello' };
    case 1: case 7: return { kind: 'items', method: 'GET', path: `/items/${i % 60}` };
    case 2: {
      const lines = Array.from({ length: 1 + (i % 5) }, (_, k) => ({ sku: `S${(i * 7 + k) % 1000}`, quantity: (i + k) % 13 === 0 ? 0 : 1 + ((i + k) % 9), unitCents: 100 + ((i * 31 + k) % 900) }));
      return { kind: 'orders', method: 'POST', path: '/orders', body: JSON.stringify({ customer: `c${i % 97}`, lines }) };
    }
    case 3: return { kind: 'hash', method: 'GET', path: `/hash/${200 + (i % 300)}` };
    case 4: return { kind: 'regex', method: 'GET', path: `/regex/${20 + (i % 80)}` };
    case 5: case 9: return { kind: 'async', method: 'GET', path: `/async/${1 + (i % 9)}` };
    case 8: return { kind: 'fail', method: 'GET', path: `/fail/${FAILURES[Math.floor(i / 12) % FAILURES.length]}` };
    case 10: return { kind: 'orders-bad-json', method: 'POST', path: '/orders', body: '{"customer": "x", "lines": [' };
    default: return { kind: 'items', method: 'GET', path: `/items/${(i * 13) % 120}` };
  }
}

function send(agent: Agent, base: URL, p: Planned): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({
      agent, host: base.hostname, port: base.port, method: p.method, path: p.path,
      headers: p.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(p.body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`${p.method} ${p.path}: no answer in 60 s`)));
    req.on('error', reject);
    req.end(p.body);
  });
}

/**
 * Waits for the LISTENING line, sends the plan, asks the service to stop; returns the summary lines.
 * `started` is called just before the first request (the cost benchmark times the load from there).
 */
export async function driveLoad(stdout: () => string, requests = LOAD_REQUESTS, started?: () => void): Promise<string> {
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while ((url = /^LISTENING (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout())?.[1]) === undefined) {
    if (Date.now() > deadline) throw new Error('SoakWeb never printed LISTENING');
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  started?.();
  const results: { status: number; digest: string }[] = new Array(requests);
  let next = 0;
  const errors: string[] = [];
  const worker = async (): Promise<void> => {
    for (let i = next++; i < requests; i = next++) {
      const p = planned(i);
      try {
        const r = await send(agent, base, p);
        results[i] = { status: r.status, digest: createHash('sha256').update(r.body).digest('hex') };
      } catch (e) {
        errors.push(`${i} ${p.method} ${p.path}: ${(e as Error).message}`);
        results[i] = { status: -1, digest: '' };
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await send(agent, base, { kind: 'shutdown', method: 'POST', path: '/shutdown' }).catch((e: Error) => errors.push(`shutdown: ${e.message}`));
  agent.destroy();

  const byKind = new Map<string, number>();
  const all = createHash('sha256');
  results.forEach((r, i) => {
    const key = `${planned(i).kind} ${r.status}`;
    byKind.set(key, (byKind.get(key) ?? 0) + 1);
    all.update(`${i} ${r.status} ${r.digest}\n`);
  });
  return [
    `LOAD ${requests} requests, digest ${all.digest('hex')}`,
    ...[...byKind].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `LOAD ${k} ${n}`),
    ...errors.slice(0, 10).map((e) => `LOAD ERROR ${e}`),
  ].join('\n');
}
