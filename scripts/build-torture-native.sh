#!/usr/bin/env bash
# Builds the torture program's native libraries (test/targets/Torture/native/*.c) with gcc into
# test/targets/Torture/bin/native/, where the program looks for them:
#   libtorture_helpers.so  signal dispositions and masks, fork, address-space questions
#   libtorture_big.so      a large library to dlopen, use and dlclose
#   libtorture_small.so    a smaller one that lands in the hole big leaves (swap_small.ld)
#   hold-in-handler        a program that holds a thread inside clrscope's signal handler (ptrace)
# Frame pointers on, like the code a profiler meets in the wild that it can walk.
# Rebuilds a library only when its sources or this script are newer than it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/test/targets/Torture/native"
out="$root/test/targets/Torture/bin/native"
mkdir -p "$out"
flags=(-O1 -g -fPIC -shared -fno-omit-frame-pointer -Wall -Wextra -Werror)

build() {
  local lib="$1"; shift
  local target="$out/lib$lib.so" newer=0 f
  for f in "$0" "$src/torture_spin.h" "$@"; do
    [[ -f "$target" && ! "$f" -nt "$target" ]] || newer=1
  done
  [[ "$newer" == 1 ]] || return 0
  local c_files=() extra=()
  for f in "$@"; do
    case "$f" in
      *.c) c_files+=("$f") ;;
      *.ld) extra+=("-Wl,-T,$f") ;;
    esac
  done
  gcc "${flags[@]}" "${extra[@]}" -o "$target.tmp" "${c_files[@]}"
  mv "$target.tmp" "$target"
}

build torture_helpers "$src/helpers.c" "$src/masked_threads.c"
build torture_big "$src/swap_big.c"
build torture_small "$src/swap_small.c" "$src/swap_small.ld"

# A program, not a library: holds a thread of a profiled process inside clrscope's signal handler
# (torture-held-handler.test.ts).
hold="$out/hold-in-handler"
if [[ ! -f "$hold" || "$src/hold_in_handler.c" -nt "$hold" || "$0" -nt "$hold" ]]; then
  gcc -O1 -g -Wall -Wextra -Werror -o "$hold.tmp" "$src/hold_in_handler.c"
  mv "$hold.tmp" "$hold"
fi
