#include "core/il_wrap.h"

#include <algorithm>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {

Instruction make(uint16_t opcode, int64_t operand) {
  Instruction in;
  in.opcode = opcode;
  in.operand = operand;
  return in;
}

Instruction load_int(int32_t v) {
  if (v >= -1 && v <= 8) return make(static_cast<uint16_t>(kLdcI40 + v));
  if (v >= -128 && v <= 127) return make(kLdcI4S, v);
  return make(kLdcI4, v);
}

Instruction load_local(uint32_t index) {
  if (index <= 3) return make(static_cast<uint16_t>(kLdloc0 + index));
  if (index <= 0xFF) return make(kLdlocS, index);
  return make(kLdloc, index);
}

Instruction store_local(uint32_t index) {
  if (index <= 3) return make(static_cast<uint16_t>(kStloc0 + index));
  if (index <= 0xFF) return make(kStlocS, index);
  return make(kStloc, index);
}

void call_probe(const ProbeCall& probe, std::vector<Instruction>* code) {
  if (probe.kind == ProbeCall::kCall) {
    code->push_back(make(kCall, probe.token));
    return;
  }
  code->push_back(make(kLdcI8, static_cast<int64_t>(probe.address)));
  code->push_back(make(kConvI));
  code->push_back(make(kCalli, probe.token));
}

bool begin_wrap(const Body& original, uint16_t probe_stack, uint32_t locals_token, Body* body, std::string* reason) {
  const std::string why = refusal(original);
  if (!why.empty()) {
    if (reason != nullptr) *reason = why;
    return false;
  }
  body->tiny = false;
  body->init_locals = original.init_locals;
  body->max_stack = std::max<uint16_t>(original.max_stack, probe_stack);
  body->local_sig_token = locals_token;
  return true;
}

TryCopy copy_into_try(const Body& original, Body* body, const uint32_t* result_local) {
  const size_t n = original.code.size();
  TryCopy copy;
  copy.map.resize(n + 1);
  copy.try_begin = static_cast<uint32_t>(body->code.size());
  for (size_t i = 0; i < n; ++i) {
    copy.map[i] = static_cast<uint32_t>(body->code.size());
    const Instruction& in = original.code[i];
    if (in.opcode != kRet) {
      body->code.push_back(in);
      continue;
    }
    // The ret's offset goes with its first replacement, so the IL map keeps it.
    Instruction leave = make(kLeaveS);
    if (result_local != nullptr) {
      Instruction keep = store_local(*result_local);
      keep.original_offset = in.original_offset;
      body->code.push_back(keep);
    } else {
      leave.original_offset = in.original_offset;
    }
    copy.leaves.push_back(body->code.size());
    body->code.push_back(leave);
  }
  copy.try_end = static_cast<uint32_t>(body->code.size());
  copy.map[n] = copy.try_end;

  for (size_t i = 0; i < n; ++i) {
    if (original.code[i].opcode == kRet) continue;
    Instruction& in = body->code[copy.map[i]];
    const Operand operand = opcode_info(in.opcode).operand;
    if (operand == Operand::kShortBranch || operand == Operand::kBranch) {
      in.operand = copy.map[static_cast<size_t>(in.operand)];
    } else if (operand == Operand::kSwitch) {
      const size_t first = body->switch_targets.size();
      for (uint32_t k = 0; k < in.switch_count; ++k) {
        body->switch_targets.push_back(copy.map[original.switch_targets[static_cast<size_t>(in.operand) + k]]);
      }
      in.operand = static_cast<int64_t>(first);
    }
  }
  return copy;
}

void add_clauses(const Body& original, const TryCopy& copy, uint32_t kind, uint32_t handler_begin, uint32_t handler_end, Body* body) {
  const std::vector<uint32_t>& map = copy.map;
  for (const Clause& c : original.clauses) {
    Clause shifted = c;
    shifted.try_begin = map[c.try_begin];
    shifted.try_end = map[c.try_end];
    shifted.handler_begin = map[c.handler_begin];
    shifted.handler_end = map[c.handler_end];
    if (c.kind == kClauseFilter) shifted.class_token_or_filter = map[c.class_token_or_filter];
    body->clauses.push_back(shifted);
  }
  Clause wrap;
  wrap.kind = kind;
  wrap.try_begin = copy.try_begin;
  wrap.try_end = copy.try_end;
  wrap.handler_begin = handler_begin;
  wrap.handler_end = handler_end;
  body->clauses.push_back(wrap);
}

}  // namespace il
}  // namespace clrscope
