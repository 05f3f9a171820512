// Bundles the renderer (React UI and its profile worker) with esbuild into renderer/dist/,
// next to index.html and the stylesheet. The same files serve Electron and browser mode.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync, readFileSync } from 'node:fs';
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
// The renderer shows formats by their descriptions (structs/formats/catalog.ts) and never reads
// or writes a file: a reader or writer in its bundles is a format imported through
// structs/formats/registry.ts or a <name>/format.ts, which it must not be.
const CODECS = ['NettraceReader', 'nettraceChunks', 'RecordingFileReader', 'recordingFileChunks', 'fromSpeedscope', 'speedscopeJsonChunks', 'fromPprof', 'toPprof', 'toCollapsed'];
for (const bundle of ['app.js', 'worker.js']) {
  const text = readFileSync(join(out, bundle), 'utf8');
  const found = CODECS.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
  if (found.length > 0) {
    console.error(`build-renderer: renderer/dist/${bundle} carries format codecs (${found.join(', ')}): the renderer imports formats from structs/formats/catalog.ts only`);
    process.exit(1);
  }
}
for (const file of ['index.html', 'theme.css', 'styles.css']) {
  const from = join(root, 'renderer', file);
  if (existsSync(from)) copyFileSync(from, join(out, file));
}
console.log(`build-renderer: ${out}`);
