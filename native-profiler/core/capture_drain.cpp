#include "core/capture_drain.h"

#include "core/capture_ring.h"
#include "core/emitter.h"
#include "core/gc_frame.h"
#include "core/heap_chains.h"
#include "core/module_history.h"
#include "core/platform.h"
#include "core/request_tracker.h"
#include "core/sample_stream.h"
#include "core/sampling_shared.h"
#include "core/task_names.h"
#include "core/thread_book.h"
#include "core/thread_scan.h"
#include "core/wall_scheduler.h"

namespace clrscope {
namespace {
// A thread whose stack bounds stay unknown after this many probes is sampled without them
// (leaf only, marked incomplete) rather than carrying its values forever.
constexpr uint32_t kMaxProbes = 3;
// Between taking a capture and naming its frames: the walk stopped before a thread's root,
// which a thread-start frame at its end may still excuse.
constexpr uint8_t kWalkUnrooted = 0x80;
}  // namespace

CaptureDrain::CaptureDrain(SamplingShared* shared, SampleStream* stream, ThreadBook* book, ThreadScan* scan,
                           WallScheduler* wall, const std::vector<std::unique_ptr<Emitter>>* emitters)
    : shared_(shared), stream_(stream), book_(book), scan_(scan), wall_(wall), emitters_(emitters) {
  ids_.reserve(kMaxFrames + 1);
}

void CaptureDrain::begin() {
  elided_id_ = stream_->symbols.synthetic("[frames elided]");
  unloaded_id_ = stream_->symbols.synthetic("[unloaded native code]");
}

bool CaptureDrain::refresh_modules() {
  // Precompiled code changes no names: only the handlers' unwinding.
  platform::refresh_r2r_images();
  if (!platform::refresh_modules()) return false;
  // Names cached for code whose library went away (or arrived where another was) are
  // forgotten, so the code now there is named afresh.
  for (const CodeSpan& c : module_history().latest_changes()) stream_->symbols.forget_range(c.lo, c.hi);
  return true;
}

void CaptureDrain::drain() {
  batch_.clear();
  pcs_.clear();
  shared_->ring->drain([this](const Capture& c) { take(c); });
  if (shared_->event_ring != nullptr) shared_->event_ring->drain([this](const Capture& c) { take(c); });
  if (shared_->alloc_ring != nullptr) shared_->alloc_ring->drain([this](const Capture& c) { take(c); });
  for (const auto& e : *emitters_) e->before_captures();
  if (batch_.empty()) return;
  // Name frames against the loader's state as the tick's look found it, then look again: if a
  // library came or went while we were naming, some names may be of the newcomer; name them
  // all again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    ids_.clear();
    for (Drained& d : batch_) resolve(d);
    if (!refresh_modules()) break;
  }
  for (const Drained& d : batch_) {
    if (d.kinds & kCaptureEvent) {
      emit_event(d);  // taken once, on the thread, at the event: nothing to take again
    } else if (d.retake) {
      wall_->retake(d.wire_id, d.slot, d.cpu_ns, d.wall_ns);
    } else {
      emit_sample(d);
    }
  }
}

