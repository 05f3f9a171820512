#pragma once
// Measuring methods exactly: resolves patterns to methods of loaded modules (and of modules that
// load later), prepares each method's wrapped IL, asks the runtime to re-JIT them (and every
// method that inlined them), hands the prepared IL over when the runtime asks for it, reverts
// them, and streams what the probes counted.
//
// Threads: commands arrive on the sampler thread (on_tick) and become jobs for one worker
// thread of ours, which does all metadata work and calls RequestReJIT/RequestRevert (both
// suspend the runtime, so never on the sampler thread or a runtime thread). GetReJITParameters
// runs on whichever runtime thread compiles the method and only copies the prepared IL.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clr/corprof.h"
#include "core/measure_figures.h"
#include "core/measure_wire.h"
#include "core/method_pattern.h"
#include "core/tick_hook.h"
#include "shim/measure_metadata.h"

namespace clrscope {

class MeasureController final : public TickHook {
 public:
  MeasureController(clr::ICorProfilerInfo12* info, ProbeMode mode);
  ~MeasureController() override;
  MeasureController(const MeasureController&) = delete;
  MeasureController& operator=(const MeasureController&) = delete;

  // Patterns given at launch (CLRSCOPE_MEASURE, separated by ';'): measured from the first call,
  // since each module's methods are instrumented as it loads, before any of its code runs.
  void add_startup_patterns(const std::string& list);

  void on_begin(WireWriter* writer, Transport* transport) override;
  void on_tick(uint64_t now, Transport* transport, WireWriter* writer, Outbox* outbox) override;
  void on_end(uint64_t now, WireWriter* writer) override;
  void on_quiet() override;

  void on_module_loaded(clr::ModuleID module);
  void on_module_unloading(clr::ModuleID module);
  clr::HRESULT get_rejit_parameters(clr::ModuleID module, clr::mdMethodDef method, clr::ICorProfilerFunctionControl* control);
  void on_rejit_finished(clr::FunctionID function, clr::HRESULT status);
  void on_rejit_error(clr::ModuleID module, clr::mdMethodDef method, clr::HRESULT status);

  // Once ReJIT was enabled the runtime refuses to let the profiler detach.
  bool rejit_enabled() const { return rejit_enabled_.load(std::memory_order_acquire); }
  // Ends the worker thread (before a detach, which needs every thread of ours gone).
  void stop();

 private:
  // The method's probes count its calls (or will once its wrapped code is compiled).
  static bool is_measuring(uint8_t state) { return state == measure_wire::kPending || state == measure_wire::kActive; }
  struct Method {
    clr::ModuleID module = 0;
    clr::mdMethodDef def = 0;
    uint32_t request = 0;
    uint8_t state = 0;
    uint8_t flags = 0;
    std::string name, module_file, detail;
    PreparedMethod prepared;
    uint64_t settled_mono = 0;  // when it was reverted or unloaded: figures follow a little longer
  };
  struct Job {
    enum Kind { kMeasure, kRevert, kModule, kStop } kind = kMeasure;
    uint32_t request = 0;
    std::string pattern;
    uint32_t measure_id = 0;
    clr::ModuleID module = 0;
    std::shared_ptr<std::atomic<bool>> done;
  };
  struct Standing {
    MethodPattern pattern;
    uint32_t request;
  };

  void run();
  void post_job(Job job);
  void measure(uint32_t request, const std::string& pattern);
  void module_loaded(clr::ModuleID module);
  void revert(uint32_t request, uint32_t measure_id);
  // Adds every method of `m` that a pattern matches; ids of the new ones go to *fresh.
  uint32_t match(ModuleMeta& m, const MethodPattern& pattern, uint32_t request, std::vector<uint32_t>* fresh);
  void request_rejit(const std::vector<uint32_t>& ids);
  bool enable_rejit();
  ModuleMeta* module_meta(clr::ModuleID id);
  void post_state(uint32_t id);  // mu_ held
  void post_reply(uint32_t request, uint8_t status, uint32_t matched, const std::string& message);
  void emit_figures(uint64_t now, WireWriter* writer, Outbox* outbox, bool final);

  clr::ICorProfilerInfo12* info_;
  ProbeMode mode_;
  std::atomic<bool> rejit_enabled_{false};
  std::atomic<bool> have_patterns_{false};

  std::mutex mu_;  // guards everything below up to the worker's own state
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<std::unique_ptr<Method>> methods_;  // by measure id; [0] unused
  std::map<std::pair<clr::ModuleID, clr::mdMethodDef>, uint32_t> by_def_;  // the latest id of each method
  std::vector<Standing> standing_;
  std::vector<std::pair<uint8_t, measure_wire::Bytes>> outgoing_;
  bool stopping_ = false;

  std::thread worker_;
  // Worker thread only.
  std::unordered_map<clr::ModuleID, std::unique_ptr<ModuleMeta>> modules_;
  bool clock_ready_ = false;

  // Sampler thread only.
  measure_wire::CommandReader commands_;
  measure::FiguresReader figures_;
  std::vector<measure_wire::Command> command_batch_;
  std::unordered_map<uint32_t, uint64_t> sent_calls_;  // calls in the last figures sent, by id
  uint64_t next_figures_mono_ = 0;
  bool commands_broken_ = false;
};

}  // namespace clrscope
