#include "core/wire_writer.h"

#include <cstring>

namespace clrscope {
namespace {

uint64_t zigzag(uint64_t a, uint64_t b) {
  // a - b as a signed 64-bit delta, folded so small magnitudes of either sign stay small.
  const int64_t d = static_cast<int64_t>(a - b);
  return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}

}  // namespace

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

void WireWriter::varint_to(ByteBuffer* to, uint64_t v) {
  while (v >= 0x80) {
    to->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  to->push_back(static_cast<uint8_t>(v));
}

void WireWriter::str(const std::string& s) {
  const size_t n = utf8_prefix(s, wire::kMaxString);
  u32(static_cast<uint32_t>(n));
  out_->insert(out_->end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
}

size_t WireWriter::begin_definition(uint8_t type) {
  const size_t start = out_->size();
  u32(0);  // length, patched by finish()
  u8(type);
  return start;
}

size_t WireWriter::begin(uint8_t type) {
  close_batch();
  return begin_definition(type);
}

void WireWriter::finish(size_t start) {
  const uint32_t length = static_cast<uint32_t>(out_->size() - start - 4);
  for (int i = 0; i < 4; ++i) (*out_)[start + i] = static_cast<uint8_t>(length >> (8 * i));
}

void WireWriter::close_batch() {
  if (batch_type_ == 0) return;
  u32(static_cast<uint32_t>(1 + batch_len_));
  u8(batch_type_);
  out_->insert(out_->end(), batch_.data(), batch_.data() + batch_len_);
  if (batch_type_ == wire::kSamples && !task_marks_.empty()) {
    // Right behind its SAMPLES record, which is what its indexes count in.
    u32(static_cast<uint32_t>(1 + task_marks_.size()));
    u8(wire::kTaskSamples);
    out_->insert(out_->end(), task_marks_.begin(), task_marks_.end());
    task_marks_.clear();
    if (!operation_counts_.empty()) {
      u32(static_cast<uint32_t>(1 + operation_counts_.size()));
      u8(wire::kOperationCounts);
      out_->insert(out_->end(), operation_counts_.begin(), operation_counts_.end());
      operation_counts_.clear();
    }
  }
  if (batch_type_ == wire::kSamples && !request_marks_.empty()) {
    u32(static_cast<uint32_t>(1 + request_marks_.size()));
    u8(wire::kRequestSamples);
    out_->insert(out_->end(), request_marks_.begin(), request_marks_.end());
    request_marks_.clear();
  }
  if (batch_type_ == wire::kEvents && !event_messages_.empty()) {
    // Right behind its EVENTS record, which is what its indexes count in.
    u32(static_cast<uint32_t>(1 + event_messages_.size()));
    u8(wire::kEventMessages);
    out_->insert(out_->end(), event_messages_.begin(), event_messages_.end());
    event_messages_.clear();
  }
  batch_len_ = 0;
  batch_type_ = 0;
  batch_samples_ = 0;
}

void WireWriter::open_batch(uint8_t type) {
  if (batch_type_ == type && batch_len_ < wire::kBatchBytes) return;
  close_batch();
  // A sample is at most 41 bytes, an event 47: one more always fits behind kBatchBytes.
  if (batch_.empty()) batch_.resize(wire::kBatchBytes + 64);
  batch_type_ = type;
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
  const size_t s = begin_definition(wire::kThread);
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
  // The reader forgets the thread's state here too, so the map holds live threads only.
  if (thread_id < kDirectThreads) {
    if (thread_id < direct_threads_.size()) direct_threads_[thread_id] = ThreadState();
  } else {
    threads_.erase(thread_id);
  }
}

WireWriter::ThreadState& WireWriter::thread_state(uint32_t thread_id) {
  if (thread_id >= kDirectThreads) return threads_[thread_id];
  if (thread_id >= direct_threads_.size()) direct_threads_.resize(thread_id + 256 < kDirectThreads ? thread_id + 256 : kDirectThreads);
  return direct_threads_[thread_id];
}

void WireWriter::module(uint32_t module_id, uint8_t kind, const uint8_t* mvid, const std::string& path) {
  const size_t s = begin_definition(wire::kModule);
  u32(module_id);
  u8(kind);
  for (int i = 0; i < 16; ++i) u8(mvid != nullptr ? mvid[i] : 0);
  str(path);
  finish(s);
}

void WireWriter::function(uint32_t function_id, uint8_t kind, uint32_t module_id, uint32_t token,
                          const std::string& name, const std::string& file) {
  const size_t s = begin_definition(wire::kFunction);
  u32(function_id);
  u8(kind);
  u32(module_id);
  u32(token);
  str(name);
  str(file);
  finish(s);
}

void WireWriter::frame(uint32_t frame_id, uint32_t function_id, uint8_t offset_kind, uint32_t offset) {
  const size_t s = begin_definition(wire::kFrame);
  u32(frame_id);
  u32(function_id);
  u8(offset_kind);
  u32(offset);
  finish(s);
}

void WireWriter::task(uint32_t task_id, uint32_t awaiter_id, uint32_t name_id, bool again) {
  const size_t s = again ? begin(wire::kTask) : begin_definition(wire::kTask);
  u32(task_id);
  u32(awaiter_id);
  u32(name_id);
  finish(s);
}

void WireWriter::string(uint32_t string_id, const std::string& text) {
  const size_t s = begin_definition(wire::kString);
  u32(string_id);
  str(text);
  finish(s);
}

void WireWriter::write_stack(uint32_t id, const uint32_t* frames, uint16_t count, uint8_t flags) {
  // Stacks of one program share their root end (thread start, Main, the request loop): say how
  // many root-side frames this one shares with the previous definition and send only the rest.
  const size_t prev = last_stack_.size();
  uint16_t shared = 0;
  while (shared < count && shared < prev && frames[count - 1 - shared] == last_stack_[prev - 1 - shared]) ++shared;
  const size_t s = begin_definition(wire::kStack);
  varint(id);
  u8(flags);
  varint(shared);
  varint(static_cast<uint64_t>(count - shared));
  for (uint16_t i = 0; i < count - shared; ++i) varint(frames[i]);
  finish(s);
  last_stack_.assign(frames, frames + count);
}

uint32_t WireWriter::stack_id(const uint32_t* frames, uint16_t count, uint8_t flags, uint32_t hash) {
  bool added = false;
  uint32_t id = stacks_.intern(frames, count, flags, hash, &added);
  if (id == StackTable::kFull) {
    reset_stacks();
    id = stacks_.intern(frames, count, flags, hash, &added);
  }
  if (added) write_stack(id, frames, count, flags);
  return id;
}

void WireWriter::reset_stacks() {
  const size_t s = begin(wire::kStackReset);
  finish(s);
  stacks_.reset();
  last_stack_.clear();
  for (auto& t : direct_threads_) t.stack = 0;
  for (auto& entry : threads_) entry.second.stack = 0;
}

void WireWriter::sample(uint64_t mono, uint32_t thread_id, uint8_t flags, uint64_t cpu_ns, uint64_t wall_ns,
                        const uint32_t* frames, uint16_t frame_count, uint32_t task, uint32_t operations,
                        uint32_t request) {
  const uint8_t stack_flags = flags & (wire::kSampleIncomplete | wire::kSampleElided);
  // A thread that has not moved (blocked, idle) repeats its stack: when the hash matches its
  // previous stack's, comparing with that one spares the table lookup. (reset_stacks() clears
  // every thread's previous stack, so an id from before a reset is never taken.)
  const uint32_t hash = StackTable::hash(frames, frame_count, stack_flags);
  const ThreadState& before = thread_state(thread_id);
  const uint32_t stack = before.stack != 0 && before.stack_hash == hash && stacks_.same(before.stack, frames, frame_count, stack_flags)
                             ? before.stack
                             : stack_id(frames, frame_count, stack_flags, hash);
  open_batch(wire::kSamples);
  // stack_id() may have reset the table; take the state after it.
  ThreadState& t = thread_state(thread_id);
  const bool cpu = (flags & wire::kSampleCpu) != 0;
  const bool wall = (flags & wire::kSampleWall) != 0;
  uint8_t head = static_cast<uint8_t>((cpu ? wire::kHeadCpu : 0) | (wall ? wire::kHeadWall : 0));
  if (thread_id == prev_thread_) head |= wire::kHeadThreadSame;
  else if (thread_id == prev_thread_ + 1) head |= wire::kHeadThreadNext;
  if (mono == prev_mono_) head |= wire::kHeadMonoSame;
  if (stack == t.stack) head |= wire::kHeadStackSame;
  // A wall value is the time since the thread's previous wall sample, so mono predicts it; it
  // differs by how late the signal handler ran after the request.
  const uint64_t predicted = t.has_wall ? mono - t.wall_mono : 0;
  const uint64_t wall_field = zigzag(wall_ns, predicted);
  if (wall && wall_field == 0) head |= wire::kHeadWallPredicted;
  // At most 1 + 5 + 10 + 5 + 10 + 10 bytes, written through a pointer (open_batch left room).
  uint8_t* const start = batch_.data() + batch_len_;
  uint8_t* p = start;
  *p++ = head;
  if ((head & wire::kHeadThreadMask) == 0) p = put_varint(p, zigzag(thread_id, prev_thread_));
  if ((head & wire::kHeadMonoSame) == 0) p = put_varint(p, zigzag(mono, prev_mono_));
  if ((head & wire::kHeadStackSame) == 0) p = put_varint(p, stack);
  if (cpu) p = put_varint(p, cpu_ns);
  if (wall && wall_field != 0) p = put_varint(p, wall_field);
  batch_len_ += static_cast<size_t>(p - start);
  if (task != 0) {
    varint_to(&task_marks_, batch_samples_);
    varint_to(&task_marks_, task);
    if (operations != 0) {
      varint_to(&operation_counts_, batch_samples_);
      varint_to(&operation_counts_, operations);
    }
  }
  if (request != 0) {
    varint_to(&request_marks_, batch_samples_);
    varint_to(&request_marks_, request);
  }
  ++batch_samples_;
  ++samples_written_;
  prev_thread_ = thread_id;
  prev_mono_ = mono;
  t.stack = stack;
  t.stack_hash = hash;
  if (wall) {
    t.has_wall = true;
    t.wall_mono = mono;
  }
}

void WireWriter::event(const EventRecord& e, const uint32_t* frames, uint16_t frame_count, bool has_stack) {
  const uint32_t stack = has_stack ? stack_id(frames, frame_count, e.stack_flags, StackTable::hash(frames, frame_count, e.stack_flags)) : 0;
  open_batch(wire::kEvents);
  uint8_t* const start = batch_.data() + batch_len_;
  uint8_t* p = start;
  *p++ = e.kind;
  *p++ = static_cast<uint8_t>((e.has_value2 ? wire::kEventHasValue2 : 0) | (has_stack ? wire::kEventHasStack : 0) |
                              (e.label_id != 0 ? wire::kEventHasLabel : 0));
  p = put_varint(p, zigzag(e.thread_id, prev_event_thread_));
  p = put_varint(p, zigzag(e.mono, prev_event_mono_));
  if (has_stack) p = put_varint(p, stack);
  if (e.label_id != 0) p = put_varint(p, e.label_id);
  p = put_varint(p, e.value1);
  if (e.has_value2) p = put_varint(p, e.value2);
  batch_len_ += static_cast<size_t>(p - start);
  if (e.message_id != 0) {
    varint_to(&event_messages_, batch_samples_);
    varint_to(&event_messages_, e.message_id);
  }
  ++batch_samples_;
  prev_event_thread_ = e.thread_id;
  prev_event_mono_ = e.mono;
}

void WireWriter::stats(const StatsRecord& st) {
  const size_t s = begin(wire::kStats);
  u64(st.mono);
  u64(st.samples);
  u64(st.dropped_ring_full);
  u64(st.dropped_buffer_full);
  u64(st.dropped_watchdog);
  u64(st.dropped_other);
  // The cost fields follow signalLostMono, which is then sent even as 0 (sampling goes on).
  if (st.signal_lost_mono != 0 || st.has_cost) u64(st.signal_lost_mono);
  if (st.has_cost) {
    u64(st.process_cpu_ns);
    u64(st.handler_ns);
    u64(st.callbacks_ns);
    u64(st.runtime_events_ns);
    u64(st.event_stacks_ns);
    u64(st.symbols_ns);
    u64(st.writer_ns);
    u64(st.sampler_ns);
  }
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

// GC_EVENT and RUNTIME_EVENT end alike: an event's four values, what each means said per event.
void WireWriter::four_values(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  u64(a);
  u64(b);
  u64(c);
  u64(d);
}

void WireWriter::gc_event(const GcEventRecord& r) {
  const size_t s = begin(wire::kGcEvent);
  u64(r.mono);
  u32(r.tid);
  u8(r.event);
  u8(r.version);
  four_values(r.a, r.b, r.c, r.d);
  finish(s);
}

void WireWriter::runtime_event(const RuntimeEventRecord& r) {
  const size_t s = begin(wire::kRuntimeEvent);
  u64(r.mono);
  u32(r.tid);
  u16(r.event);
  u8(r.version);
  four_values(r.a, r.b, r.c, r.d);
  finish(s);
}

void WireWriter::request(const RequestRecord& r) {
  const size_t s = begin(wire::kRequest);
  u64(r.mono);
  u64(r.end_mono);
  u32(r.start_tid);
  u32(r.end_tid);
  u32(r.status);
  u32(r.method);
  u32(r.endpoint);
  u32(r.trace_id);
  u32(r.span_id);
  u32(r.seq);
  finish(s);
}

void WireWriter::request_backfill(uint32_t seq, const uint64_t* ordinals, size_t count) {
  // Records of at most this many, so that none grows past what a reader takes in one piece.
  constexpr size_t kPerRecord = 8192;
  for (size_t from = 0; from < count; from += kPerRecord) {
    const size_t to = count - from < kPerRecord ? count : from + kPerRecord;
    const size_t s = begin(wire::kRequestBackfill);
    u32(seq);
    for (size_t i = from; i < to; ++i) {
      if (ordinals[i] == 0 || ordinals[i] > samples_written_) continue;  // not this stream's
      varint(samples_written_ - ordinals[i] + 1);
    }
    finish(s);
  }
}

void WireWriter::request_window(uint64_t start, uint64_t end, uint32_t begun, uint32_t cut, uint32_t max_per_s) {
  const size_t s = begin(wire::kRequestWindow);
  u64(start);
  u64(end);
  u32(begun);
  u32(cut);
  u32(max_per_s);
  finish(s);
}

void WireWriter::pool_gauge(uint64_t mono, uint32_t threads, uint32_t queue_length, uint64_t completed) {
  const size_t s = begin(wire::kPoolGauge);
  u64(mono);
  u32(threads);
  u32(queue_length);
  u64(completed);
  finish(s);
}

void WireWriter::end(uint64_t mono, uint8_t reason, int32_t descriptor, uint8_t how) {
  const size_t s = begin(wire::kEnd);
  u64(mono);
  u8(reason);
  if (descriptor >= 0) {
    u32(static_cast<uint32_t>(descriptor));
    u8(how);
  }
  finish(s);
}

void WireWriter::raw(uint8_t type, const uint8_t* body, size_t size) {
  const size_t s = begin(type);
  out_->insert(out_->end(), body, body + size);
  finish(s);
}

}  // namespace clrscope
