#include "core/il_box_probe.h"

#include "core/il_opcodes.h"
#include "core/il_wrap.h"

namespace clrscope {
namespace il {
namespace {

// this, its address and a calli's target.
constexpr uint16_t kProbeStack = 3;

}  // namespace

bool wrap_box_probe(const Body& original, const BoxProbePlan& plan, Instrumented* out, std::string* reason) {
  Body body;
  if (!begin_wrap(original, kProbeStack, plan.locals_token, &body, reason)) return false;

  // Published before the protected block begins (its stack must be empty there).
  body.code.push_back(make(kLdarg0));
  body.code.push_back(store_local(plan.pinned_local));
  body.code.push_back(load_local(plan.pinned_local));
  body.code.push_back(make(kConvI));
  call_probe(plan.enter, &body.code);

  const TryCopy copy = copy_into_try(original, &body, nullptr);
  const std::vector<size_t>& leaves = copy.leaves;
  const uint32_t try_end = copy.try_end;

  const uint32_t handler_begin = try_end;
  call_probe(plan.leave, &body.code);
  body.code.push_back(make(kEndfinally));
  const uint32_t handler_end = static_cast<uint32_t>(body.code.size());

  if (!leaves.empty()) {
    for (size_t at : leaves) body.code[at].operand = handler_end;
    body.code.push_back(make(kRet));
  }

  add_clauses(original, copy, kClauseFinally, handler_begin, handler_end, &body);

  return encode_body(body, &out->body, &out->mapping, reason);
}

}  // namespace il
}  // namespace clrscope
