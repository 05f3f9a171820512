#include "core/frame_walker.h"

#include "core/frame_ring.h"

#include "core/cfi_unwind.h"
#include "core/module_table.h"
#include "core/r2r_unwind.h"

namespace clrscope {
namespace {

// A walk that needs more than this many hops is treated as a corrupt chain: it bounds the
// time spent in the handler even on a huge stack (an 8 MiB stack holds at most 512 Ki frames).
constexpr uint32_t kMaxHops = 1u << 19;

enum class Step { kNext, kRoot, kBroken };

// The walk reads raw words of a stack within its known bounds, whatever they hold: in an
// AddressSanitizer build those include the redzones it puts around the locals of instrumented
// frames (ours, when a thread walks its own stack for an event), readable memory of that stack
// rather than a bad access, so the reads are not instrumented.
#if defined(__SANITIZE_ADDRESS__)
#define CLRSCOPE_RAW_STACK_READ __attribute__((no_sanitize_address))
#else
#define CLRSCOPE_RAW_STACK_READ
#endif

// How far above a frame record the original record of an on-stack-replaced frame is looked for:
// the original (unoptimized) frame's locals lie between the two.
constexpr uintptr_t kOsrScanBytes = 2048;

// The record of the original frame under an OSR frame whose record is at `fp` and saves
// `next`: a 16-byte-aligned record between the two that saves the same frame pointer (x64 keeps
// frame records 16-byte aligned: a call leaves rsp 8 past a boundary, and the push of rbp
// realigns it). Returns its return address, or 0.
CLRSCOPE_RAW_STACK_READ uintptr_t original_record_return(uintptr_t fp, uintptr_t next, const StackBounds& bounds) {
  if (next <= fp + 16 || ((fp | next) & 15) != 0) return 0;
  const uintptr_t end = next - fp > kOsrScanBytes ? fp + kOsrScanBytes : next;
  for (uintptr_t a = fp + 16; a + 16 <= end && a + 16 <= bounds.hi; a += 16) {
    const uintptr_t* w = reinterpret_cast<const uintptr_t*>(a);
    if (w[0] == next && w[1] != 0) return w[1];
  }
  return 0;
}

// One frame-pointer hop: the record at fp is (saved caller fp, return address).
CLRSCOPE_RAW_STACK_READ Step fp_step(WalkRegisters* r, const StackBounds& bounds) {
  const uintptr_t fp = r->fp;
  if (fp == 0) return Step::kRoot;
  if ((fp & (sizeof(uintptr_t) - 1)) != 0 || fp < r->sp || fp < bounds.lo || bounds.hi < 2 * sizeof(uintptr_t) ||
      fp > bounds.hi - 2 * sizeof(uintptr_t)) {
    return Step::kBroken;
  }
  const uintptr_t* record = reinterpret_cast<const uintptr_t*>(fp);
  const uintptr_t next = record[0];
  const uintptr_t ret = record[1];
  if (ret == 0) return Step::kRoot;
  // Frames lie at higher addresses as we move outwards; anything else is a loop or garbage.
  if (next != 0 && next <= fp) return Step::kBroken;
  r->ip = ret;
  r->sp = fp + 2 * sizeof(uintptr_t);
  r->fp = next;
  return Step::kNext;
}

}  // namespace

WalkResult walk_frames(const WalkRegisters& regs, const StackBounds& bounds, uintptr_t* out, uint32_t max_frames,
                       uint32_t tail_keep, const ModuleSnapshot* modules) {
  WalkResult result{0, 0, 0, false, 0, {}};
  if (max_frames == 0) return result;
  FrameRing ring(out, max_frames, tail_keep);
  auto push = [&ring](uintptr_t pc) { ring.push(pc); };

  // Loaded once: a handler (or a ModuleReadScope) keeps what it loaded from being freed.
  const R2rSnapshot* r2r = current_r2r();
  WalkRegisters r = regs;
  push(r.ip);
  bool complete = false;
  for (uint32_t hop = 0; hop < kMaxHops; ++hop) {
    // The interrupted frame's pc is exact; a caller's is a return address, one past its call.
    const uintptr_t lookup = hop == 0 ? r.ip : r.ip - 1;
    const CodeModule* m = modules != nullptr ? modules->find(lookup) : nullptr;
    Step step = Step::kBroken;
    bool stepped = false;
    if (m != nullptr) {
      WalkRegisters next = r;
      const CfiStep c = cfi_step(*m, modules->generation, lookup, &next, bounds);
      if (c == CfiStep::kOutermost) {
        step = Step::kRoot;
        stepped = true;
      } else if (c == CfiStep::kOk && next.sp > r.sp) {
        step = next.ip == 0 ? Step::kRoot : Step::kNext;
        r = next;
        stepped = true;
      }
    }
    // Precompiled (ReadyToRun) code: its own unwind codes, as a function there may keep no
    // frame pointer and the chain would skip its caller.
    bool precompiled = false;
    if (!stepped && m == nullptr && r2r != nullptr) {
      WalkRegisters next = r;
      const R2rStep s = r2r_step(*r2r, lookup, hop == 0, &next, bounds);
      precompiled = s != R2rStep::kNotR2r;
      if (s == R2rStep::kOk && next.sp > r.sp) {
        step = next.ip == 0 ? Step::kRoot : Step::kNext;
        r = next;
        stepped = true;
      }
    }
    // No unwind table (JIT code) or rules we cannot follow: frame pointers.
    uintptr_t osr_return = 0;
    if (!stepped) {
      const uintptr_t fp = r.fp;
      step = fp_step(&r, bounds);
      // Only JIT code is replaced on the stack; a pair is kept while it still fits the
      // innermost part of the buffer.
      if (step == Step::kNext && m == nullptr && !precompiled && result.osr_pairs < kMaxOsrPairs && ring.total() + 2 < ring.head()) {
        osr_return = original_record_return(fp, r.fp, bounds);
      }
    }
    if (step == Step::kRoot) {
      complete = true;
      break;
    }
    if (step == Step::kBroken) break;
    if (osr_return != 0) result.osr_at[result.osr_pairs++] = static_cast<uint32_t>(ring.total());
    push(r.ip);
    if (osr_return != 0) push(osr_return);
  }

  result.complete = complete;
  ring.finish(&result);
  return result;
}

}  // namespace clrscope
