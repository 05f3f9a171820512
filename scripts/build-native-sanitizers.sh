#!/usr/bin/env bash
# Builds the native profiler's core and its GoogleTest suite twice more, instrumented:
#   native-profiler/build-tsan/clrscope_tests   ThreadSanitizer (data races, lock order)
#   native-profiler/build-asan/clrscope_tests   AddressSanitizer + UndefinedBehaviorSanitizer
#   native-profiler/build-asan/libclrscope.so   the profiler itself under ASan+UBSan, for the
#                                              integration tests that load it into real programs
#                                              (test/integration/asan-profiler.test.ts)
# gcc's sanitizer runtimes come with g++ on Debian (libtsan2, libasan8, libubsan1).
# Incremental like scripts/build-native.sh. Usage: scripts/build-native-sanitizers.sh [thread|address]...
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
for kind in "${kinds[@]}"; do
  case "$kind" in
    thread) build=native-profiler/build-tsan ;;
    address) build=native-profiler/build-asan ;;
    *) echo "build-native-sanitizers: unknown sanitizer '$kind' (thread or address)" >&2; exit 2 ;;
  esac
  if [ ! -f "$build/CMakeCache.txt" ]; then
    # -O1 keeps the reports' stacks readable and the instrumented tests quick enough.
    if ! cmake -S native-profiler -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
        -DCLRSCOPE_SANITIZE="$kind" > "$build.configure.log" 2>&1; then
      cat "$build.configure.log"
      rm -rf "$build"
      exit 1
    fi
    rm -f "$build.configure.log"
  fi
  log=$(mktemp)
  if ! cmake --build "$build" -j "$(nproc)" > "$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    echo "build-native-sanitizers: the $kind build failed" >&2
    exit 1
  fi
  rm -f "$log"
  echo "build-native-sanitizers: $build"
done
