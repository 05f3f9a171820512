// What both benchmark pages (renderer-bench's and analysis-bench's) measure with, in Chromium.
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/** Posts a request to the profile worker and resolves with its reply to it. */
export function ask(worker, request) {
  return new Promise((resolve, reject) => {
    const onMessage = (e) => {
      if (e.data.requestId !== request.requestId) return;
      worker.removeEventListener('message', onMessage);
      if (e.data.kind === 'error') reject(new Error(e.data.message));
      else resolve(e.data);
    };
    worker.addEventListener('message', onMessage);
    worker.postMessage(request);
  });
}
