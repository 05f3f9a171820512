#include "shim/measure_controller.h"

#include <chrono>
#include <cstdio>

#include "core/own_threads.h"
#include "core/log.h"
#include "core/measure_probes.h"
#include "core/outbox.h"
#include "core/platform.h"
#include "core/probe_clock.h"
#include "core/transport.h"
#include "core/utf16.h"
#include "core/wire_writer.h"

namespace clrscope {

using namespace clr;
using namespace measure_wire;

namespace {

// How long a module's load may wait for its methods to be instrumented.
constexpr auto kModuleWait = std::chrono::seconds(2);

std::string hr_text(HRESULT hr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

std::string plural(uint32_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

}  // namespace

MeasureController::MeasureController(ICorProfilerInfo12* info, ProbeMode mode) : info_(info), mode_(mode) {
  methods_.emplace_back();  // id 0 means "every method" in commands: never a method's id
}

MeasureController::~MeasureController() { stop(); }

void MeasureController::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    Job job;
    job.kind = Job::kStop;
    jobs_.push_back(job);
  }
  cv_.notify_all();
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
}

void MeasureController::post_job(Job job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    if (!worker_.joinable()) {
      try {
        worker_ = std::thread([this] { run(); });
      } catch (...) {
        log_line("could not start the measuring thread; methods cannot be measured");
        return;
      }
    }
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void MeasureController::run() {
  platform::name_current_thread("clrscope-measure");
  mark_own_thread();
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return !jobs_.empty(); });
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    if (job.kind == Job::kStop) {
      unmark_own_thread();
      return;
    }
    // An exception leaving this thread would end the program: a job that fails is logged and
    // its waiter still released.
    try {
      switch (job.kind) {
        case Job::kMeasure: measure(job.request, job.pattern); break;
        case Job::kRevert: revert(job.request, job.measure_id); break;
        case Job::kModule:
          if (job.measure_id == 1) {
            modules_.erase(job.module);  // unloading: let go of its metadata
          } else {
            module_loaded(job.module);
          }
          break;
        case Job::kStop: break;
      }
    } catch (...) {
      log_line("a measurement job failed (an exception); the program carries on");
    }
    if (job.done) {
      {
        // Under the lock, so a waiter between its check and its wait cannot miss it.
        std::lock_guard<std::mutex> lock(mu_);
        job.done->store(true, std::memory_order_release);
      }
      cv_.notify_all();
    }
  }
}

void MeasureController::add_startup_patterns(const std::string& list) {
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = list.find(';', at);
    const std::string text = list.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? list.size() + 1 : end + 1;
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    MethodPattern p;
    std::string reason;
    if (!parse_method_pattern(text, &p, &reason)) {
      log_line("CLRSCOPE_MEASURE: %s", reason.c_str());
      post_reply(0, kReplyRefused, 0, reason);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    standing_.push_back(Standing{p, 0});
    have_patterns_.store(true, std::memory_order_release);
  }
}

ModuleMeta* MeasureController::module_meta(ModuleID id) {
  auto it = modules_.find(id);
  if (it == modules_.end()) it = modules_.emplace(id, std::make_unique<ModuleMeta>(info_, id)).first;
  return it->second.get();
}

