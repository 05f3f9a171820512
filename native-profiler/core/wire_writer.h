#pragma once
// Encodes the clrscope sample stream, wire v1 (structs/wire/PROTOCOL.md). Pure byte
// building: where the bytes go, and what happens when they cannot go, is the Outbox's job.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/page_memory.h"

namespace clrscope {

namespace wire {
constexpr uint16_t kVersion = 1;
constexpr uint32_t kMaxRecord = 1u << 20;
constexpr size_t kMaxString = 65535;

enum RecordType : uint8_t {
  kHello = 0x01,
  kThread = 0x02,
  kThreadEnd = 0x03,
  kFunction = 0x04,
  kSample = 0x05,
  kStats = 0x06,
  kSuspension = 0x07,
  kEnd = 0x7F,
};

enum HelloFlags : uint32_t { kHelloCpu = 1, kHelloWall = 2, kHelloAttached = 4 };
enum SampleFlags : uint8_t { kSampleCpu = 1, kSampleWall = 2, kSampleIncomplete = 4, kSampleElided = 8 };
enum FunctionKind : uint8_t { kManaged = 0, kNative = 1, kSynthetic = 2 };
enum EndReason : uint8_t { kEndShutdown = 0, kEndDetach = 1, kEndStopped = 2, kEndRequested = 3 };
enum SuspensionFlags : uint8_t { kSuspensionInduced = 1, kSuspensionAborted = 2 };
}  // namespace wire

struct HelloRecord {
  uint32_t pid;
  uint32_t flags;
  uint64_t mono;
  uint64_t unix_ns;
  uint32_t interval_ns;
  uint32_t wall_threads_per_tick;
  std::string runtime_version;
  std::string profiler_version;
};

struct SuspensionRecord {
  uint64_t mono;         // RuntimeSuspendStarted
  uint64_t duration_ns;  // until RuntimeResumeFinished
  uint64_t suspend_ns;   // until RuntimeSuspendFinished
  uint8_t reason;        // COR_PRF_SUSPEND_REASON
  int8_t generation;     // highest generation collected, -1 none
  uint8_t flags;         // wire::SuspensionFlags
};

struct StatsRecord {
  uint64_t mono;
  uint64_t samples;
  uint64_t dropped_ring_full;
  uint64_t dropped_buffer_full;
  uint64_t dropped_watchdog;
  uint64_t dropped_other;
};

class WireWriter {
 public:
  explicit WireWriter(ByteBuffer* out) : out_(out) {}

  void preamble();
  void hello(const HelloRecord& h);
  void thread(uint32_t thread_id, uint32_t os_tid, uint64_t clr_thread_id, uint64_t mono, const std::string& name);
  void thread_end(uint32_t thread_id, uint64_t mono);
  void function(uint32_t function_id, uint8_t kind, const std::string& name, const std::string& module,
                const std::string& file);
  void sample(uint64_t mono, uint32_t thread_id, uint8_t flags, uint64_t cpu_ns, uint64_t wall_ns,
              const uint32_t* frames, uint16_t frame_count);
  void stats(const StatsRecord& s);
  void suspension(const SuspensionRecord& s);
  void end(uint64_t mono, uint8_t reason);
  // A record of any type with an opaque body (tests; future record types).
  void raw(uint8_t type, const uint8_t* body, size_t size);

  // Bytes a SAMPLE with this many frames takes, to decide before encoding whether it fits.
  static size_t sample_size(uint16_t frame_count) { return 4 + 1 + 8 + 4 + 1 + 8 + 8 + 2 + 4u * frame_count; }

 private:
  size_t begin(uint8_t type);
  void finish(size_t start);
  void u8(uint8_t v) { out_->push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void str(const std::string& s);

  ByteBuffer* out_;
};

// The longest prefix of `s` that is at most `max` bytes and ends on a UTF-8 boundary.
size_t utf8_prefix(const std::string& s, size_t max);

}  // namespace clrscope
