#include "core/exception_identity.h"

namespace clrscope {

ExceptionIdentity::Seen ExceptionIdentity::on_thrown(uint64_t object, bool track) {
  Seen seen;
  if (object == 0) return seen;
  {
    std::lock_guard<std::mutex> hold(lock_);
    for (uint32_t i = 0; i < kCapacity; ++i) {
      if (address_[i] == object) {
        seen.id = id_[i];
        seen.rethrow = true;
        ++counts_.rethrows;
        return seen;
      }
    }
  }
  if (!track) return seen;
  // First throw of this object: a handle made outside the lock (the runtime is called).
  const uint64_t handle = ops_.create(ops_.context, object);
  uint64_t evicted = 0;
  {
    std::lock_guard<std::mutex> hold(lock_);
    seen.id = next_id_++;
    ++counts_.exceptions;
    if (handle == 0) {
      ++counts_.refused;
      return seen;
    }
    // A slot a GC freed if there is one, else the oldest object's.
    uint32_t slot = next_;
    for (uint32_t k = 0; k < kCapacity; ++k) {
      const uint32_t i = (next_ + k) % kCapacity;
      if (handle_[i] == 0) {
        slot = i;
        break;
      }
    }
    next_ = (slot + 1) % kCapacity;
    if (handle_[slot] != 0) {
      evicted = handle_[slot];
      ++counts_.evicted;
    }
    address_[slot] = object;
    handle_[slot] = handle;
    id_[slot] = seen.id;
  }
  if (evicted != 0) ops_.destroy(ops_.context, evicted);
  return seen;
}

void ExceptionIdentity::after_gc() {
  std::lock_guard<std::mutex> hold(lock_);
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (handle_[i] == 0) continue;
    const uint64_t now = ops_.object(ops_.context, handle_[i]);
    if (now != 0) {
      address_[i] = now;
      continue;
    }
    ops_.destroy(ops_.context, handle_[i]);
    handle_[i] = 0;
    address_[i] = 0;
    id_[i] = 0;
  }
}

void ExceptionIdentity::release_all() {
  std::lock_guard<std::mutex> hold(lock_);
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (handle_[i] != 0) ops_.destroy(ops_.context, handle_[i]);
    handle_[i] = 0;
    address_[i] = 0;
    id_[i] = 0;
  }
}

ExceptionIdentityCounts ExceptionIdentity::counts() const {
  std::lock_guard<std::mutex> hold(lock_);
  return counts_;
}

}  // namespace clrscope
