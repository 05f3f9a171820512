#pragma once
// The function table (.pdata) of an x64 PE image mapped in memory: where the function holding
// an address begins. Plain arithmetic on the image's bytes and no Windows header, so its tests
// build and run on Linux too (tests/windows_pe_function_table_test.cpp).
#include <cstdint>

namespace clrscope::win {

// IMAGE_RUNTIME_FUNCTION_ENTRY: one function, or one fragment of a function, as image offsets.
struct PdataEntry {
  uint32_t begin;
  uint32_t end;     // one past the last byte
  uint32_t unwind;  // offset of its UNWIND_INFO; with bit 0 set, of another PdataEntry
};

struct FunctionTable {
  uintptr_t base = 0;     // where the image is mapped
  uint32_t size = 0;      // SizeOfImage: every offset must stay below it
  const PdataEntry* entries = nullptr;  // sorted by begin, as the linker writes them
  uint32_t count = 0;
};

// UNWIND_INFO.Flags: the entry after the unwind codes is the one this fragment continues.
constexpr uint8_t kUnwindFlagChainInfo = 0x4;

// The address where the function containing pc begins; 0 when no entry covers pc (leaf
// functions have none) or the table does not add up. A function split into fragments (hot and
// cold parts) has one entry per fragment, each chained back towards the entry of its first.
inline uintptr_t function_start(const FunctionTable& t, uintptr_t pc) {
  if (t.entries == nullptr || pc < t.base || pc - t.base >= t.size) return 0;
  const uint32_t rva = static_cast<uint32_t>(pc - t.base);
  uint32_t lo = 0, hi = t.count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (t.entries[mid].end <= rva) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == t.count || t.entries[lo].begin > rva) return 0;
  const PdataEntry* e = &t.entries[lo];
  // Real chains are one or two links long; the bound turns a corrupt cycle into "unknown".
  for (int hops = 0; hops < 32; ++hops) {
    uint32_t u = e->unwind;
    if ((u & 1u) != 0) {
      u -= 1;
      if (u > t.size || t.size - u < sizeof(PdataEntry)) return 0;
      e = reinterpret_cast<const PdataEntry*>(t.base + u);
      continue;
    }
    if (u > t.size || t.size - u < 4) return 0;
    const auto* info = reinterpret_cast<const uint8_t*>(t.base + u);
    if (((info[0] >> 3) & kUnwindFlagChainInfo) == 0) return e->begin < t.size ? t.base + e->begin : 0;
    // UNWIND_INFO: 4 header bytes, then CountOfCodes 2-byte codes padded to an even count,
    // then the chained entry.
    const uint32_t chained = u + 4 + ((info[2] + 1u) & ~1u) * 2;
    if (chained > t.size || t.size - chained < sizeof(PdataEntry)) return 0;
    e = reinterpret_cast<const PdataEntry*>(t.base + chained);
  }
  return 0;
}

// True when some entry begins in (from, to]: a function boundary lies between the two.
inline bool function_begins_between(const FunctionTable& t, uintptr_t from, uintptr_t to) {
  if (t.entries == nullptr || to <= from || from < t.base || to - t.base >= t.size) return false;
  const uint32_t after = static_cast<uint32_t>(from - t.base);
  uint32_t lo = 0, hi = t.count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (t.entries[mid].begin <= after) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < t.count && t.entries[lo].begin <= static_cast<uint32_t>(to - t.base);
}

}  // namespace clrscope::win
