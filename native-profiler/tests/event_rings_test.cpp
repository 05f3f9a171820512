#include <gtest/gtest.h>

#include "core/capture_ring.h"
#include "core/event_capture.h"
#include "core/platform.h"
#include "core/sampling_shared.h"
#include "core/thread_registry.h"
#include "core/wire_writer.h"

namespace clrscope {
namespace {

// A program allocating as fast as it can fills any ring of allocation samples between two
// sampler ticks; the lock waits and exceptions it raises meanwhile must still be recorded.
TEST(EventRings, AllocationsThatFillTheirRingLeaveRoomForLockWaitsAndExceptions) {
  ThreadRegistry registry;
  CaptureRing ring(4);
  CaptureRing events(4, true);
  CaptureRing allocations(4);
  SamplingShared shared;
  shared.registry = &registry;
  shared.ring = &ring;
  shared.event_ring = &events;
  shared.alloc_ring = &allocations;
  shared.active.store(true);
  registry.on_created(0x4200);
  registry.on_assigned_os_thread(0x4200, platform::current_tid());

  EventInfo alloc;
  alloc.kind = wire::kEventAllocation;
  alloc.value1 = 102400;
  alloc.value2 = 1;
  uint32_t recorded = 0;
  for (int i = 0; i < 20; ++i) recorded += record_event(shared, alloc) ? 1 : 0;
  EXPECT_EQ(recorded, 4u) << "the allocation ring holds four";
  EventInfo wait;
  wait.kind = wire::kEventContention;
  wait.value1 = 3000000000ull;
  EXPECT_TRUE(record_event(shared, wait)) << "a lock wait finds room while allocations fill theirs";
  EventInfo thrown;
  thrown.kind = wire::kEventException;
  thrown.value1 = 1;
  EXPECT_TRUE(record_event(shared, thrown));

  uint32_t waits = 0, exceptions = 0, allocs = 0;
  uint64_t bytes = 0;
  events.drain([&](const Capture& c) {
    waits += c.event_kind == wire::kEventContention ? 1 : 0;
    exceptions += c.event_kind == wire::kEventException ? 1 : 0;
  });
  allocations.drain([&](const Capture& c) {
    ++allocs;
    bytes += c.event_value1;
  });
  EXPECT_EQ(waits, 1u);
  EXPECT_EQ(exceptions, 1u);
  EXPECT_EQ(allocs, 4u);
  // The 16 lost ride on later samples of the thread (AllocationCarry): the next one takes one.
  EXPECT_TRUE(record_event(shared, alloc));
  allocations.drain([&](const Capture& c) { bytes += c.event_value1; });
  EXPECT_EQ(bytes, 4u * 102400 + 2u * 102400);
  registry.on_destroyed(0x4200);
}

}  // namespace
}  // namespace clrscope
