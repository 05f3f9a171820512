#include <gtest/gtest.h>

#include <string>

#include "core/capture_ring.h"
#include "core/event_capture.h"
#include "core/platform.h"
#include "core/sampling_shared.h"
#include "core/thread_registry.h"
#include "core/wire_writer.h"

namespace clrscope {
namespace {

// An exception's message travels from the throwing thread to the sampler in the event ring's
// own text storage: at most kMaxEventText units are copied, whatever the string's length, and
// the capture says how long the string was.
TEST(EventText, RecordEventCopiesAtMostTheCapAndKeepsTheLength) {
  ThreadRegistry registry;
  CaptureRing ring(4);
  CaptureRing events(4, true);
  SamplingShared shared;
  shared.registry = &registry;
  shared.ring = &ring;
  shared.event_ring = &events;
  shared.active.store(true);
  registry.on_created(0x4100);
  registry.on_assigned_os_thread(0x4100, platform::current_tid());

  const std::u16string long_message(kMaxEventText + 44, u'm');
  const std::u16string short_message = u"clrscope test";
  EventInfo e;
  e.kind = wire::kEventException;
  e.type_id = 0x1234;
  e.value1 = 1;
  e.text = long_message.data();
  e.text_len = static_cast<uint32_t>(long_message.size());
  ASSERT_TRUE(record_event(shared, e));
  e.text = short_message.data();
  e.text_len = static_cast<uint32_t>(short_message.size());
  ASSERT_TRUE(record_event(shared, e));
  e.text = nullptr;
  e.text_len = 0;
  ASSERT_TRUE(record_event(shared, e));

  std::vector<std::u16string> texts;
  std::vector<uint32_t> full;
  events.drain([&](const Capture& c) {
    texts.push_back(c.event_text == nullptr ? u"(none)" : std::u16string(c.event_text, c.event_text_len));
    full.push_back(c.event_text_full);
  });
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0], long_message.substr(0, kMaxEventText));
  EXPECT_EQ(full[0], kMaxEventText + 44);
  EXPECT_EQ(texts[1], short_message);
  EXPECT_EQ(full[1], short_message.size());
  EXPECT_EQ(texts[2], u"(none)");
  EXPECT_EQ(full[2], 0u);
  registry.on_destroyed(0x4100);
}

// The signal handlers' ring carries no text storage; an event recorded into such a ring keeps
// its stack and loses only the text.
TEST(EventText, ARingWithoutTextStorageDropsOnlyTheText) {
  ThreadRegistry registry;
  CaptureRing ring(4);
  CaptureRing events(4);
  SamplingShared shared;
  shared.registry = &registry;
  shared.ring = &ring;
  shared.event_ring = &events;
  shared.active.store(true);
  registry.on_created(0x4200);
  registry.on_assigned_os_thread(0x4200, platform::current_tid());
  const std::u16string message = u"kept out";
  EventInfo e;
  e.kind = wire::kEventException;
  e.value1 = 1;
  e.text = message.data();
  e.text_len = static_cast<uint32_t>(message.size());
  ASSERT_TRUE(record_event(shared, e));
  int seen = 0;
  events.drain([&](const Capture& c) {
    ++seen;
    EXPECT_EQ(c.event_text, nullptr);
    EXPECT_GT(c.count, 0u);
  });
  EXPECT_EQ(seen, 1);
  registry.on_destroyed(0x4200);
}

}  // namespace
}  // namespace clrscope
