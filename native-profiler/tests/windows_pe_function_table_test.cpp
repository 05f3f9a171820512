// The Windows layer's .pdata reader, run on Linux against an image built by hand in memory.
#include "windows/pe_function_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace clrscope::win {
namespace {

constexpr uint32_t kPdata = 0x1000;
constexpr uint8_t kVersion1 = 1;

struct FakeImage {
  // uint32_t words keep every entry and UNWIND_INFO 4-byte aligned, as in a real image.
  std::vector<uint32_t> words = std::vector<uint32_t>(0x3000 / 4, 0);
  uint32_t entries = 0;

  uintptr_t base() const { return reinterpret_cast<uintptr_t>(words.data()); }
  uint32_t size() const { return static_cast<uint32_t>(words.size() * 4); }
  uint8_t* at(uint32_t rva) { return reinterpret_cast<uint8_t*>(words.data()) + rva; }

  // Appends a .pdata entry; callers add them in address order, as the linker does.
  uint32_t entry(uint32_t begin, uint32_t end, uint32_t unwind) {
    const uint32_t rva = kPdata + entries * 12;
    const PdataEntry e{begin, end, unwind};
    std::memcpy(at(rva), &e, sizeof e);
    ++entries;
    return rva;
  }
  void unwind_info(uint32_t rva, uint8_t flags, uint8_t codes) {
    at(rva)[0] = static_cast<uint8_t>((flags << 3) | kVersion1);
    at(rva)[1] = 0;  // prologue size
    at(rva)[2] = codes;
    at(rva)[3] = 0;  // frame register
  }
  void chained(uint32_t unwind_rva, uint8_t codes, PdataEntry to) {
    unwind_info(unwind_rva, kUnwindFlagChainInfo, codes);
    std::memcpy(at(unwind_rva + 4 + ((codes + 1u) & ~1u) * 2), &to, sizeof to);
  }
  FunctionTable table() const {
    FunctionTable t;
    t.base = base();
    t.size = size();
    t.entries = reinterpret_cast<const PdataEntry*>(base() + kPdata);
    t.count = entries;
    return t;
  }
};

class PeFunctionTable : public ::testing::Test {
 protected:
  void SetUp() override {
    img.unwind_info(0x2000, 0, 2);
    first_entry = img.entry(0x100, 0x180, 0x2000);  // a whole function
    img.unwind_info(0x2010, 0, 4);
    img.entry(0x200, 0x280, 0x2010);                 // the hot part of a split function...
    img.chained(0x2020, 3, PdataEntry{0x200, 0x280, 0x2010});
    img.entry(0x400, 0x440, 0x2020);                 // ...and its cold part, chained back
    img.entry(0x500, 0x520, first_entry + 1);        // shares another entry's unwind data
    img.chained(0x2040, 0, PdataEntry{0x700, 0x710, 0x2040});
    img.entry(0x700, 0x710, 0x2040);                 // a corrupt chain that loops
    img.entry(0x800, 0x810, 0x7ffffff0);             // unwind data outside the image
  }
  uintptr_t start(uint32_t rva) const { return function_start(img.table(), img.base() + rva); }
  uintptr_t at(uint32_t rva) const { return img.base() + rva; }

  FakeImage img;
  uint32_t first_entry = 0;
};

TEST_F(PeFunctionTable, FindsTheStartOfAWholeFunction) {
  EXPECT_EQ(start(0x100), at(0x100));
  EXPECT_EQ(start(0x17f), at(0x100));
  EXPECT_EQ(start(0x180), 0u);  // end is exclusive
}

TEST_F(PeFunctionTable, FollowsAColdFragmentBackToItsFunction) {
  EXPECT_EQ(start(0x420), at(0x200));
}

TEST_F(PeFunctionTable, FollowsAnIndirectEntry) {
  EXPECT_EQ(start(0x510), at(0x100));
}

TEST_F(PeFunctionTable, AnswersZeroForLeafCodeAndForAddressesOutsideTheImage) {
  EXPECT_EQ(start(0x300), 0u);
  EXPECT_EQ(start(0x10), 0u);
  EXPECT_EQ(function_start(img.table(), img.base() - 1), 0u);
  EXPECT_EQ(function_start(img.table(), img.base() + img.size()), 0u);
}

TEST_F(PeFunctionTable, GivesUpOnCorruptTables) {
  EXPECT_EQ(start(0x708), 0u);
  EXPECT_EQ(start(0x808), 0u);
  EXPECT_EQ(function_start(FunctionTable{}, at(0x100)), 0u);
}

TEST_F(PeFunctionTable, SeesFunctionBoundariesBetweenTwoAddresses) {
  const FunctionTable t = img.table();
  EXPECT_FALSE(function_begins_between(t, at(0x100), at(0x17f)));
  EXPECT_TRUE(function_begins_between(t, at(0x150), at(0x210)));
  EXPECT_TRUE(function_begins_between(t, at(0x150), at(0x200)));  // the end is inclusive
  EXPECT_FALSE(function_begins_between(t, at(0x180), at(0x1ff)));
  EXPECT_FALSE(function_begins_between(t, at(0x200), at(0x200)));
}

}  // namespace
}  // namespace clrscope::win
