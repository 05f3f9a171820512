#!/usr/bin/env node
// Entry point of the clrscope command; the code lives in dist/ (npm run build).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("clrscope: not built yet: run 'npm run build' (or bash scripts/setup.sh) first.\n");
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
