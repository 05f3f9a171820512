#pragma once
// Wraps a method body so that every call of it is timed by three probes:
//
//   [ldc.i8 enter; conv.i;] call(i) enter      -> int64 start      (before the body)
//   stloc start
//   .try {
//     original body, every `ret` now `stloc result; leave EXIT`
//   } fault {
//     ldc.i4 method; ldloc start; [ldc.i8 raise; conv.i;] call(i) raise; endfinally
//   }
//   EXIT: ldc.i4 method; ldloc start; [ldc.i8 leave; conv.i;] call(i) leave; [ldloc result;] ret
//
// A fault handler (not catch/rethrow) leaves the exception's first pass untouched: filters
// further up run exactly as before, and the exception is never caught and thrown again. The
// original clauses stay inside the new try, shifted, before it in the clause table (inner
// clauses first). Bodies the rewriter cannot wrap soundly are refused with a sentence rather
// than instrumented in part.
#include <cstdint>
#include <string>
#include <vector>

#include "core/il_body.h"

namespace clrscope {
namespace il {

// How the body reaches one probe: `call token` (a P/Invoke method defined in the module), or
// `ldc.i8 address; conv.i; calli token` (token: a StandAloneSig of the unmanaged call site).
struct ProbeCall {
  enum Kind : uint8_t { kCall, kCalli };
  Kind kind = kCalli;
  uint32_t token = 0;
  uint64_t address = 0;
};

struct InstrumentPlan {
  uint32_t method_index = 0;      // the probes' first argument
  uint32_t locals_token = 0;      // StandAloneSig of the extended locals signature
  uint32_t start_local = 0;       // index of the int64 local holding the start time
  uint32_t result_local = 0;      // index of the return value's local (unused for void methods)
  bool returns_value = false;
  ProbeCall enter, leave, raise;  // enter() -> i8; leave(i4, i8); raise(i4, i8)
};

struct Instrumented {
  std::vector<uint8_t> body;            // header, code and sections, ready for SetILFunctionBody
  std::vector<OffsetMapping> mapping;   // original instruction offsets -> new offsets
};

// Why a parsed body cannot be wrapped, or an empty string when it can (checked before the
// caller spends metadata tokens on it).
std::string refusal(const Body& original);

// Builds the wrapped body. False with a sentence in *reason when the body is refused.
bool instrument(const Body& original, const InstrumentPlan& plan, Instrumented* out, std::string* reason);

}  // namespace il
}  // namespace clrscope
