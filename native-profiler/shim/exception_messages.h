#pragma once
// An exception's message, read out of the thrown object inside ExceptionThrown: the string that
// System.Exception's `_message` field refers to. No managed code runs and nothing managed is
// allocated: the layout (the field's offset, the string's length and character offsets) is asked
// of the runtime once, then each throw is two loads and a pointer handed to record_event, which
// copies a bounded number of UTF-16 units.
//
// What is read is the field, not the Message property: `_message` is null when the exception
// was made without a message (`new MyException()`), and Message then builds its text on demand
// ("Exception of type 'X' was thrown.", from the runtime's resources); such an exception is
// recorded without a message. So is one whose class the profiler cannot place under
// System.Exception, and any thrown while the layout is first being learned on another thread.
#include <atomic>
#include <cstdint>

#include "clr/corprof.h"

namespace clrscope {

class ExceptionMessages {
 public:
  explicit ExceptionMessages(clr::ICorProfilerInfo3* info) : info_(info) {}

  // On the throwing thread, in ExceptionThrown (the thread is in cooperative mode there, so no
  // GC moves the object or its string while they are read). `type` is the object's class.
  // Points *text at the message's UTF-16 units inside the managed string and sets *length to
  // the string's length; false when there is no message to record.
  bool read(clr::ObjectID thrown, clr::ClassID type, const char16_t** text, uint32_t* length);

 private:
  enum State : int { kUnknown = 0, kLearning = 1, kReady = 2, kUnavailable = 3 };
  // Finds System.Exception among `type` and its parents, its `_message` field's offset and the
  // string layout; kReady or kUnavailable (logged).
  State learn(clr::ObjectID thrown, clr::ClassID type);
  bool is_exception(clr::ClassID type);
  bool type_name_is(clr::ModuleID module, clr::mdTypeDef type, const char* name);

  clr::ICorProfilerInfo3* info_;
  std::atomic<int> state_{kUnknown};
  clr::ClassID exception_class_ = 0;
  // Throws that found no System.Exception among their type's bases (learn() runs on one thread
  // at a time: the state says which).
  static constexpr int kMaxAttempts = 8;
  int attempts_ = 0;
  uint32_t message_offset_ = 0;
  uint32_t length_offset_ = 0;
  uint32_t chars_offset_ = 0;
  // Classes found to derive from System.Exception, so a type thrown again is one lookup.
  static constexpr uint32_t kKnownSlots = 128;
  std::atomic<uintptr_t> known_[kKnownSlots] = {};
};

}  // namespace clrscope
