#pragma once
// The pieces every IL rewrite that wraps a whole method body in a protected block shares
// (core/il_instrument.cpp for measure's timing probes, core/il_box_probe.cpp for the async box
// probe): building single instructions, calling a probe, copying the original body into the
// try with each ret turned into a leave and every branch retargeted, and moving the original's
// exception clauses to where their instructions went.
#include <cstdint>
#include <string>
#include <vector>

#include "core/il_body.h"
#include "core/il_instrument.h"

namespace clrscope {
namespace il {

Instruction make(uint16_t opcode, int64_t operand = 0);
Instruction load_int(int32_t v);
Instruction load_local(uint32_t index);
Instruction store_local(uint32_t index);
void call_probe(const ProbeCall& probe, std::vector<Instruction>* code);

// Starts the new body of `original`: refused (false, the sentence in *reason) when it cannot be
// wrapped; else a fat header keeping its init-locals flag, room on the stack for `probe_stack`
// added slots, and the extended locals signature `locals_token`.
bool begin_wrap(const Body& original, uint16_t probe_stack, uint32_t locals_token, Body* body, std::string* reason);

// Where the original body went in the new one.
struct TryCopy {
  std::vector<uint32_t> map;  // map[i]: where original instruction i begins now; map[n]: the try's end
  std::vector<size_t> leaves;  // the leaves that replaced rets; their target (the exit) is set later
  uint32_t try_begin = 0;
  uint32_t try_end = 0;
};

// Appends the original's instructions to `body` as the protected block: each ret becomes a leave
// (after a store of the returned value into `result_local`, when one is given), and branches and
// switches point at where their targets moved.
TryCopy copy_into_try(const Body& original, Body* body, const uint32_t* result_local);

// Appends the original's clauses, moved where `copy` put their instructions, then the new
// outermost clause: `kind` (finally or fault) over the copy, its handler [handler_begin, handler_end).
void add_clauses(const Body& original, const TryCopy& copy, uint32_t kind, uint32_t handler_begin, uint32_t handler_end, Body* body);

}  // namespace il
}  // namespace clrscope