uint32_t MeasureController::match(ModuleMeta& m, const MethodPattern& pattern, uint32_t request, std::vector<uint32_t>* fresh) {
  uint32_t matched = 0;
  for (const auto& type : m.types()) {
    if (!pattern_matches_type(pattern, type.second)) continue;
    for (mdMethodDef def : m.methods_of(type.first)) {
      if (!pattern_matches_method(pattern, m.method_name(def))) continue;
      ++matched;
      uint32_t id = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto known = by_def_.find({m.id(), def});
        if (known != by_def_.end() && is_measuring(methods_[known->second]->state)) continue;
        if (methods_.size() >= measure::kMaxMethods) {
          log_line("more than %u methods measured in this process; %s is not", measure::kMaxMethods - 1,
                   m.display_name(def).c_str());
          continue;
        }
        id = static_cast<uint32_t>(methods_.size());
        auto method = std::make_unique<Method>();
        method->module = m.id();
        method->def = def;
        method->request = request;
        methods_.push_back(std::move(method));
      }
      // Outside the lock: reading IL and emitting metadata takes a while.
      const std::string name = m.display_name(def);
      uint8_t flags = 0;
      if (m.is_async(def)) flags |= kAsyncSynchronousPart;
      if (m.is_generic(def)) flags |= kGeneric;
      PreparedMethod prepared;
      std::string reason;
      const bool ok = m.prepare(def, id, mode_, &prepared, &reason);
      std::lock_guard<std::mutex> lock(mu_);
      Method& method = *methods_[id];
      method.name = name;
      method.module_file = m.file();
      method.flags = flags;
      method.prepared = std::move(prepared);
      by_def_[{m.id(), def}] = id;
      if (ok) {
        // Ready before the request: the runtime may ask for the IL before RequestReJIT returns.
        method.state = kPending;
        if (method.flags & kAsyncSynchronousPart) {
          method.detail = "async method: measures its synchronous part, up to the first await that does not complete at once";
        }
        fresh->push_back(id);
      } else {
        method.state = kRefused;
        method.detail = reason;
        log_line("not measuring %s: %s", method.name.c_str(), reason.c_str());
        post_state(id);
      }
    }
  }
  return matched;
}

bool MeasureController::enable_rejit() {
  if (rejit_enabled_.load(std::memory_order_acquire)) return true;
  // Before the first probe can run.
  if (!clock_ready_) {
    measure::calibrate_probe_clock();
    clock_ready_ = true;
    log_line("probe clock: %s, %.4f ns per tick", measure::g_probe_clock.tsc ? "TSC" : "monotonic clock",
             static_cast<double>(measure::g_probe_clock.ns_per_tick_q32) / 4294967296.0);
  }
  DWORD low = 0, high = 0;
  HRESULT hr = info_->GetEventMask2(&low, &high);
  // With the JIT's notifications too: after an attach, the runtime re-compiles the methods that
  // inlined a measured one only when it was told of the JIT's work (measure.test.ts's tiered-up
  // inliners), and a recording alone leaves them off (engine.cpp, kCountingEvents).
  if (SUCCEEDED(hr)) hr = info_->SetEventMask2(low | COR_PRF_ENABLE_REJIT | COR_PRF_MONITOR_JIT_COMPILATION, high);
  if (FAILED(hr)) {
    log_line("could not enable ReJIT (%s); methods cannot be measured", hr_text(hr).c_str());
    return false;
  }
  rejit_enabled_.store(true, std::memory_order_release);
  log_line("ReJIT enabled (probes through %s); the runtime keeps clrscope loaded from now on", probe_mode_name(mode_));
  return true;
}

void MeasureController::request_rejit(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return;
  std::vector<ModuleID> modules;
  std::vector<mdMethodDef> defs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t id : ids) {
      modules.push_back(methods_[id]->module);
      defs.push_back(methods_[id]->def);
    }
  }
  for (ModuleID m : modules) module_meta(m)->apply();
  HRESULT hr = E_FAIL;
  if (enable_rejit()) {
    // Every method that inlined one of these is compiled again too (from its own IL, which
    // now calls the wrapped method), and the wrapped methods are never inlined again.
    hr = info_->RequestReJITWithInliners(COR_PRF_REJIT_BLOCK_INLINING, static_cast<ULONG>(ids.size()), modules.data(),
                                         defs.data());
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (uint32_t id : ids) {
    Method& m = *methods_[id];
    if (FAILED(hr)) {
      m.state = kRefused;
      m.detail = "the runtime did not accept the ReJIT request (" + hr_text(hr) + ")";
      post_state(id);
    } else if (m.state == kPending) {
      post_state(id);  // (already active: that record went out when its code was compiled)
    }
  }
}

