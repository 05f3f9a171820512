// Async call stacks on the stream (issue 14): a sample taken while its thread ran an async box
// names the box's task (TASK_SAMPLES), and TASK records give each task of its chain its name and
// its awaiter, so the reader can rebuild the logical chain as it stood at the sample. With
// CLRSCOPE_ASYNC_LOG=1 each such sample also logs its chain (test/integration/async-chain.test.ts).
//
// An operation suspended at the leaf of its chain (awaiting a timer, I/O, a lock: anything but
// another live operation) runs on no thread, so no thread's wall sample covers it. Each tick its
// suspended time since its previous charge goes out as a wall-only sample of a synthetic thread,
// "[async operations]", whose stack is a `[suspended]` frame (under an `[awaiting Task.Delay]`
// leaf when the awaited task's name is known) and whose task is the operation: readers that know
// async stacks put the operation's chain above `[suspended]`; to others it is a thread like any.
// A tick's charges with the same chain of names and leaf are one sample (their sum, named by the
// first operation's task): at 50k short operations a second, that is a few samples a tick, not
// hundreds, and no TASK records for each. The sample also says how many of those operations are
// still suspended there at the tick (OPERATION_COUNTS): the parallel stacks' operations view.
#include "core/async_chains.h"

#include "core/log.h"
#include "core/sample_stream.h"
#include "core/sampling_shared.h"

