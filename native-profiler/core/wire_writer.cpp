#include "core/wire_writer.h"

#include <cstring>

namespace clrscope {

size_t utf8_prefix(const std::string& s, size_t max) {
  if (s.size() <= max) return s.size();
  size_t n = max;
  // Step back over continuation bytes (10xxxxxx) so a character is never split.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

void WireWriter::u16(uint16_t v) {
  out_->push_back(static_cast<uint8_t>(v));
  out_->push_back(static_cast<uint8_t>(v >> 8));
}

void WireWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void WireWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void WireWriter::str(const std::string& s) {
  const size_t n = utf8_prefix(s, wire::kMaxString);
  u32(static_cast<uint32_t>(n));
  out_->insert(out_->end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
}

size_t WireWriter::begin(uint8_t type) {
  const size_t start = out_->size();
  u32(0);  // length, patched by finish()
  u8(type);
  return start;
}

void WireWriter::finish(size_t start) {
  const uint32_t length = static_cast<uint32_t>(out_->size() - start - 4);
  for (int i = 0; i < 4; ++i) (*out_)[start + i] = static_cast<uint8_t>(length >> (8 * i));
}

void WireWriter::preamble() {
  static const char kMagic[8] = {'C', 'L', 'R', 'S', 'C', 'O', 'P', 'E'};
  out_->insert(out_->end(), kMagic, kMagic + 8);
  u16(wire::kVersion);
  u16(16);
  u32(0);
}

void WireWriter::hello(const HelloRecord& h) {
  const size_t s = begin(wire::kHello);
  u32(h.pid);
  u32(h.flags);
  u64(h.mono);
  u64(h.unix_ns);
  u32(h.interval_ns);
  u32(h.wall_threads_per_tick);
  str(h.runtime_version);
  str(h.profiler_version);
  finish(s);
}

void WireWriter::thread(uint32_t thread_id, uint32_t os_tid, uint64_t clr_thread_id, uint64_t mono,
                        const std::string& name) {
  const size_t s = begin(wire::kThread);
  u32(thread_id);
  u32(os_tid);
  u64(clr_thread_id);
  u64(mono);
  str(name);
  finish(s);
}

void WireWriter::thread_end(uint32_t thread_id, uint64_t mono) {
  const size_t s = begin(wire::kThreadEnd);
  u32(thread_id);
  u64(mono);
  finish(s);
}

void WireWriter::function(uint32_t function_id, uint8_t kind, const std::string& name, const std::string& module,
                          const std::string& file) {
  const size_t s = begin(wire::kFunction);
  u32(function_id);
  u8(kind);
  str(name);
  str(module);
  str(file);
  finish(s);
}

void WireWriter::sample(uint64_t mono, uint32_t thread_id, uint8_t flags, uint64_t cpu_ns, uint64_t wall_ns,
                        const uint32_t* frames, uint16_t frame_count) {
  // The hot record: size it once and write in place rather than byte by byte.
  const size_t start = out_->size();
  const size_t size = sample_size(frame_count);
  out_->resize(start + size);
  uint8_t* p = out_->data() + start;
  auto put = [&p](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
  };
  put(size - 4, 4);
  put(wire::kSample, 1);
  put(mono, 8);
  put(thread_id, 4);
  put(flags, 1);
  put(cpu_ns, 8);
  put(wall_ns, 8);
  put(frame_count, 2);
  for (uint16_t i = 0; i < frame_count; ++i) put(frames[i], 4);
}

void WireWriter::stats(const StatsRecord& st) {
  const size_t s = begin(wire::kStats);
  u64(st.mono);
  u64(st.samples);
  u64(st.dropped_ring_full);
  u64(st.dropped_buffer_full);
  u64(st.dropped_watchdog);
  u64(st.dropped_other);
  finish(s);
}

void WireWriter::suspension(const SuspensionRecord& r) {
  const size_t s = begin(wire::kSuspension);
  u64(r.mono);
  u64(r.duration_ns);
  u64(r.suspend_ns);
  u8(r.reason);
  u8(static_cast<uint8_t>(r.generation));
  u8(r.flags);
  finish(s);
}

void WireWriter::end(uint64_t mono, uint8_t reason) {
  const size_t s = begin(wire::kEnd);
  u64(mono);
  u8(reason);
  finish(s);
}

void WireWriter::raw(uint8_t type, const uint8_t* body, size_t size) {
  const size_t s = begin(type);
  out_->insert(out_->end(), body, body + size);
  finish(s);
}

}  // namespace clrscope
