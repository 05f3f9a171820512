#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

using O = Operand;

// One-byte opcodes 0x00-0xE0, in order (ECMA-335 Partition III; the unassigned bytes have no name).
const OpcodeInfo kOneByte[0xE1] = {
    {"nop", O::kNone},           {"break", O::kNone},         {"ldarg.0", O::kNone},       {"ldarg.1", O::kNone},
    {"ldarg.2", O::kNone},       {"ldarg.3", O::kNone},       {"ldloc.0", O::kNone},       {"ldloc.1", O::kNone},
    {"ldloc.2", O::kNone},       {"ldloc.3", O::kNone},       {"stloc.0", O::kNone},       {"stloc.1", O::kNone},
    {"stloc.2", O::kNone},       {"stloc.3", O::kNone},       {"ldarg.s", O::kU8},         {"ldarga.s", O::kU8},
    {"starg.s", O::kU8},         {"ldloc.s", O::kU8},         {"ldloca.s", O::kU8},        {"stloc.s", O::kU8},
    {"ldnull", O::kNone},        {"ldc.i4.m1", O::kNone},     {"ldc.i4.0", O::kNone},      {"ldc.i4.1", O::kNone},
    {"ldc.i4.2", O::kNone},      {"ldc.i4.3", O::kNone},      {"ldc.i4.4", O::kNone},      {"ldc.i4.5", O::kNone},
    {"ldc.i4.6", O::kNone},      {"ldc.i4.7", O::kNone},      {"ldc.i4.8", O::kNone},      {"ldc.i4.s", O::kI8},
    {"ldc.i4", O::kI32},         {"ldc.i8", O::kI64},         {"ldc.r4", O::kR4},          {"ldc.r8", O::kR8},
    {nullptr, O::kNone},         {"dup", O::kNone},           {"pop", O::kNone},           {"jmp", O::kToken},
    {"call", O::kToken},         {"calli", O::kToken},        {"ret", O::kNone},           {"br.s", O::kShortBranch},
    {"brfalse.s", O::kShortBranch}, {"brtrue.s", O::kShortBranch}, {"beq.s", O::kShortBranch}, {"bge.s", O::kShortBranch},
    {"bgt.s", O::kShortBranch},  {"ble.s", O::kShortBranch},  {"blt.s", O::kShortBranch},  {"bne.un.s", O::kShortBranch},
    {"bge.un.s", O::kShortBranch}, {"bgt.un.s", O::kShortBranch}, {"ble.un.s", O::kShortBranch}, {"blt.un.s", O::kShortBranch},
    {"br", O::kBranch},          {"brfalse", O::kBranch},     {"brtrue", O::kBranch},      {"beq", O::kBranch},
    {"bge", O::kBranch},         {"bgt", O::kBranch},         {"ble", O::kBranch},         {"blt", O::kBranch},
    {"bne.un", O::kBranch},      {"bge.un", O::kBranch},      {"bgt.un", O::kBranch},      {"ble.un", O::kBranch},
    {"blt.un", O::kBranch},      {"switch", O::kSwitch},      {"ldind.i1", O::kNone},      {"ldind.u1", O::kNone},
    {"ldind.i2", O::kNone},      {"ldind.u2", O::kNone},      {"ldind.i4", O::kNone},      {"ldind.u4", O::kNone},
    {"ldind.i8", O::kNone},      {"ldind.i", O::kNone},       {"ldind.r4", O::kNone},      {"ldind.r8", O::kNone},
    {"ldind.ref", O::kNone},     {"stind.ref", O::kNone},     {"stind.i1", O::kNone},      {"stind.i2", O::kNone},
    {"stind.i4", O::kNone},      {"stind.i8", O::kNone},      {"stind.r4", O::kNone},      {"stind.r8", O::kNone},
    {"add", O::kNone},           {"sub", O::kNone},           {"mul", O::kNone},           {"div", O::kNone},
    {"div.un", O::kNone},        {"rem", O::kNone},           {"rem.un", O::kNone},        {"and", O::kNone},
    {"or", O::kNone},            {"xor", O::kNone},           {"shl", O::kNone},           {"shr", O::kNone},
    {"shr.un", O::kNone},        {"neg", O::kNone},           {"not", O::kNone},           {"conv.i1", O::kNone},
    {"conv.i2", O::kNone},       {"conv.i4", O::kNone},       {"conv.i8", O::kNone},       {"conv.r4", O::kNone},
    {"conv.r8", O::kNone},       {"conv.u4", O::kNone},       {"conv.u8", O::kNone},       {"callvirt", O::kToken},
    {"cpobj", O::kToken},        {"ldobj", O::kToken},        {"ldstr", O::kToken},        {"newobj", O::kToken},
    {"castclass", O::kToken},    {"isinst", O::kToken},       {"conv.r.un", O::kNone},     {nullptr, O::kNone},
    {nullptr, O::kNone},         {"unbox", O::kToken},        {"throw", O::kNone},         {"ldfld", O::kToken},
    {"ldflda", O::kToken},       {"stfld", O::kToken},        {"ldsfld", O::kToken},       {"ldsflda", O::kToken},
    {"stsfld", O::kToken},       {"stobj", O::kToken},        {"conv.ovf.i1.un", O::kNone}, {"conv.ovf.i2.un", O::kNone},
    {"conv.ovf.i4.un", O::kNone}, {"conv.ovf.i8.un", O::kNone}, {"conv.ovf.u1.un", O::kNone}, {"conv.ovf.u2.un", O::kNone},
    {"conv.ovf.u4.un", O::kNone}, {"conv.ovf.u8.un", O::kNone}, {"conv.ovf.i.un", O::kNone}, {"conv.ovf.u.un", O::kNone},
    {"box", O::kToken},          {"newarr", O::kToken},       {"ldlen", O::kNone},         {"ldelema", O::kToken},
    {"ldelem.i1", O::kNone},     {"ldelem.u1", O::kNone},     {"ldelem.i2", O::kNone},     {"ldelem.u2", O::kNone},
    {"ldelem.i4", O::kNone},     {"ldelem.u4", O::kNone},     {"ldelem.i8", O::kNone},     {"ldelem.i", O::kNone},
    {"ldelem.r4", O::kNone},     {"ldelem.r8", O::kNone},     {"ldelem.ref", O::kNone},    {"stelem.i", O::kNone},
    {"stelem.i1", O::kNone},     {"stelem.i2", O::kNone},     {"stelem.i4", O::kNone},     {"stelem.i8", O::kNone},
    {"stelem.r4", O::kNone},     {"stelem.r8", O::kNone},     {"stelem.ref", O::kNone},    {"ldelem", O::kToken},
    {"stelem", O::kToken},       {"unbox.any", O::kToken},    {nullptr, O::kNone},         {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {"conv.ovf.i1", O::kNone},
    {"conv.ovf.u1", O::kNone},   {"conv.ovf.i2", O::kNone},   {"conv.ovf.u2", O::kNone},   {"conv.ovf.i4", O::kNone},
    {"conv.ovf.u4", O::kNone},   {"conv.ovf.i8", O::kNone},   {"conv.ovf.u8", O::kNone},   {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {"refanyval", O::kToken},    {"ckfinite", O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {"mkrefany", O::kToken},     {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},
    {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},         {nullptr, O::kNone},
    {"ldtoken", O::kToken},      {"conv.u2", O::kNone},       {"conv.u1", O::kNone},       {"conv.i", O::kNone},
    {"conv.ovf.i", O::kNone},    {"conv.ovf.u", O::kNone},    {"add.ovf", O::kNone},       {"add.ovf.un", O::kNone},
    {"mul.ovf", O::kNone},       {"mul.ovf.un", O::kNone},    {"sub.ovf", O::kNone},       {"sub.ovf.un", O::kNone},
    {"endfinally", O::kNone},    {"leave", O::kBranch},       {"leave.s", O::kShortBranch}, {"stind.i", O::kNone},
    {"conv.u", O::kNone},
};

// Two-byte opcodes 0xFE 0x00-0x1E.
const OpcodeInfo kTwoByte[0x1F] = {
    {"arglist", O::kNone},    {"ceq", O::kNone},        {"cgt", O::kNone},          {"cgt.un", O::kNone},
    {"clt", O::kNone},        {"clt.un", O::kNone},     {"ldftn", O::kToken},       {"ldvirtftn", O::kToken},
    {nullptr, O::kNone},      {"ldarg", O::kU16},       {"ldarga", O::kU16},        {"starg", O::kU16},
    {"ldloc", O::kU16},       {"ldloca", O::kU16},      {"stloc", O::kU16},         {"localloc", O::kNone},
    {nullptr, O::kNone},      {"endfilter", O::kNone},  {"unaligned.", O::kU8},     {"volatile.", O::kNone},
    {"tail.", O::kNone},      {"initobj", O::kToken},   {"constrained.", O::kToken}, {"cpblk", O::kNone},
    {"initblk", O::kNone},    {"no.", O::kU8},          {"rethrow", O::kNone},      {nullptr, O::kNone},
    {"sizeof", O::kToken},    {"refanytype", O::kNone}, {"readonly.", O::kNone},
};

const OpcodeInfo kInvalid = {nullptr, O::kNone};

}  // namespace

const OpcodeInfo& opcode_info(uint16_t opcode) {
  if (opcode < sizeof kOneByte / sizeof kOneByte[0]) return kOneByte[opcode];
  if (opcode >= 0xFE00 && opcode - 0xFE00u < sizeof kTwoByte / sizeof kTwoByte[0]) return kTwoByte[opcode - 0xFE00];
  return kInvalid;
}

uint32_t operand_size(Operand operand) {
  switch (operand) {
    case Operand::kNone: return 0;
    case Operand::kU8:
    case Operand::kI8:
    case Operand::kShortBranch: return 1;
    case Operand::kU16: return 2;
    case Operand::kI32:
    case Operand::kR4:
    case Operand::kToken:
    case Operand::kBranch:
    case Operand::kSwitch: return 4;
    case Operand::kI64:
    case Operand::kR8: return 8;
  }
  return 0;
}

uint16_t long_branch_form(uint16_t opcode) {
  if (opcode >= kBrS && opcode <= kBltUnS) return static_cast<uint16_t>(opcode + (kBr - kBrS));
  if (opcode == kLeaveS) return kLeave;
  return opcode;
}

}  // namespace il
}  // namespace clrscope
