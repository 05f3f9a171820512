#pragma once
// Names for the code the runtime generates outside any method: virtual stub dispatch, precode,
// helpers, the write barrier it copies at startup. No profiler API names them; the runtime's
// perf map does (GC-AND-STUBS-STUDY.md section (c)), and what it does not name is still known
// to be the runtime's when it lies in anonymous executable memory. Sampler thread only.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/own_descriptor.h"
#include "core/perf_map.h"

namespace clrscope {

class RuntimeStubNames {
 public:
  RuntimeStubNames() = default;
  ~RuntimeStubNames();
  RuntimeStubNames(const RuntimeStubNames&) = delete;
  RuntimeStubNames& operator=(const RuntimeStubNames&) = delete;

  // Where this process's perf map is (empty: nowhere), and whether clrscope asked the runtime
  // for it, in which case the file is opened and removed at once, with the runtime's perfinfo
  // file beside it (the runtime and clrscope keep writing and reading the map; nothing is left
  // behind). Called before the sampler starts.
  void configure(const std::string& path, bool owned);
  // The label for pc, which no module and no method covers: the map's name, "[runtime stub]"
  // for other anonymous executable memory; false when pc is in neither.
  bool name(uintptr_t pc, std::string* out);
  // The map's own line for pc (an IL stub's signature), false when none.
  bool map_name(uintptr_t pc, std::string* out);
  size_t map_lines() const { return map_.size(); }

 private:
  void open_map();
  void read_map();
  bool anonymous_executable(uintptr_t pc);

  std::string path_;
  bool owned_ = false;
  // Checked before every read, as every descriptor clrscope keeps in the program
  // (core/own_descriptor.h): a program that closes it and opens a socket at its number must not
  // have that socket read. Lost once, the map is not opened again.
  std::unique_ptr<OwnDescriptor> map_fd_;
  bool map_lost_ = false;
  PerfMap map_;
  struct Range {
    uintptr_t lo, hi;
  };
  std::vector<Range> anonymous_;
};

// The perf map the runtime of this process writes when its environment asks for one
// (DOTNET_PerfMapEnabled 1 or 3, under DOTNET_PerfMapJitDumpPath or /tmp), or when `enabled`
// says clrscope asked for it after an attach; empty otherwise.
std::string runtime_perf_map_path(bool enabled);

}  // namespace clrscope
