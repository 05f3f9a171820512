#include "core/il_instrument.h"

#include <algorithm>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

// Stack slots the added code needs at most: method index, start time, and a calli's target.
constexpr uint16_t kProbeStack = 3;

Instruction make(uint16_t opcode, int64_t operand = 0) {
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

bool within(uint32_t i, uint32_t begin, uint32_t end) { return i >= begin && i < end; }

}  // namespace

std::string refusal(const Body& original) {
  for (size_t i = 0; i < original.code.size(); ++i) {
    const uint16_t op = original.code[i].opcode;
    if (op == kJmp) return "it leaves through jmp, which cannot be done from inside a protected block";
    if (op == kTail) return "it makes an explicit tail call (tail. prefix), which cannot be made from inside a protected block";
    if (op != kRet) continue;
    const uint32_t at = static_cast<uint32_t>(i);
    for (const Clause& c : original.clauses) {
      const bool in_filter = c.kind == kClauseFilter && within(at, c.class_token_or_filter, c.handler_begin);
      if (within(at, c.try_begin, c.try_end) || within(at, c.handler_begin, c.handler_end) || in_filter) {
        return "it returns from inside an exception block, which its IL may not do";
      }
    }
  }
  return std::string();
}

bool instrument(const Body& original, const InstrumentPlan& plan, Instrumented* out, std::string* reason) {
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

  // Prologue: the start time, taken before the protected block begins (its stack must be empty).
  call_probe(plan.enter, &body.code);
  body.code.push_back(store_local(plan.start_local));

  // The body. map[i] is where original instruction i begins now; map[n] is the end of the try.
  std::vector<uint32_t> map(n + 1);
  std::vector<size_t> leaves;  // the added leaves, whose target (EXIT) is not known yet
  const uint32_t try_begin = static_cast<uint32_t>(body.code.size());
  for (size_t i = 0; i < n; ++i) {
    map[i] = static_cast<uint32_t>(body.code.size());
    const Instruction& in = original.code[i];
    if (in.opcode != kRet) {
      body.code.push_back(in);
      continue;
    }
    if (plan.returns_value) {
      Instruction keep = store_local(plan.result_local);
      keep.original_offset = in.original_offset;
      body.code.push_back(keep);
    }
    Instruction leave = make(kLeaveS);
    if (!plan.returns_value) leave.original_offset = in.original_offset;
    leaves.push_back(body.code.size());
    body.code.push_back(leave);
  }
  const uint32_t try_end = static_cast<uint32_t>(body.code.size());
  map[n] = try_end;

  // Branches and switches of the original point at instructions that moved.
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

  // The fault handler: counts the call and the exception leaving it, then lets it go on.
  const uint32_t handler_begin = try_end;
  body.code.push_back(load_int(static_cast<int32_t>(plan.method_index)));
  body.code.push_back(load_local(plan.start_local));
  call_probe(plan.raise, &body.code);
  body.code.push_back(make(kEndfinally));
  const uint32_t handler_end = static_cast<uint32_t>(body.code.size());

  // The common exit, only when the body returns at all (one that always throws has none).
  if (!leaves.empty()) {
    const uint32_t exit = handler_end;
    for (size_t at : leaves) body.code[at].operand = exit;
    body.code.push_back(load_int(static_cast<int32_t>(plan.method_index)));
    body.code.push_back(load_local(plan.start_local));
    call_probe(plan.leave, &body.code);
    if (plan.returns_value) body.code.push_back(load_local(plan.result_local));
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
  wrap.kind = kClauseFault;
  wrap.try_begin = try_begin;
  wrap.try_end = try_end;
  wrap.handler_begin = handler_begin;
  wrap.handler_end = handler_end;
  body.clauses.push_back(wrap);

  return encode_body(body, &out->body, &out->mapping, reason);
}

}  // namespace il
}  // namespace clrscope
