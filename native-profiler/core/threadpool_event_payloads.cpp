#include "core/threadpool_event_payloads.h"

#include <cmath>

#include "core/payload_read.h"

namespace clrscope {
namespace {

// A throughput (a double, items per second) as a whole count of thousandths; NaN, negative and
// absurd values (a payload from a version we misread) as 0.
uint64_t thousandths(double v) {
  if (!(v >= 0.0) || v > 1e12) return 0;
  return static_cast<uint64_t>(std::llround(v * 1000.0));
}

}  // namespace

bool threadpool_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                         RuntimeEventRecord* out) {
  if (!is_threadpool_event(event_id) || data == nullptr) return false;
  *out = RuntimeEventRecord{};
  out->event = static_cast<uint16_t>(event_id);
  out->version = static_cast<uint8_t>(version);
  switch (event_id) {
    case threadpool_events::kWorkerThreadStart:
    case threadpool_events::kWorkerThreadStop:
      // u32 ActiveWorkerThreadCount, u32 RetiredWorkerThreadCount, u16 ClrInstanceID.
      if (size < 8) return false;
      out->a = read_at<uint32_t>(data, 0);
      out->b = read_at<uint32_t>(data, 4);
      return true;
    case threadpool_events::kAdjustmentSample:
      // double Throughput, u16 ClrInstanceID.
      if (size < 8) return false;
      out->a = thousandths(read_at<double>(data, 0));
      return true;
    case threadpool_events::kAdjustment:
      // double AverageThroughput, u32 NewWorkerThreadCount, u32 Reason, u16 ClrInstanceID.
      if (size < 16) return false;
      out->a = read_at<uint32_t>(data, 8);
      out->b = read_at<uint32_t>(data, 12);
      out->c = thousandths(read_at<double>(data, 0));
      return true;
    default:
      return false;
  }
}

}  // namespace clrscope