void MeasureController::measure(uint32_t request, const std::string& text) {
  MethodPattern pattern;
  std::string reason;
  if (!parse_method_pattern(text, &pattern, &reason)) {
    post_reply(request, kReplyRefused, 0, reason);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    standing_.push_back(Standing{pattern, request});
    have_patterns_.store(true, std::memory_order_release);
  }
  std::vector<ModuleID> ids;
  ICorProfilerModuleEnum* modules = nullptr;
  if (SUCCEEDED(info_->EnumModules(&modules)) && modules != nullptr) {
    ModuleID batch[64];
    ULONG n = 0;
    while (SUCCEEDED(modules->Next(64, batch, &n)) && n > 0) ids.insert(ids.end(), batch, batch + n);
    modules->Release();
  }
  uint32_t matched = 0;
  std::vector<uint32_t> fresh;
  for (ModuleID id : ids) {
    ModuleMeta* m = module_meta(id);
    if (m->readable()) matched += match(*m, pattern, request, &fresh);
  }
  request_rejit(fresh);
  if (matched == 0) {
    post_reply(request, kReplyOk, 0,
               "no method of the " + plural(static_cast<uint32_t>(ids.size()), "loaded module", "loaded modules") +
                   " matches " + text + "; modules loaded later are searched too");
  } else {
    post_reply(request, kReplyOk, matched, plural(matched, "method matches ", "methods match ") + text);
  }
}

void MeasureController::module_loaded(ModuleID module) {
  std::vector<Standing> standing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    standing = standing_;
  }
  if (standing.empty()) return;
  ModuleMeta* m = module_meta(module);
  if (!m->readable()) return;
  std::vector<uint32_t> fresh;
  for (const Standing& s : standing) match(*m, s.pattern, s.request, &fresh);
  request_rejit(fresh);
}

void MeasureController::revert(uint32_t request, uint32_t measure_id) {
  std::vector<uint32_t> ids;
  std::vector<ModuleID> modules;
  std::vector<mdMethodDef> defs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (measure_id == 0) {
      // Everything, and no more methods from modules that load later.
      standing_.clear();
      have_patterns_.store(false, std::memory_order_release);
      for (uint32_t id = 1; id < methods_.size(); ++id) {
        if (is_measuring(methods_[id]->state)) ids.push_back(id);
      }
    } else if (measure_id < methods_.size() && is_measuring(methods_[measure_id]->state)) {
      ids.push_back(measure_id);
    }
    for (uint32_t id : ids) {
      modules.push_back(methods_[id]->module);
      defs.push_back(methods_[id]->def);
    }
  }
  if (ids.empty()) {
    if (request != 0) {
      post_reply(request, measure_id == 0 ? kReplyOk : kReplyRefused, 0,
                 measure_id == 0 ? "no method was being measured" : "method " + std::to_string(measure_id) + " is not being measured");
    }
    return;
  }
  std::vector<HRESULT> status(ids.size(), S_OK);
  const HRESULT hr = info_->RequestRevert(static_cast<ULONG>(ids.size()), modules.data(), defs.data(), status.data());
  uint32_t reverted = 0;
  const uint64_t now = platform::mono_now_ns();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < ids.size(); ++i) {
      Method& m = *methods_[ids[i]];
      if (SUCCEEDED(hr) && SUCCEEDED(status[i])) {
        m.state = kReverted;
        m.settled_mono = now;
        ++reverted;
      } else {
        m.detail = "the runtime did not revert it (" + hr_text(FAILED(hr) ? hr : status[i]) + ")";
      }
      post_state(ids[i]);
    }
  }
  log_line("reverted %u of %u measured methods", reverted, static_cast<unsigned>(ids.size()));
  if (request != 0) {
    post_reply(request, reverted == ids.size() ? kReplyOk : kReplyRefused, reverted, "reverted " + plural(reverted, "method", "methods"));
  }
}

void MeasureController::post_state(uint32_t id) {
  const Method& m = *methods_[id];
  Bytes body;
  method_body(MethodRecord{id, m.request, m.state, m.flags, m.name, m.module_file, m.detail}, &body);
  outgoing_.emplace_back(kMeasureMethod, std::move(body));
}

void MeasureController::post_reply(uint32_t request, uint8_t status, uint32_t matched, const std::string& message) {
  Bytes body;
  reply_body(request, status, matched, message, &body);
  std::lock_guard<std::mutex> lock(mu_);
  outgoing_.emplace_back(kMeasureReply, std::move(body));
}

void MeasureController::on_module_loaded(ModuleID module) {
  if (!have_patterns_.load(std::memory_order_acquire)) return;
  Job job;
  job.kind = Job::kModule;
  job.module = module;
  job.done = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> done = job.done;
  post_job(std::move(job));
  // The module's code cannot run before this callback returns: waiting here is what makes a
  // measurement at launch exact from the first call. Bounded, so a stuck request costs a pause,
  // never a hang.
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, kModuleWait, [&] { return done->load(std::memory_order_acquire) || stopping_; })) {
    log_line("a module's methods were not instrumented within 2 s of its load; its first calls may not be counted");
  }
}

