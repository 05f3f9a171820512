#include "core/message_table.h"

#include "core/utf16.h"

namespace clrscope {

std::string message_text(const char16_t* text, uint32_t units, uint32_t full_units) {
  const bool cut = full_units > units;
  // A cut between the halves of a surrogate pair would leave a lone high surrogate, which reads
  // as U+FFFD: the character goes with the rest of what was cut.
  if (cut && units > 0 && text[units - 1] >= 0xD800 && text[units - 1] <= 0xDBFF) --units;
  std::string out = utf16_to_utf8(text, units);
  if (cut) out += MessageTable::kCutMark;
  return out;
}

uint32_t MessageTable::intern(const char16_t* text, uint32_t units, uint32_t full_units) {
  scratch_ = message_text(text, units, full_units);
  auto known = ids_.find(scratch_);
  if (known != ids_.end()) return known->second;
  if (ids_.size() >= kMaxMessages) {
    ++overflowed_;
    if (overflow_id_ == 0) overflow_id_ = define_(kOverflowText);
    return overflow_id_;
  }
  const uint32_t id = define_(scratch_);
  ids_.emplace(scratch_, id);
  return id;
}

}  // namespace clrscope
