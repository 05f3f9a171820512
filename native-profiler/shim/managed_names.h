#pragma once
// Names of managed methods as a .NET developer reads them: Namespace.Type+Nested<Args>.Method,
// built from the runtime's metadata on the sampler thread and cached per class and module.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "clr/corprof.h"
#include "clr/metadata.h"
#include "core/page_memory.h"
#include "core/symbol_cache.h"

namespace clrscope {

class ManagedNames {
 public:
  explicit ManagedNames(clr::ICorProfilerInfo8* info) : info_(info) {}
  ~ManagedNames();
  ManagedNames(const ManagedNames&) = delete;
  ManagedNames& operator=(const ManagedNames&) = delete;

  // Fills the name, module file name and path, the module's MVID and the method token. False
  // when the runtime no longer knows the function (e.g. during shutdown).
  bool describe(clr::FunctionID function, ResolvedFrame* out);
  // A type's name as describe() writes it (Namespace.Type+Nested<Args>, arrays T[]).
  std::string type_name(clr::ClassID id) { return class_name(id, 0); }

 private:
  struct ModuleInfo {
    clr::IMetaDataImport* metadata = nullptr;
    std::string file;
    std::string path;
    uint8_t mvid[16] = {};
  };
  const ModuleInfo& module(clr::ModuleID id);
  bool dynamic_name(clr::FunctionID function, std::string* name, std::string* module);
  std::string class_name(clr::ClassID id, int depth);
  std::string type_def_name(const ModuleInfo& m, clr::mdTypeDef type);
  std::string type_args(const clr::ClassID* args, uint32_t count, int depth);

  clr::ICorProfilerInfo8* info_;
  std::unordered_map<clr::ModuleID, ModuleInfo, std::hash<clr::ModuleID>, std::equal_to<clr::ModuleID>,
                     PageAllocator<std::pair<const clr::ModuleID, ModuleInfo>>>
      modules_;
  std::unordered_map<clr::ClassID, std::string, std::hash<clr::ClassID>, std::equal_to<clr::ClassID>,
                     PageAllocator<std::pair<const clr::ClassID, std::string>>>
      classes_;
};

}  // namespace clrscope
