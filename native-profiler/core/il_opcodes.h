#pragma once
// The CIL instruction set (ECMA-335 Partition III): every opcode's name and the size and kind of
// its operand, which is all a rewriter needs to walk a method body instruction by instruction.
// One-byte opcodes are 0x00-0xE0; two-byte opcodes are 0xFE followed by a second byte, kept
// here as 0xFE00 | second.
#include <cstdint>

namespace clrscope {
namespace il {

enum class Operand : uint8_t {
  kNone,
  kU8,           // ldarg.s, ldloc.s, unaligned., no. ...
  kI8,           // ldc.i4.s
  kU16,          // ldarg, ldloc ... (the 0xFE forms)
  kI32,          // ldc.i4
  kI64,          // ldc.i8
  kR4,           // ldc.r4 (4 bytes, kept as raw bits)
  kR8,           // ldc.r8 (8 bytes, kept as raw bits)
  kToken,        // a metadata token (4 bytes)
  kShortBranch,  // a signed 1-byte offset from the next instruction
  kBranch,       // a signed 4-byte offset from the next instruction
  kSwitch,       // u32 n, then n signed 4-byte offsets from the end of the switch instruction
};

struct OpcodeInfo {
  const char* name;  // nullptr: not an opcode
  Operand operand;
};

// The opcode's description; `name` is nullptr for bytes that are not opcodes.
const OpcodeInfo& opcode_info(uint16_t opcode);

// Bytes the operand takes (a switch's fixed part only: its count; add 4 per target).
uint32_t operand_size(Operand operand);

// Bytes of the opcode itself: 1, or 2 for the 0xFE forms.
inline uint32_t opcode_size(uint16_t opcode) { return opcode >= 0xFE00 ? 2 : 1; }

// Opcodes the rewriter itself emits or inspects.
enum Op : uint16_t {
  kNop = 0x00,
  kLdarg0 = 0x02,
  kLdloc0 = 0x06,
  kStloc0 = 0x0A,
  kLdlocS = 0x11,
  kStlocS = 0x13,
  kLdcI4M1 = 0x15,
  kLdcI40 = 0x16,
  kLdcI4S = 0x1F,
  kLdcI4 = 0x20,
  kLdcI8 = 0x21,
  kJmp = 0x27,
  kCall = 0x28,
  kCalli = 0x29,
  kRet = 0x2A,
  kBrS = 0x2B,
  kBltUnS = 0x37,
  kBr = 0x38,
  kBltUn = 0x44,
  kSwitch = 0x45,
  kConvI = 0xD3,
  kEndfinally = 0xDC,
  kLeave = 0xDD,
  kLeaveS = 0xDE,
  kLdloc = 0xFE0C,
  kStloc = 0xFE0E,
  kTail = 0xFE14,
};

// The long form of a short branch (br.s -> br, leave.s -> leave); the opcode itself otherwise.
uint16_t long_branch_form(uint16_t opcode);

}  // namespace il
}  // namespace clrscope
