#pragma once
// Turns raw instruction pointers into the stream's frame ids, on the sampler thread (never in a
// signal handler). Each distinct pc is resolved once; each distinct function gets one id and
// one FUNCTION record, each module it lives in one id and one MODULE record before it, and each
// distinct (function, IL offset) one frame id and one FRAME record. Stacks name frame ids.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/page_memory.h"

namespace clrscope {

struct ResolvedFrame {
  uint8_t kind = 2;  // wire::FunctionKind
  uint64_t key = 0;  // identity within its kind: FunctionID, symbol address, module base
  std::string name;
  std::string module;
  std::string file;
  // The frame is where a thread begins (libc's thread start, the process entry): a walk that
  // ends here reached the root even if the frame chain beyond it is not readable.
  bool thread_root = false;
  // Where the code lives, so the workstation can find its symbols (PDB, debug info) later:
  // the module's full path (empty: use `module`), its MVID (managed; zeros when unknown) and
  // the method's metadata token (managed; 0 otherwise).
  std::string module_path;
  uint8_t mvid[16] = {};
  uint32_t token = 0;
  // Where in the method the pc lies (managed code whose IL map knows it): wire::OffsetKind and
  // the offset, so the workstation can find the source line.
  uint8_t offset_kind = 0;
  uint32_t offset = 0;
  // A name given before the best source was ready (Windows: the export table while DbgHelp
  // loads the module's symbols elsewhere): good for this sample, asked again for the next.
  bool provisional = false;
};

class FrameResolver {
 public:
  virtual ~FrameResolver() = default;
  // Fills `out` for the code at `pc` (already adjusted to lie inside the call instruction for
  // return addresses). Unknown code becomes a synthetic frame.
  virtual void resolve(uintptr_t pc, ResolvedFrame* out) = 0;
  // The name of a runtime type (a ClassID) for event labels, generic arguments included; empty
  // when unknown.
  virtual std::string type_name(uint64_t) { return std::string(); }
};

class SymbolCache {
 public:
  // A new module (its id, and the first frame found in it); then a new function and its module's
  // id (0 for frames outside any module, e.g. synthetic ones).
  using DefineModule = std::function<void(uint32_t module_id, const ResolvedFrame&)>;
  using Define = std::function<void(uint32_t id, uint32_t module_id, const ResolvedFrame&)>;
  // A new frame: a place (offset of offset_kind) in a function defined before it.
  using DefineFrame = std::function<void(uint32_t frame_id, uint32_t function_id, uint8_t offset_kind, uint32_t offset)>;
  SymbolCache(FrameResolver* resolver, DefineModule define_module, Define define, DefineFrame define_frame);

  // Frame ids (what stacks name), never function ids.
  uint32_t frame_for_pc(uintptr_t pc);
  uint32_t synthetic(const std::string& name);
  // A native frame known only by its library (the library is gone, its symbols with it).
  uint32_t native_module(const std::string& module, uint64_t key);
  uint32_t function_of(uint32_t frame) const { return frame < frame_function_.size() ? frame_function_[frame] : 0; }
  bool is_thread_root(uint32_t frame) const {
    const uint32_t id = function_of(frame);
    return id < roots_.size() && roots_[id];
  }
  // Whether the frame lies in managed code (JIT-compiled methods, not the runtime's native code).
  bool is_managed(uint32_t frame) const {
    const uint32_t id = function_of(frame);
    return id != 0 && id < managed_.size() && managed_[id];
  }
  // Whether the frame's function is the runtime's machinery above the code an event happened in
  // (native or synthetic code; for exceptions also the managed dispatcher), which event stacks
  // drop.
  bool leads_event(uint32_t frame, bool exception) const {
    const uint32_t id = function_of(frame);
    if (id == 0 || id >= event_leads_.size()) return false;
    return (event_leads_[id] & kLeadsEvent) != 0 || (exception && (event_leads_[id] & kLeadsException) != 0);
  }
  size_t functions() const { return next_id_ - 1; }
  size_t frames() const { return frame_function_.size() - 1; }
  // Defines every function again (a new stream after a reconnect would need them).
  void forget_pcs() {
    by_pc_.clear();
    recent_.fill(RecentPc{});
  }
  // Forgets what pcs in [lo, hi) resolved to (the code there went away or was replaced).
  void forget_range(uintptr_t lo, uintptr_t hi);

 private:
  uint32_t intern(const ResolvedFrame& f);
  uint32_t frame(uint32_t function, uint8_t offset_kind, uint32_t offset);
  uint32_t module_id(const ResolvedFrame& f);

  FrameResolver* resolver_;
  DefineModule define_module_;
  Define define_;
  DefineFrame define_frame_;
  // Frame ids by function for frames without an offset, and by (function << 32 | IL offset).
  std::vector<uint32_t> plain_frames_;
  std::unordered_map<uint64_t, uint32_t, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     PageAllocator<std::pair<const uint64_t, uint32_t>>>
      il_frames_;
  std::vector<uint32_t, PageAllocator<uint32_t>> frame_function_;  // by frame id
  std::unordered_map<std::string, uint32_t, std::hash<std::string>, std::equal_to<std::string>,
                     PageAllocator<std::pair<const std::string, uint32_t>>>
      modules_;
  std::unordered_map<uintptr_t, uint32_t, std::hash<uintptr_t>, std::equal_to<uintptr_t>,
                     PageAllocator<std::pair<const uintptr_t, uint32_t>>>
      by_pc_;
  // The pcs named lately, in front of by_pc_: every frame of every sample is looked up, and a
  // slot of an array costs a fraction of a hash-map lookup (a division and a chain of nodes).
  struct RecentPc {
    uintptr_t pc = 0;
    uint32_t frame = 0;
  };
  static constexpr size_t kRecentPcs = 4096;
  static size_t recent_slot(uintptr_t pc) { return ((pc >> 1) ^ (pc >> 13)) & (kRecentPcs - 1); }
  std::array<RecentPc, kRecentPcs> recent_{};
  std::unordered_map<std::string, uint32_t, std::hash<std::string>, std::equal_to<std::string>,
                     PageAllocator<std::pair<const std::string, uint32_t>>>
      by_identity_;
  std::vector<bool> roots_;
  std::vector<bool> managed_;  // by function id
  static constexpr uint8_t kLeadsEvent = 1;
  static constexpr uint8_t kLeadsException = 2;
  std::vector<uint8_t> event_leads_;
  uint32_t next_id_ = 1;
};

}  // namespace clrscope
