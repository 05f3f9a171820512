#pragma once
// The bounded send buffer between the encoder and the transport. Samples are dropped (and
// counted) when the reader falls behind; definitions are kept while there is room, because a
// sample that names an undefined thread or function would corrupt the stream. When even a
// definition does not fit, the stream is declared broken and the profiler goes quiet.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/page_memory.h"
#include "core/transport.h"

namespace clrscope {

class Outbox {
 public:
  Outbox(Transport* transport, size_t capacity);

  ByteBuffer* buffer() { return &buf_; }
  // Runs at the start of every flush/drain: the encoder finishes a record it keeps open (wire
  // v2 packs samples into one record until something else is written), so only whole records
  // are sent.
  void set_before_send(std::function<void()> fn) { before_send_ = std::move(fn); }
  // Room for a sample of this many bytes below the sample limit (a quarter of the capacity is
  // held back for definitions).
  bool room_for_sample(size_t bytes) const { return pending() + bytes <= sample_limit_; }
  // Call after appending a definition: false when the buffer is over its capacity.
  bool within_capacity() const { return pending() <= capacity_; }
  size_t pending() const { return buf_.size() - head_; }

  // Sends what the transport takes now. False once the transport is broken.
  bool flush();
  // Final flush: keeps sending for up to timeout_ms.
  bool drain(int timeout_ms);
  bool broken() const { return broken_; }
  uint64_t bytes_sent() const { return sent_total_; }

 private:
  Transport* transport_;
  ByteBuffer buf_;
  size_t head_ = 0;  // bytes before head_ are sent
  size_t capacity_;
  size_t sample_limit_;
  bool broken_ = false;
  uint64_t sent_total_ = 0;
  std::function<void()> before_send_;
};

}  // namespace clrscope
