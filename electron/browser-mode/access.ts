// Who may talk to browser mode: requests for 127.0.0.1:PORT or localhost:PORT by name (a page
// on another site that rebinds its DNS name to 127.0.0.1 still sends its own name in Host), from
// a browser that holds this run's token, as a cookie or in the URL's query.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** One cookie per port: cookies ignore ports, and two workstations on one machine must not overwrite each other's. */
export function cookieName(port: number): string {
  return `clrscope_token_${port}`;
}

export function tokenCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}

export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host;
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

/** A browser always sends Origin on a WebSocket handshake; a page of another site cannot fake ours. */
export function originAllowed(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  return origin === undefined || allowedOrigins(port).includes(origin.toLowerCase());
}

export function sameToken(given: string | undefined | null, token: string): boolean {
  if (given === undefined || given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface TokenCheck {
  /** The request carries the token in its cookie or its query. */
  ok: boolean;
  /** It came in the query (so the cookie should be set). */
  fromQuery: boolean;
}

export function checkToken(req: IncomingMessage, url: URL, port: number, token: string): TokenCheck {
  if (sameToken(url.searchParams.get('token'), token)) return { ok: true, fromQuery: true };
  return { ok: sameToken(cookieValue(req, cookieName(port)), token), fromQuery: false };
}
