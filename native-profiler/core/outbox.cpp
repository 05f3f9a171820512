#include "core/outbox.h"

#include <cstring>

#include "core/platform.h"

namespace clrscope {

Outbox::Outbox(Transport* transport, size_t capacity)
    : transport_(transport), capacity_(capacity), sample_limit_(capacity - capacity / 4) {
  buf_.reserve(capacity + 64 * 1024);
}

bool Outbox::flush() {
  if (broken_) return false;
  if (before_send_) before_send_();
  while (head_ < buf_.size()) {
    size_t sent = 0;
    const Transport::Status st = transport_->send(buf_.data() + head_, buf_.size() - head_, &sent);
    head_ += sent;
    sent_total_ += sent;
    // A lost connection (its descriptor is the program's now) is as over as a broken one; the
    // sampler asks the transport which it was.
    if (st == Transport::Status::kBroken || st == Transport::Status::kLost) {
      broken_ = true;
      return false;
    }
    if (st == Transport::Status::kWouldBlock) break;
  }
  // Compact rarely: only once the sent prefix is large, so the common case is a cheap clear.
  if (head_ == buf_.size()) {
    buf_.clear();
    head_ = 0;
  } else if (head_ > capacity_ / 2) {
    std::memmove(buf_.data(), buf_.data() + head_, buf_.size() - head_);
    buf_.resize(buf_.size() - head_);
    head_ = 0;
  }
  return true;
}

bool Outbox::drain(int timeout_ms) {
  const uint64_t deadline = platform::mono_now_ns() + static_cast<uint64_t>(timeout_ms) * 1000000ull;
  while (flush() && pending() > 0) {
    const uint64_t now = platform::mono_now_ns();
    if (now >= deadline) return false;
    transport_->wait_writable(static_cast<int>((deadline - now) / 1000000ull) + 1);
  }
  return !broken_ && pending() == 0;
}

}  // namespace clrscope
