#pragma once
// The profiler's own threads (the sampler, the measuring worker). They are left out of the
// scan for threads the runtime does not report: a profile shows the program, and the
// profiler's cost is reported apart (its log, the benchmarks), not as a frame of the program.
#include <cstdint>

namespace clrscope {

// Called on the thread itself, once it runs.
void mark_own_thread();
// Called on the thread itself before it ends.
void unmark_own_thread();
bool is_own_thread(uint32_t tid);

}  // namespace clrscope
