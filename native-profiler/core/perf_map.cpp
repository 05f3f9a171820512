#include "core/perf_map.h"

#include <cstring>

namespace clrscope {
namespace {

// Blocks of stubs can enclose shorter entries listed after them: a pc past the nearest entry's
// end may still lie in one that starts a few entries earlier.
constexpr int kEnclosingLooks = 16;
// A longer line is not one the runtime writes; it is skipped rather than kept whole.
constexpr size_t kMaxLine = 64 * 1024;

bool hex_field(const char** p, const char* end, uintptr_t* out) {
  const char* s = *p;
  if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;  // printed with %p
  uintptr_t v = 0;
  const char* digits = s;
  for (; s < end; ++s) {
    const char c = *s;
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else break;
    if (s - digits >= static_cast<ptrdiff_t>(2 * sizeof(uintptr_t))) return false;
    v = (v << 4) | d;
  }
  if (s == digits || s == end || *s != ' ') return false;
  *out = v;
  *p = s + 1;
  return true;
}

}  // namespace

void PerfMap::feed(const char* data, size_t size) {
  size_t start = 0;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] != '\n') continue;
    if (partial_.empty()) {
      line(data + start, i - start);
    } else {
      if (partial_.size() + (i - start) <= kMaxLine) {
        partial_.append(data + start, i - start);
        line(partial_.data(), partial_.size());
      }
      partial_.clear();
    }
    start = i + 1;
  }
  if (start < size && partial_.size() + (size - start) <= kMaxLine) partial_.append(data + start, size - start);
}

void PerfMap::line(const char* text, size_t size) {
  const char* p = text;
  const char* end = text + size;
  uintptr_t start = 0, length = 0;
  if (!hex_field(&p, end, &start) || !hex_field(&p, end, &length) || length == 0 || p >= end) return;
  if (start + length < start) return;
  Entry& e = by_start_[start];
  e.end = start + length;
  e.name.assign(p, static_cast<size_t>(end - p));
}

bool PerfMap::lookup(uintptr_t pc, std::string* name) const {
  auto it = by_start_.upper_bound(pc);
  for (int looks = 0; looks < kEnclosingLooks && it != by_start_.begin(); ++looks) {
    --it;
    if (pc < it->second.end) {
      *name = it->second.name;
      return true;
    }
  }
  return false;
}

std::string perf_map_label(const std::string& name) {
  if (name.compare(0, 5, "stub ") != 0) return name;
  const std::string body = name.substr(5);
  const size_t lt = body.find('<');
  const size_t gt = body.rfind('>');
  if (lt == std::string::npos || gt == std::string::npos || gt < lt) return "[runtime stub] " + body;
  const std::string how = body.substr(0, lt);
  const std::string kind = body.substr(lt + 1, gt - lt - 1);
  // The block reporters say nothing the kind does not; the helper factories tell helpers apart.
  if (how == "ReportStubBlock" || how == "InitThreadManagerPerfMapData" || how.empty()) return "[runtime stub] " + kind;
  return "[runtime stub] " + kind + " " + how;
}

std::string il_stub_label(const std::string& name) {
  const char* kMarker = "dynamicClass::";
  const size_t at = name.find(kMarker);
  if (at == std::string::npos) return std::string();
  std::string rest = name.substr(at + std::strlen(kMarker));
  if (rest.compare(0, 7, "IL_STUB") != 0) return std::string();
  // The runtime's "[Optimized]" tier suffix and "/* MT: 0x... */" comments say nothing here.
  if (!rest.empty() && rest.back() == ']') {
    const size_t open = rest.rfind('[');
    if (open != std::string::npos) rest.erase(open);
  }
  std::string out;
  out.reserve(rest.size());
  size_t word = 0;  // where the current parameter's type name starts in `out`
  for (size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '/' && i + 1 < rest.size() && rest[i + 1] == '*') {
      const size_t close = rest.find("*/", i + 2);
      if (close == std::string::npos) break;
      i = close + 1;
      while (!out.empty() && out.back() == ' ') out.pop_back();
      continue;
    }
    if (c == '(' || c == ',') {
      out.push_back(c);
      word = out.size();
      continue;
    }
    if (c == '.' || c == '/') {
      // Namespaces and enclosing types: keep the last name only.
      if (out.size() > word && out.compare(0, 7, "IL_STUB") == 0 && out.find('(') != std::string::npos) {
        out.erase(word);
        continue;
      }
    }
    out.push_back(c);
  }
  // Analyses drop a trailing parameter list to merge a method's spellings
  // (structs/analysis/normalize-name.ts); these parameters are what tell the stubs apart.
  const size_t open = out.find('(');
  if (open == std::string::npos || out.back() != ')') return out;
  const std::string params = out.substr(open + 1, out.size() - open - 2);
  return out.substr(0, open) + (params.empty() ? "" : ": " + params);
}

}  // namespace clrscope
