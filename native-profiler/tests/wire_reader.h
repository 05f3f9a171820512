#pragma once
// A minimal reader of the wire stream (v1 and v2) for C++ tests that drive the sampler end to
// end and check the shared fixtures. The product's decoder is structs/wire/decoder.ts; this one
// only has to be simple and strict: it throws on anything PROTOCOL.md does not allow.
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
  uint8_t flags;  // v1 bits: cpu, wall, incomplete, elided (v2: the stack's flags merged in)
  uint64_t cpu_ns;
  uint64_t wall_ns;
  uint32_t stack_id = 0;  // v2: the wire stack id (ids restart after a STACK_RESET)
  uint32_t task = 0;      // v2: the async task its TASK_SAMPLES named (0: none)
  uint32_t operations = 0;  // v2: the suspended operations its OPERATION_COUNTS gave (0: none)
  uint32_t request = 0;     // v2: the request seq its REQUEST_SAMPLES gave (0: none)
  std::vector<uint32_t> frames;  // v1: function ids; v2: frame ids
};

struct ReadFunction {
  uint8_t kind;
  std::string name;
  std::string module;  // the module's file name
  uint32_t module_id = 0;
  uint32_t token = 0;
  std::string file;
};

struct ReadModule {
  uint8_t kind;
  std::string path;
  uint8_t mvid[16];
};

struct ReadFrame {
  uint32_t function_id;
  uint8_t offset_kind;
  uint32_t offset;
};

struct ReadStack {
  uint8_t flags;
  std::vector<uint32_t> frames;
};

struct ReadEvent {
  uint8_t kind;
  uint64_t mono;
  uint32_t thread_id;
  uint32_t stack_id;  // 0: none
  uint32_t label_id;  // 0: none
  uint64_t value1;
  uint64_t value2;
  bool has_value2;
  std::vector<uint32_t> frames;
  uint32_t message_id = 0;  // from an EVENT_MESSAGES record; 0: none
};

struct ReadTask {
  uint32_t awaiter;
  uint32_t name_id;  // a STRING id, 0: unknown
};

struct ReadStream {
  uint16_t version = 0;
  uint32_t pid = 0;
  uint32_t hello_flags = 0;
  std::map<uint32_t, ReadTask> tasks;  // the latest TASK of each id
  uint32_t task_records = 0;
  uint32_t task_sample_records = 0;
  uint32_t event_message_records = 0;
  std::map<uint32_t, std::string> thread_names;
  std::map<uint32_t, uint32_t> thread_tids;
  std::map<uint32_t, ReadFunction> functions;
  std::map<uint32_t, ReadModule> modules;
  std::map<uint32_t, ReadFrame> frames;
  std::map<uint32_t, ReadStack> stacks;  // the stacks defined since the last STACK_RESET
  std::map<uint32_t, std::string> strings;
  std::vector<ReadSample> samples;
  std::vector<ReadEvent> events;
  std::vector<uint32_t> ended_threads;
  uint64_t stats_samples = 0;
  uint64_t stats_signal_lost_mono = 0;  // the appended field of the latest STATS (0: absent)
  // The latest STATS's cost fields (PROTOCOL.md, STATS), in wire order; empty when absent.
  std::vector<uint64_t> stats_cost;
  uint32_t stack_definitions = 0;
  uint32_t stack_resets = 0;
  uint32_t samples_records = 0;
  bool ended = false;
  uint8_t end_reason = 0xFF;
  int32_t end_descriptor = -1;  // END's appended fields (a lost connection), -1/0 when absent
  uint8_t end_how = 0;

  // The function a stack entry names (v1: function ids; v2: frame ids).
  const ReadFunction* function_of(uint32_t entry) const {
    uint32_t fn = entry;
    if (version >= 2) {
      auto fr = frames.find(entry);
      if (fr == frames.end()) return nullptr;
      fn = fr->second.function_id;
    }
    auto it = functions.find(fn);
    return it == functions.end() ? nullptr : &it->second;
  }

