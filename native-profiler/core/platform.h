#pragma once
// What the portable core needs from the operating system. Declared here, defined once per OS
// (linux/, windows/) and joined at link time, so the core stays free of #ifdef forests.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/frame_walker.h"

namespace clrscope {
struct ThreadSlot;
struct OsThread;

namespace platform {

// Monotonic clock in nanoseconds. Async-signal-safe.
uint64_t mono_now_ns();
// Wall clock (Unix epoch) in nanoseconds.
uint64_t unix_now_ns();
uint32_t current_tid();
// current_tid() remembered per thread (a thread-local read instead of a system call on Linux),
// for the runtime callbacks that run on the program's threads many thousand times a second.
// Not from a signal handler: the first use on a thread may allocate its thread-local storage.
uint32_t current_tid_remembered();
uint32_t process_id();
// CPU time consumed so far by the calling thread. Async-signal-safe.
uint64_t current_thread_cpu_ns();
// CPU time consumed so far by the whole process, every thread's (0 when unknown).
uint64_t process_cpu_ns();
// An identity of the calling thread that a reused OS thread id does not share (Linux:
// pthread_self). Async-signal-safe.
uintptr_t current_thread_identity();
// Context switches of the calling thread so far (voluntary and not). Async-signal-safe.
uint64_t current_thread_switches();
// Whether a thread of this process is waiting (not running or runnable) and how many context
// switches it has made, from one read of the OS's view of it. False when unknown.
bool thread_wait_state(uint32_t tid, bool* waiting, uint64_t* switches);
// The threads of this process as the OS lists them, with their OS names.
bool list_os_threads(std::vector<OsThread>* out);
// CPU time consumed so far by another thread of this process.
bool thread_cpu_ns(uint32_t tid, uint64_t* out);
// Bounds of the calling thread's stack. Normal context only (may allocate).
bool current_thread_stack(uintptr_t* lo, uintptr_t* hi);
// Bounds of the stack mapping that contains `sp`, for threads whose bounds could not be read
// on the thread itself (e.g. threads that existed before an attach). Normal context only.
bool stack_bounds_containing(uintptr_t sp, uintptr_t* lo, uintptr_t* hi);
// Walks the calling thread's own stack, leaf first, from inside this call outwards (clrscope's
// own frames lead; the caller drops them), into `out` with walk_frames' layout and limits.
// Normal context only, never a signal handler: Windows looks up the system's function tables,
// which takes their locks. `stack_hi`: the top of the thread's stack. Sets `*sp` to the stack
// pointer the walk started from. Linux steps with `modules` (the table the sampler checks the
// frames against afterwards), Windows with the unwind tables as its sampler does.
WalkResult walk_own_stack(uintptr_t stack_hi, const ModuleSnapshot* modules, uintptr_t* out, uint32_t max_frames,
                          uint32_t tail_keep, uintptr_t* sp);
// Whether `pc` lies in clrscope's own code (event stacks drop their leading own frames). The
// first call looks the library up (loader lock); call it once at start, later calls only compare.
bool is_own_code(uintptr_t pc);
// Names the calling thread for debuggers and tools (at most 15 characters on Linux).
void name_current_thread(const char* name);
// The CPUs this process may run on (its affinity), at least 1.
uint32_t usable_cpus();
// Sleep until the given monotonic deadline.
void sleep_until_mono_ns(uint64_t deadline);
// Name of a shared library file from its path ("/usr/lib/libc.so.6" -> "libc.so.6").
std::string file_name_of(const std::string& path);
// Environment variable, empty if unset.
std::string env(const char* name);

// Republishes the table of loaded native code (core/module_table.h) when libraries were loaded
// or unloaded since the last call, and frees what older tables held once no handler can read
// it. True when the table changed. Sampler thread only.
bool refresh_modules();
// True when libraries were loaded or unloaded since the last refresh_modules(). Sampler thread.
bool modules_changed_since_refresh();
// Republishes the ReadyToRun images' unwind tables (core/r2r_unwind.h) when the runtime loaded
// or unloaded modules since the last look. True when they changed. Sampler thread.
bool refresh_r2r_images();
// Publishes the table of the ReadyToRun image the runtime just mapped at `base` (its loaded
// layout, not a flat one) from `path`, before any of its code runs: the sampler's next look
// comes up to a rescan interval later, longer on a busy machine, and until then stacks through
// the image's frameless methods unwound by frame pointers skip their callers. On the thread that
// loaded the module (ModuleLoadFinished). True when a table was added.
bool add_r2r_image(uintptr_t base, const char* path);
// Retires every ReadyToRun table (detach), before release_modules frees what was retired.
void release_r2r_images();
// Bytes of unwind tables the module table holds copies of (for the log).
size_t unwind_copy_bytes();
// Frees every module table and copy; only once no capture can run again (detach).
void release_modules();
// Gives the C heap's free pages back to the OS (after a detach freed the profiler's buffers,
// which the allocator would otherwise keep, so that attaching again and again costs nothing).
void release_free_memory();

// Shared memory for the counters block, readable and writable by this user only, named after
// the process ("clrscope-<pid>": /dev/shm/clrscope-<pid> on Linux). Normal context only.
struct SharedMemory {
  void* address = nullptr;
  size_t size = 0;
  uintptr_t handle = 0;
};
bool create_shared_memory(uint32_t pid, size_t size, SharedMemory* out);
// Unmaps; with remove, also removes the name (readers that mapped it keep their view).
void release_shared_memory(SharedMemory* memory, bool remove);
// OS threads of this process, managed or not.
uint32_t os_thread_count();
// The OS's name for a thread of this process (Linux: its comm, which the runtime sets from
// Thread.Name and for its own threads), empty when unknown.
std::string os_thread_name(uint32_t tid);

// Stack capture by signal (Linux) or by suspending the thread (Windows).
// install_capture() must succeed before any arm/request call.
enum class CaptureInstall { kOk, kSignalTaken, kFailed };
CaptureInstall install_capture();
// The signal captures use (0 before install_capture succeeded).
int capture_signal_number();
// True when no capture handler is running at this moment (a handler that started earlier has
// returned), so memory retired before the call can be freed. Sampler thread.
bool capture_handlers_idle();
// Captures that reached a thread already running a signal handler on its alternate stack
// (another library's, or the runtime's own), and the least room that stack had left below the
// interrupted code at such a moment (0 when none did). Windows suspends
// threads instead: none there.
struct NestedCaptures {
  uint64_t count;
  uint64_t least_room;
};
NestedCaptures nested_captures();
// Stop delivering captures; safe to call more than once. Leaves a quiet handler in place so
// that a signal already in flight cannot hit a default disposition and kill the process.
void quiesce_capture();
// Before the library is unloaded (detach): stops captures, discards pending capture signals,
// waits for handlers still running and gives the signal back to its previous owner. Call only
// once no timer is armed and no capture is being requested.
enum class CaptureRemoval {
  kRemoved,      // the signal is its previous owner's again: the library may be unloaded
  kHandlerBusy,  // a handler still runs after the wait (its thread is stopped inside it)
  // Another library took the signal over after us. It may keep our handler as the one it
  // passes signals on to (Go's runtime does, for signals it did not expect), so our code must
  // stay mapped; and the signal is now its, so its disposition is left alone. Our handler
  // stays, quiet: it only passes a signal on to the owner from before clrscope.
  kTakenOver,
  // A fault handler was installed over clrscope's entry in front of the runtime's (Linux,
  // fault_handlers_linux.cpp) and may pass faults on to it: the capture signal is given back,
  // but the library must stay loaded.
  kFaultHandlerTakenOver,
};
CaptureRemoval uninstall_capture();
// False once another library has replaced our signal handler; the sampler then stops asking
// for captures rather than deliver signals to a handler that does not expect them.
bool capture_still_installed();
// On the thread the runtime reports an exception on (ExceptionThrown): opens the capture signal
// again when clrscope's fault entry blocked it and the runtime's fault handler did not return
// (a managed exception out of a processor fault). Linux; nothing elsewhere.
void reopen_capture_signal_after_fault();
// Whether thread `tid` of this process blocks the capture signal now (false when unknown, and
// where captures need no signal). Sampler thread only.
bool capture_signal_blocked(uint32_t tid);
// One aligned word of the process's memory, or false when reading it faults: the capture
// handler's heap walk (core/heap_chain.h) reads objects another thread may have changed.
// Async-signal-safe. Always false where no fault of it can be recovered (safe_loads_ready).
bool safe_load_word(uintptr_t address, uintptr_t* out);
// Whether a faulting safe_load_word returns false rather than ending the process: clrscope's
// fault entry stands in front of the runtime's SIGSEGV handler (Linux; false elsewhere).
bool safe_loads_ready();
// Per-thread CPU-time timer that requests a CPU sample each time the thread has consumed
// `interval_ns` of CPU. Called on any thread in normal context.
bool arm_cpu_timer(ThreadSlot& slot, uint32_t slot_index, uint64_t interval_ns);
void disarm_cpu_timer(ThreadSlot& slot);
// Ask the thread for one wall-time sample (asynchronous; the capture lands in the ring).
bool request_wall_sample(ThreadSlot& slot, uint32_t slot_index);

}  // namespace platform
}  // namespace clrscope
