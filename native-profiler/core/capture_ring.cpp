#include "core/capture_ring.h"

#include <new>

#include "core/page_memory.h"

namespace clrscope {
namespace {
// A handler looks at this many slots past its starting point before giving up, which bounds
// its time even when the consumer is far behind.
constexpr uint32_t kProbes = 8;
// publish() runs in signal handlers.
static_assert(std::atomic<uint64_t>::is_always_lock_free, "the ready bits must be lock-free");
}  // namespace

CaptureRing::CaptureRing(uint32_t slots, bool with_text) : slots_(slots == 0 ? 1 : slots) {
  // Allocated up front: the handler must never allocate.
  void* p = big_alloc(sizeof(Cell) * slots_);
  if (p == nullptr) {
    slots_ = 0;
    cells_ = nullptr;
    return;
  }
  cells_ = static_cast<Cell*>(p);
  for (uint32_t i = 0; i < slots_; ++i) new (&cells_[i]) Cell{};
  for (uint32_t i = 0; i < slots_; ++i) cells_[i].state.store(kFree, std::memory_order_relaxed);
  ready_words_ = (slots_ + 63) / 64;
  void* bits = big_alloc(sizeof(std::atomic<uint64_t>) * ready_words_);
  if (bits == nullptr) {
    for (uint32_t i = 0; i < slots_; ++i) cells_[i].~Cell();
    big_free(cells_, sizeof(Cell) * slots_);
    cells_ = nullptr;
    slots_ = 0;
    ready_words_ = 0;
    return;
  }
  ready_ = static_cast<std::atomic<uint64_t>*>(bits);
  for (uint32_t w = 0; w < ready_words_; ++w) new (&ready_[w]) std::atomic<uint64_t>(0);
  if (with_text) texts_ = static_cast<char16_t*>(big_alloc(sizeof(char16_t) * kMaxEventText * slots_));
}

CaptureRing::~CaptureRing() {
  for (uint32_t i = 0; i < slots_; ++i) cells_[i].~Cell();
  big_free(cells_, sizeof(Cell) * slots_);
  big_free(ready_, sizeof(std::atomic<uint64_t>) * ready_words_);
  big_free(texts_, sizeof(char16_t) * kMaxEventText * slots_);
}

Capture* CaptureRing::try_acquire(uint32_t* index) {
  if (slots_ == 0) return nullptr;
  const uint32_t start = cursor_.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t k = 0; k < kProbes && k < slots_; ++k) {
    const uint32_t i = (start + k) % slots_;
    Cell& cell = cells_[i];
    uint32_t expected = kFree;
    if (cell.state.compare_exchange_strong(expected, kWriting, std::memory_order_acquire, std::memory_order_relaxed)) {
      *index = i;
      return &cell.capture;
    }
  }
  return nullptr;
}

void CaptureRing::publish(uint32_t index) {
  cells_[index].state.store(kReady, std::memory_order_release);
  ready_[index / 64].fetch_or(uint64_t{1} << (index % 64), std::memory_order_release);
}

}  // namespace clrscope
