#include "core/il_body.h"

#include <gtest/gtest.h>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

std::vector<uint8_t> fat_header(uint16_t flags, uint16_t max_stack, uint32_t code_size, uint32_t locals) {
  const uint16_t f = static_cast<uint16_t>(0x3003 | flags);
  return {static_cast<uint8_t>(f), static_cast<uint8_t>(f >> 8), static_cast<uint8_t>(max_stack),
          static_cast<uint8_t>(max_stack >> 8), static_cast<uint8_t>(code_size), static_cast<uint8_t>(code_size >> 8),
          static_cast<uint8_t>(code_size >> 16), static_cast<uint8_t>(code_size >> 24), static_cast<uint8_t>(locals),
          static_cast<uint8_t>(locals >> 8), static_cast<uint8_t>(locals >> 16), static_cast<uint8_t>(locals >> 24)};
}

std::vector<uint8_t> cat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Rows of ECMA-335 Partition III picked across the table, so a row out of place anywhere shows.
TEST(IlOpcodes, NamesAndOperandsMatchPartitionIII) {
  struct Row {
    uint16_t opcode;
    const char* name;
    Operand operand;
  };
  const Row rows[] = {
      {0x00, "nop", Operand::kNone},           {0x0E, "ldarg.s", Operand::kU8},
      {0x13, "stloc.s", Operand::kU8},         {0x1F, "ldc.i4.s", Operand::kI8},
      {0x21, "ldc.i8", Operand::kI64},         {0x23, "ldc.r8", Operand::kR8},
      {0x27, "jmp", Operand::kToken},          {0x2A, "ret", Operand::kNone},
      {0x2B, "br.s", Operand::kShortBranch},   {0x37, "blt.un.s", Operand::kShortBranch},
      {0x38, "br", Operand::kBranch},          {0x44, "blt.un", Operand::kBranch},
      {0x45, "switch", Operand::kSwitch},      {0x50, "ldind.ref", Operand::kNone},
      {0x6F, "callvirt", Operand::kToken},     {0x76, "conv.r.un", Operand::kNone},
      {0x79, "unbox", Operand::kToken},        {0x8B, "conv.ovf.u.un", Operand::kNone},
      {0x8C, "box", Operand::kToken},          {0xA2, "stelem.ref", Operand::kNone},
      {0xA5, "unbox.any", Operand::kToken},    {0xB3, "conv.ovf.i1", Operand::kNone},
      {0xBA, "conv.ovf.u8", Operand::kNone},   {0xC2, "refanyval", Operand::kToken},
      {0xC3, "ckfinite", Operand::kNone},      {0xC6, "mkrefany", Operand::kToken},
      {0xD0, "ldtoken", Operand::kToken},      {0xD3, "conv.i", Operand::kNone},
      {0xDB, "sub.ovf.un", Operand::kNone},    {0xDC, "endfinally", Operand::kNone},
      {0xDD, "leave", Operand::kBranch},       {0xDE, "leave.s", Operand::kShortBranch},
      {0xE0, "conv.u", Operand::kNone},        {0xFE00, "arglist", Operand::kNone},
      {0xFE06, "ldftn", Operand::kToken},      {0xFE09, "ldarg", Operand::kU16},
      {0xFE0E, "stloc", Operand::kU16},        {0xFE0F, "localloc", Operand::kNone},
      {0xFE11, "endfilter", Operand::kNone},   {0xFE12, "unaligned.", Operand::kU8},
      {0xFE14, "tail.", Operand::kNone},       {0xFE16, "constrained.", Operand::kToken},
      {0xFE19, "no.", Operand::kU8},           {0xFE1A, "rethrow", Operand::kNone},
      {0xFE1C, "sizeof", Operand::kToken},     {0xFE1E, "readonly.", Operand::kNone},
  };
  for (const Row& r : rows) {
    const OpcodeInfo& info = opcode_info(r.opcode);
    ASSERT_NE(info.name, nullptr) << std::hex << r.opcode;
    EXPECT_STREQ(info.name, r.name) << std::hex << r.opcode;
    EXPECT_EQ(info.operand, r.operand) << r.name;
  }
  for (uint16_t unassigned : {0x24, 0x77, 0x78, 0xA6, 0xB2, 0xBB, 0xC1, 0xC4, 0xC5, 0xC7, 0xCF, 0xE1, 0xFD, 0xFE08, 0xFE10,
                              0xFE1B, 0xFE1F}) {
    EXPECT_EQ(opcode_info(unassigned).name, nullptr) << std::hex << unassigned;
  }
  int named = 0;
  for (uint32_t op = 0; op <= 0xFEFF; ++op) {
    if (opcode_info(static_cast<uint16_t>(op)).name != nullptr) ++named;
  }
  // 191 one-byte and 28 two-byte opcodes.
  EXPECT_EQ(named, 219);
}

