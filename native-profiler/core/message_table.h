#pragma once
// Exception messages as the stream names them: each distinct text once, as a STRING, and every
// later exception with the same text by its id. Messages often embed ids, keys or paths, so a
// program can throw an unbounded number of distinct ones: the table keeps at most kMaxMessages
// texts, and every text past that goes out as the one string kOverflowText (counted), so neither
// the profiler's memory nor the stream grows with them. Sampler thread only.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

namespace clrscope {

class MessageTable {
 public:
  static constexpr size_t kMaxMessages = 1024;
  // A text past the cap goes out as this.
  static constexpr const char* kOverflowText = "[more distinct messages than kept]";
  // Appended to a message the callback cut at its length limit.
  static constexpr const char* kCutMark = "\xE2\x80\xA6";  // U+2026

  // `define(text)` names a text to the stream (a STRING) and returns its id; called once per
  // text kept, and once for kOverflowText when the cap is first passed.
  explicit MessageTable(std::function<uint32_t(const std::string&)> define) : define_(std::move(define)) {}

  // The id of a message given as `units` UTF-16 code units of a string `full_units` long (more:
  // the text was cut to `units`). A surrogate pair split by the cut is dropped whole.
  uint32_t intern(const char16_t* text, uint32_t units, uint32_t full_units);

  size_t kept() const { return ids_.size(); }
  // Messages sent as kOverflowText because the table was full.
  uint64_t overflowed() const { return overflowed_; }

 private:
  std::function<uint32_t(const std::string&)> define_;
  std::unordered_map<std::string, uint32_t> ids_;
  uint32_t overflow_id_ = 0;
  uint64_t overflowed_ = 0;
  std::string scratch_;
};

// The UTF-8 text of `units` UTF-16 units of a string `full_units` long, as MessageTable keeps it.
std::string message_text(const char16_t* text, uint32_t units, uint32_t full_units);

}  // namespace clrscope
