#include "core/request_payloads.h"

#include <utility>
#include <vector>

#include "core/utf16.h"

namespace clrscope {
namespace request_events {

const char16_t kFilter[] =
    u"FilterAndPayloadSpecs=\""
    u"Microsoft.AspNetCore/Microsoft.AspNetCore.Hosting.HttpRequestIn@Event:-\n"
    u"Microsoft.AspNetCore/Microsoft.AspNetCore.Hosting.HttpRequestIn.Start@Activity1Start:-"
    u"Method=HttpContext.Request.Method;Path=HttpContext.Request.Path;TraceId=*Activity.TraceId;SpanId=*Activity.SpanId\n"
    u"Microsoft.AspNetCore/Microsoft.AspNetCore.Hosting.HttpRequestIn.Stop@Activity1Stop:-"
    u"SpanId=*Activity.SpanId;Status=HttpContext.Response.StatusCode;Route=HttpContext.Request.RouteValues.*Enumerate\"";

}  // namespace request_events

namespace {

constexpr size_t kMaxText = 512;  // longer strings are cut (a path, route values)

// One NUL-ended UTF-16 string at `*at`; false when it runs past the payload.
bool read_string(const uint8_t* data, size_t size, size_t* at, std::string* out) {
  const size_t begin = *at;
  size_t end = begin;
  while (end + 2 <= size && (data[end] | data[end + 1]) != 0) end += 2;
  if (end + 2 > size) return false;
  std::vector<char16_t> units;
  const size_t count = (end - begin) / 2;
  units.reserve(count < kMaxText ? count : kMaxText);
  for (size_t i = 0; i < count && i < kMaxText; ++i) {
    units.push_back(static_cast<char16_t>(data[begin + 2 * i] | data[begin + 2 * i + 1] << 8));
  }
  *out = utf16_to_utf8(units.data(), units.size());
  *at = end + 2;
  return true;
}

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

}  // namespace

bool parse_request_event(const uint8_t* data, size_t size, RequestEvent* out) {
  if (data == nullptr) return false;
  size_t at = 0;
  std::string source, name;
  if (!read_string(data, size, &at, &source) || source != "Microsoft.AspNetCore") return false;
  if (!read_string(data, size, &at, &name)) return false;
  out->start = ends_with(name, "HttpRequestIn.Start");
  if (!out->start && !ends_with(name, "HttpRequestIn.Stop")) return false;
  if (at + 2 > size) return false;
  const uint32_t pairs = static_cast<uint32_t>(data[at] | data[at + 1] << 8);
  at += 2;
  for (uint32_t i = 0; i < pairs; ++i) {
    std::string key, value;
    if (!read_string(data, size, &at, &key) || !read_string(data, size, &at, &value)) return false;
    if (key == "Method") out->method = std::move(value);
    else if (key == "Path") out->path = std::move(value);
    else if (key == "TraceId") out->trace_id = std::move(value);
    else if (key == "SpanId") out->span_id = std::move(value);
    else if (key == "Route") out->route_values = std::move(value);
    else if (key == "Status") {
      uint32_t status = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || status > 100000) break;
        status = status * 10 + static_cast<uint32_t>(c - '0');
      }
      out->status = status;
    }
  }
  return true;
}

std::string route_pattern(const std::string& path, const std::string& route_values) {
  // "[k1, v1],[k2, v2]" -> pairs (values may not hold "]" or ", ": route values from a path segment).
  std::vector<std::pair<std::string, std::string>> values;
  size_t at = 0;
  while ((at = route_values.find('[', at)) != std::string::npos) {
    const size_t comma = route_values.find(", ", at);
    const size_t close = route_values.find(']', at);
    if (comma == std::string::npos || close == std::string::npos || comma > close) break;
    values.emplace_back(route_values.substr(at + 1, comma - at - 1), route_values.substr(comma + 2, close - comma - 2));
    at = close + 1;
  }
  if (values.empty()) return path;
  std::string out;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    const std::string segment = path.substr(begin, end - begin);
    std::string replaced = segment;
    for (const auto& [key, value] : values) {
      if (!segment.empty() && segment == value) {
        replaced = "{" + key + "}";
        break;
      }
    }
    out += replaced;
    if (end == path.size()) break;
    out += '/';
    begin = end + 1;
  }
  return out;
}

uint64_t span_key(const std::string& hex) {
  if (hex.size() != 16) return 0;
  uint64_t v = 0;
  for (char c : hex) {
    uint64_t d;
    if (c >= '0' && c <= '9') d = static_cast<uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<uint64_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = static_cast<uint64_t>(c - 'A' + 10);
    else return 0;
    v = v << 4 | d;
  }
  return v;
}

}  // namespace clrscope
