#include "core/measure_wire.h"

#include <algorithm>

#include "core/wire_writer.h"

namespace clrscope {
namespace measure_wire {
namespace {

void u8(Bytes* out, uint8_t v) { out->push_back(v); }
void u16(Bytes* out, uint16_t v) {
  out->push_back(static_cast<uint8_t>(v));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
void u32(Bytes* out, uint32_t v) {
  u16(out, static_cast<uint16_t>(v));
  u16(out, static_cast<uint16_t>(v >> 16));
}
void u64(Bytes* out, uint64_t v) {
  u32(out, static_cast<uint32_t>(v));
  u32(out, static_cast<uint32_t>(v >> 32));
}
// Strings as everywhere on the stream: u32 byte length, UTF-8, cut at 65,535 bytes on a
// character boundary.
void str(Bytes* out, const std::string& s) {
  const size_t n = utf8_prefix(s, wire::kMaxString);
  u32(out, static_cast<uint32_t>(n));
  out->insert(out->end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
}

uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace

void method_body(const MethodRecord& m, Bytes* out) {
  out->clear();
  u32(out, m.measure_id);
  u32(out, m.request);
  u8(out, m.state);
  u8(out, m.flags);
  str(out, m.name);
  str(out, m.module);
  str(out, m.detail);
}

void figures_body(uint64_t mono, uint32_t measure_id, uint64_t dropped_calls, const measure::Figures& f, Bytes* out) {
  out->clear();
  u64(out, mono);
  u32(out, measure_id);
  u64(out, f.calls);
  u64(out, f.exceptions);
  u64(out, f.total_ns);
  u64(out, f.max_ns);
  u64(out, dropped_calls);
  const size_t buckets = std::min<size_t>(f.buckets.size(), 0xFFFF);
  u16(out, static_cast<uint16_t>(buckets));
  for (size_t i = 0; i < buckets; ++i) {
    u16(out, f.buckets[i].first);
    u64(out, f.buckets[i].second);
  }
  const size_t threads = std::min<size_t>(f.threads.size(), 0xFFFF);
  u16(out, static_cast<uint16_t>(threads));
  for (size_t i = 0; i < threads; ++i) {
    u32(out, f.threads[i].os_tid);
    u64(out, f.threads[i].calls);
    u64(out, f.threads[i].exceptions);
    u64(out, f.threads[i].total_ns);
  }
}

void reply_body(uint32_t request, uint8_t status, uint32_t matched, const std::string& message, Bytes* out) {
  out->clear();
  u32(out, request);
  u8(out, status);
  u32(out, matched);
  str(out, message);
}

void control_ready_body(Bytes* out) {
  out->clear();
  u16(out, kControlVersion);
  u32(out, kMaxCommandBytes);
}

bool CommandReader::push(const uint8_t* data, size_t size, std::vector<Command>* out) {
  if (corrupt_) return false;
  pending_.insert(pending_.end(), data, data + size);
  size_t at = 0;
  while (pending_.size() - at >= 5) {
    const uint32_t length = le32(pending_.data() + at);
    if (length == 0 || length > kMaxCommandBytes) {
      corrupt_ = true;
      pending_.clear();
      return false;
    }
    if (pending_.size() - at - 4 < length) break;
    const uint8_t* body = pending_.data() + at + 5;
    const uint32_t body_size = length - 1;
    Command c;
    c.type = pending_[at + 4];
    bool ok = true;
    if (c.type == kCommandMeasure) {
      ok = body_size >= 8 && le32(body + 4) <= body_size - 8;
      if (ok) {
        c.request = le32(body);
        c.pattern.assign(reinterpret_cast<const char*>(body + 8), le32(body + 4));
      }
    } else if (c.type == kCommandRevert) {
      ok = body_size >= 8;
      if (ok) {
        c.request = le32(body);
        c.measure_id = le32(body + 4);
      }
    } else if (body_size >= 4) {
      c.request = le32(body);  // an unknown command still names its request, to be answered
    }
    if (!ok) {
      corrupt_ = true;
      pending_.clear();
      return false;
    }
    out->push_back(std::move(c));
    at += 4 + length;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(at));
  return true;
}

}  // namespace measure_wire
}  // namespace clrscope
