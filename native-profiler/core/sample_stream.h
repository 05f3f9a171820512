#pragma once
// What every room of the sampler writes through: the outbox and its wire writer, the names of
// frames and labels, and the counts STATS reports. Sampler thread only.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "core/message_table.h"
#include "core/outbox.h"
#include "core/self_cost.h"
#include "core/symbol_cache.h"
#include "core/wire_writer.h"

namespace clrscope {

struct SamplingShared;
class Transport;

struct SampleStream {
  SampleStream(Transport* transport, size_t outbox_bytes, FrameResolver* resolver);
  SampleStream(const SampleStream&) = delete;
  SampleStream& operator=(const SampleStream&) = delete;

  // A STRING record for `text` the first time it is seen; its id.
  uint32_t string_id(const std::string& text);
  // A STRING record for a text unlikely to come again (a request's trace id): a fresh id each
  // call, nothing remembered.
  uint32_t unremembered_string(const std::string& text);
  // The STRING id of a runtime type's name (a ClassID; "?" when the runtime cannot name it).
  uint32_t type_label(uint64_t type_id);
  // Whether a record that may be dropped when the reader lags fits; when it does not, it counts
  // as dropped (STATS says how many).
  bool room_for(size_t bytes);
  // With the profiler's own cost since the stream began; on the sampler thread, whose CPU it reads.
  StatsRecord stats_record(uint64_t now, const SamplingShared& shared) const;

  Outbox outbox;
  WireWriter writer;
  FrameResolver* resolver;
  SymbolCache symbols;
  MessageTable messages;
  // Told of each function and frame as it is defined (async call stacks keep their names for
  // the log); empty when nobody asked.
  std::function<void(uint32_t function_id, const std::string& name)> on_function;
  std::function<void(uint32_t frame_id, uint32_t function_id)> on_frame;

  uint64_t samples_sent = 0;
  uint64_t events_sent = 0;
  uint64_t dropped_buffer_full = 0;
  // The program took the capture signal over (captures stopped), and when.
  bool signal_lost = false;
  uint64_t signal_lost_mono = 0;

 private:
  // The profiler's cost when the stream began (core/self_cost.h).
  CostReading cost_at_start_ = start_own_costs();
  std::unordered_map<uint64_t, uint32_t> type_labels_;
  std::unordered_map<std::string, uint32_t> label_ids_;
  uint32_t last_string_id_ = 0;
};

}  // namespace clrscope