namespace clrscope {
namespace {
// Suspended async operations charged per tick at most (a round-robin cursor covers the rest on
// later ticks, each charge covering the time since that operation's previous one); the charges go
// out summed per logical stack, so the samples per tick are the distinct chains.
constexpr size_t kSuspendedPerTick = 4096;
// Deeper chains are cut here (the reader shows the chain up to the cut); the tracker's own
// chain() uses the same bound.
constexpr uint32_t kChainLevels = 32;
// TASK records remembered as sent; past this the memory is dropped and tasks are sent again.
constexpr size_t kTasksRemembered = 1u << 16;
}  // namespace

AsyncChains::AsyncChains(SampleStream* stream, SamplingShared* shared, AsyncTracker* tracker, HeapChains* heap, bool log)
    : stream_(stream),
      shared_(shared),
      async_(tracker),
      heap_(heap),
      names_(tracker != nullptr ? static_cast<const TaskNames*>(tracker) : heap),
      log_(log) {
  // The log names each sample's MoveNext: the names are kept as the frames are defined.
  stream_->on_function = [this](uint32_t id, const std::string& name) {
    if (function_names_.size() <= id) function_names_.resize(id + 1);
    function_names_[id] = name;
  };
  stream_->on_frame = [this](uint32_t frame_id, uint32_t function_id) {
    if (frame_names_.size() <= frame_id) frame_names_.resize(frame_id + 1);
    frame_names_[frame_id] = function_id < function_names_.size() ? function_names_[function_id] : std::string();
  };
}

void AsyncChains::flush(const FlushPoint& at) {
  // Types the heap walks met for the first time, so later walks go past them.
  if (heap_ != nullptr) heap_->classify_pending();
  if (async_ == nullptr) return;
  // Ended tasks' names and awaiters are let go a few ticks after their end (core/task_table.h).
  async_->sweep_tasks();
  // Every operation's suspended time up to the end, whatever the per-tick bound.
  if (at.wall) emit_suspended_ops(at.now, at.last ? AsyncTracker::kOpSlots : kSuspendedPerTick);
}

void AsyncChains::define_task_chain(uint32_t box) {
  if (tasks_sent_.size() > kTasksRemembered) tasks_sent_.clear();
  uint32_t seen[kChainLevels];
  uint32_t count = 0;
  for (uint32_t id = box; id != 0 && count < kChainLevels;) {
    for (uint32_t i = 0; i < count; ++i) {
      if (seen[i] == id) return;  // a cycle (ids reused in the tracker's tables): the reader stops there too
    }
    seen[count++] = id;
    const uint32_t awaiter = names_->awaiter_of(id);
    const std::string name = names_->name_of(id);
    const uint32_t name_id = name.empty() ? 0 : stream_->string_id(name);
    const uint64_t value = static_cast<uint64_t>(awaiter) << 32 | name_id;
    auto it = tasks_sent_.find(id);
    if (it == tasks_sent_.end()) {
      tasks_sent_.emplace(id, value);
      stream_->writer.task(id, awaiter, name_id, false);
    } else if (it->second != value) {
      it->second = value;
      stream_->writer.task(id, awaiter, name_id, true);
    }
    id = awaiter;
  }
}

uint32_t AsyncChains::awaiting_frame(uint32_t awaited) {
  const uint32_t index = async_->name_index_of(awaited);
  if (index == 0) return 0;
  if (awaiting_by_index_.size() <= index) awaiting_by_index_.resize(AsyncTracker::kNameSlots + 1, ~0u);
  uint32_t& known = awaiting_by_index_[index];
  if (known != ~0u) return known;
  const std::string name = async_->name_at(index);
  // An async method's box is awaited only while it lives; once it ended, its awaiter waits to be
  // run, which `[suspended]` alone says.
  if (name.empty() || name[0] == '<') return known = 0;
  auto it = awaiting_frames_.find(name);
  if (it == awaiting_frames_.end()) it = awaiting_frames_.emplace(name, stream_->symbols.synthetic("[awaiting " + name + "]")).first;
  return known = it->second;
}

void AsyncChains::charge_key(const SuspendedCharge& c, uint32_t leaf, std::string* key) const {
  key->clear();
  const auto put = [key](uint32_t v) { key->append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(leaf);
  // The chain as define_task_chain sends it and the reader follows it: awaiters up to 32
  // levels, stopping at a repeat.
  uint32_t seen[kChainLevels];
  uint32_t count = 0;
  for (uint32_t id = c.task; id != 0 && count < kChainLevels; id = async_->awaiter_of(id)) {
    for (uint32_t i = 0; i < count; ++i) {
      if (seen[i] == id) return;
    }
    seen[count++] = id;
    put(async_->name_index_of(id));
  }
}

void AsyncChains::emit_suspended_ops(uint64_t now, size_t max) {
  if (suspended_.size() < max) suspended_.resize(max);
  const size_t n = async_->take_suspended(now, suspended_.data(), max);
  if (n == 0) return;
  if (thread_id_ == 0) {
    thread_id_ = shared_->registry->reserve_wire_id();
    stream_->writer.thread(thread_id_, 0, 0, now, "[async operations]");
    suspended_frame_ = stream_->symbols.synthetic("[suspended]");
  }
  groups_.clear();
  group_index_.clear();
  for (size_t i = 0; i < n; ++i) {
    const SuspendedCharge& c = suspended_[i];
    const uint32_t leaf = awaiting_frame(c.awaited);
    charge_key(c, leaf, &key_);
    auto it = group_index_.find(key_);
    if (it == group_index_.end()) {
      group_index_.emplace(key_, groups_.size());
      groups_.push_back(ChargeGroup{c.task, leaf, c.wall_ns, c.suspended ? 1u : 0u});
    } else {
      groups_[it->second].wall_ns += c.wall_ns;
      groups_[it->second].suspended += c.suspended ? 1 : 0;
    }
  }
  for (const ChargeGroup& g : groups_) {
    uint32_t frames[2];
    uint16_t count = 0;
    if (g.leaf != 0) frames[count++] = g.leaf;
    frames[count++] = suspended_frame_;
    if (!stream_->room_for(WireWriter::sample_size(count) + 17 * kChainLevels + 15)) continue;
    define_task_chain(g.task);
    stream_->writer.sample(now, thread_id_, wire::kSampleWall, 0, g.wall_ns, frames, count, g.task, g.suspended);
    ++stream_->samples_sent;
    ++suspended_samples_;
  }
}

void AsyncChains::log_sample(const NamedCapture& c) {
  std::string move_next = "-";
  for (size_t i = 0; i < c.count; ++i) {
    const uint32_t id = c.frames[i];
    const std::string& name = id < frame_names_.size() ? frame_names_[id] : std::string();
    if (name.find(".MoveNext") != std::string::npos && name.find(">d__") != std::string::npos) {
      move_next = name;
      break;
    }
  }
  std::string chain;
  uint32_t levels = 0;
  for (uint32_t id = c.async_box; id != 0 && levels < kChainLevels; id = names_->awaiter_of(id), ++levels) {
    if (!chain.empty()) chain += '<';
    const std::string name = names_->name_of(id);
    chain += name.empty() ? "?" + std::to_string(id) : name;
  }
  log_line("async sample thread=%u box=%u movenext=%s chain=%s", c.wire_id, c.async_box, move_next.c_str(), chain.c_str());
}

}  // namespace clrscope
