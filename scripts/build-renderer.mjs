// Bundles the renderer (React UI and its profile worker) with esbuild into renderer/dist/,
// next to index.html and the stylesheet. The same files serve Electron and browser mode.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const out = join(root, 'renderer', 'dist');
mkdirSync(out, { recursive: true });
const common = { bundle: true, sourcemap: true, target: 'es2022', logLevel: 'warning', minify: process.argv.includes('--minify'),
  // React ships its development build unless this is defined; the profiler UI is a product, not a debug page.
  define: { 'process.env.NODE_ENV': '"production"' } };
await Promise.all([
  build({ ...common, entryPoints: [join(root, 'renderer/src/main.tsx')], outfile: join(out, 'app.js'), format: 'esm', jsx: 'automatic' }),
  build({ ...common, entryPoints: [join(root, 'renderer/src/worker/profile-worker.ts')], outfile: join(out, 'worker.js'), format: 'esm' }),
]);
for (const file of ['index.html', 'styles.css']) {
  const from = join(root, 'renderer', file);
  if (existsSync(from)) copyFileSync(from, join(out, file));
}
console.log(`build-renderer: ${out}`);
