// The live heap on the stream: each tracked allocation's event is kept by its live-heap slot, so
// that the sampled objects still alive after GCs can go out as sets.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/emitters.h"
#include "core/live_heap.h"
#include "core/log.h"
#include "core/sample_stream.h"

namespace clrscope {
namespace {

class LiveSetEmitter final : public Emitter {
 public:
  LiveSetEmitter(SampleStream* stream, LiveHeap* live) : stream_(stream), live_(live), entries_(live->capacity()) {}

  void event(const EventRecord& e, uint64_t live_token, const uint32_t* frames, uint16_t count) override {
    // The object may outlive a full send buffer: its place in the live set is kept either way.
    if (live_token == 0) return;
    const uint32_t slot = LiveHeap::slot_of(live_token);
    if (slot >= entries_.size()) return;
    LiveEntry& entry = entries_[slot];
    // Captures may be drained out of order: an older object of this slot never replaces a newer.
    if (entry.token != 0 && (entry.token >> 16) > (live_token >> 16)) return;
    entry.token = live_token;
    entry.thread_id = e.thread_id;
    entry.label_id = e.label_id;
    entry.stack_flags = e.stack_flags;
    entry.bytes = e.value1;
    entry.objects = e.value2;
    entry.frames.assign(frames, frames + count);
  }

  // The sampled objects alive after the latest GC, grouped by (thread, type, stack), at most once a
  // second and once more at the end: a kEventLiveSnapshot (value1 the objects in it, value2 the
  // samples never tracked because the table was full or the runtime gave no handle) and then one
  // kEventLive per group, all at the time of that GC.
  void flush(const FlushPoint& at) override {
    const uint64_t now = at.now;
    const LiveHeapCounts c = live_->counts();
    if (c.sweeps == sent_sweeps_) return;
    if (!at.last && now - sent_mono_ < 1000000000ull) return;
    struct Group {
      const LiveEntry* entry;
      uint64_t bytes, objects;
    };
    std::unordered_map<std::string, Group> groups;
    std::vector<const Group*> order;
    std::string key;
    uint64_t objects = 0;
    size_t bytes_needed = 16;
    for (const LiveEntry& entry : entries_) {
      if (entry.token == 0 || !live_->survivor(entry.token)) continue;
      ++objects;
      key.assign(reinterpret_cast<const char*>(&entry.thread_id), sizeof entry.thread_id);
      key.append(reinterpret_cast<const char*>(&entry.label_id), sizeof entry.label_id);
      key.push_back(static_cast<char>(entry.stack_flags));
      key.append(reinterpret_cast<const char*>(entry.frames.data()), entry.frames.size() * sizeof(uint32_t));
      auto it = groups.find(key);
      if (it == groups.end()) {
        it = groups.emplace(key, Group{&entry, 0, 0}).first;
        order.push_back(&it->second);
        bytes_needed += WireWriter::sample_size(static_cast<uint16_t>(entry.frames.size())) + 16;
      }
      it->second.bytes += entry.bytes;
      it->second.objects += entry.objects;
    }
    // A set is sent whole or not at all: half of one would read as a heap that shrank.
    if (!stream_->room_for(bytes_needed)) return;
    sent_sweeps_ = c.sweeps;
    sent_mono_ = now;
    EventRecord marker;
    marker.kind = wire::kEventLiveSnapshot;
    marker.mono = c.last_sweep_mono;
    marker.value1 = objects;
    marker.value2 = c.dropped + c.refused;
    marker.has_value2 = true;
    stream_->writer.event(marker, nullptr, 0, false);
    for (const Group* g : order) {
      EventRecord e;
      e.kind = wire::kEventLive;
      e.mono = c.last_sweep_mono;
      e.thread_id = g->entry->thread_id;
      e.stack_flags = g->entry->stack_flags;
      e.label_id = g->entry->label_id;
      e.value1 = g->bytes;
      e.value2 = g->objects;
      e.has_value2 = true;
      const uint16_t n = static_cast<uint16_t>(g->entry->frames.size());
      stream_->writer.event(e, g->entry->frames.data(), n, n > 0);
    }
    ++sets_;
  }

  void log_totals() const override {
    const LiveHeapCounts c = live_->counts();
    log_line("live heap: %llu handles made, %llu freed after their object was collected, %llu of another type; "
             "%llu samples not tracked (table of %u full), %llu refused; %llu sweeps took %.1f us each (%.1f ms in all, "
             "the longest %.1f us); %llu live sets sent",
             static_cast<unsigned long long>(c.tracked), static_cast<unsigned long long>(c.collected),
             static_cast<unsigned long long>(c.other_type), static_cast<unsigned long long>(c.dropped),
             live_->capacity(), static_cast<unsigned long long>(c.refused), static_cast<unsigned long long>(c.sweeps),
             c.sweeps == 0 ? 0.0 : static_cast<double>(c.sweep_ns) / 1000.0 / static_cast<double>(c.sweeps),
             static_cast<double>(c.sweep_ns) / 1e6, static_cast<double>(c.sweep_max_ns) / 1000.0,
             static_cast<unsigned long long>(sets_));
  }

 private:
  // A tracked allocation as the stream knows it (by live-heap slot): the token it was tracked
  // under, and what its live-set events carry.
  struct LiveEntry {
    uint64_t token = 0;
    uint32_t thread_id = 0;
    uint32_t label_id = 0;
    uint8_t stack_flags = 0;
    uint64_t bytes = 0;
    uint64_t objects = 0;
    std::vector<uint32_t> frames;
  };

  SampleStream* stream_;
  LiveHeap* live_;
  std::vector<LiveEntry> entries_;  // by live-heap slot
  uint64_t sent_sweeps_ = 0;        // the sweep count the last live set reflected
  uint64_t sent_mono_ = 0;
  uint64_t sets_ = 0;
};

}  // namespace

std::unique_ptr<Emitter> make_live_set_emitter(SampleStream* stream, LiveHeap* live) {
  return std::make_unique<LiveSetEmitter>(stream, live);
}

}  // namespace clrscope
