#pragma once
// One step of the x64 Windows unwinder over a copy of a thread's stack: the unwind codes of the
// function holding the pc (its UNWIND_INFO, found through RtlLookupFunctionEntry, which reaches
// the runtime's JIT tables through the callback the runtime registered for its code heaps),
// undone on registers whose stack reads all go to the copy, each one bounds-checked.
//
// Why not RtlVirtualUnwind on the copy: it reads wherever the unwind codes and the registers
// point, without bounds. A return address taken for another function's (a thread caught in an
// unusual state, a method unloaded between the capture and the walk) can send it far past the
// copy's end into unmapped memory, and a fault there would take the target process down. The
// format is public (Microsoft's "x64 exception handling" documentation) and small enough to
// interpret here with every read checked, and this file needs no Windows header, so its tests
// run on Linux (tests/windows_x64_unwind_test.cpp). Linux uses it too, for ReadyToRun images,
// whose precompiled code carries the same unwind codes (core/r2r_unwind.h).
#include <cstdint>
#include <cstring>

namespace clrscope::win {

// Integer registers in the encoding's order: RAX RCX RDX RBX RSP RBP RSI RDI R8..R15.
enum : uint8_t { kRax = 0, kRcx, kRdx, kRbx, kRsp, kRbp, kRsi, kRdi };

struct UnwindRegs {
  uint64_t rip;
  uint64_t gpr[16];  // gpr[kRsp] is the stack pointer
};

// The copied stack: `bytes` holds what was at [real_lo, real_lo + size) when the thread stopped.
struct StackCopy {
  uint64_t real_lo;
  const uint8_t* bytes;
  uint64_t size;

