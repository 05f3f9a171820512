#pragma once
// The runtime's perf map (DOTNET_PerfMapEnabled, GC-AND-STUBS-STUDY.md section (c)): lines
// "<address> <size> <name>", both hex, appended as the runtime JIT-compiles methods and
// allocates its stubs. Read on the sampler thread as it grows, never in a signal handler; a
// later line for the same address wins (the runtime reuses the memory of a freed stub).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace clrscope {

class PerfMap {
 public:
  // Takes the next bytes of the file; a line cut at the end waits for the rest.
  void feed(const char* data, size_t size);
  // The map's name for the code at pc, false when no line covers it.
  bool lookup(uintptr_t pc, std::string* name) const;
  size_t size() const { return by_start_.size(); }

 private:
  void line(const char* text, size_t size);
  struct Entry {
    uintptr_t end;
    std::string name;
  };
  std::map<uintptr_t, Entry> by_start_;
  std::string partial_;
};

// The label clrscope shows for a map name. Stub lines ("stub ReportStubBlock<VSD_ResolveStub>",
// "stub CreateHelper<DynamicHelper>") become "[runtime stub] VSD_ResolveStub" and
// "[runtime stub] DynamicHelper CreateHelper"; methods keep the map's name.
std::string perf_map_label(const std::string& name);

// An IL stub's signature as the map gives it ("void [Module] dynamicClass::IL_STUB_PInvoke(
// Ns.Type /* MT: 0x... */,string)[Optimized]"), shortened to "IL_STUB_PInvoke: Type,string";
// empty when `name` is not an IL stub's line.
std::string il_stub_label(const std::string& name);

}  // namespace clrscope
