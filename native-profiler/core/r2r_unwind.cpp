#include "core/r2r_unwind.h"

#include <atomic>
#include <cstring>
#include <new>

#include "core/module_table.h"
#include "core/page_memory.h"

namespace clrscope {
namespace {

std::atomic<const R2rSnapshot*> g_r2r{nullptr};
std::atomic<uint64_t> g_module_changes{0};

// The walk reads raw words of a stack within its bounds; under AddressSanitizer those include
// redzones of instrumented frames (the profiler's own, in an event's walk of its own thread),
// which are readable memory of the stack, not bad accesses.
#if defined(__SANITIZE_ADDRESS__)
#define CLRSCOPE_R2R_STACK_READ __attribute__((no_sanitize_address))
#else
#define CLRSCOPE_R2R_STACK_READ
#endif

struct LiveStack {
  uintptr_t lo;
  uintptr_t hi;
  CLRSCOPE_R2R_STACK_READ bool read_u64(uint64_t address, uint64_t* out) const {
    if ((address & 7) != 0 || address < lo || hi < 8 || address > hi - 8) return false;
    *out = *reinterpret_cast<const volatile uint64_t*>(address);
    return true;
  }
};

}  // namespace

const R2rTable* R2rSnapshot::find(uintptr_t pc) const {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (tables[mid]->code_hi <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && tables[lo]->code_lo <= pc ? tables[lo] : nullptr;
}

size_t R2rSnapshot::bytes_for(uint32_t count) {
  return sizeof(R2rSnapshot) + (count > 0 ? count - 1 : 0) * sizeof(const R2rTable*);
}

R2rSnapshot* R2rSnapshot::allocate(uint32_t count) {
  const size_t bytes = bytes_for(count);
  void* p = big_alloc(bytes);
  if (p == nullptr) return nullptr;
  std::memset(p, 0, bytes);
  auto* s = new (p) R2rSnapshot;
  s->count = count;
  return s;
}

void note_managed_module_change() { g_module_changes.fetch_add(1, std::memory_order_relaxed); }
uint64_t managed_module_changes() { return g_module_changes.load(std::memory_order_relaxed); }

const R2rSnapshot* current_r2r() { return g_r2r.load(std::memory_order_seq_cst); }

void publish_r2r(R2rSnapshot* s) {
  // seq_cst, as publish_modules: handlers count themselves in before they load this pointer.
  const R2rSnapshot* old = g_r2r.exchange(s, std::memory_order_seq_cst);
  if (old != nullptr) retire_memory(const_cast<R2rSnapshot*>(old), R2rSnapshot::bytes_for(old->count));
}

R2rStep r2r_step(const R2rSnapshot& images, uintptr_t lookup_pc, bool exact, WalkRegisters* regs,
                 const StackBounds& stack) {
  const R2rTable* t = images.find(lookup_pc);
  if (t == nullptr) return R2rStep::kNotR2r;
  const win::RuntimeFunction* f = t->find(lookup_pc);
  if (f == nullptr) return R2rStep::kNotR2r;
  if (f->unwind + 4 > t->pool_bytes) return R2rStep::kFailed;
  const uint8_t* info = t->pool() + f->unwind;
  // Only the frame pointer and the stack pointer are known here; a frame set up from another
  // register cannot be undone.
  const uint8_t frame_reg = info[3] & 0xF;
  if (frame_reg != 0 && frame_reg != win::kRbp) return R2rStep::kFailed;
  win::UnwindRegs r{};
  r.rip = regs->ip;
  r.gpr[win::kRsp] = regs->sp;
  r.gpr[win::kRbp] = regs->fp;
  const LiveStack live{stack.lo, stack.hi};
  if (!win::unwind_frame(t->base, *f, exact, &r, live, info)) return R2rStep::kFailed;
  regs->ip = r.rip;
  regs->sp = r.gpr[win::kRsp];
  regs->fp = r.gpr[win::kRbp];
  return R2rStep::kOk;
}

}  // namespace clrscope
