// The box probe's wrap of MoveNext(Thread) (core/il_box_probe.h), read back by the body parser:
// `this` pinned and published before the protected block, every return a leave through a
// finally that unpublishes it, the original clauses kept inside.
#include "core/il_box_probe.h"

#include <gtest/gtest.h>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

Body parse(const std::vector<uint8_t>& bytes) {
  Body body;
  std::string reason;
  EXPECT_TRUE(parse_body(bytes.data(), bytes.size(), &body, &reason)) << reason;
  return body;
}

BoxProbePlan plan() {
  BoxProbePlan p;
  p.locals_token = 0x11000007;
  p.pinned_local = 1;
  p.enter = {ProbeCall::kCalli, 0x11000005, 0x00007f0000001000ull};
  p.leave = {ProbeCall::kCalli, 0x11000006, 0x00007f0000002000ull};
  return p;
}

// void M(bool x) { if (x) return; try { Foo(); } finally { Bar(); } } with one local.
TEST(IlBoxProbe, PinsAndPublishesThisAndUnpublishesItInAFinallyOnEveryReturn) {
  const Body original = parse({
      0x1B, 0x30, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x11,  // fat, InitLocals, 18 bytes
      0x03,                          // 0: ldarg.1
      0x2C, 0x01,                    // 1: brfalse.s 4
      0x2A,                          // 3: ret
      0x28, 0x01, 0x00, 0x00, 0x06,  // 4: call Foo
      0xDE, 0x06,                    // 9: leave.s 17
      0x28, 0x02, 0x00, 0x00, 0x06,  // 11: call Bar
      0xDC,                          // 16: endfinally
      0x2A,                          // 17: ret
      0x00, 0x00,
      0x01, 0x10, 0x00, 0x00, 0x02, 0x00, 0x04, 0x00, 0x07, 0x0B, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
  });
  Instrumented out;
  std::string reason;
  ASSERT_TRUE(wrap_box_probe(original, plan(), &out, &reason)) << reason;
  const Body wrapped = parse(out.body);
  EXPECT_EQ(wrapped.local_sig_token, 0x11000007u);
  EXPECT_TRUE(wrapped.init_locals);
  // ldarg.0; stloc.1; ldloc.1; conv.i; ldc.i8 enter; conv.i; calli
  ASSERT_GE(wrapped.code.size(), 7u);
  EXPECT_EQ(wrapped.code[0].opcode, kLdarg0);
  EXPECT_EQ(wrapped.code[1].opcode, kStloc0 + 1);
  EXPECT_EQ(wrapped.code[2].opcode, kLdloc0 + 1);
  EXPECT_EQ(wrapped.code[3].opcode, kConvI);
  EXPECT_EQ(wrapped.code[4].opcode, kLdcI8);
  EXPECT_EQ(static_cast<uint64_t>(wrapped.code[4].operand), 0x00007f0000001000ull);
  EXPECT_EQ(wrapped.code[6].opcode, kCalli);
  EXPECT_EQ(wrapped.code[6].operand, 0x11000005);
  // No ret is left inside the protected block; the one ret is the common exit, last.
  uint32_t rets = 0;
  for (const Instruction& in : wrapped.code) rets += in.opcode == kRet ? 1 : 0;
  EXPECT_EQ(rets, 1u);
  EXPECT_EQ(wrapped.code.back().opcode, kRet);
  // The original finally, shifted, first; the probe's finally, enclosing it, last.
  ASSERT_EQ(wrapped.clauses.size(), 2u);
  EXPECT_EQ(wrapped.clauses[0].kind, kClauseFinally);
  const Clause& wrap = wrapped.clauses[1];
  EXPECT_EQ(wrap.kind, kClauseFinally);
  EXPECT_EQ(wrap.try_begin, 7u);
  EXPECT_LE(wrap.try_begin, wrapped.clauses[0].try_begin);
  EXPECT_GE(wrap.try_end, wrapped.clauses[0].handler_end);
  // The handler: ldc.i8 leave; conv.i; calli; endfinally.
  ASSERT_EQ(wrap.handler_end - wrap.handler_begin, 4u);
  EXPECT_EQ(static_cast<uint64_t>(wrapped.code[wrap.handler_begin].operand), 0x00007f0000002000ull);
  EXPECT_EQ(wrapped.code[wrap.handler_begin + 2].operand, 0x11000006);
  EXPECT_EQ(wrapped.code[wrap.handler_end - 1].opcode, kEndfinally);
}

TEST(IlBoxProbe, RefusesWhatCannotBeWrapped) {
  // ret inside a try: invalid IL, refused rather than wrapped.
  const Body original = parse({
      0x1B, 0x30, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // fat, 4 bytes of code
      0x00, 0x2A, 0xDC, 0x2A,  // try { nop; ret } finally { endfinally } ret
      0x01, 0x10, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
  });
  Instrumented out;
  std::string reason;
  EXPECT_FALSE(wrap_box_probe(original, plan(), &out, &reason));
  EXPECT_FALSE(reason.empty());
}

}  // namespace
}  // namespace il
}  // namespace clrscope