  bool read_u64(uint64_t address, uint64_t* out) const {
    if (address < real_lo || address - real_lo > size || size - (address - real_lo) < 8) return false;
    std::memcpy(out, bytes + (address - real_lo), 8);
    return true;
  }
  bool holds(uint64_t address) const { return address >= real_lo && address - real_lo < size; }
};

// RUNTIME_FUNCTION: image-relative begin, end and UNWIND_INFO offsets.
struct RuntimeFunction {
  uint32_t begin;
  uint32_t end;
  uint32_t unwind;
};

enum UnwindOp : uint8_t {
  kPushNonvol = 0,
  kAllocLarge = 1,
  kAllocSmall = 2,
  kSetFpreg = 3,
  kSaveNonvol = 4,
  kSaveNonvolFar = 5,
  kEpilog = 6,  // version 2 epilog descriptions: nothing to undo in a body
  kSpare = 7,
  kSaveXmm128 = 8,
  kSaveXmm128Far = 9,
  kPushMachframe = 10,
  // CoreCLR's own, for code it compiles for Unix (ReadyToRun images there): a frame register set
  // more than 240 bytes above the stack pointer, the offset / 16 in the next two slots.
  kSetFpregLarge = 11,
};

constexpr uint8_t kUnwFlagChainInfo = 0x4;

// Slots an unwind code takes (1 to 3), or 0 for an unknown op.
inline uint32_t unwind_code_slots(uint8_t op, uint8_t info) {
  switch (op) {
    case kPushNonvol: case kAllocSmall: case kSetFpreg: case kPushMachframe: return 1;
    case kAllocLarge: return info == 0 ? 2 : 3;
    case kSaveNonvol: case kSaveXmm128: case kEpilog: case kSpare: return 2;
    case kSaveNonvolFar: case kSaveXmm128Far: case kSetFpregLarge: return 3;
    default: return 0;
  }
}

// kSetFpregLarge's offset: its 32 bits in the two slots after the code, scaled by 16.
inline uint64_t large_offset(const uint8_t* codes, uint32_t k) {
  uint32_t v = 0;
  std::memcpy(&v, codes + 2 * (k + 1), 4);
  return static_cast<uint64_t>(v) * 16;
}

// If the code at pc (leaf frame only) is an epilog — `add rsp, N` or `lea rsp, [frame + N]`,
// pops of nonvolatile registers, then `ret` or a tail `jmp` — undoes what is left of it, as the
// system unwinder does: the unwind codes describe the prolog, and after part of an epilog ran
// they no longer match the stack. `code_end` bounds the bytes read (the function's end).
// `Stack` is anything with read_u64(address, &out) that checks its bounds (StackCopy here).
// A function without an entry is a leaf that moved nothing: its return address is at rsp.
template <class Stack>
bool unwind_leaf(UnwindRegs* r, const Stack& stack) {
  uint64_t ra = 0;
  if (!stack.read_u64(r->gpr[kRsp], &ra)) return false;
  r->rip = ra;
  r->gpr[kRsp] += 8;
  return true;
}

template <class Stack>
bool unwind_epilog(uint64_t pc, uint64_t code_end, UnwindRegs* r, const Stack& stack) {
  const auto* code = reinterpret_cast<const uint8_t*>(pc);
  uint64_t avail = code_end > pc ? code_end - pc : 0;
  uint64_t i = 0;
  UnwindRegs t = *r;
  auto byte_at = [&](uint64_t k, uint8_t* b) {
    if (k >= avail) return false;
    *b = code[k];
    return true;
  };
  uint8_t b0 = 0, b1 = 0, b2 = 0;
  // add rsp, imm8 / imm32
  if (byte_at(0, &b0) && b0 == 0x48 && byte_at(1, &b1) && byte_at(2, &b2) && b2 == 0xC4 && (b1 == 0x83 || b1 == 0x81)) {
    const uint64_t len = b1 == 0x83 ? 4 : 7;
    if (len > avail) return false;
    int32_t imm = 0;
    if (b1 == 0x83) {
      imm = static_cast<int8_t>(code[3]);
    } else {
      std::memcpy(&imm, code + 3, 4);
    }
    t.gpr[kRsp] += static_cast<int64_t>(imm);
    i = len;
  } else if (byte_at(0, &b0) && (b0 == 0x48 || b0 == 0x49) && byte_at(1, &b1) && b1 == 0x8D && byte_at(2, &b2) &&
             ((b2 >> 3) & 7) == kRsp && (b2 & 7) != 4 && ((b2 >> 6) == 1 || (b2 >> 6) == 2)) {
    // lea rsp, [base + disp8/disp32], base not rsp (no SIB byte)
    const uint8_t base = static_cast<uint8_t>((b2 & 7) | (b0 == 0x49 ? 8 : 0));
    const uint64_t len = (b2 >> 6) == 1 ? 4 : 7;
    if (len > avail) return false;
    int32_t disp = 0;
    if ((b2 >> 6) == 1) {
      disp = static_cast<int8_t>(code[3]);
    } else {
      std::memcpy(&disp, code + 3, 4);
    }
    t.gpr[kRsp] = t.gpr[base] + static_cast<int64_t>(disp);
    i = len;
  }
  for (int pops = 0; pops < 16; ++pops) {
    uint8_t b = 0;
    if (!byte_at(i, &b)) return false;
    uint8_t reg = 0;
    if (b >= 0x58 && b <= 0x5F) {
      reg = static_cast<uint8_t>(b - 0x58);
      i += 1;
    } else if (b == 0x41 && byte_at(i + 1, &b1) && b1 >= 0x58 && b1 <= 0x5F) {
      reg = static_cast<uint8_t>(b1 - 0x58 + 8);
      i += 2;
    } else {
      break;
    }
    uint64_t v = 0;
    if (!stack.read_u64(t.gpr[kRsp], &v)) return false;
    t.gpr[reg] = v;
    t.gpr[kRsp] += 8;
  }
  uint8_t last = 0;
  if (!byte_at(i, &last)) return false;
  const bool ret = last == 0xC3;
  const bool jmp = last == 0xE9 || last == 0xEB ||
                   (last == 0xFF && byte_at(i + 1, &b1) && ((b1 >> 3) & 7) == 4) ||
                   (last == 0x48 && byte_at(i + 1, &b1) && b1 == 0xFF && byte_at(i + 2, &b2) && ((b2 >> 3) & 7) == 4);
  if (!ret && !jmp) return false;
  // What is left of the frame is the return address.
  if (!unwind_leaf(&t, stack)) return false;
  *r = t;
  return true;
}

// Undoes the frame of the function `fn` (of the image or code heap at `base`) on `r`: r->rip
// must lie in it. `exact` says r->rip is where the thread stopped (the leaf), so it may be in
// the prolog or an epilog; for callers it is a return address, past the prolog. False when the
// codes cannot be followed or a read would leave the copy; r is then unchanged. `copied_info`,
// when given, is the function's UNWIND_INFO as the caller copied it (a chained one is then
// refused: its parent lies in the image, which the caller chose not to read).
template <class Stack>
bool unwind_frame(uint64_t base, const RuntimeFunction& fn, bool exact, UnwindRegs* r, const Stack& stack,
                  const uint8_t* copied_info = nullptr) {
  UnwindRegs t = *r;
  if (exact && unwind_epilog(t.rip, base + fn.end, &t, stack)) {
    *r = t;
    return true;
  }
  const uint64_t offset = t.rip - (base + fn.begin);
  const RuntimeFunction* f = &fn;
  bool in_chain = false;
  // Chains are one or two links long; the bound turns a corrupt cycle into a failure.
  for (int link = 0; link < 8; ++link) {
    const auto* info = copied_info != nullptr ? copied_info : reinterpret_cast<const uint8_t*>(base + f->unwind);
    const uint8_t version = info[0] & 7;
    const uint8_t flags = info[0] >> 3;
    if (version != 1 && version != 2) return false;
    if (copied_info != nullptr && (flags & kUnwFlagChainInfo) != 0) return false;
    const uint8_t count = info[2];
    const uint8_t frame_reg = info[3] & 0xF;
    const uint64_t frame_off = static_cast<uint64_t>(info[3] >> 4) * 16;
    const uint8_t* codes = info + 4;
    // A code applies when the prolog got past it: always in a chained parent and in a body.
    auto applies = [&](uint32_t k) { return in_chain || !exact || codes[2 * k] <= offset; };
    // Saves are relative to the frame base: the frame register less its offset once the
    // prolog set it, else the stack pointer as it stands before anything is undone.
    uint64_t frame = t.gpr[kRsp];
    if (frame_reg != 0) {
      for (uint32_t k = 0; k < count;) {
        const uint8_t op = codes[2 * k + 1] & 0xF;
        const uint32_t slots = unwind_code_slots(op, codes[2 * k + 1] >> 4);
        if (slots == 0) return false;
        if (op == kSetFpreg && applies(k)) frame = t.gpr[frame_reg] - frame_off;
        if (op == kSetFpregLarge && k + 3 <= count && applies(k)) frame = t.gpr[frame_reg] - large_offset(codes, k);
        k += slots;
      }
    }
    for (uint32_t k = 0; k < count;) {
      const uint8_t op = codes[2 * k + 1] & 0xF;
      const uint8_t op_info = codes[2 * k + 1] >> 4;
      const uint32_t slots = unwind_code_slots(op, op_info);
      if (slots == 0 || k + slots > count) return false;
      if (!applies(k)) {
        k += slots;
        continue;
      }
      uint16_t u16 = 0;
      uint32_t u32 = 0;
      if (slots >= 2) std::memcpy(&u16, codes + 2 * (k + 1), 2);
      if (slots == 3) std::memcpy(&u32, codes + 2 * (k + 1), 4);
      uint64_t v = 0;
      switch (op) {
        case kPushNonvol:
          if (!stack.read_u64(t.gpr[kRsp], &v)) return false;
          t.gpr[op_info] = v;
          t.gpr[kRsp] += 8;
          break;
        case kAllocLarge:
          t.gpr[kRsp] += op_info == 0 ? static_cast<uint64_t>(u16) * 8 : u32;
          break;
        case kAllocSmall:
          t.gpr[kRsp] += static_cast<uint64_t>(op_info) * 8 + 8;
          break;
        case kSetFpreg:
          if (frame_reg == 0) return false;
          t.gpr[kRsp] = t.gpr[frame_reg] - frame_off;
          break;
        case kSetFpregLarge:
          if (frame_reg == 0) return false;
          t.gpr[kRsp] = t.gpr[frame_reg] - large_offset(codes, k);
          break;
        case kSaveNonvol:
        case kSaveNonvolFar:
          if (!stack.read_u64(frame + (op == kSaveNonvol ? static_cast<uint64_t>(u16) * 8 : u32), &v)) return false;
          t.gpr[op_info] = v;
          break;
        case kPushMachframe: {
          // An interrupt or exception frame: [error code,] rip, cs, eflags, rsp, ss.
          const uint64_t at = t.gpr[kRsp] + (op_info != 0 ? 8 : 0);
          uint64_t rip = 0, rsp = 0;
          if (!stack.read_u64(at, &rip) || !stack.read_u64(at + 24, &rsp)) return false;
          t.rip = rip;
          t.gpr[kRsp] = rsp;
          *r = t;
          return true;
        }
        default:  // xmm saves and epilog descriptions change no integer register
          break;
      }
      k += slots;
    }
    if ((flags & kUnwFlagChainInfo) == 0) break;
    // The parent's RUNTIME_FUNCTION follows the codes, padded to an even count.
    const uint8_t* chained = codes + 2 * ((count + 1u) & ~1u);
    f = reinterpret_cast<const RuntimeFunction*>(chained);
    in_chain = true;
    if (link == 7) return false;
  }
  // What is left of the frame is the return address.
  if (!unwind_leaf(&t, stack)) return false;
  *r = t;
  return true;
}

}  // namespace clrscope::win
