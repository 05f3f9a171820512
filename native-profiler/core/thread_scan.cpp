#include "core/thread_scan.h"

#include <algorithm>

#include "core/gc_frame.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "core/sample_stream.h"
#include "core/sampler_config.h"
#include "core/sampling_shared.h"
#include "core/thread_book.h"
#include "core/thread_names.h"
#include "core/unanswered_cpu.h"

namespace clrscope {
namespace {
// How often the OS's thread list is compared with the threads the runtime reported.
constexpr uint64_t kOsScanNs = 250000000;
}  // namespace

void ThreadScan::begin(uint64_t mono) { next_os_scan_mono_ = mono + kOsScanNs; }

std::string ThreadScan::display_name(const ThreadEvent& e, const std::string& os_name) const {
  // A native thread's name came from the OS (thread_registry.cpp, sync_os_threads): cut to 15
  // bytes like any OS name, so it is mended the same way.
  if ((!e.name.empty() && !e.native) || e.os_tid == 0) return e.name;
  // The runtime names a thread to the profiler only when managed code sets Thread.Name; its
  // own threads (and every thread named before an attach) are named to the OS alone.
  const std::string& from_os = !e.name.empty() ? e.name : os_name;
  return name_from_os(from_os.empty() ? platform::os_thread_name(e.os_tid) : from_os,
                      e.os_tid == platform::process_id(), platform::os_thread_name(platform::process_id()));
}

void ThreadScan::announce() {
  events_.clear();
  shared_->registry->take_events(&events_);
  for (const ThreadEvent& e : events_) {
    switch (e.kind) {
      case ThreadEvent::kStarted:
      case ThreadEvent::kRenamed: {
        const std::string os_name =
            e.kind == ThreadEvent::kStarted && e.os_tid != 0 ? platform::os_thread_name(e.os_tid) : std::string();
        stream_->writer.thread(e.wire_id, e.os_tid, e.clr_thread_id, e.mono, display_name(e, os_name));
        if (e.kind == ThreadEvent::kStarted) {
          SampledThread& t = book_->at(e.wire_id);
          if (!book_->announced(e.wire_id)) t.last_wall_mono = e.mono;
          // A native thread the runtime took in: from now on wall-sampled like any managed one.
          t.native = e.native;
          // By the OS name the runtime gave it, not the one shown: Thread.Name cannot make a
          // program's thread a collector.
          t.gc_thread = is_gc_thread_name(os_name);
        }
        book_->set_announced(e.wire_id);
        break;
      }
      case ThreadEvent::kEnded:
        if (e.final_cpu_ns != 0 && config_.cpu) unanswered_->emit_final_cpu(e);
        stream_->writer.thread_end(e.wire_id, e.mono);
        book_->erase(e.wire_id);
        break;
    }
  }
}

void ThreadScan::scan_os(uint64_t now) {
  if (now < next_os_scan_mono_) return;
  next_os_scan_mono_ = now + kOsScanNs;
  if (!config_.cpu || stream_->signal_lost) return;
  if (!platform::list_os_threads(&os_threads_)) return;
  os_threads_.erase(std::remove_if(os_threads_.begin(), os_threads_.end(),
                                   [](const OsThread& t) { return is_own_thread(t.tid); }),
                    os_threads_.end());
  // At a launch every thread belongs to the recording from its birth; after an attach only
  // threads born since the previous look do.
  const bool born_since_last = os_scans_ > 0 || !config_.attached;
  shared_->registry->sync_os_threads(os_threads_, born_since_last);
  ++os_scans_;
}

}  // namespace clrscope
