// The x64 Windows unwind-code interpreter (core/x64_unwind.h) on hand-made unwind data and
// stack copies: it needs no Windows header, so it runs here.
#include "core/x64_unwind.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace clrscope::win {
namespace {

// A fake image: code bytes at 0x100, UNWIND_INFO at 0x200.
struct Image {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(0x400, 0xCC);
  uint64_t base() const { return reinterpret_cast<uint64_t>(bytes.data()); }
  void info(uint32_t at, uint8_t prolog, uint8_t frame_reg, uint8_t frame_off, const std::vector<uint16_t>& codes, uint8_t flags = 0) {
    bytes[at] = static_cast<uint8_t>(1 | (flags << 3));
    bytes[at + 1] = prolog;
    bytes[at + 2] = static_cast<uint8_t>(codes.size());
    bytes[at + 3] = static_cast<uint8_t>(frame_reg | (frame_off << 4));
    std::memcpy(&bytes[at + 4], codes.data(), codes.size() * 2);
  }
};

uint16_t code(uint8_t offset, uint8_t op, uint8_t info) { return static_cast<uint16_t>(offset | ((op | (info << 4)) << 8)); }

struct Stack {
  uint64_t lo = 0x7000;
  std::vector<uint64_t> words = std::vector<uint64_t>(64, 0);
  void at(uint64_t address, uint64_t v) { words[(address - lo) / 8] = v; }
  StackCopy copy() const { return StackCopy{lo, reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8}; }
};

TEST(X64Unwind, UndoesPushesAndAllocationInABody) {
  // Prolog: push rbp (at 1), push rbx (at 2), sub rsp, 0x28 (at 6). Codes are stored last first.
  Image img;
  img.info(0x200, 6, 0, 0, {code(6, kAllocSmall, 4), code(2, kPushNonvol, kRbx), code(1, kPushNonvol, kRbp)});
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x120;  // in the body
  r.gpr[kRsp] = 0x7010;
  st.at(0x7010 + 0x28, 0xB0B);        // saved rbx
  st.at(0x7010 + 0x30, 0xBEEF);       // saved rbp
  st.at(0x7010 + 0x38, 0x123456);     // return address
  const RuntimeFunction fn{0x100, 0x180, 0x200};
  ASSERT_TRUE(unwind_frame(img.base(), fn, false, &r, st.copy()));
  EXPECT_EQ(r.rip, 0x123456u);
  EXPECT_EQ(r.gpr[kRsp], 0x7050u);
  EXPECT_EQ(r.gpr[kRbx], 0xB0Bu);
  EXPECT_EQ(r.gpr[kRbp], 0xBEEFu);
}

TEST(X64Unwind, InTheProlog_OnlyWhatRanIsUndone) {
  Image img;
  img.info(0x200, 6, 0, 0, {code(6, kAllocSmall, 4), code(2, kPushNonvol, kRbx), code(1, kPushNonvol, kRbp)});
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x102;  // after push rbp and push rbx, before the allocation
  r.gpr[kRsp] = 0x7010;
  st.at(0x7010, 0xB0B);
  st.at(0x7018, 0xBEEF);
  st.at(0x7020, 0x42);
  const RuntimeFunction fn{0x100, 0x180, 0x200};
  ASSERT_TRUE(unwind_frame(img.base(), fn, true, &r, st.copy()));
  EXPECT_EQ(r.rip, 0x42u);
  EXPECT_EQ(r.gpr[kRsp], 0x7028u);
}

TEST(X64Unwind, FramePointerFramesRestoreRspFromTheFrameRegister) {
  // push rbp; sub rsp, 0x40; lea rbp, [rsp + 0x20] (frame offset 2*16); a body that moved rsp
  // further down (stackalloc) is undone through rbp.
  Image img;
  img.info(0x200, 10, kRbp, 2, {code(10, kSetFpreg, 0), code(5, kAllocSmall, 7), code(1, kPushNonvol, kRbp)});
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x140;
  r.gpr[kRsp] = 0x7000;  // below the fixed frame
  r.gpr[kRbp] = 0x7020 + 0x20;
  st.at(0x7060, 0x5EED);  // saved rbp, above the 0x40 allocation that began at 0x7020
  st.at(0x7068, 0x99);
  const RuntimeFunction fn{0x100, 0x180, 0x200};
  ASSERT_TRUE(unwind_frame(img.base(), fn, false, &r, st.copy()));
  EXPECT_EQ(r.rip, 0x99u);
  EXPECT_EQ(r.gpr[kRsp], 0x7070u);
  EXPECT_EQ(r.gpr[kRbp], 0x5EEDu);
}

TEST(X64Unwind, FollowsAChainedEntryToTheParentsPrologue) {
  Image img;
  img.info(0x200, 2, 0, 0, {code(2, kPushNonvol, kRsi)});           // the parent: push rsi
  img.info(0x240, 0, 0, 0, {code(0, kAllocSmall, 1)}, kUnwFlagChainInfo);  // a cold fragment
  // After the fragment's single code (padded to two slots) comes the parent's entry.
  const RuntimeFunction parent{0x100, 0x140, 0x200};
  std::memcpy(&img.bytes[0x240 + 4 + 4], &parent, sizeof parent);
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x160;
  r.gpr[kRsp] = 0x7000;
  st.at(0x7010, 0x51);  // after 0x10 of the fragment's allocation: saved rsi
  st.at(0x7018, 0x77);
  const RuntimeFunction fragment{0x150, 0x170, 0x240};
  ASSERT_TRUE(unwind_frame(img.base(), fragment, false, &r, st.copy()));
  EXPECT_EQ(r.rip, 0x77u);
  EXPECT_EQ(r.gpr[kRsi], 0x51u);
  EXPECT_EQ(r.gpr[kRsp], 0x7020u);
}

TEST(X64Unwind, ALeafStoppedInItsEpilogIsUnwoundByTheEpilogItself) {
  Image img;
  img.info(0x200, 6, 0, 0, {code(6, kAllocSmall, 4), code(1, kPushNonvol, kRbx)});
  // add rsp, 0x28; pop rbx; ret
  const uint8_t epilog[] = {0x48, 0x83, 0xC4, 0x28, 0x5B, 0xC3};
  std::memcpy(&img.bytes[0x170], epilog, sizeof epilog);
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x174;  // the add already ran: at pop rbx
  r.gpr[kRsp] = 0x7000;
  st.at(0x7000, 0xB0B);
  st.at(0x7008, 0x31);
  const RuntimeFunction fn{0x100, 0x180, 0x200};
  ASSERT_TRUE(unwind_frame(img.base(), fn, true, &r, st.copy()));
  EXPECT_EQ(r.rip, 0x31u);
  EXPECT_EQ(r.gpr[kRbx], 0xB0Bu);
  EXPECT_EQ(r.gpr[kRsp], 0x7010u);
}

TEST(X64Unwind, NeverReadsOutsideTheCopy) {
  Image img;
  // A huge allocation (as a wrong entry for a return address could claim) points past the copy.
  img.info(0x200, 8, 0, 0, {code(8, kAllocLarge, 1), 0x0000, 0x0010});
  Stack st;
  UnwindRegs r{};
  r.rip = img.base() + 0x120;
  r.gpr[kRsp] = 0x7010;
  const UnwindRegs before = r;
  const RuntimeFunction fn{0x100, 0x180, 0x200};
  EXPECT_FALSE(unwind_frame(img.base(), fn, false, &r, st.copy()));
  EXPECT_EQ(std::memcmp(&r, &before, sizeof r), 0);
  // A leaf whose return address would lie past the end.
  r.gpr[kRsp] = st.lo + st.words.size() * 8 - 4;
  EXPECT_FALSE(unwind_leaf(&r, st.copy()));
  uint64_t v = 0;
  EXPECT_FALSE(st.copy().read_u64(st.lo - 8, &v));
}

}  // namespace
}  // namespace clrscope::win
