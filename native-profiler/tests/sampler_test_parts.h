#pragma once
// What the sampler's tests give it in place of the profiler's own parts: the state the signal
// handler and the sampler meet in, a transport that keeps every byte sent, and a resolver that
// names native code only.
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/native_symbols.h"
#include "core/sampler.h"
#include "core/sampling_shared.h"
#include "core/symbol_cache.h"
#include "core/transport.h"

namespace clrscope {
namespace testing {

struct SamplingParts {
  SamplingShared shared;
  ThreadRegistry registry;
  CaptureRing ring;
  explicit SamplingParts(uint32_t ring_slots) : ring(ring_slots) {
    shared.registry = &registry;
    shared.ring = &ring;
  }
};

class MemoryTransport final : public Transport {
 public:
  Status send(const uint8_t* data, size_t size, size_t* sent) override {
    std::lock_guard<std::mutex> lock(mu);
    bytes.insert(bytes.end(), data, data + size);
    *sent = size;
    return Status::kSent;
  }
  bool wait_writable(int) override { return true; }
  std::mutex mu;
  std::vector<uint8_t> bytes;
};

class NativeOnlyResolver final : public FrameResolver {
 public:
  void resolve(uintptr_t pc, ResolvedFrame* out) override {
    if (!resolve_native(pc, out)) {
      out->kind = 2;
      out->name = "[unknown]";
    }
  }
};

}  // namespace testing
}  // namespace clrscope
