#pragma once
// Adds up what the probes wrote (core/measure_probes.h): per measured method, the calls, the
// exceptions that left it, its total and longest duration, the histogram, and one row per
// thread. Runs on the sampler thread only. Threads that exited are folded into totals kept
// here and their slabs freed, so a long measurement of a thread-churning program holds memory
// for the threads alive now, not for every thread it ever ran.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/measure_histogram.h"

namespace clrscope {
namespace measure {

struct ThreadFigures {
  uint32_t os_tid = 0;  // 0: threads past the per-method limit of rows, added together
  uint64_t calls = 0;
  uint64_t exceptions = 0;
  uint64_t total_ns = 0;
};

struct Figures {
  uint64_t calls = 0;
  uint64_t exceptions = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;
  std::vector<std::pair<uint16_t, uint64_t>> buckets;  // (bucket, count), non-zero, ascending
  std::vector<ThreadFigures> threads;                  // threads with calls, live ones first
};

class FiguresReader {
 public:
  // Rows of exited threads kept per method; later ones are added into one row with tid 0.
  static constexpr size_t kMaxExitedRows = 256;

  // Figures of each method in `methods` (indices given to the probes), in that order.
  void read(const std::vector<uint32_t>& methods, std::vector<Figures>* out);
  // Calls the probes could not record (no memory for a thread's figures, too many threads).
  uint64_t dropped_calls() const;

 private:
  struct Folded {
    uint64_t calls = 0, exceptions = 0, total_ns = 0, max_ns = 0;
    std::vector<uint64_t> buckets;
    std::vector<ThreadFigures> threads;
  };
  void fold_retired();

  std::unordered_map<uint32_t, Folded> folded_;  // by method index
  uint64_t sums_[kBuckets] = {};
};

}  // namespace measure
}  // namespace clrscope
