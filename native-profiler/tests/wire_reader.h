#pragma once
// A minimal reader of the wire stream for C++ tests that drive the sampler end to end. The
// product's decoder is structs/wire/decoder.ts; this one only has to be simple and strict.
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace clrscope::testing {

struct ReadSample {
  uint64_t mono;
  uint32_t thread_id;
  uint8_t flags;
  uint64_t cpu_ns;
  uint64_t wall_ns;
  std::vector<uint32_t> frames;
};

struct ReadFunction {
  uint8_t kind;
  std::string name;
  std::string module;
};

struct ReadStream {
  uint32_t pid = 0;
  std::map<uint32_t, std::string> thread_names;
  std::map<uint32_t, uint32_t> thread_tids;
  std::map<uint32_t, ReadFunction> functions;
  std::vector<ReadSample> samples;
  std::vector<uint32_t> ended_threads;
  uint64_t stats_samples = 0;
  bool ended = false;
  uint8_t end_reason = 0xFF;

  bool stack_has(const ReadSample& s, const std::string& name) const {
    for (uint32_t f : s.frames) {
      auto it = functions.find(f);
      if (it != functions.end() && it->second.name == name) return true;
    }
    return false;
  }
};

class Cursor {
 public:
  Cursor(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_ + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string str() {
    const uint32_t len = get<uint32_t>();
    need(len);
    std::string s(reinterpret_cast<const char*>(p_ + at_), len);
    at_ += len;
    return s;
  }
  size_t at() const { return at_; }
  void skip(size_t n) {
    need(n);
    at_ += n;
  }

 private:
  void need(size_t k) const {
    if (at_ + k > n_) throw std::runtime_error("stream truncated");
  }
  const uint8_t* p_;
  size_t n_;
  size_t at_ = 0;
};

inline ReadStream read_stream(const std::vector<uint8_t>& bytes) {
  ReadStream out;
  Cursor c(bytes.data(), bytes.size());
  char magic[8];
  for (char& m : magic) m = static_cast<char>(c.get<uint8_t>());
  if (std::string(magic, 8) != "CLRSCOPE") throw std::runtime_error("bad magic");
  if (c.get<uint16_t>() != 1) throw std::runtime_error("bad version");
  c.skip(2 + 4);
  while (c.at() < bytes.size()) {
    const uint32_t length = c.get<uint32_t>();
    const size_t start = c.at();
    const uint8_t type = c.get<uint8_t>();
    switch (type) {
      case 0x01:
        out.pid = c.get<uint32_t>();
        break;
      case 0x02: {
        const uint32_t id = c.get<uint32_t>();
        out.thread_tids[id] = c.get<uint32_t>();
        c.get<uint64_t>();
        c.get<uint64_t>();
        out.thread_names[id] = c.str();
        break;
      }
      case 0x03:
        out.ended_threads.push_back(c.get<uint32_t>());
        break;
      case 0x04: {
        const uint32_t id = c.get<uint32_t>();
        ReadFunction f;
        f.kind = c.get<uint8_t>();
        f.name = c.str();
        f.module = c.str();
        out.functions[id] = f;
        break;
      }
      case 0x05: {
        ReadSample s;
        s.mono = c.get<uint64_t>();
        s.thread_id = c.get<uint32_t>();
        s.flags = c.get<uint8_t>();
        s.cpu_ns = c.get<uint64_t>();
        s.wall_ns = c.get<uint64_t>();
        const uint16_t n = c.get<uint16_t>();
        for (uint16_t i = 0; i < n; ++i) {
          const uint32_t f = c.get<uint32_t>();
          if (out.functions.count(f) == 0) throw std::runtime_error("sample names an undefined function");
          s.frames.push_back(f);
        }
        if (out.thread_names.count(s.thread_id) == 0) throw std::runtime_error("sample names an undefined thread");
        out.samples.push_back(std::move(s));
        break;
      }
      case 0x06:
        c.get<uint64_t>();
        out.stats_samples = c.get<uint64_t>();
        break;
      case 0x7F:
        c.get<uint64_t>();
        out.end_reason = c.get<uint8_t>();
        out.ended = true;
        break;
      default:
        break;
    }
    const size_t used = c.at() - start;
    if (used > length) throw std::runtime_error("record overran its length");
    c.skip(length - used);
  }
  return out;
}

}  // namespace clrscope::testing
