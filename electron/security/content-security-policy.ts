// The renderer's Content-Security-Policy, one definition for both shells: Electron's custom
// protocol and browser mode's HTTP server. Scripts, styles and workers come only from the
// renderer's own files; nothing is inline or eval'd; the page connects only to where it came
// from (plus, in browser mode, its WebSocket); it cannot be framed, post forms or load plugins.

export interface CspOptions {
  /** Extra connect-src sources, e.g. browser mode's `ws://127.0.0.1:PORT`. */
  connect?: readonly string[];
}

export function contentSecurityPolicy(options: CspOptions = {}): string {
  const directives: [string, ...string[]][] = [
    ['default-src', "'self'"],
    ['script-src', "'self'"],
    ['worker-src', "'self'"],
    ['connect-src', "'self'", ...(options.connect ?? [])],
    ['style-src', "'self'"],
    ['img-src', "'self'", 'data:'],
    ['font-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives.map((d) => d.join(' ')).join('; ');
}

/** Headers every response of the renderer's files carries, in both shells. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}
