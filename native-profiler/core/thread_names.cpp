#include "core/thread_names.h"

#include <cstring>

namespace clrscope {
namespace {

// The runtime names its threads to the OS (dotnet/runtime: SetThreadName calls in the VM, the
// GC and the PAL); Linux cuts them to 15 bytes. Full names by their cut form.
struct KnownName {
  const char* cut;
  const char* full;
};
constexpr KnownName kRuntimeNames[] = {
    {".NET Tiered Com", ".NET Tiered Compilation Worker"},
    {".NET Long Runni", ".NET Long Running Task"},
    {".NET Counter Po", ".NET Counter Poller"},
    {".NET EventPipe", ".NET EventPipe"},
    {".NET SigHandler", ".NET SigHandler"},
    {".NET Finalizer", ".NET Finalizer"},
    {".NET TP Worker", ".NET TP Worker"},
    {".NET TP Wait", ".NET TP Wait"},
    {".NET TP Gate", ".NET TP Gate"},
    {".NET Timer", ".NET Timer"},
    {".NET Server GC", ".NET Server GC"},
    {".NET BGC", ".NET Background GC"},
    {".NET DebugPipe", ".NET DebugPipe"},
    {".NET Debugger", ".NET Debugger"},
    {".NET SynchManag", ".NET SynchManager"},
    {".NET Sockets", ".NET Sockets"},
    {".NET File Watch", ".NET File Watcher"},
    {".NET ThreadPool", ".NET ThreadPool Gate"},
};

// Linux's comm holds at most 15 bytes; a name that long was probably longer.
constexpr size_t kOsNameMax = 15;

}  // namespace

std::string name_from_os(const std::string& os_name, bool is_main_thread, const std::string& process_name) {
  if (is_main_thread) return "Main Thread";
  if (os_name.empty() || os_name == process_name) return std::string();
  for (const KnownName& k : kRuntimeNames) {
    if (os_name == k.cut) return k.full;
  }
  if (os_name.size() >= kOsNameMax) return os_name + "\xE2\x80\xA6";  // "…": the OS kept only this much
  return os_name;
}

bool is_gc_thread_name(const std::string& os_name) {
  return os_name == ".NET Server GC" || os_name == ".NET BGC";
}

}  // namespace clrscope