// A body with every opcode once, each with an operand of its size, decodes to exactly those
// instructions and encodes back to the same bytes.
TEST(IlBody, EveryOpcodeDecodesAndEncodesBackByteForByte) {
  std::vector<uint8_t> code;
  std::vector<uint16_t> expected;
  for (uint32_t op = 0; op <= 0xFEFF; ++op) {
    const OpcodeInfo& info = opcode_info(static_cast<uint16_t>(op));
    if (info.name == nullptr) continue;
    expected.push_back(static_cast<uint16_t>(op));
    if (op >= 0xFE00) code.push_back(0xFE);
    code.push_back(static_cast<uint8_t>(op));
    switch (info.operand) {
      case Operand::kNone: break;
      case Operand::kSwitch:  // two targets, both the next instruction
        for (uint8_t b : {2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) code.push_back(b);
        break;
      case Operand::kShortBranch: code.push_back(0); break;  // the next instruction
      case Operand::kBranch: for (int i = 0; i < 4; ++i) code.push_back(0); break;
      default:
        for (uint32_t i = 0; i < operand_size(info.operand); ++i) code.push_back(static_cast<uint8_t>(0x40 + i));
    }
  }
  code.push_back(0x2A);  // a last ret, for the last branch to reach
  expected.push_back(0x2A);
  const std::vector<uint8_t> input = cat(fat_header(0, 16, static_cast<uint32_t>(code.size()), 0), code);
  Body body;
  std::string reason;
  ASSERT_TRUE(parse_body(input.data(), input.size(), &body, &reason)) << reason;
  ASSERT_EQ(body.code.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(body.code[i].opcode, expected[i]) << i;
  EXPECT_EQ(body.max_stack, 16);
  std::vector<uint8_t> output;
  std::vector<OffsetMapping> mapping;
  ASSERT_TRUE(encode_body(body, &output, &mapping, &reason)) << reason;
  EXPECT_EQ(output, input);
  ASSERT_EQ(mapping.size(), expected.size());
  for (const OffsetMapping& m : mapping) EXPECT_EQ(m.old_offset, m.new_offset);
}

TEST(IlBody, DecodesOperandsAndBranchTargetsAsInstructionIndices) {
  // ldc.i4.s -3; ldc.i4 0x12345678; switch (L1, L0); L0: br.s L1; ldc.r4; L1: leave L0; ret
  const std::vector<uint8_t> code = {
      0x1F, 0xFD,                                      // 0: ldc.i4.s -3
      0x20, 0x78, 0x56, 0x34, 0x12,                    // 2: ldc.i4
      0x45, 0x02, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0,  // 7: switch (27, 20)
      0x2B, 0x05,                                      // 20: br.s 27
      0x22, 0x00, 0x00, 0x80, 0x3F,                    // 22: ldc.r4 1.0
      0xDD, 0xF4, 0xFF, 0xFF, 0xFF,                    // 27: leave 20
      0x2A,                                            // 32: ret
  };
  const std::vector<uint8_t> input = cat({static_cast<uint8_t>((code.size() << 2) | 2)}, code);
  Body body;
  std::string reason;
  ASSERT_TRUE(parse_body(input.data(), input.size(), &body, &reason)) << reason;
  EXPECT_TRUE(body.tiny);
  ASSERT_EQ(body.code.size(), 7u);
  EXPECT_EQ(body.code[0].operand, -3);
  EXPECT_EQ(body.code[1].operand, 0x12345678);
  EXPECT_EQ(body.code[2].switch_count, 2u);
  EXPECT_EQ(body.switch_targets, (std::vector<uint32_t>{5, 3}));
  EXPECT_EQ(body.code[3].operand, 5);
  EXPECT_EQ(body.code[4].operand, 0x3F800000);
  EXPECT_EQ(body.code[5].operand, 3);
  EXPECT_EQ(body.code[6].original_offset, 32u);
  std::vector<uint8_t> output;
  ASSERT_TRUE(encode_body(body, &output, nullptr, &reason)) << reason;
  EXPECT_EQ(output, input);
}

TEST(IlBody, ReadsSmallAndFatExceptionSectionsAndChainedSections) {
  // try { nop; leave.s END } finally { endfinally } ; try { nop; leave.s END } catch T { pop; leave.s END } END: ret
  const std::vector<uint8_t> code = {
      0x00, 0xDE, 0x09,  // 0: nop; leave.s 12
      0xDC,              // 3: endfinally
      0x00, 0xDE, 0x05,  // 4: nop; leave.s 12
      0x26, 0xDE, 0x02,  // 7: pop; leave.s 12
      0x00, 0x00,        // 10: nop; nop
      0x2A,              // 12: ret
  };
  std::vector<uint8_t> input = cat(fat_header(0x8 | 0x10, 2, static_cast<uint32_t>(code.size()), 0x11000001), code);
  while (input.size() % 4 != 0) input.push_back(0);
  // A small section with the finally clause, announcing another section ...
  for (uint8_t b : {0x81, 16, 0, 0, /*finally*/ 2, 0, 0, 0, 3, 3, 0, 1, 0, 0, 0, 0}) input.push_back(b);
  // ... a fat one with the catch clause.
  for (uint8_t b : {0x41, 28, 0, 0}) input.push_back(b);
  for (uint32_t v : {0u, 4u, 3u, 7u, 3u, 0x01000002u}) {
    for (int i = 0; i < 4; ++i) input.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  Body body;
  std::string reason;
  ASSERT_TRUE(parse_body(input.data(), input.size(), &body, &reason)) << reason;
  EXPECT_TRUE(body.init_locals);
  EXPECT_EQ(body.local_sig_token, 0x11000001u);
  ASSERT_EQ(body.clauses.size(), 2u);
  EXPECT_EQ(body.clauses[0].kind, kClauseFinally);
  EXPECT_EQ(body.clauses[0].try_begin, 0u);
  EXPECT_EQ(body.clauses[0].try_end, 2u);
  EXPECT_EQ(body.clauses[0].handler_begin, 2u);
  EXPECT_EQ(body.clauses[0].handler_end, 3u);
  EXPECT_EQ(body.clauses[1].kind, kClauseCatch);
  EXPECT_EQ(body.clauses[1].try_begin, 3u);
  EXPECT_EQ(body.clauses[1].handler_begin, 5u);
  EXPECT_EQ(body.clauses[1].handler_end, 7u);
  EXPECT_EQ(body.clauses[1].class_token_or_filter, 0x01000002u);
  // Written back as one small section.
  std::vector<uint8_t> output;
  ASSERT_TRUE(encode_body(body, &output, nullptr, &reason)) << reason;
  std::vector<uint8_t> expected = cat(fat_header(0x8 | 0x10, 2, static_cast<uint32_t>(code.size()), 0x11000001), code);
  while (expected.size() % 4 != 0) expected.push_back(0);
  for (uint8_t b : {0x01, 28, 0, 0, 2, 0, 0, 0, 3, 3, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 3, 7, 0, 3, 2, 0, 0, 1}) expected.push_back(b);
  EXPECT_EQ(output, expected);
}

TEST(IlBody, ReadsAFilterClause) {
  // try { leave.s END } filter { pop; ldc.i4.1; endfilter } { pop; leave.s END } END: ret
  const std::vector<uint8_t> code = {0xDE, 0x07, 0x26, 0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A};
  std::vector<uint8_t> input = cat(fat_header(0x8, 2, static_cast<uint32_t>(code.size()), 0), code);
  while (input.size() % 4 != 0) input.push_back(0);
  for (uint8_t b : {0x01, 16, 0, 0, 1, 0, 0, 0, 2, 6, 0, 3, 2, 0, 0, 0}) input.push_back(b);
  Body body;
  std::string reason;
  ASSERT_TRUE(parse_body(input.data(), input.size(), &body, &reason)) << reason;
  ASSERT_EQ(body.clauses.size(), 1u);
  EXPECT_EQ(body.clauses[0].kind, kClauseFilter);
  EXPECT_EQ(body.clauses[0].class_token_or_filter, 1u);  // pop at offset 2
  EXPECT_EQ(body.clauses[0].handler_begin, 4u);          // pop at offset 6
  std::vector<uint8_t> output;
  ASSERT_TRUE(encode_body(body, &output, nullptr, &reason)) << reason;
  EXPECT_EQ(output, input);
}

TEST(IlBody, WidensShortBranchesThatNoLongerReach) {
  // br.s over a ret and `pads` 9-byte ldc.i8 to a last ret.
  auto encode_with = [](int pads, std::vector<uint8_t>* out) {
    Body body;
    Instruction br;
    br.opcode = kBrS;
    br.operand = pads + 2;
    body.code.push_back(br);
    Instruction ret;
    ret.opcode = kRet;
    body.code.push_back(ret);
    Instruction pad;
    pad.opcode = kLdcI8;
    for (int i = 0; i < pads; ++i) body.code.push_back(pad);
    body.code.push_back(ret);
    std::string reason;
    return encode_body(body, out, nullptr, &reason);
  };
  std::vector<uint8_t> out;
  ASSERT_TRUE(encode_with(14, &out));
  EXPECT_EQ(out[12], kBrS);  // after the 12-byte fat header
  EXPECT_EQ(out[13], 127);   // 1 + 9 * 14: the farthest a short branch reaches
  ASSERT_TRUE(encode_with(15, &out));
  EXPECT_EQ(out[12], kBr);
  const int32_t disp = out[13] | (out[14] << 8) | (out[15] << 16) | (out[16] << 24);
  EXPECT_EQ(disp, 1 + 9 * 15);
}

TEST(IlBody, RefusesBodiesItCannotRead) {
  struct Case {
    std::vector<uint8_t> bytes;
    const char* reason;
  };
  const Case cases[] = {
      {{}, "the method has no IL body"},
      {{0x01, 0x00}, "its header is neither tiny nor fat"},
      {{(3 << 2) | 2, 0x00, 0x24, 0x2A}, "it holds an unknown opcode 0x24 at IL offset 0x01"},
      {{(2 << 2) | 2, 0x20, 0x01}, "the code ends inside the operand of ldc.i4 at IL offset 0x00"},
      {{(5 << 2) | 2, 0x2B, 0x00, 0x2A}, "the code runs past the end of the body"},
      {{(5 << 2) | 2, 0x2B, 0x01, 0x1F, 0x05, 0x2A},
       "br.s at IL offset 0x00 jumps to 0x03, which is not the start of an instruction"},
      {{(2 << 2) | 2, 0xFE}, "the code runs past the end of the body"},
      {{(1 << 2) | 2, 0xFE}, "the code ends inside a two-byte opcode at IL offset 0x00"},
  };
  for (const Case& c : cases) {
    Body body;
    std::string reason;
    EXPECT_FALSE(parse_body(c.bytes.data(), c.bytes.size(), &body, &reason));
    EXPECT_EQ(reason, c.reason);
  }
  // A section of another kind than exception clauses.
  std::vector<uint8_t> input = cat(fat_header(0x8, 1, 1, 0), {0x2A});
  while (input.size() % 4 != 0) input.push_back(0);
  for (uint8_t b : {0x02, 4, 0, 0}) input.push_back(b);
  Body body;
  std::string reason;
  EXPECT_FALSE(parse_body(input.data(), input.size(), &body, &reason));
  EXPECT_EQ(reason, "it has an extra data section of unknown kind 0x02");
  // A clause whose handler ends inside an instruction.
  input = cat(fat_header(0x8, 1, 3, 0), {0xDE, 0x00, 0x2A});
  input.push_back(0);
  for (uint8_t b : {0x01, 16, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 0, 0}) input.push_back(b);
  EXPECT_FALSE(parse_body(input.data(), input.size(), &body, &reason));
  EXPECT_EQ(reason, "the handler of the exception clause at try 0x00 does not fall on an instruction");
}

}  // namespace
}  // namespace il
}  // namespace clrscope
