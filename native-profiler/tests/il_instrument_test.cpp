#include "core/il_instrument.h"

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

InstrumentPlan calli_plan() {
  InstrumentPlan plan;
  plan.method_index = 5;
  plan.locals_token = 0x11000003;
  plan.start_local = 0;
  plan.result_local = 1;
  plan.returns_value = true;
  plan.enter = {ProbeCall::kCalli, 0x11000001, 0x1122334455667788ull};
  plan.leave = {ProbeCall::kCalli, 0x11000002, 0x0000700000001000ull};
  plan.raise = {ProbeCall::kCalli, 0x11000002, 0x0000700000002000ull};
  return plan;
}

// static int Add(int a, int b) => a + b; a tiny body, probes through calli.
TEST(IlInstrument, WrapsATinyBodyByteForByte) {
  const Body original = parse({(4 << 2) | 2, 0x02, 0x03, 0x58, 0x2A});
  Instrumented out;
  std::string reason;
  ASSERT_TRUE(instrument(original, calli_plan(), &out, &reason)) << reason;
  const std::vector<uint8_t> expected = {
      // Fat header: MoreSects, no InitLocals (a tiny body has none), max stack 8 (the tiny default),
      // 59 bytes of code, the extended locals signature.
      0x0B, 0x30, 0x08, 0x00, 0x3B, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x11,
      // 0: ldc.i8 enter; conv.i; calli; stloc.0 (start)
      0x21, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xD3, 0x29, 0x01, 0x00, 0x00, 0x11, 0x0A,
      // 16: try { ldarg.0; ldarg.1; add; stloc.1 (result); leave.s 40 }
      0x02, 0x03, 0x58, 0x0B, 0xDE, 0x12,
      // 22: fault { ldc.i4.5; ldloc.0; ldc.i8 raise; conv.i; calli; endfinally }
      0x1B, 0x06, 0x21, 0x00, 0x20, 0x00, 0x00, 0x00, 0x70, 0x00, 0x00, 0xD3, 0x29, 0x02, 0x00, 0x00, 0x11, 0xDC,
      // 40: ldc.i4.5; ldloc.0; ldc.i8 leave; conv.i; calli; ldloc.1; ret
      0x1B, 0x06, 0x21, 0x00, 0x10, 0x00, 0x00, 0x00, 0x70, 0x00, 0x00, 0xD3, 0x29, 0x02, 0x00, 0x00, 0x11, 0x07, 0x2A,
      0x00,  // pad to 4
      // Small EH section: one fault clause, try 16+6, handler 22+18.
      0x01, 0x10, 0x00, 0x00, 0x04, 0x00, 0x10, 0x00, 0x06, 0x16, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00,
  };
  EXPECT_EQ(out.body, expected);
  const std::vector<std::pair<uint32_t, uint32_t>> mapping = {{0, 16}, {1, 17}, {2, 18}, {3, 19}};
  ASSERT_EQ(out.mapping.size(), mapping.size());
  for (size_t i = 0; i < mapping.size(); ++i) {
    EXPECT_EQ(out.mapping[i].old_offset, mapping[i].first);
    EXPECT_EQ(out.mapping[i].new_offset, mapping[i].second);
  }
}

