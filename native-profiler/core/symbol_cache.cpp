#include "core/symbol_cache.h"

#include <cstring>

#include "core/self_cost.h"

namespace clrscope {
namespace {
// Distinct pcs are bounded by the code the process has; this cap only guards against
// pathological churn (e.g. endless dynamic methods). Function ids survive a reset.
constexpr size_t kMaxCachedPcs = 1u << 20;
}  // namespace

SymbolCache::SymbolCache(FrameResolver* resolver, DefineModule define_module, Define define, DefineFrame define_frame)
    : resolver_(resolver),
      define_module_(std::move(define_module)),
      define_(std::move(define)),
      define_frame_(std::move(define_frame)) {
  roots_.push_back(false);  // id 0 is never used
  managed_.push_back(false);
  plain_frames_.push_back(0);
  frame_function_.push_back(0);
  event_leads_.push_back(0);
}

uint32_t SymbolCache::frame_for_pc(uintptr_t pc) {
  RecentPc& recent = recent_[recent_slot(pc)];
  if (recent.pc == pc && recent.frame != 0) return recent.frame;
  auto it = by_pc_.find(pc);
  if (it != by_pc_.end()) {
    recent = RecentPc{pc, it->second};
    return it->second;
  }
  const CpuCostSpan cost(kCostSymbols);
  ResolvedFrame f;
  resolver_->resolve(pc, &f);
  const uint32_t id = frame(intern(f), f.offset_kind, f.offset);
  if (f.provisional) return id;
  if (by_pc_.size() >= kMaxCachedPcs) forget_pcs();
  by_pc_.emplace(pc, id);
  recent_[recent_slot(pc)] = RecentPc{pc, id};
  return id;
}

uint32_t SymbolCache::frame(uint32_t function, uint8_t offset_kind, uint32_t offset) {
  // Only IL offsets name a place worth a frame of its own; other kinds are the function's frame.
  uint32_t* slot;
  if (offset_kind == 1) {
    slot = &il_frames_[(static_cast<uint64_t>(function) << 32) | offset];
  } else {
    offset_kind = 0;
    offset = 0;
    slot = &plain_frames_[function];
  }
  if (*slot != 0) return *slot;
  const uint32_t id = static_cast<uint32_t>(frame_function_.size());
  frame_function_.push_back(function);
  *slot = id;
  define_frame_(id, function, offset_kind, offset);
  return id;
}

void SymbolCache::forget_range(uintptr_t lo, uintptr_t hi) {
  for (RecentPc& r : recent_) {
    if (r.pc >= lo && r.pc < hi) r = RecentPc{};
  }
  for (auto it = by_pc_.begin(); it != by_pc_.end();) {
    if (it->first >= lo && it->first < hi) {
      it = by_pc_.erase(it);
    } else {
      ++it;
    }
  }
}

uint32_t SymbolCache::synthetic(const std::string& name) {
  ResolvedFrame f;
  f.kind = 2;
  f.name = name;
  return frame(intern(f), 0, 0);
}

uint32_t SymbolCache::native_module(const std::string& module, uint64_t key) {
  ResolvedFrame f;
  f.kind = 1;
  f.key = key;
  f.module = module;
  return frame(intern(f), 0, 0);
}

uint32_t SymbolCache::intern(const ResolvedFrame& f) {
  // Identity: kind and key, plus the module and name for frames without a key (synthetic,
  // symbol-less) and for native ones, whose key is an address: a library loaded where another
  // was unloaded has its code, and its symbols, at the other's addresses (the first one named
  // there would otherwise lend its name to both).
  std::string identity;
  identity.reserve(16 + f.name.size() + f.module.size());
  identity.push_back(static_cast<char>(f.kind));
  char key[sizeof(f.key)];
  std::memcpy(key, &f.key, sizeof key);
  identity.append(key, sizeof key);
  if (f.key == 0 || f.kind == 1) {
    identity.append(f.module);
    identity.push_back('\0');
    identity.append(f.name);
  }
  auto it = by_identity_.find(identity);
  if (it != by_identity_.end()) return it->second;
  const uint32_t id = next_id_++;
  by_identity_.emplace(std::move(identity), id);
  roots_.push_back(f.thread_root);
  managed_.push_back(f.kind == 0);
  plain_frames_.push_back(0);
  // The runtime's own code at the leaf of an event's stack: its allocation, lock and throw
  // helpers, and (.NET 9+) the managed exception dispatcher the throw runs through.
  uint8_t lead = 0;
  if (f.kind != 0) lead = kLeadsEvent;
  else if (f.name.compare(0, 18, "System.Runtime.EH.") == 0) lead = kLeadsException;
  event_leads_.push_back(lead);
  define_(id, module_id(f), f);
  return id;
}

uint32_t SymbolCache::module_id(const ResolvedFrame& f) {
  const std::string& path = f.module_path.empty() ? f.module : f.module_path;
  if (path.empty()) return 0;
  // Managed and native code never share a file in practice, but the kind keeps them apart if
  // they did (a ReadyToRun image is mapped like a library).
  std::string key(1, static_cast<char>(f.kind));
  key.append(path);
  auto it = modules_.find(key);
  if (it != modules_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(modules_.size()) + 1;
  modules_.emplace(std::move(key), id);
  define_module_(id, f);
  return id;
}

}  // namespace clrscope
