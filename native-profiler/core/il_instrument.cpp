#include "core/il_instrument.h"

#include "core/il_opcodes.h"
#include "core/il_wrap.h"

namespace clrscope {
namespace il {
namespace {

// Stack slots the added code needs at most: method index, start time, and a calli's target.
constexpr uint16_t kProbeStack = 3;

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
  Body body;
  if (!begin_wrap(original, kProbeStack, plan.locals_token, &body, reason)) return false;

  // Prologue: the start time, taken before the protected block begins (its stack must be empty).
  call_probe(plan.enter, &body.code);
  body.code.push_back(store_local(plan.start_local));

  // The body; each ret leaves through the common exit, its value kept in the result local.
  const TryCopy copy = copy_into_try(original, &body, plan.returns_value ? &plan.result_local : nullptr);
  const std::vector<size_t>& leaves = copy.leaves;
  const uint32_t try_end = copy.try_end;

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

  add_clauses(original, copy, kClauseFault, handler_begin, handler_end, &body);

  return encode_body(body, &out->body, &out->mapping, reason);
}

}  // namespace il
}  // namespace clrscope