void CaptureDrain::take(const Capture& c) {
  if (!book_->announced(c.wire_id)) {
    // The thread's THREAD record was queued after this tick took the events; take them again.
    scan_->announce();
    if (!book_->announced(c.wire_id)) {
      shared_->dropped_other.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  SampledThread& t = book_->at(c.wire_id);
  const bool event = (c.kinds & kCaptureEvent) != 0;
  if (!event && !c.bounds_known && t.probes < kMaxProbes) {
    // A probe: learn the stack from its pointer and carry its values to the next sample.
    ++t.probes;
    uintptr_t lo = 0, hi = 0;
    if (platform::stack_bounds_containing(c.sp, &lo, &hi)) shared_->registry->learn_bounds(c.slot, c.wire_id, lo, hi, c.self);
    t.carry_cpu_ns += c.cpu_ns;
    t.carry_wall_ns += c.wall_ns;
    return;
  }
  Drained d;
  d.mono = c.mono;
  d.event_kind = c.event_kind;
  d.event_has_value2 = c.event_has_value2;
  d.event_type = c.event_type;
  d.event_value1 = c.event_value1;
  d.event_value2 = c.event_value2;
  d.event_live = event ? c.event_live : 0;
  // The cell's text storage is free again once this returns: the message is named now, here on
  // the sampler thread rather than in the throwing thread's callback.
  d.event_message = event && c.event_text != nullptr ? stream_->messages.intern(c.event_text, c.event_text_len, c.event_text_full) : 0;
  d.async_box = event ? 0 : c.async_box;
  if (heap_ != nullptr && !event) d.async_box = heap_->intern(c.heap_chain, c.heap_count, static_cast<HeapWalkEnd>(c.heap_end));
  d.request = 0;
  d.root = 0;
  if (requests_ != nullptr && !event) {
    d.root = task_roots_ != nullptr && d.async_box != 0 ? task_chain_root(*task_roots_, d.async_box) : c.heap_root;
    if (d.root != 0) d.request = requests_->request_at(d.root, c.mono);
  }
  d.collecting = !event && c.collecting;
  // An event carries no time of the thread's: its values stay for the thread's next sample.
  d.cpu_ns = event ? 0 : c.cpu_ns + t.carry_cpu_ns;
  d.wall_ns = event ? 0 : c.wall_ns != 0 ? c.wall_ns + t.carry_wall_ns : 0;
  d.cpu_after = c.thread_cpu_after;
  d.switches = c.switches;
  d.wire_id = c.wire_id;
  d.slot = c.slot;
  d.retake = false;
  d.generation = c.module_generation;
  d.kinds = c.kinds;
  if (d.cpu_ns != 0) d.kinds |= kCaptureCpu;
  if (!event) t.carry_cpu_ns = 0;
  if (d.wall_ns != 0) t.carry_wall_ns = 0;
  d.walk_flags = 0;
  if (!c.bounds_known) d.walk_flags |= wire::kSampleIncomplete;
  if (c.elided != 0) d.walk_flags |= wire::kSampleElided;
  if (c.bounds_known && !c.complete) d.walk_flags |= kWalkUnrooted;
  d.flags = 0;
  d.pc_first = pcs_.size();
  d.first = 0;
  d.count = 0;
  d.pc_count = c.count;
  d.osr_pairs = c.osr_pairs <= kMaxOsrPairs ? c.osr_pairs : 0;
  for (uint32_t i = 0; i < d.osr_pairs; ++i) d.osr_at[i] = c.osr_at[i];
  for (uint32_t i = 0; i < c.count; ++i) {
    // Return addresses point after the call; step back into it so the call's own function and
    // line are found (the leaf pc is exact already). The elision marker travels as pc 0.
    if (c.elided != 0 && i == c.gap_at) {
      pcs_.push_back(0);
      ++d.pc_count;
    }
    // An event's leaf is a return address too: its own frames were dropped from the walk.
    pcs_.push_back(i == 0 && !event ? c.frames[i] : c.frames[i] - 1);
  }
  batch_.push_back(d);
}

void CaptureDrain::resolve(Drained& d) {
  d.retake = false;
  const size_t begin = ids_.size();
  uint8_t flags = d.walk_flags;
  const ModuleHistory& history = module_history();
  uint32_t osr = 0;
  for (size_t i = 0; i < d.pc_count; ++i) {
    const uintptr_t pc = pcs_[d.pc_first + i];
    if (pc == 0) {
      ids_.push_back(elided_id_);
      continue;
    }
    if (osr < d.osr_pairs && d.osr_at[osr] == i && i > 0 && i + 1 < d.pc_count) {
      // An on-stack-replaced frame (frame_walker.h): the patchpoint's address lies in the same
      // method as the frame below it. Then the method is one call, and the caller is the
      // original record's return address; otherwise the pair was a look-alike, and the frame
      // chain's own return address is the caller.
      ++osr;
      const uint32_t patchpoint = stream_->symbols.frame_for_pc(pc);
      if (stream_->symbols.function_of(patchpoint) == stream_->symbols.function_of(ids_.back())) continue;
      ids_.push_back(patchpoint);
      ++i;
      continue;
    }
    const CodeSpan* owner = nullptr;
    const ModuleHistory::Owner o = history.owner_at(pc, d.mono, &owner);
    const CodeSpan* walked_with = history.in_generation(pc, d.generation);
    if (o == ModuleHistory::Owner::kLoaded || (o == ModuleHistory::Owner::kNone && walked_with == nullptr)) {
      ids_.push_back(stream_->symbols.frame_for_pc(pc));
    } else if (o == ModuleHistory::Owner::kGone) {
      // Certainly that library's, which is gone with its symbols: named by the library alone.
      ids_.push_back(stream_->symbols.native_module(owner->name, owner->lo));
    } else {
      ids_.push_back(unloaded_id_);
    }
    // The handler unwound this frame with the table of its time; if that table had another
    // library (or none that is certain) here, the frames beyond it cannot be trusted. Nor can
    // they when the table had nothing here but a library was loaded (it may be gone by now):
    // the handler walked that library's code by frame pointers, which skip the caller of code
    // that keeps none.
    const bool unwound_right =
        walked_with == nullptr ? o == ModuleHistory::Owner::kNone || o == ModuleHistory::Owner::kUnknown
                               : owner == walked_with;
    if (o == ModuleHistory::Owner::kUnknown || !unwound_right) {
      flags |= wire::kSampleIncomplete;
      flags &= static_cast<uint8_t>(~kWalkUnrooted);
      break;
    }
  }
  const size_t kept = ids_.size() - begin;
  // Incomplete, and a frame the walk passed lies in library code its table did not know: the
  // walk could not unwind it. Worth asking again now that the table knows it.
  if ((flags & (wire::kSampleIncomplete | kWalkUnrooted)) && d.walk_flags != wire::kSampleIncomplete) {
    const SampledThread* t = book_->find(d.wire_id);
    const bool may_retake = t != nullptr && t->retries < 2;
    for (size_t i = 0; may_retake && i < d.pc_count && !d.retake; ++i) {
      const uintptr_t pc = pcs_[d.pc_first + i];
      const CodeSpan* known = nullptr;
      d.retake = pc != 0 && history.in_generation(pc, d.generation) == nullptr &&
                 history.owner_at(pc, d.mono, &known) == ModuleHistory::Owner::kLoaded;
    }
  }
  // A chain that ends in a thread-start frame reached the root even though the chain's end
  // could not be read; a lone leaf says nothing either way.
  if (flags & kWalkUnrooted) {
    flags &= static_cast<uint8_t>(~kWalkUnrooted);
    if (!(kept >= 2 && stream_->symbols.is_thread_root(ids_.back()))) flags |= wire::kSampleIncomplete;
  }
  d.first = begin;
  d.count = kept;
  d.flags = flags;
  if (!(d.kinds & kCaptureEvent)) add_gc_frame(d);
}

void CaptureDrain::add_gc_frame(Drained& d) {
  const SampledThread* t = book_->find(d.wire_id);
  const bool gc_thread = t != nullptr && t->gc_thread;
  const size_t at = gc_frame_at(ids_.data() + d.first, d.count, gc_thread, d.collecting,
                                [this](uint32_t frame) { return stream_->symbols.is_managed(frame); });
  if (at == kNoGcFrame) return;
  if (gc_id_ == 0) gc_id_ = stream_->symbols.synthetic("[GC]");
  ids_.insert(ids_.begin() + static_cast<ptrdiff_t>(d.first + at), gc_id_);
  ++d.count;
}

void CaptureDrain::emit_sample(const Drained& d) {
  const NamedCapture c{d.mono,   d.cpu_ns, d.wall_ns, d.cpu_after, d.switches, d.wire_id, d.async_box, d.request,
                       d.root,   d.kinds,  d.flags,   ids_.data() + d.first, static_cast<uint16_t>(d.count)};
  for (const auto& e : *emitters_) e->sample(c);
}

void CaptureDrain::emit_event(const Drained& d) {
  // The stack starts where the program was: at its innermost managed frame below the runtime's
  // allocation, lock or throw helpers (all of it when no managed frame is there at all).
  size_t lead = 0;
  const bool exception = d.event_kind == wire::kEventException;
  while (lead < d.count && stream_->symbols.leads_event(ids_[d.first + lead], exception)) ++lead;
  if (lead == d.count) lead = 0;
  const uint16_t n = static_cast<uint16_t>(d.count - lead);
  const uint32_t* frames = ids_.data() + d.first + lead;
  EventRecord e;
  e.kind = d.event_kind;
  e.mono = d.mono;
  e.thread_id = d.wire_id;
  e.stack_flags = d.flags & (wire::kSampleIncomplete | wire::kSampleElided);
  e.label_id = d.event_type != 0 ? stream_->type_label(d.event_type) : 0;
  e.value1 = d.event_value1;
  e.value2 = d.event_value2;
  e.has_value2 = d.event_has_value2;
  e.message_id = d.event_message;
  for (const auto& emitter : *emitters_) emitter->event(e, d.event_live, frames, n);
}

}  // namespace clrscope
