#pragma once
// A callback when the calling thread exits, with a value of the caller's (the measuring
// probes retire a thread's figures this way). Defined once per OS.
namespace clrscope {
namespace platform {

// Sets `on_exit` (the same function for every caller) to run with `value` when the calling
// thread exits. False when the OS would not take it. Normal context only.
bool watch_thread_exit(void (*on_exit)(void*), void* value);

}  // namespace platform
}  // namespace clrscope
