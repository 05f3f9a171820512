#include "core/sample_stream.h"

#include "core/platform.h"
#include "core/sampling_shared.h"
#include "core/self_cost.h"
#include "core/transport.h"

namespace clrscope {

SampleStream::SampleStream(Transport* transport, size_t outbox_bytes, FrameResolver* frame_resolver)
    : outbox(transport, outbox_bytes),
      writer(outbox.buffer()),
      resolver(frame_resolver),
      symbols(
          frame_resolver,
          [this](uint32_t id, const ResolvedFrame& f) {
            writer.module(id, f.kind == wire::kManaged ? wire::kModuleManaged : wire::kModuleNative, f.mvid,
                          f.module_path.empty() ? f.module : f.module_path);
          },
          [this](uint32_t id, uint32_t module_id, const ResolvedFrame& f) {
            writer.function(id, f.kind, module_id, f.token, f.name, f.file);
            if (on_function) on_function(id, f.name);
          },
          [this](uint32_t frame_id, uint32_t function_id, uint8_t offset_kind, uint32_t offset) {
            if (on_frame) on_frame(frame_id, function_id);
            writer.frame(frame_id, function_id, offset_kind, offset);
          }),
      messages([this](const std::string& text) { return string_id(text); }) {
  outbox.set_before_send([this] { writer.close_batch(); });
}

uint32_t SampleStream::string_id(const std::string& text) {
  auto same = label_ids_.find(text);
  if (same != label_ids_.end()) return same->second;
  const uint32_t id = ++last_string_id_;
  label_ids_.emplace(text, id);
  writer.string(id, text);
  return id;
}

uint32_t SampleStream::unremembered_string(const std::string& text) {
  const uint32_t id = ++last_string_id_;
  writer.string(id, text);
  return id;
}

uint32_t SampleStream::type_label(uint64_t type_id) {
  auto known = type_labels_.find(type_id);
  if (known != type_labels_.end()) return known->second;
  const CpuCostSpan cost(kCostSymbols);
  std::string name = type_id == 0 ? std::string() : resolver->type_name(type_id);
  if (name.empty()) name = "?";
  const uint32_t id = string_id(name);
  type_labels_.emplace(type_id, id);
  return id;
}

bool SampleStream::room_for(size_t bytes) {
  if (outbox.room_for_sample(bytes)) return true;
  ++dropped_buffer_full;
  return false;
}

StatsRecord SampleStream::stats_record(uint64_t now, const SamplingShared& shared) const {
  StatsRecord st;
  st.mono = now;
  st.samples = samples_sent;
  st.dropped_ring_full = shared.dropped_ring_full.load(std::memory_order_relaxed);
  st.dropped_buffer_full = dropped_buffer_full;
  st.dropped_watchdog = shared.dropped_watchdog.load(std::memory_order_relaxed);
  st.dropped_other = shared.dropped_other.load(std::memory_order_relaxed);
  st.signal_lost_mono = signal_lost_mono;
  const CostReading c = read_own_costs();
  const auto since = [&](CostPart p) {
    return c.parts[p] > cost_at_start_.parts[p] ? c.parts[p] - cost_at_start_.parts[p] : 0;
  };
  st.has_cost = true;
  st.process_cpu_ns = c.process_cpu_ns > cost_at_start_.process_cpu_ns ? c.process_cpu_ns - cost_at_start_.process_cpu_ns : 0;
  st.handler_ns = since(kCostHandler);
  st.callbacks_ns = since(kCostCallbacks);
  st.runtime_events_ns = since(kCostRuntimeEvents);
  st.event_stacks_ns = since(kCostEventStacks);
  st.symbols_ns = since(kCostSymbols);
  st.writer_ns = since(kCostWriter);
  // The sampler thread (this one) is the stream's own: all of its CPU came after the start, and
  // what it spent naming code and writing is charged to those parts.
  const uint64_t thread_cpu = platform::current_thread_cpu_ns();
  const uint64_t named = st.symbols_ns + st.writer_ns;
  st.sampler_ns = thread_cpu > named ? thread_cpu - named : 0;
  return st;
}

}  // namespace clrscope
