// The runtime writes no perf map on Windows: its stubs stay unnamed there.
#include "core/runtime_stubs.h"

namespace clrscope {

std::string runtime_perf_map_path(bool) { return std::string(); }

RuntimeStubNames::~RuntimeStubNames() = default;

void RuntimeStubNames::configure(const std::string& path, bool owned) {
  path_ = path;
  owned_ = owned;
}

void RuntimeStubNames::open_map() {}

void RuntimeStubNames::read_map() {}

bool RuntimeStubNames::map_name(uintptr_t, std::string*) { return false; }

bool RuntimeStubNames::anonymous_executable(uintptr_t) { return false; }

bool RuntimeStubNames::name(uintptr_t, std::string*) { return false; }

}  // namespace clrscope
