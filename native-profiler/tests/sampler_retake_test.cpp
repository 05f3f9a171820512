// A capture walked with a module table older than the library now at its address is taken
// again, and held until the thread's next sample: that sample takes the held values when the
// thread is still in the same function, and otherwise the held capture goes out as it was,
// incomplete. Driven tick by tick with captures put in the ring by hand (as the signal handler
// would), against a library really loaded after the table the captures name.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/module_table.h"
#include "core/platform.h"
#include "core/sampler.h"
#include "tests/sampler_test_parts.h"
#include "tests/wire_reader.h"

extern "C" __attribute__((noinline, visibility("default"))) int clrscope_test_retake_elsewhere(int x) {
  return x * 3 + 1;
}

namespace clrscope {
namespace {

// One CPU capture of the calling thread: `frames` leaf first, walked with module table `generation`.
void put_capture(CaptureRing& ring, uint32_t slot, uint32_t wire_id, uint32_t generation, uint64_t cpu_ns,
                 const std::vector<uintptr_t>& frames, bool complete) {
  uint32_t index = 0;
  Capture* c = ring.try_acquire(&index);
  ASSERT_NE(c, nullptr);
  begin_capture(c, platform::mono_now_ns(), slot, wire_id, kCaptureCpu);
  c->cpu_ns = cpu_ns;
  c->module_generation = generation;
  c->bounds_known = true;
  c->complete = complete;
  c->count = static_cast<uint32_t>(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) c->frames[i] = frames[i];
  ring.publish(index);
}

std::string leaf_name(const testing::ReadStream& s, const testing::ReadSample& smp) {
  if (smp.frames.empty()) return "";
  const testing::ReadFunction* fn = s.function_of(smp.frames[0]);
  return fn == nullptr ? "" : fn->name;
}

TEST(SamplerRetake, AHeldCaptureGoesToTheNextSampleInItsFunctionOrOutAsItWas) {
  // Declared before the sampler, so it outlives it.
  auto h = std::make_unique<testing::SamplingParts>(64);
  h->registry.configure_cpu_timers(false, 1000000);
  auto* transport = new testing::MemoryTransport;
  testing::NativeOnlyResolver resolver;
  SamplerConfig config;
  config.interval_ns = 1000000;
  config.cpu = false;  // no OS thread scan: only the captures put here
  config.wall = false;  // a retake then waits for the thread's next capture
  Sampler sampler(config, &h->shared, &resolver, std::unique_ptr<Transport>(transport));
  sampler.begin_stream();
  h->shared.active.store(true);
  h->registry.on_created(5001);
  h->registry.on_assigned_os_thread(5001, platform::current_tid());
  uint32_t slot = 0, wire_id = 0;
  ASSERT_TRUE(h->registry.slot_of_tid(platform::current_tid(), &slot, &wire_id));
  sampler.tick(platform::mono_now_ns());  // announces the thread

  // The table the captures were walked with, then a library loaded after it.
  const uint32_t old_generation = current_modules()->generation;
  void* lib = dlopen(CLRSCOPE_TEST_UNLOAD_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  const uintptr_t probe = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  ASSERT_NE(probe, 0u);
  const uintptr_t caller = reinterpret_cast<uintptr_t>(&clrscope_test_retake_elsewhere) + 1;

  // 1. A capture in the new library, walked with the old table (so not rooted), is held; the
  //    next one, in the same function and whole, takes its CPU.
  put_capture(h->ring, slot, wire_id, old_generation, 1000, {probe + 1}, false);
  sampler.tick(platform::mono_now_ns());
  put_capture(h->ring, slot, wire_id, current_modules()->generation, 2000, {probe + 2, caller}, true);
  sampler.tick(platform::mono_now_ns());

  // 2. Held again; the next capture is in another function: the held one goes out as it was.
  put_capture(h->ring, slot, wire_id, old_generation, 3000, {probe + 1}, false);
  sampler.tick(platform::mono_now_ns());
  put_capture(h->ring, slot, wire_id, current_modules()->generation, 4000, {caller, caller}, true);
  sampler.tick(platform::mono_now_ns());

  // 3. Held at the end of the stream: it goes out then.
  put_capture(h->ring, slot, wire_id, old_generation, 5000, {probe + 1}, false);
  sampler.tick(platform::mono_now_ns());
  h->registry.on_destroyed(5001);
  sampler.end_stream(wire::kEndShutdown);
  dlclose(lib);

  const testing::ReadStream s = testing::read_stream(transport->bytes);
  std::vector<const testing::ReadSample*> mine;
  for (const auto& smp : s.samples) {
    if (smp.thread_id == wire_id) mine.push_back(&smp);
  }
  ASSERT_EQ(mine.size(), 4u);
  // 1: one sample, the whole stack, both captures' CPU.
  EXPECT_EQ(mine[0]->cpu_ns, 3000u);
  EXPECT_EQ(mine[0]->frames.size(), 2u);
  EXPECT_EQ(mine[0]->flags & wire::kSampleIncomplete, 0u);
  EXPECT_EQ(leaf_name(s, *mine[0]), "clrscope_unload_probe");
  // 2: the held capture with its own CPU, incomplete, then the other function's.
  EXPECT_EQ(mine[1]->cpu_ns, 3000u);
  EXPECT_NE(mine[1]->flags & wire::kSampleIncomplete, 0u);
  EXPECT_EQ(leaf_name(s, *mine[1]), "clrscope_unload_probe");
  EXPECT_EQ(mine[2]->cpu_ns, 4000u);
  EXPECT_EQ(leaf_name(s, *mine[2]), "clrscope_test_retake_elsewhere");
  // 3: flushed, as it was, before the thread's end.
  EXPECT_EQ(mine[3]->cpu_ns, 5000u);
  EXPECT_NE(mine[3]->flags & wire::kSampleIncomplete, 0u);
  EXPECT_TRUE(s.ended);
}

}  // namespace
}  // namespace clrscope
