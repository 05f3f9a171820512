#include "core/event_counters.h"

#include <cmath>
#include <cstring>

namespace clrscope {
namespace {

// System.TypeCode values of a V1 field list.
enum TypeCode : int32_t {
  kObject = 1, kBoolean = 3, kChar = 4, kSByte = 5, kByte = 6, kInt16 = 7, kUInt16 = 8, kInt32 = 9, kUInt32 = 10,
  kInt64 = 11, kUInt64 = 12, kSingle = 13, kDouble = 14, kDecimal = 15, kDateTime = 16, kGuid = 17, kString = 18,
};

// Bytes of a fixed-size field in an EventPipe payload (a Boolean is a 4-byte BOOL); 0 otherwise.
size_t fixed_size(int32_t type) {
  switch (type) {
    case kSByte: case kByte: return 1;
    case kChar: case kInt16: case kUInt16: return 2;
    case kBoolean: case kInt32: case kUInt32: case kSingle: return 4;
    case kInt64: case kUInt64: case kDouble: case kDateTime: return 8;
    case kDecimal: case kGuid: return 16;
    default: return 0;
  }
}

struct Cursor {
  const uint8_t* p;
  size_t size;
  size_t at = 0;
  bool ok = true;

  template <typename T>
  T get() {
    T v{};
    if (!ok || size - at < sizeof v) {
      ok = false;
      return v;
    }
    std::memcpy(&v, p + at, sizeof v);
    at += sizeof v;
    return v;
  }
  // A UTF-16z string, kept as ASCII in `out` (cut to fit; non-ASCII units become '?').
  void utf16(char* out, size_t cap) {
    size_t n = 0;
    while (ok) {
      const uint16_t c = get<uint16_t>();
      if (!ok || c == 0) break;
      if (out != nullptr && n + 1 < cap) out[n++] = c < 0x80 ? static_cast<char>(c) : '?';
    }
    if (out != nullptr && cap > 0) out[n] = 0;
  }
};

// A leaf field of the layout, in payload order.
struct Leaf {
  int32_t type;
  char name[24];
};
constexpr int kMaxLeaves = 48;
constexpr int kMaxDepth = 8;

bool read_layout(Cursor* c, int depth, Leaf* leaves, int* count) {
  const int32_t n = c->get<int32_t>();
  // Each field takes at least its TypeCode and an empty name's terminator.
  if (!c->ok || n < 0 || static_cast<size_t>(n) > (c->size - c->at) / 6 || depth > kMaxDepth) return false;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t type = c->get<int32_t>();
    if (type == kObject) {
      if (!read_layout(c, depth + 1, leaves, count)) return false;
      c->utf16(nullptr, 0);
      continue;
    }
    if (*count >= kMaxLeaves) return false;
    Leaf& leaf = leaves[(*count)++];
    leaf.type = type;
    c->utf16(leaf.name, sizeof leaf.name);
    if (!c->ok) return false;
  }
  return c->ok;
}

bool is(const char* a, const char* b) { return std::strcmp(a, b) == 0; }

}  // namespace

bool read_event_counter(const uint8_t* metadata, size_t metadata_size, const uint8_t* data, size_t size,
                        EventCounterReading* out) {
  if (metadata == nullptr || data == nullptr) return false;
  Cursor m{metadata, metadata_size};
  m.get<uint32_t>();  // event id
  char event_name[16];
  m.utf16(event_name, sizeof event_name);
  m.get<uint64_t>();  // keywords
  m.get<uint32_t>();  // version
  m.get<uint32_t>();  // level
  if (!m.ok || !is(event_name, "EventCounters")) return false;
  Leaf leaves[kMaxLeaves];
  int count = 0;
  if (!read_layout(&m, 0, leaves, &count)) return false;

  EventCounterReading r;
  char counter_type[8] = {};
  bool has_mean = false, has_increment = false;
  double mean = 0, increment = 0;
  Cursor d{data, size};
  for (int i = 0; i < count && d.ok; ++i) {
    const Leaf& f = leaves[i];
    if (f.type == kString) {
      if (is(f.name, "Name")) d.utf16(r.name, sizeof r.name);
      else if (is(f.name, "CounterType")) d.utf16(counter_type, sizeof counter_type);
      else d.utf16(nullptr, 0);
      continue;
    }
    double v = 0;
    switch (f.type) {
      case kDouble: v = d.get<double>(); break;
      case kSingle: v = d.get<float>(); break;
      case kInt32: v = d.get<int32_t>(); break;
      case kInt64: v = static_cast<double>(d.get<int64_t>()); break;
      default: {
        const size_t skip = fixed_size(f.type);
        if (skip == 0 || d.size - d.at < skip) return false;
        d.at += skip;
        continue;
      }
    }
    if (is(f.name, "Mean")) {
      mean = v;
      has_mean = true;
    } else if (is(f.name, "Increment")) {
      increment = v;
      has_increment = true;
    } else if (is(f.name, "IntervalSec")) {
      r.interval_sec = v;
    }
  }
  if (!d.ok || r.name[0] == 0) return false;
  r.sum = is(counter_type, "Sum") || (has_increment && !has_mean);
  if (r.sum ? !has_increment : !has_mean) return false;
  r.value = r.sum ? increment : mean;
  if (!std::isfinite(r.value) || !std::isfinite(r.interval_sec)) return false;
  *out = r;
  return true;
}

void apply_event_counter(const EventCounterReading& r, RuntimeGauges* g) {
  using F = RuntimeGauges::Field;
  const auto set = [g](F f, double v) {
    g->value[f].store(v, std::memory_order_relaxed);
    g->present.fetch_or(1u << f, std::memory_order_release);
  };
  // Per second over the interval the increment covers (dotnet-counters shows the increment per
  // its 1 s interval; the session asks for 1 s, so the two agree).
  const double per_second = r.interval_sec > 0 ? r.value / r.interval_sec : r.value;
  const uint64_t whole = r.value > 0 ? static_cast<uint64_t>(r.value + 0.5) : 0;
  // RuntimeEventSource gives these two in MB (10^6 bytes).
  if (is(r.name, "alloc-rate") && r.sum) {
    g->allocated_bytes.fetch_add(whole, std::memory_order_relaxed);
    set(F::kAllocRate, per_second);
  } else if (is(r.name, "gc-committed") && !r.sum) {
    set(F::kGcCommitted, r.value * 1e6);
  } else if (is(r.name, "working-set") && !r.sum) {
    set(F::kWorkingSet, r.value * 1e6);
  } else if (is(r.name, "cpu-usage") && !r.sum) {
    set(F::kCpuPercent, r.value);
  } else if (is(r.name, "threadpool-thread-count") && !r.sum) {
    set(F::kPoolThreads, r.value);
  } else if (is(r.name, "threadpool-queue-length") && !r.sum) {
    set(F::kPoolQueueLength, r.value);
  } else if (is(r.name, "threadpool-completed-items-count") && r.sum) {
    g->completed_items.fetch_add(whole, std::memory_order_relaxed);
    set(F::kPoolCompletedRate, per_second);
    g->pool_intervals.fetch_add(1, std::memory_order_release);
  }
}

}  // namespace clrscope
