#include "core/tpl_event_payloads.h"

#include <cstring>

namespace clrscope {
namespace {

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

bool parse_task_wait_begin(const uint8_t* data, size_t size, uint32_t* awaited, uint32_t* awaiter) {
  if (data == nullptr || size < 20) return false;
  *awaited = read_u32(data + 8);
  *awaiter = read_u32(data + 16);
  return *awaited != 0 && *awaiter != 0;
}

bool parse_operation_begin(const uint8_t* data, size_t size, uint32_t* id, std::string* name, size_t cap,
                           bool* async_method) {
  static const char kPrefix[] = "Async: ";
  constexpr size_t kPrefixLength = sizeof kPrefix - 1;
  if (data == nullptr || size < 4 + 2 + 8) return false;
  *id = read_u32(data);
  name->clear();
  size_t at = 4;
  bool terminated = false;
  for (; at + 2 <= size; at += 2) {
    const uint16_t unit = static_cast<uint16_t>(data[at] | data[at + 1] << 8);
    if (unit == 0) {
      terminated = true;
      at += 2;
      break;
    }
    // Type names of state machines are ASCII; anything else is kept visible, not decoded.
    if (name->size() < cap + kPrefixLength) name->push_back(unit < 0x80 ? static_cast<char>(unit) : '?');
  }
  if (!terminated || size - at < 8) return false;
  const bool prefixed = name->compare(0, kPrefixLength, kPrefix) == 0;
  if (prefixed) name->erase(0, kPrefixLength);
  if (async_method != nullptr) *async_method = prefixed;
  if (name->size() > cap) name->resize(cap);
  return *id != 0;
}

bool parse_operation_end(const uint8_t* data, size_t size, uint32_t* id) {
  if (data == nullptr || size < 4) return false;
  *id = read_u32(data);
  return *id != 0;
}

bool parse_sync_work_begin(const uint8_t* data, size_t size, uint32_t* id, uint32_t* work) {
  if (data == nullptr || size < 8) return false;
  *id = read_u32(data);
  *work = read_u32(data + 4);
  return *id != 0;
}

}  // namespace clrscope