void MeasureController::on_module_unloading(ModuleID module) {
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t now = platform::mono_now_ns();
    for (uint32_t id = 1; id < methods_.size(); ++id) {
      Method& m = *methods_[id];
      if (m.module != module) continue;
      known = true;
      if (!is_measuring(m.state)) continue;
      m.state = kUnloaded;
      m.settled_mono = now;
      post_state(id);
    }
  }
  if (!known) return;
  Job job;
  job.kind = Job::kModule;
  job.module = module;
  job.measure_id = 1;  // unloading
  post_job(std::move(job));
}

HRESULT MeasureController::get_rejit_parameters(ModuleID module, mdMethodDef def, ICorProfilerFunctionControl* control) {
  std::vector<uint8_t> il;
  std::vector<COR_IL_MAP> map;
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_def_.find({module, def});
    // Not ours (a method that inlined one of ours gets no callback unless asked for) or no
    // longer wanted: the runtime then compiles the original IL.
    if (it == by_def_.end() || !is_measuring(methods_[it->second]->state)) return S_OK;
    id = it->second;
    il = methods_[id]->prepared.il;
    map = methods_[id]->prepared.map;
  }
  const HRESULT hr = control->SetILFunctionBody(static_cast<ULONG>(il.size()), il.data());
  if (FAILED(hr)) {
    std::lock_guard<std::mutex> lock(mu_);
    methods_[id]->state = kRefused;
    methods_[id]->detail = "the runtime did not take its wrapped IL (" + hr_text(hr) + ")";
    post_state(id);
    return hr;
  }
  // For debuggers and exception stack traces: where the original offsets went. Needs the
  // runtime's debugger support; without it, stack traces through the method show wrong lines.
  if (!map.empty()) control->SetILInstrumentedCodeMap(static_cast<ULONG>(map.size()), map.data());
  return S_OK;
}

void MeasureController::on_rejit_finished(FunctionID function, HRESULT status) {
  ClassID cls = 0;
  ModuleID module = 0;
  mdToken token = 0;
  if (FAILED(info_->GetFunctionInfo(function, &cls, &module, &token))) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_def_.find({module, token});
    if (it != by_def_.end()) {
      Method& m = *methods_[it->second];
      if (m.state != kPending) return;
      if (SUCCEEDED(status)) {
        m.state = kActive;
      } else {
        m.state = kRefused;
        m.detail = "the JIT failed to compile its wrapped IL (" + hr_text(status) + ")";
      }
      post_state(it->second);
      return;
    }
  }
  // Not one of ours: a method that had inlined one of ours, compiled again so that it calls the
  // wrapped method. Worth a log line: it is the evidence that inlined calls are counted too.
  IUnknown* unk = nullptr;
  mdToken def = 0;
  if (SUCCEEDED(info_->GetTokenAndMetaDataFromFunction(function, IID_IMetaDataImport, &unk, &def)) && unk != nullptr) {
    auto* import = static_cast<IMetaDataImport*>(unk);
    WCHAR name[512];
    ULONG len = 0;
    mdTypeDef owner = 0;
    DWORD attrs = 0, impl = 0;
    PCCOR_SIGNATURE sig = nullptr;
    ULONG sig_len = 0, rva = 0;
    if (SUCCEEDED(import->GetMethodProps(def, &owner, name, 512, &len, &attrs, &sig, &sig_len, &rva, &impl))) {
      log_line("compiled again, as an inliner of a measured method: %s (%s)",
               utf16_to_utf8(reinterpret_cast<const char16_t*>(name), len).c_str(), hr_text(status).c_str());
    }
    import->Release();
  }
}

void MeasureController::on_rejit_error(ModuleID module, mdMethodDef def, HRESULT status) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_def_.find({module, def});
  if (it == by_def_.end()) return;
  Method& m = *methods_[it->second];
  if (!is_measuring(m.state)) return;
  m.state = kRefused;
  m.detail = "the runtime could not re-JIT it (" + hr_text(status) + ")";
  log_line("ReJIT failed for %s: %s", m.name.c_str(), hr_text(status).c_str());
  post_state(it->second);
}

}  // namespace clrscope
