#pragma once
// Wraps CoreLib's AsyncStateMachineBox<TStateMachine>.MoveNext(Thread) so that the box it runs is
// published for the heap walk (core/box_stack.h):
//
//   ldarg.0; stloc PINNED; ldloc PINNED; conv.i        (`this` pinned, as C#'s `fixed` takes an address)
//   [ldc.i8 enter; conv.i;] calli void(native int)
//   .try {
//     original body, every `ret` now `leave EXIT`
//   } finally {
//     [ldc.i8 leave; conv.i;] calli void(); endfinally
//   }
//   EXIT: ret
//
// The pinned local keeps the box where it is for as long as it is published. A finally, not a
// fault: the box is unpublished whichever way MoveNext leaves. Void methods only.
#include <cstdint>

#include "core/il_body.h"
#include "core/il_instrument.h"

namespace clrscope {
namespace il {

struct BoxProbePlan {
  uint32_t locals_token = 0;  // StandAloneSig: the original locals and an `object pinned` at the end
  uint32_t pinned_local = 0;  // that local's index
  ProbeCall enter, leave;     // enter(native int), leave()
};

// False with a sentence in *reason when the body cannot be wrapped (il::refusal's reasons).
bool wrap_box_probe(const Body& original, const BoxProbePlan& plan, Instrumented* out, std::string* reason);

}  // namespace il
}  // namespace clrscope
