// The box probe's per-thread stack (core/box_stack.h): what the handler reads of it, the chain
// kept for one run of one box (served to samples taken while the runtime is suspended), and the
// probes going quiet when a recording ends. The probes run here on the test's own thread, found
// in a registry through its OS id as in the profiled program.
#include "core/box_stack.h"

#include <gtest/gtest.h>

#include "core/platform.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

bool plain_load(uintptr_t address, uintptr_t* out) {
  *out = *reinterpret_cast<const uintptr_t*>(address);
  return true;
}

struct Walked {
  uintptr_t boxes[kHeapChainBoxes] = {};
};

TEST(BoxStack, KeptChainServesOnlyTheSameRunOfTheSameBox) {
  static ThreadRegistry registry;  // the probes keep pointing at it
  registry.on_created(91);
  registry.on_assigned_os_thread(91, platform::current_tid());
  uint32_t index = 0, wire_id = 0;
  ASSERT_TRUE(registry.slot_of_tid(platform::current_tid(), &index, &wire_id));
  set_box_registry(&registry);
  const ThreadSlot& slot = registry.slot(index);
  const uintptr_t me = platform::current_thread_identity();
  alignas(8) static uintptr_t box_a[4], box_b[4];
  const uintptr_t a = reinterpret_cast<uintptr_t>(box_a), b = reinterpret_cast<uintptr_t>(box_b);

  clrscope_box_enter(a);
  bool too_deep = false;
  BoxRun run_a;
  ASSERT_EQ(running_box(slot, me, plain_load, &too_deep, &run_a), a);
  ASSERT_NE(run_a.serial, 0u);

  // A kept walk of A's chain (A < X < Y) serves A's run.
  uintptr_t chain[3] = {0xA0, 0xB0, 0xC0};
  keep_chain(run_a, a, KeptChain{chain, 3, 0, 0});
  Walked got;
  KeptChain out{got.boxes, 0, 0, 0};
  ASSERT_TRUE(kept_chain(run_a, a, &out));
  EXPECT_EQ(out.count, 3u);
  EXPECT_EQ(got.boxes[2], 0xC0u);

  // B runs nested inside A: a new run, A's chain is not B's.
  clrscope_box_enter(b);
  BoxRun run_b;
  ASSERT_EQ(running_box(slot, me, plain_load, &too_deep, &run_b), b);
  EXPECT_NE(run_b.serial, run_a.serial);
  EXPECT_FALSE(kept_chain(run_b, b, &out));
  // Nor is it served under B's box with A's serial (a handler between the serial's change and the depth's).
  EXPECT_FALSE(kept_chain(run_a, b, &out));

  // Back in A after B left: another serial, so nothing kept is served (A's chain may have changed meanwhile).
  clrscope_box_leave();
  BoxRun run_back;
  ASSERT_EQ(running_box(slot, me, plain_load, &too_deep, &run_back), a);
  EXPECT_NE(run_back.serial, run_a.serial);
  EXPECT_FALSE(kept_chain(run_back, a, &out));
  clrscope_box_leave();
  EXPECT_EQ(running_box(slot, me, plain_load, &too_deep, &run_back), 0u);

  // Another thread's identity reads nothing.
  clrscope_box_enter(a);
  EXPECT_EQ(running_box(slot, me + 8, plain_load, &too_deep, &run_back), 0u);
  clrscope_box_leave();
}

// Last in this file: quiet is for good, as it is in a process whose recording ended.
TEST(BoxStack, QuietProbesTouchNothing) {
  static ThreadRegistry registry;
  registry.on_created(92);
  registry.on_assigned_os_thread(92, platform::current_tid());
  uint32_t index = 0, wire_id = 0;
  ASSERT_TRUE(registry.slot_of_tid(platform::current_tid(), &index, &wire_id));
  set_box_registry(&registry);
  alignas(8) static uintptr_t box[4];
  const uint64_t before = box_enters();
  quiet_box_probes();
  EXPECT_TRUE(box_probes_quiet());
  for (int i = 0; i < 5000; ++i) clrscope_box_enter(reinterpret_cast<uintptr_t>(box));
  EXPECT_EQ(box_enters(), before);
  bool too_deep = false;
  BoxRun run;
  EXPECT_EQ(running_box(registry.slot(index), platform::current_thread_identity(), plain_load, &too_deep, &run), 0u);
}

}  // namespace
}  // namespace clrscope
