#pragma once
// Names for threads the runtime did not name to the profiler.
#include <string>

namespace clrscope {

// The name to show for a thread from what the OS calls it (Linux keeps 15 bytes of a name).
// The runtime's own threads are given their full names back; a cut name is marked as cut; the
// process's first thread, which the OS calls after the program, is the main thread; a thread
// named after the process is unnamed.
std::string name_from_os(const std::string& os_name, bool is_main_thread, const std::string& process_name);

// Whether the OS name is one the runtime gives the threads that only collect garbage: server
// GC's one thread per heap (".NET Server GC") and the background GC threads (".NET BGC").
bool is_gc_thread_name(const std::string& os_name);

}  // namespace clrscope