// static void M(int x) { if (x == 0) return; try { Foo(); } finally { Bar(); } }, with one
// local; probes as calls to P/Invoke methods; a method index that needs ldc.i4.
TEST(IlInstrument, WrapsAFatBodyWithAFinallyAndTwoReturnsByteForByte) {
  const Body original = parse({
      0x1B, 0x30, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x11,  // fat, InitLocals, 18 bytes
      0x02,                          // 0: ldarg.0
      0x2D, 0x01,                    // 1: brtrue.s 4
      0x2A,                          // 3: ret
      0x28, 0x01, 0x00, 0x00, 0x06,  // 4: call Foo
      0xDE, 0x06,                    // 9: leave.s 17
      0x28, 0x02, 0x00, 0x00, 0x06,  // 11: call Bar
      0xDC,                          // 16: endfinally
      0x2A,                          // 17: ret
      0x00, 0x00,
      0x01, 0x10, 0x00, 0x00, 0x02, 0x00, 0x04, 0x00, 0x07, 0x0B, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
  });
  InstrumentPlan plan;
  plan.method_index = 300;
  plan.locals_token = 0x11000009;
  plan.start_local = 1;
  plan.returns_value = false;
  plan.enter = {ProbeCall::kCall, 0x06000010, 0};
  plan.leave = {ProbeCall::kCall, 0x06000011, 0};
  plan.raise = {ProbeCall::kCall, 0x06000012, 0};
  Instrumented out;
  std::string reason;
  ASSERT_TRUE(instrument(original, plan, &out, &reason)) << reason;
  const std::vector<uint8_t> expected = {
      0x1B, 0x30, 0x03, 0x00, 0x32, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x11,  // max stack 3, 50 bytes
      0x28, 0x10, 0x00, 0x00, 0x06,  // 0: call enter
      0x0B,                          // 5: stloc.1
      0x02,                          // 6: ldarg.0            (try)
      0x2D, 0x02,                    // 7: brtrue.s 11
      0xDE, 0x1B,                    // 9: leave.s 38          (was ret)
      0x28, 0x01, 0x00, 0x00, 0x06,  // 11: call Foo
      0xDE, 0x06,                    // 16: leave.s 24
      0x28, 0x02, 0x00, 0x00, 0x06,  // 18: call Bar
      0xDC,                          // 23: endfinally
      0xDE, 0x0C,                    // 24: leave.s 38         (was ret)
      0x20, 0x2C, 0x01, 0x00, 0x00,  // 26: ldc.i4 300         (fault)
      0x07,                          // 31: ldloc.1
      0x28, 0x12, 0x00, 0x00, 0x06,  // 32: call raise
      0xDC,                          // 37: endfinally
      0x20, 0x2C, 0x01, 0x00, 0x00,  // 38: ldc.i4 300         (exit)
      0x07,                          // 43: ldloc.1
      0x28, 0x11, 0x00, 0x00, 0x06,  // 44: call leave
      0x2A,                          // 49: ret
      0x00, 0x00,
      0x01, 0x1C, 0x00, 0x00,
      0x02, 0x00, 0x0B, 0x00, 0x07, 0x12, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,  // the finally, shifted
      0x04, 0x00, 0x06, 0x00, 0x14, 0x1A, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x00,  // the fault, last
  };
  EXPECT_EQ(out.body, expected);
  const std::vector<std::pair<uint32_t, uint32_t>> mapping = {{0, 6}, {1, 7}, {3, 9}, {4, 11}, {9, 16}, {11, 18}, {16, 23}, {17, 24}};
  ASSERT_EQ(out.mapping.size(), mapping.size());
  for (size_t i = 0; i < mapping.size(); ++i) {
    EXPECT_EQ(out.mapping[i].old_offset, mapping[i].first) << i;
    EXPECT_EQ(out.mapping[i].new_offset, mapping[i].second) << i;
  }
}

TEST(IlInstrument, ABodyThatOnlyThrowsGetsNoExit) {
  // ldstr; newobj; throw
  const Body original = parse({(11 << 2) | 2, 0x72, 0x01, 0x00, 0x00, 0x70, 0x73, 0x02, 0x00, 0x00, 0x0A, 0x7A});
  Instrumented out;
  std::string reason;
  ASSERT_TRUE(instrument(original, calli_plan(), &out, &reason)) << reason;
  const Body wrapped = parse(out.body);
  ASSERT_EQ(wrapped.clauses.size(), 1u);
  EXPECT_EQ(wrapped.clauses[0].kind, kClauseFault);
  EXPECT_EQ(wrapped.code.back().opcode, kEndfinally);
  for (const Instruction& in : wrapped.code) EXPECT_NE(in.opcode, kRet);
}

