#pragma once
// What the portable core needs from the operating system. Declared here, defined once per OS
// (linux/, windows/) and joined at link time, so the core stays free of #ifdef forests.
#include <cstddef>
#include <cstdint>
#include <string>

namespace clrscope {
struct ThreadSlot;

namespace platform {

// Monotonic clock in nanoseconds. Async-signal-safe.
uint64_t mono_now_ns();
// Wall clock (Unix epoch) in nanoseconds.
uint64_t unix_now_ns();
uint32_t current_tid();
uint32_t process_id();
// CPU time consumed so far by the calling thread. Async-signal-safe.
uint64_t current_thread_cpu_ns();
// CPU time consumed so far by another thread of this process.
bool thread_cpu_ns(uint32_t tid, uint64_t* out);
// The step in which those clocks advance: 1 on Linux; a scheduler tick on Windows, whose
// GetThreadTimes is charged per clock interrupt (15.6 ms; 10 ms under Wine), so there a thread
// can run for a while without its clock moving.
uint64_t thread_cpu_clock_step_ns();
// Bounds of the calling thread's stack. Normal context only (may allocate).
bool current_thread_stack(uintptr_t* lo, uintptr_t* hi);
// Bounds of the stack mapping that contains `sp`, for threads whose bounds could not be read
// on the thread itself (e.g. threads that existed before an attach). Normal context only.
bool stack_bounds_containing(uintptr_t sp, uintptr_t* lo, uintptr_t* hi);
// Names the calling thread for debuggers and tools (at most 15 characters on Linux).
void name_current_thread(const char* name);
// Sleep until the given monotonic deadline.
void sleep_until_mono_ns(uint64_t deadline);
// Name of a shared library file from its path ("/usr/lib/libc.so.6" -> "libc.so.6").
std::string file_name_of(const std::string& path);
// Environment variable, empty if unset.
std::string env(const char* name);

// Republishes the table of loaded native code (core/module_table.h) when libraries were loaded
// or unloaded since the last call. Sampler thread only.
void refresh_modules();

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
// Stop delivering captures; safe to call more than once. Leaves a quiet handler in place so
// that a signal already in flight cannot hit a default disposition and kill the process.
void quiesce_capture();
// Before the library is unloaded (detach): stops captures, discards pending capture signals,
// waits for handlers still running and gives the signal back to its previous owner. Call only
// once no timer is armed and no capture is being requested.
void uninstall_capture();
// False once another library has replaced our signal handler; the sampler then stops asking
// for captures rather than deliver signals to a handler that does not expect them.
bool capture_still_installed();
// Per-thread CPU-time timer that requests a CPU sample each time the thread has consumed
// `interval_ns` of CPU. Called on any thread in normal context.
bool arm_cpu_timer(ThreadSlot& slot, uint32_t slot_index, uint64_t interval_ns);
void disarm_cpu_timer(ThreadSlot& slot);
// Ask the thread for one wall-time sample (asynchronous; the capture lands in the ring).
bool request_wall_sample(ThreadSlot& slot, uint32_t slot_index);

}  // namespace platform
}  // namespace clrscope
