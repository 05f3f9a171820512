// Import directions from ARCHITECTURE.md, enforced here rather than hoped for.
import tseslint from 'typescript-eslint';

// Helpers only tests use are named *.test-support.ts; production code imports neither them nor tests.
const testCode = { group: ['**/*.test-support.js', '**/*.test.js'], message: 'Production code does not import test code (*.test-support.ts is for tests only).' };

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'net', 'child_process', 'crypto', 'zlib', 'http', 'https', 'url', 'worker_threads', 'stream'];

const structsPatterns = [
  { group: ['**/electron/**', '**/renderer/**', '**/native-profiler/**', '**/scripts/**', '**/test/**'], message: 'structs/ imports nothing of the project outside structs/.' },
  { group: ['koffi', 'electron'], message: 'Only structs/ipcblock may use koffi; only electron/main.ts and preload.ts import electron.' },
  { group: nodeBuiltins, message: 'structs/ runs in browsers and workers too: no Node built-ins outside tests.' },
];
// Formats' readers and writers stay out of the renderer's bundles (scripts/build-renderer.mjs
// checks the bundles too): the renderer and the API contract import structs/formats/catalog.ts.
const formatCodecs = { group: ['**/formats/registry.js', '**/formats/*/format.js'], message: 'The renderer and the API contract take formats from structs/formats/catalog.ts, never their codecs.' };

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '**/bin/**', '**/obj/**', 'native-profiler/**', 'test-artifacts/**', 'renderer/dist/**'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // structs/ also runs in the renderer's workers: no Node built-ins outside its tests (and the
    // helpers only tests import, *.test-support.ts).
    files: ['structs/**/*.ts'],
    ignores: ['structs/**/*.test.ts', 'structs/**/*.test-support.ts', 'structs/ipcblock/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...structsPatterns, testCode] }],
    },
  },
  {
    // The API contract reaches the renderer's bundles: formats' descriptions only.
    files: ['structs/api/**/*.ts'],
    ignores: ['structs/**/*.test.ts', 'structs/**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...structsPatterns, testCode, formatCodecs] }],
    },
  },
  {
    // structs/ is shared by every side: it imports nothing of the project outside structs/,
    // and only structs/ipcblock may touch koffi (the main process alone loads it).
    files: ['structs/**/*.test.ts', 'structs/**/*.test-support.ts'],
    ignores: ['structs/ipcblock/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/electron/**', '**/renderer/**', '**/native-profiler/**', '**/scripts/**', '**/test/**'], message: 'structs/ imports nothing of the project outside structs/.' },
          { group: ['koffi', 'electron'], message: 'Only structs/ipcblock may use koffi; only electron/main.ts and preload.ts import electron.' },
        ],
      }],
    },
  },
  {
    files: ['structs/ipcblock/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/electron/**', '**/renderer/**', '**/scripts/**', '**/test/**', 'electron'], message: 'structs/ imports nothing of the project outside structs/.' }],
      }],
    },
  },
  {
    files: ['electron/**/*.ts'],
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/**/*.test.ts', 'electron/**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/renderer/**', '**/scripts/**', '**/test/**'], message: 'electron/ may import structs/ only.' },
          { group: ['electron'], message: 'Only electron/main.ts and electron/preload.ts import electron, so everything else runs in plain Node.' },
          testCode,
        ],
      }],
    },
  },
  {
    files: ['electron/**/*.test.ts', 'electron/**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/renderer/**', '**/scripts/**', '**/test/**'], message: 'electron/ may import structs/ only.' },
          { group: ['electron'], message: 'Only electron/main.ts and electron/preload.ts import electron, so everything else runs in plain Node.' },
        ],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['renderer/**/*.test.ts', 'renderer/**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/electron/**', 'electron'], message: 'The renderer sees only the API contract in structs/, never electron/.' },
          { group: ['**/structs/ipcblock/**', 'koffi'], message: 'structs/ipcblock is main-process only.' },
          { group: nodeBuiltins, message: 'The renderer never imports Node modules.' },
          testCode,
          formatCodecs,
        ],
      }],
    },
  },
);