// A short branch across returns that grow (ret -> stloc.s + leave.s) no longer reaches and is
// widened; every original branch, switch and clause still lands on its original instruction.
TEST(IlInstrument, KeepsEveryTargetWhenReturnsGrow) {
  std::vector<uint8_t> code;
  code.push_back(0x02);                                   // ldarg.0
  code.insert(code.end(), {0x45, 2, 0, 0, 0, 0, 0, 0, 0});  // switch, targets patched below
  const size_t switch_at = 1;
  code.insert(code.end(), {0, 0, 0, 0});
  code.insert(code.end(), {0x2C, 0x00});  // brfalse.s, patched below
  const size_t branch_at = code.size() - 2;
  const size_t first_ret = code.size();
  for (int i = 0; i < 40; ++i) code.insert(code.end(), {0x16, 0x2A});  // ldc.i4.0; ret (40 returns)
  const size_t target = code.size();
  code.insert(code.end(), {0x17, 0x2A});  // ldc.i4.1; ret
  code[branch_at + 1] = static_cast<uint8_t>(target - (branch_at + 2));
  const uint32_t switch_end = static_cast<uint32_t>(switch_at + 1 + 4 + 8);
  const uint32_t t0 = static_cast<uint32_t>(first_ret + 2) - switch_end, t1 = static_cast<uint32_t>(target) - switch_end;
  for (int i = 0; i < 4; ++i) {
    code[switch_at + 5 + i] = static_cast<uint8_t>(t0 >> (8 * i));
    code[switch_at + 9 + i] = static_cast<uint8_t>(t1 >> (8 * i));
  }
  std::vector<uint8_t> bytes = {0x13, 0x30, 0x02, 0x00, static_cast<uint8_t>(code.size()), 0, 0, 0, 0x01, 0, 0, 0x11};
  bytes.insert(bytes.end(), code.begin(), code.end());
  const Body original = parse(bytes);
  ASSERT_EQ(original.code[2].opcode, 0x2C);
  InstrumentPlan plan = calli_plan();
  plan.start_local = 300;  // ldloc/stloc with a 16-bit index
  plan.result_local = 301;
  Instrumented out;
  std::string reason;
  ASSERT_TRUE(instrument(original, plan, &out, &reason)) << reason;
  const Body wrapped = parse(out.body);
  // prologue: ldc.i8, conv.i, calli, stloc 300
  EXPECT_EQ(wrapped.code[3].opcode, kStloc);
  EXPECT_EQ(wrapped.code[3].operand, 300);
  const size_t base = 4;
  EXPECT_EQ(wrapped.code[base + 2].opcode, 0x39);  // brfalse.s became brfalse
  // Where each original instruction went: returns became two instructions.
  std::vector<size_t> where(original.code.size());
  size_t at = base;
  for (size_t i = 0; i < original.code.size(); ++i) {
    where[i] = at;
    at += original.code[i].opcode == kRet ? 2 : 1;
  }
  EXPECT_EQ(static_cast<size_t>(wrapped.code[base + 2].operand), where[original.code[2].operand]);
  const Instruction& sw = wrapped.code[base + 1];
  ASSERT_EQ(sw.switch_count, 2u);
  EXPECT_EQ(wrapped.switch_targets[static_cast<size_t>(sw.operand)], where[original.switch_targets[0]]);
  EXPECT_EQ(wrapped.switch_targets[static_cast<size_t>(sw.operand) + 1], where[original.switch_targets[1]]);
  for (size_t i = 0; i < original.code.size(); ++i) {
    if (original.code[i].opcode != kRet) continue;
    EXPECT_EQ(wrapped.code[where[i]].opcode, kStloc);
    EXPECT_EQ(wrapped.code[where[i]].operand, 301);
    const Instruction& leave = wrapped.code[where[i] + 1];
    ASSERT_TRUE(leave.opcode == kLeaveS || leave.opcode == kLeave);
    EXPECT_EQ(wrapped.code[static_cast<size_t>(leave.operand)].opcode, kLdcI40 + 5);  // EXIT: ldc.i4.5
  }
  ASSERT_EQ(wrapped.clauses.size(), 1u);
  EXPECT_EQ(wrapped.clauses[0].try_begin, base);
  EXPECT_EQ(wrapped.clauses[0].try_end, at);
  EXPECT_EQ(wrapped.code.back().opcode, kRet);
  EXPECT_EQ(wrapped.code[wrapped.code.size() - 2].opcode, kLdloc);
}

TEST(IlInstrument, RefusesWhatItCannotWrapSoundly) {
  struct Case {
    std::vector<uint8_t> bytes;
    const char* reason;
  };
  const Case cases[] = {
      {{(5 << 2) | 2, 0x27, 0x01, 0x00, 0x00, 0x06}, "it leaves through jmp, which cannot be done from inside a protected block"},
      {{(8 << 2) | 2, 0xFE, 0x14, 0x28, 0x01, 0x00, 0x00, 0x06, 0x2A},
       "it makes an explicit tail call (tail. prefix), which cannot be made from inside a protected block"},
      {{0x0B, 0x30, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A, 0xDC, 0x00,
        0x01, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00},
       "it returns from inside an exception block, which its IL may not do"},
  };
  for (const Case& c : cases) {
    const Body original = parse(c.bytes);
    EXPECT_EQ(refusal(original), c.reason);
    Instrumented out;
    std::string reason;
    EXPECT_FALSE(instrument(original, calli_plan(), &out, &reason));
    EXPECT_EQ(reason, c.reason);
    EXPECT_TRUE(out.body.empty());
  }
}

}  // namespace
}  // namespace il
}  // namespace clrscope