  bool stack_has(const ReadSample& s, const std::string& name) const {
    for (uint32_t f : s.frames) {
      const ReadFunction* fn = function_of(f);
      if (fn != nullptr && fn->name == name) return true;
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
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      const uint8_t b = get<uint8_t>();
      if (shift == 63 && b > 1) throw std::runtime_error("varint above 2^64");
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    throw std::runtime_error("varint longer than 10 bytes");
  }
  int64_t zigzag() {
    const uint64_t z = varint();
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
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

namespace detail {

inline std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The v2 decoding state that spans records (PROTOCOL.md, SAMPLES and EVENTS).
struct V2State {
  uint64_t mono = 0;
  uint32_t thread = 0;
  struct Thread {
    uint32_t stack = 0;
    bool has_wall = false;
    uint64_t wall_mono = 0;
  };
  std::map<uint32_t, Thread> threads;
  uint64_t event_mono = 0;
  uint32_t event_thread = 0;
  std::vector<uint32_t> last_stack;
};

inline const ReadStack& stack_named(const ReadStream& out, uint32_t id) {
  auto it = out.stacks.find(id);
  if (it == out.stacks.end()) throw std::runtime_error("sample names an undefined stack");
  return it->second;
}

inline void read_samples(Cursor& c, size_t end, ReadStream& out, V2State& st) {
  while (c.at() < end) {
    const uint8_t head = c.get<uint8_t>();
    if (head & 0x80) throw std::runtime_error("sample head has the reserved bit set");
    uint32_t thread = st.thread;
    switch (head & 0x0C) {
      case 0x00: thread = static_cast<uint32_t>(st.thread + c.zigzag()); break;
      case 0x04: break;
      case 0x08: thread = st.thread + 1; break;
      default: throw std::runtime_error("sample head has thread code 3");
    }
    const uint64_t mono = (head & 0x10) ? st.mono : st.mono + static_cast<uint64_t>(c.zigzag());
    V2State::Thread& t = st.threads[thread];
    uint32_t stack = t.stack;
    if ((head & 0x20) == 0) stack = static_cast<uint32_t>(c.varint());
    if (stack == 0) throw std::runtime_error("sample reuses a stack its thread does not have");
    ReadSample s;
    s.mono = mono;
    s.thread_id = thread;
    s.cpu_ns = (head & 0x01) ? c.varint() : 0;
    s.wall_ns = 0;
    if (head & 0x02) {
      const uint64_t predicted = t.has_wall ? mono - t.wall_mono : 0;
      s.wall_ns = (head & 0x40) ? predicted : predicted + static_cast<uint64_t>(c.zigzag());
      t.has_wall = true;
      t.wall_mono = mono;
    } else if (head & 0x40) {
      throw std::runtime_error("wall-predicted bit on a sample without wall");
    }
    const ReadStack& def = stack_named(out, stack);
    s.flags = static_cast<uint8_t>((head & 0x03) | def.flags);
    s.stack_id = stack;
    s.frames = def.frames;
    if (out.thread_names.count(thread) == 0) throw std::runtime_error("sample names an undefined thread");
    out.samples.push_back(std::move(s));
    st.thread = thread;
    st.mono = mono;
    t.stack = stack;
  }
}

inline void read_events(Cursor& c, size_t end, ReadStream& out, V2State& st) {
  while (c.at() < end) {
    ReadEvent e;
    e.kind = c.get<uint8_t>();
    const uint8_t head = c.get<uint8_t>();
    if (head & 0xF8) throw std::runtime_error("event head has reserved bits set");
    e.thread_id = static_cast<uint32_t>(st.event_thread + c.zigzag());
    e.mono = st.event_mono + static_cast<uint64_t>(c.zigzag());
    e.stack_id = (head & 0x02) ? static_cast<uint32_t>(c.varint()) : 0;
    e.label_id = (head & 0x04) ? static_cast<uint32_t>(c.varint()) : 0;
    e.value1 = c.varint();
    e.has_value2 = (head & 0x01) != 0;
    e.value2 = e.has_value2 ? c.varint() : 0;
    if (e.stack_id != 0) e.frames = stack_named(out, e.stack_id).frames;
    if (e.label_id != 0 && out.strings.count(e.label_id) == 0) throw std::runtime_error("event names an undefined string");
    st.event_thread = e.thread_id;
    st.event_mono = e.mono;
    out.events.push_back(std::move(e));
  }
}

inline void read_stack(Cursor& c, ReadStream& out, V2State& st) {
  const uint32_t id = static_cast<uint32_t>(c.varint());
  if (id == 0 || id >= (1u << 24)) throw std::runtime_error("stack id out of range");
  if (out.stacks.count(id) != 0) throw std::runtime_error("STACK redefines a stack");
  ReadStack s;
  s.flags = c.get<uint8_t>();
  const uint64_t shared = c.varint();
  const uint64_t count = c.varint();
  if (shared > st.last_stack.size()) throw std::runtime_error("STACK shares more frames than the previous one has");
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t f = static_cast<uint32_t>(c.varint());
    if (out.frames.count(f) == 0) throw std::runtime_error("STACK names an undefined frame");
    s.frames.push_back(f);
  }
  s.frames.insert(s.frames.end(), st.last_stack.end() - static_cast<std::ptrdiff_t>(shared), st.last_stack.end());
  st.last_stack = s.frames;
  out.stacks[id] = std::move(s);
  ++out.stack_definitions;
}

}  // namespace detail

template <typename Bytes>
inline ReadStream read_stream(const Bytes& bytes) {
  ReadStream out;
  Cursor c(bytes.data(), bytes.size());
  char magic[8];
  for (char& m : magic) m = static_cast<char>(c.get<uint8_t>());
  if (std::string(magic, 8) != "CLRSCOPE") throw std::runtime_error("bad magic");
  out.version = c.get<uint16_t>();
  if (out.version != 1 && out.version != 2) throw std::runtime_error("bad version");
  const bool v2 = out.version == 2;
  c.skip(2 + 4);
  detail::V2State st;
  uint8_t previous_type = 0;
  size_t samples_before_record = 0;  // out.samples.size() when the last SAMPLES record began
  size_t events_before_record = 0;   // out.events.size() when the last EVENTS record began
  while (c.at() < bytes.size()) {
    const uint32_t length = c.get<uint32_t>();
    const size_t start = c.at();
    const size_t end = start + length;
    const uint8_t type = c.get<uint8_t>();
    switch (type) {
      case 0x01:
        out.pid = c.get<uint32_t>();
        out.hello_flags = c.get<uint32_t>();
        break;
      case 0x10: {
        if (!v2) break;
        const uint32_t id = c.get<uint32_t>();
        ReadTask t;
        t.awaiter = c.get<uint32_t>();
        t.name_id = c.get<uint32_t>();
        if (id == 0) throw std::runtime_error("TASK with id 0");
        if (t.name_id != 0 && out.strings.count(t.name_id) == 0) throw std::runtime_error("TASK names an undefined string");
        out.tasks[id] = t;
        ++out.task_records;
        break;
      }
      case 0x11: {
        if (!v2) break;
        if (previous_type != 0x0D) throw std::runtime_error("TASK_SAMPLES not right after a SAMPLES record");
        ++out.task_sample_records;
        const size_t in_record = out.samples.size() - samples_before_record;
        uint64_t previous = 0;
        bool first = true;
        while (c.at() < end) {
          const uint64_t index = c.varint();
          const uint32_t task = static_cast<uint32_t>(c.varint());
          if (index >= in_record || (!first && index <= previous)) throw std::runtime_error("TASK_SAMPLES index out of order or range");
          if (task == 0 || out.tasks.count(task) == 0) throw std::runtime_error("TASK_SAMPLES names an undefined task");
          out.samples[samples_before_record + index].task = task;
          previous = index;
          first = false;
        }
        break;
      }
      case 0x12: {
        if (!v2) break;
        if (previous_type != 0x11) throw std::runtime_error("OPERATION_COUNTS not right after a TASK_SAMPLES record");
        const size_t in_record = out.samples.size() - samples_before_record;
        uint64_t previous = 0;
        bool first = true;
        while (c.at() < end) {
          const uint64_t index = c.varint();
          const uint32_t count = static_cast<uint32_t>(c.varint());
          if (index >= in_record || (!first && index <= previous)) throw std::runtime_error("OPERATION_COUNTS index out of order or range");
          if (count == 0 || out.samples[samples_before_record + index].task == 0) {
            throw std::runtime_error("OPERATION_COUNTS gives 0 or counts a sample with no task");
          }
          out.samples[samples_before_record + index].operations = count;
          previous = index;
          first = false;
        }
        break;
      }
      case 0x17: {
        if (!v2) break;
        if (previous_type != 0x0D && previous_type != 0x11 && previous_type != 0x12) {
          throw std::runtime_error("REQUEST_SAMPLES not right after a SAMPLES record (or its TASK_SAMPLES, OPERATION_COUNTS)");
        }
        const size_t in_record = out.samples.size() - samples_before_record;
        uint64_t previous = 0;
        bool first = true;
        while (c.at() < end) {
          const uint64_t index = c.varint();
          const uint32_t seq = static_cast<uint32_t>(c.varint());
          if (index >= in_record || (!first && index <= previous)) throw std::runtime_error("REQUEST_SAMPLES index out of order or range");
          if (seq == 0) throw std::runtime_error("REQUEST_SAMPLES names request 0");
          out.samples[samples_before_record + index].request = seq;
          previous = index;
          first = false;
        }
        break;
      }
      case 0x1A: {
        if (!v2) break;
        const uint32_t seq = c.get<uint32_t>();
        if (seq == 0) throw std::runtime_error("REQUEST_BACKFILL names request 0");
        uint64_t previous = 0;
        while (c.at() < end) {
          const uint64_t back = c.varint();
          if (back == 0 || back > out.samples.size() || (previous != 0 && back >= previous)) {
            throw std::runtime_error("REQUEST_BACKFILL names a sample out of order or range");
          }
          out.samples[out.samples.size() - back].request = seq;
          previous = back;
        }
        break;
      }
      case 0x13: {
        if (!v2) break;
        if (previous_type != 0x0F) throw std::runtime_error("EVENT_MESSAGES not right after an EVENTS record");
        ++out.event_message_records;
        const size_t in_record = out.events.size() - events_before_record;
        uint64_t previous = 0;
        bool first = true;
        while (c.at() < end) {
          const uint64_t index = c.varint();
          const uint32_t message = static_cast<uint32_t>(c.varint());
          if (index >= in_record || (!first && index <= previous)) throw std::runtime_error("EVENT_MESSAGES index out of order or range");
          if (message == 0 || out.strings.count(message) == 0) throw std::runtime_error("EVENT_MESSAGES names an undefined string");
          out.events[events_before_record + index].message_id = message;
          previous = index;
          first = false;
        }
        break;
      }
      case 0x02: {
        const uint32_t id = c.get<uint32_t>();
        out.thread_tids[id] = c.get<uint32_t>();
        c.get<uint64_t>();
        c.get<uint64_t>();
        out.thread_names[id] = c.str();
        break;
      }
      case 0x03: {
        const uint32_t id = c.get<uint32_t>();
        out.ended_threads.push_back(id);
        st.threads.erase(id);
        break;
      }
      case 0x04: {
        const uint32_t id = c.get<uint32_t>();
        ReadFunction f;
        f.kind = c.get<uint8_t>();
        if (v2) {
          f.module_id = c.get<uint32_t>();
          f.token = c.get<uint32_t>();
          f.name = c.str();
          f.file = c.str();
          if (f.module_id != 0) {
            auto m = out.modules.find(f.module_id);
            if (m == out.modules.end()) throw std::runtime_error("FUNCTION names an undefined module");
            f.module = detail::file_name(m->second.path);
          }
        } else {
          f.name = c.str();
          f.module = c.str();
          f.file = c.str();
        }
        if (out.functions.count(id) != 0) throw std::runtime_error("FUNCTION redefines a function");
        out.functions[id] = f;
        break;
      }
      case 0x05: {
        if (v2) throw std::runtime_error("a v1 SAMPLE record in a v2 stream");
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
        out.stats_signal_lost_mono = 0;
        out.stats_cost.clear();
        if (end - c.at() >= 5 * 8) {
          c.skip(4 * 8);
          out.stats_signal_lost_mono = c.get<uint64_t>();
        }
        while (end - c.at() >= 8 && out.stats_cost.size() < 8) out.stats_cost.push_back(c.get<uint64_t>());
        break;
      case 0x09:
        if (v2) {
          const uint32_t id = c.get<uint32_t>();
          ReadModule m;
          m.kind = c.get<uint8_t>();
          for (uint8_t& b : m.mvid) b = c.get<uint8_t>();
          m.path = c.str();
          if (id == 0 || out.modules.count(id) != 0) throw std::runtime_error("MODULE id 0 or defined twice");
          out.modules[id] = m;
        }
        break;
      case 0x0A:
        if (v2) {
          const uint32_t id = c.get<uint32_t>();
          ReadFrame f;
          f.function_id = c.get<uint32_t>();
          f.offset_kind = c.get<uint8_t>();
          f.offset = c.get<uint32_t>();
          if (out.functions.count(f.function_id) == 0) throw std::runtime_error("FRAME names an undefined function");
          if (out.frames.count(id) != 0) throw std::runtime_error("FRAME redefines a frame");
          out.frames[id] = f;
        }
        break;
      case 0x0B:
        if (v2) detail::read_stack(c, out, st);
        break;
      case 0x0C:
        if (v2) {
          out.stacks.clear();
          st.last_stack.clear();
          for (auto& t : st.threads) t.second.stack = 0;
          ++out.stack_resets;
        }
        break;
      case 0x0D:
        if (v2) {
          ++out.samples_records;
          samples_before_record = out.samples.size();
          detail::read_samples(c, end, out, st);
        }
        break;
      case 0x0E:
        if (v2) {
          const uint32_t id = c.get<uint32_t>();
          out.strings[id] = c.str();
        }
        break;
      case 0x0F:
        if (v2) {
          events_before_record = out.events.size();
          detail::read_events(c, end, out, st);
        }
        break;
      case 0x7F:
        c.get<uint64_t>();
        out.end_reason = c.get<uint8_t>();
        // Appended when the connection was lost: its descriptor and how.
        if (c.at() + 5 <= start + length) {
          out.end_descriptor = static_cast<int32_t>(c.get<uint32_t>());
          out.end_how = c.get<uint8_t>();
        }
        out.ended = true;
        break;
      default:
        break;
    }
    const size_t used = c.at() - start;
    if (used > length) throw std::runtime_error("record overran its length");
    c.skip(length - used);
    previous_type = type;
  }
  return out;
}

}  // namespace clrscope::testing
