#include "core/async_tracker.h"

#include <cstring>
#include <new>

#include "core/log.h"
#include "core/platform.h"
#include "core/thread_registry.h"

namespace clrscope {
namespace {

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The emitting thread's slot and its running boxes; the stack holds the boxes suspended under
// inline continuations. A thread_local is this thread's for its whole life, so only the slot can
// change under it (closed and reused when the runtime reports the thread destroyed): its wire id
// is checked on every use, with no gettid system call per event.
struct AsyncThread {
  uint32_t index = 0;
  uint32_t wire_id = 0;
  uint32_t depth = 0;
  uint32_t stack[AsyncTracker::kDepth] = {};
};
thread_local AsyncThread t_async;

uint32_t t_async_current() { return t_async.depth > 0 ? t_async.stack[t_async.depth - 1] : 0; }

ThreadSlot* own_slot(ThreadRegistry& registry) {
  if (t_async.wire_id != 0) {
    ThreadSlot& s = registry.slot(t_async.index);
    if (s.wire_id.load(std::memory_order_acquire) == t_async.wire_id) return &s;
  }
  uint32_t index = 0, wire_id = 0;
  if (!registry.slot_of_tid(platform::current_tid(), &index, &wire_id)) return nullptr;
  if (t_async.wire_id != wire_id) t_async = AsyncThread{};
  t_async.index = index;
  t_async.wire_id = wire_id;
  return &registry.slot(index);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (const char ch : s) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  return h == 0 ? 1 : h;
}

}  // namespace

bool parse_task_wait_begin(const uint8_t* data, size_t size, uint32_t* awaited, uint32_t* awaiter) {
  if (data == nullptr || size < 20) return false;
  *awaited = read_u32(data + 8);
  *awaiter = read_u32(data + 16);
  return *awaited != 0 && *awaiter != 0;
}

bool parse_operation_begin(const uint8_t* data, size_t size, uint32_t* id, std::string* name, size_t cap) {
  static const char kPrefix[] = "Async: ";
  constexpr size_t kPrefixLength = sizeof kPrefix - 1;
  if (data == nullptr || size < 4 + 2 + 8) return false;
  *id = read_u32(data);
  name->clear();
  size_t at = 4;
  bool terminated = false;
  for (; at + 2 <= size; at += 2) {
    const uint16_t unit = static_cast<uint16_t>(data[at] | data[at + 1] << 8);
    if (unit == 0) {
      terminated = true;
      at += 2;
      break;
    }
    // Type names of state machines are ASCII; anything else is kept visible, not decoded.
    if (name->size() < cap + kPrefixLength) name->push_back(unit < 0x80 ? static_cast<char>(unit) : '?');
  }
  if (!terminated || size - at < 8) return false;
  if (name->compare(0, kPrefixLength, kPrefix) == 0) name->erase(0, kPrefixLength);
  if (name->size() > cap) name->resize(cap);
  return *id != 0;
}

bool parse_sync_work_begin(const uint8_t* data, size_t size, uint32_t* id, uint32_t* work) {
  if (data == nullptr || size < 8) return false;
  *id = read_u32(data);
  *work = read_u32(data + 4);
  return *id != 0;
}

AsyncTracker::AsyncTracker(ThreadRegistry* registry) : registry_(registry) {
  edges_ = new std::atomic<uint64_t>[kIdSlots]();
  names_ = new std::atomic<uint64_t>[kIdSlots]();
  name_table_ = new NameSlot[kNameSlots]();
}

AsyncTracker::~AsyncTracker() {
  delete[] edges_;
  delete[] names_;
  delete[] name_table_;
}

uint32_t AsyncTracker::intern(const std::string& name) {
  const uint64_t h = fnv1a(name);
  for (uint32_t probe = 0; probe < 64; ++probe) {
    NameSlot& s = name_table_[(h + probe) & (kNameSlots - 1)];
    uint64_t seen = s.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (s.hash.compare_exchange_strong(seen, h, std::memory_order_acq_rel)) {
        const size_t n = name.size() < kNameBytes ? name.size() : kNameBytes;
        std::memcpy(s.text, name.data(), n);
        s.text[n] = '\0';
        s.ready.store(1, std::memory_order_release);
        return static_cast<uint32_t>((h + probe) & (kNameSlots - 1)) + 1;
      }
    }
    // A 64-bit hash match is taken as the same name: a collision would only mislabel a frame.
    if (seen == h) return static_cast<uint32_t>((h + probe) & (kNameSlots - 1)) + 1;
  }
  names_dropped_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

void AsyncTracker::set_current(uint32_t box, bool begin) {
  ThreadSlot* slot = own_slot(*registry_);
  if (slot == nullptr) return;
  uint32_t now = 0;
  if (begin) {
    if (t_async.depth < kDepth) {
      t_async.stack[t_async.depth++] = box;
    } else {
      depth_overflows_.fetch_add(1, std::memory_order_relaxed);
      t_async.stack[kDepth - 1] = box;
    }
    now = box;
  } else {
    if (t_async.depth > 0) --t_async.depth;
    now = t_async.depth > 0 ? t_async.stack[t_async.depth - 1] : 0;
  }
  slot->async_box.store(now, std::memory_order_relaxed);
}

bool AsyncTracker::on_event(uint32_t event_id, const uint8_t* data, size_t size) {
  delivered_.fetch_add(1, std::memory_order_relaxed);
  if (log_payloads_ && event_id < 32 && logged_[event_id].fetch_add(1, std::memory_order_relaxed) < 8) {
    char hex[3 * 96 + 1] = {};
    const size_t n = size < 96 ? size : 96;
    for (size_t i = 0; i < n; ++i) std::snprintf(hex + 3 * i, 4, "%02x ", data[i]);
    log_line("tpl event %u, %llu bytes: %s", event_id, static_cast<unsigned long long>(size), hex);
  }
  uint32_t a = 0, b = 0;
  switch (event_id) {
    case tpl_events::kTaskWaitBegin:
      if (!parse_task_wait_begin(data, size, &a, &b)) return false;
      edges_[a & (kIdSlots - 1)].store(static_cast<uint64_t>(a) << 32 | b, std::memory_order_relaxed);
      break;
    case tpl_events::kTraceOperationBegin: {
      std::string name;
      if (!parse_operation_begin(data, size, &a, &name, kNameBytes)) return false;
      const uint32_t n = intern(name);
      if (n != 0) names_[a & (kIdSlots - 1)].store(static_cast<uint64_t>(a) << 32 | n, std::memory_order_relaxed);
      break;
    }
    case tpl_events::kTraceSynchronousWorkBegin:
      if (!parse_sync_work_begin(data, size, &a, &b)) return false;
      // A completion notification runs the finished task's continuations, not the task: the
      // thread keeps its box (each continuation that is a box brackets itself), but the level is
      // pushed all the same, since its End comes.
      set_current(b == kWorkExecution ? a : t_async_current(), true);
      break;
    case tpl_events::kTraceSynchronousWorkEnd:
      set_current(0, false);
      break;
    default:
      return false;
  }
  events_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

uint32_t AsyncTracker::awaiter_of(uint32_t id) const {
  if (id == 0) return 0;
  const uint64_t v = edges_[id & (kIdSlots - 1)].load(std::memory_order_relaxed);
  return static_cast<uint32_t>(v >> 32) == id ? static_cast<uint32_t>(v) : 0;
}

std::string AsyncTracker::name_of(uint32_t id) const {
  if (id == 0) return std::string();
  const uint64_t v = names_[id & (kIdSlots - 1)].load(std::memory_order_relaxed);
  if (static_cast<uint32_t>(v >> 32) != id || static_cast<uint32_t>(v) == 0) return std::string();
  const NameSlot& s = name_table_[static_cast<uint32_t>(v) - 1];
  if (s.ready.load(std::memory_order_acquire) == 0) return std::string();
  return std::string(s.text);
}

std::string AsyncTracker::chain(uint32_t box, uint32_t levels) const {
  std::string out;
  uint32_t seen[64];
  uint32_t count = 0;
  for (uint32_t id = box; id != 0 && count < levels && count < 64; id = awaiter_of(id)) {
    for (uint32_t i = 0; i < count; ++i) {
      if (seen[i] == id) return out + "<(cycle)";
    }
    seen[count++] = id;
    if (!out.empty()) out += '<';
    const std::string name = name_of(id);
    out += name.empty() ? "?" + std::to_string(id) : name;
  }
  return out;
}

}  // namespace clrscope
