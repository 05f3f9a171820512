// `npm test`: every suite, in order, against fresh builds: lint, the Windows cross-build and the
// Windows-side parts of the Wine tests, the native GoogleTest suite, the unit tests, then the integration tests against real .NET
// processes and Chromium. Prints one "N passed, N failed" line at the end and exits non-zero
// if anything failed.
import { spawn } from 'node:child_process';

const suites = [
  // `npm run build`: the TypeScript, the Electron shell (type-checked against electron's own
  // types, preload bundled), the renderer's type-check, its unit-testable modules and bundles.
  { name: 'build', cmd: 'npm', args: ['run', '--silent', 'build'], count: false },
  { name: 'native build', cmd: 'bash', args: ['scripts/build-native.sh'], count: false },
  { name: 'targets build', cmd: 'bash', args: ['scripts/build-targets.sh'], count: false },
  // The harmlessness soak's programs (NuGet tools, SoakWeb, SoakData): installed and built by
  // scripts/setup.sh; again here only when something under test/soak/ changed.
  { name: 'soak programs build', cmd: 'bash', args: ['scripts/soak/setup-soak.sh'], count: false },
  // ESLint (import directions, no any) and the check that every file a comment names exists.
  { name: 'lint', cmd: 'npm', args: ['run', '--silent', 'lint'], count: false },
  // Keeps the Windows code paths compiling (mingw-w64 cross build); nothing here can run them.
  { name: 'windows cross-build', cmd: 'bash', args: ['scripts/build-native-windows.sh'], count: false, optional: true },
  // What the Wine tests run on the Windows side (win-x64 publishes, mingw helpers); incremental.
  { name: 'windows targets build', cmd: 'bash', args: ['scripts/build-targets-windows.sh'], count: false, optional: true },
  { name: 'native tests', cmd: 'native-profiler/build/clrscope_tests', args: ['--gtest_brief=1'], count: 'gtest' },
  // The same suite built with ThreadSanitizer and with AddressSanitizer+UBSan (and LeakSanitizer).
  // A failed sanitizer build does not stop the rest: its suite then fails on its own.
  { name: 'native sanitizer builds', cmd: 'bash', args: ['scripts/build-native-sanitizers.sh'], count: false, optional: true },
  {
    name: 'native tests (ThreadSanitizer)', cmd: 'native-profiler/build-tsan/clrscope_tests', args: ['--gtest_brief=1'], count: 'gtest',
    env: { TSAN_OPTIONS: 'halt_on_error=1 second_deadlock_stack=1 suppressions=native-profiler/tests/tsan.supp' },
  },
  {
    name: 'native tests (AddressSanitizer+UBSan)', cmd: 'native-profiler/build-asan/clrscope_tests', args: ['--gtest_brief=1'], count: 'gtest',
    env: { ASAN_OPTIONS: 'halt_on_error=1 detect_leaks=1 strict_string_checks=1 detect_stack_use_after_return=1', UBSAN_OPTIONS: 'halt_on_error=1 print_stacktrace=1' },
  },
  { name: 'unit tests', cmd: process.execPath, args: ['scripts/run-node-tests.mjs', 'unit'], count: 'node' },
  { name: 'integration tests', cmd: process.execPath, args: ['scripts/run-node-tests.mjs', 'integration'], count: 'node' },
];

function run(suite) {
  return new Promise((resolve) => {
    const child = spawn(suite.cmd, suite.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...suite.env } });
    let text = '';
    const take = (stream, sink) => stream.on('data', (d) => { text += d; sink.write(d); });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    child.on('error', (e) => resolve({ code: 1, text: String(e) }));
    child.on('close', (code) => resolve({ code: code ?? 1, text }));
  });
}

function counts(kind, text) {
  if (kind === 'gtest') {
    // gtest: "[  PASSED  ] 35 tests." and, on failure, "[  FAILED  ] 2 tests, listed below:"
    const passed = Number(/\[ {2}PASSED {2}\] (\d+) test/.exec(text)?.[1] ?? 0);
    const failed = Number(/\[ {2}FAILED {2}\] (\d+) test/.exec(text)?.[1] ?? 0);
    return { passed, failed };
  }
  const passed = Number(/ℹ pass (\d+)/.exec(text)?.[1] ?? 0);
  const failed = Number(/ℹ fail (\d+)/.exec(text)?.[1] ?? 0);
  return { passed, failed };
}

let passed = 0;
let failed = 0;
const broken = [];
for (const suite of suites) {
  process.stdout.write(`\n=== ${suite.name} ===\n`);
  const r = await run(suite);
  if (suite.count) {
    const c = counts(suite.count, r.text);
    passed += c.passed;
    failed += c.failed;
    if (r.code !== 0 && c.failed === 0) failed += 1;
  }
  if (r.code !== 0) {
    broken.push(suite.name);
    // Without a build, the suites after it would only test stale code.
    if (!suite.count && !suite.optional) break;
  }
}
process.stdout.write(`\n${broken.length ? `failed suites: ${broken.join(', ')}\n` : ''}`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(broken.length === 0 ? 0 : 1);
