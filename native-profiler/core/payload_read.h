#pragma once
// A field of an event payload: runtime events arrive packed and unaligned (little-endian, as every
// platform clrscope runs on), so each field is copied out rather than read through a cast.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace clrscope {

template <typename T>
T read_at(const uint8_t* data, size_t offset) {
  T v;
  std::memcpy(&v, data + offset, sizeof v);
  return v;
}

}  // namespace clrscope
