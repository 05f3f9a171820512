#pragma once
// Memory for the profiler's large buffers, taken from the OS page by page rather than from the
// program's C heap. glibc tunes itself from what it sees freed: a freed block above its mmap
// threshold raises that threshold (and the trim threshold with it), after which the program's
// own large blocks stay in the heap instead of going back to the OS, and a detached profiler's
// buffers would linger in the heap's free lists. Nothing the profiler frees may leave such a
// mark, so every block that could reach the threshold (128 KiB) comes from here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace clrscope {

namespace platform {
// Zero-filled pages, or nullptr. Normal context only.
void* page_alloc(size_t bytes);
void page_free(void* p, size_t bytes);
}  // namespace platform

// Blocks below this come from malloc, which never maps them on their own.
constexpr size_t kPageAllocFrom = 64 * 1024;

inline void* big_alloc(size_t bytes) {
  return bytes >= kPageAllocFrom ? platform::page_alloc(bytes) : std::malloc(bytes == 0 ? 1 : bytes);
}
inline void big_free(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes >= kPageAllocFrom) {
    platform::page_free(p, bytes);
  } else {
    std::free(p);
  }
}

// For containers that may grow past the threshold.
template <typename T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = big_alloc(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { big_free(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PageAllocator<U>&) const {
    return false;
  }
};

// The stream's bytes on their way out.
using ByteBuffer = std::vector<uint8_t, PageAllocator<uint8_t>>;

}  // namespace clrscope
