#include "core/il_box_probe.h"

#include <algorithm>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

// this, its address and a calli's target.
constexpr uint16_t kProbeStack = 3;

Instruction make(uint16_t opcode, int64_t operand = 0) {
  Instruction in;
  in.opcode = opcode;
  in.operand = operand;
  return in;
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

}  // namespace

bool wrap_box_probe(const Body& original, const BoxProbePlan& plan, Instrumented* out, std::string* reason) {
  const std::string why = refusal(original);
  if (!why.empty()) {
    if (reason != nullptr) *reason = why;
    return false;
  }
  const size_t n = original.code.size();
  Body body;
  body.tiny = false;
  body.init_locals = original.init_locals;
  body.max_stack = std::max<uint16_t>(original.max_stack, kProbeStack);
  body.local_sig_token = plan.locals_token;

  // Published before the protected block begins (its stack must be empty there).
  body.code.push_back(make(kLdarg0));
  body.code.push_back(store_local(plan.pinned_local));
  body.code.push_back(load_local(plan.pinned_local));
  body.code.push_back(make(kConvI));
  call_probe(plan.enter, &body.code);

  std::vector<uint32_t> map(n + 1);
  std::vector<size_t> leaves;
  const uint32_t try_begin = static_cast<uint32_t>(body.code.size());
  for (size_t i = 0; i < n; ++i) {
    map[i] = static_cast<uint32_t>(body.code.size());
    const Instruction& in = original.code[i];
    if (in.opcode != kRet) {
      body.code.push_back(in);
      continue;
    }
    Instruction leave = make(kLeaveS);
    leave.original_offset = in.original_offset;
    leaves.push_back(body.code.size());
    body.code.push_back(leave);
  }
  const uint32_t try_end = static_cast<uint32_t>(body.code.size());
  map[n] = try_end;

  for (size_t i = 0; i < n; ++i) {
    if (original.code[i].opcode == kRet) continue;
    Instruction& in = body.code[map[i]];
    const Operand operand = opcode_info(in.opcode).operand;
    if (operand == Operand::kShortBranch || operand == Operand::kBranch) {
      in.operand = map[static_cast<size_t>(in.operand)];
    } else if (operand == Operand::kSwitch) {
      const size_t first = body.switch_targets.size();
      for (uint32_t k = 0; k < in.switch_count; ++k) {
        body.switch_targets.push_back(map[original.switch_targets[static_cast<size_t>(in.operand) + k]]);
      }
      in.operand = static_cast<int64_t>(first);
    }
  }

  const uint32_t handler_begin = try_end;
  call_probe(plan.leave, &body.code);
  body.code.push_back(make(kEndfinally));
  const uint32_t handler_end = static_cast<uint32_t>(body.code.size());

  if (!leaves.empty()) {
    for (size_t at : leaves) body.code[at].operand = handler_end;
    body.code.push_back(make(kRet));
  }

  for (const Clause& c : original.clauses) {
    Clause shifted = c;
    shifted.try_begin = map[c.try_begin];
    shifted.try_end = map[c.try_end];
    shifted.handler_begin = map[c.handler_begin];
    shifted.handler_end = map[c.handler_end];
    if (c.kind == kClauseFilter) shifted.class_token_or_filter = map[c.class_token_or_filter];
    body.clauses.push_back(shifted);
  }
  Clause wrap;
  wrap.kind = kClauseFinally;
  wrap.try_begin = try_begin;
  wrap.try_end = try_end;
  wrap.handler_begin = handler_begin;
  wrap.handler_end = handler_end;
  body.clauses.push_back(wrap);

  return encode_body(body, &out->body, &out->mapping, reason);
}

}  // namespace il
}  // namespace clrscope
