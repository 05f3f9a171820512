#include "core/wait_event_payloads.h"

#include "core/payload_read.h"

namespace clrscope {

bool wait_event_from_runtime_event(uint32_t event_id, uint32_t version, const uint8_t* data, size_t size,
                                   size_t pointer_size, RuntimeEventRecord* out) {
  if (!is_wait_event(event_id) || data == nullptr) return false;
  *out = RuntimeEventRecord{};
  out->event = static_cast<uint16_t>(event_id);
  out->version = static_cast<uint8_t>(version);
  if (event_id == wait_events::kWaitStop) return size >= 2;  // u16 ClrInstanceID
  // u8 WaitSource, pointer AssociatedObjectID, u16 ClrInstanceID.
  if (size < 1 + pointer_size) return false;
  out->a = data[0];
  out->b = pointer_size == 8 ? read_at<uint64_t>(data, 1) : read_at<uint32_t>(data, 1);
  return true;
}

}  // namespace clrscope
