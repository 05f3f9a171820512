#pragma once
// The function table of a ReadyToRun image (a .NET assembly with precompiled code, as the shared
// framework's are): read from the image's PE and ReadyToRun headers into the profiler's own
// compact copy, which signal handlers unwind with (core/r2r_unwind.h). Precompiled code keeps no
// frame pointer in functions that need none (CoreLib's Task.Wait() is `push rax; call; add rsp,
// 8; ret`), so the frame-pointer chain skips their callers; their unwind codes, in the x64 Windows
// format even on Linux (dotnet/runtime docs/design/coreclr/botr/readytorun-format.md,
// RuntimeFunctions section), say where the return address is. Built on the sampler thread.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/x64_unwind.h"

namespace clrscope {

// Reads `size` bytes at image offset `rva` as the image is laid out when loaded; false when they
// cannot be read.
using ImageRead = std::function<bool(uint32_t rva, void* out, size_t size)>;

// One image's table, one big_alloc block: this header, `count` functions sorted by begin (their
// `unwind` an offset into the unwind-code pool that follows them) and the pool, each UNWIND_INFO
// (header and codes, no chain) once however many functions share it.
struct R2rTable {
  uintptr_t base;     // where the image is mapped
  uintptr_t code_lo;  // the first function's begin and the last one's end, as addresses
  uintptr_t code_hi;
  uint32_t count;
  uint32_t pool_bytes;
  size_t block_bytes;  // the whole block, for retire_memory

  const win::RuntimeFunction* functions() const { return reinterpret_cast<const win::RuntimeFunction*>(this + 1); }
  const uint8_t* pool() const { return reinterpret_cast<const uint8_t*>(functions() + count); }
  // The function holding `pc`, or null. Async-signal-safe.
  const win::RuntimeFunction* find(uintptr_t pc) const;
};

// What reading an image found.
enum class R2rRead {
  kOk,
  kNotPe,         // no PE image there
  kNotReadyToRun, // a PE image without precompiled code (IL only, or a composite image's part)
  kBadTable,      // the headers point at what cannot be read or does not add up
};

// Builds the table of the image mapped at `base`. On kOk, *out is a big_alloc block the caller
// owns (free with big_free(out, out->block_bytes) or retire_memory).
R2rRead read_r2r_table(const ImageRead& read, uintptr_t base, R2rTable** out);

}  // namespace clrscope
