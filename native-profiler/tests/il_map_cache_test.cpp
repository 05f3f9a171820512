#include "core/il_map_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/symbol_cache.h"

namespace clrscope {
namespace {

// A runtime's code as tables: what GetNativeCodeStartAddresses, GetCodeInfo4 and
// GetILToNativeMapping3 would answer, and how often they were asked.
struct TableSource final : CodeSource {
  std::map<uint64_t, std::vector<uintptr_t>> starts;  // by function (rejit 0)
  std::map<uintptr_t, std::vector<CodeRange>> ranges;
  std::map<uintptr_t, std::vector<IlMapRow>> maps;
  int start_calls = 0, map_calls = 0;
  bool code_starts(uint64_t function, uint64_t rejit, std::vector<uintptr_t>* out) override {
    ++start_calls;
    if (rejit != 0 || starts.count(function) == 0) return false;
    *out = starts[function];
    return true;
  }
  bool code_ranges(uintptr_t start, std::vector<CodeRange>* out) override {
    if (ranges.count(start) == 0) return false;
    *out = ranges[start];
    return true;
  }
  bool il_map(uintptr_t start, std::vector<IlMapRow>* out) override {
    ++map_calls;
    if (maps.count(start) == 0) return false;
    *out = maps[start];
    return true;
  }
};

uint32_t il_at(IlMapCache& c, uintptr_t pc, uint64_t function = 7) {
  uint32_t il = 0;
  return c.il_offset(function, 0, pc, &il) ? il : 0xDEADu;
}

TEST(IlMapCache, MapsPcsThroughEveryTierAndAsksTheRuntimeOnlyForNewCode) {
  TableSource src;
  src.starts[7] = {0x1000};
  src.ranges[0x1000] = {{0x1000, 0x100}};
  src.maps[0x1000] = {{0x10, 0x40, 0x80}, {kIlProlog, 0, 0x20}, {0x0, 0x20, 0x40}, {kIlEpilog, 0xF0, 0x100}, {0x20, 0x80, 0xF0}};
  IlMapCache c(&src);
  EXPECT_EQ(il_at(c, 0x1005), 0u) << "prolog counts as the method's start";
  EXPECT_EQ(il_at(c, 0x1020), 0u);
  EXPECT_EQ(il_at(c, 0x1040), 0x10u);
  EXPECT_EQ(il_at(c, 0x107F), 0x10u);
  EXPECT_EQ(il_at(c, 0x1080), 0x20u);
  EXPECT_EQ(il_at(c, 0x10F5), 0xDEADu) << "epilog has no line";
  EXPECT_EQ(src.start_calls, 1);
  EXPECT_EQ(src.map_calls, 1);
  // Tier 1 arrives: its pc is in no body seen so far, so the runtime is asked again, once.
  src.starts[7] = {0x1000, 0x5000};
  src.ranges[0x5000] = {{0x5000, 0x40}};
  src.maps[0x5000] = {{0x0, 0x0, 0x8}, {0x10, 0x8, 0x30}, {0x20, 0x30, 0x40}};
  EXPECT_EQ(il_at(c, 0x5010), 0x10u);
  EXPECT_EQ(il_at(c, 0x5038), 0x20u);
  EXPECT_EQ(il_at(c, 0x1050), 0x10u) << "tier 0 still maps with its own rows";
  EXPECT_EQ(src.start_calls, 2);
  EXPECT_EQ(src.map_calls, 2);
  EXPECT_EQ(c.bodies(), 2u);
  // A pc in no body of the function (code the runtime does not list): unknown, never a guess.
  EXPECT_EQ(il_at(c, 0x9000), 0xDEADu);
  EXPECT_EQ(il_at(c, 0x1010, 8), 0xDEADu) << "another function's pc is not looked up in this one's bodies";
}

TEST(IlMapCache, ColdCodeContinuesTheHotRangesOffsets) {
  TableSource src;
  src.starts[7] = {0x2000};
  src.ranges[0x2000] = {{0x2000, 0x30}, {0x8000, 0x20}};
  src.maps[0x2000] = {{0x0, 0x0, 0x30}, {0x44, 0x30, 0x50}};
  IlMapCache c(&src);
  EXPECT_EQ(il_at(c, 0x2010), 0u);
  EXPECT_EQ(il_at(c, 0x8004), 0x44u);
  EXPECT_EQ(il_at(c, 0x8020), 0xDEADu);
}

TEST(IlMapCache, StaysWithinItsRowBoundAndStillAnswers) {
  TableSource src;
  for (uint64_t f = 1; f <= 50; ++f) {
    const uintptr_t start = 0x10000 * f;
    src.starts[f] = {start};
    src.ranges[start] = {{start, 0x100}};
    src.maps[start] = {{static_cast<uint32_t>(f), 0, 0x80}, {static_cast<uint32_t>(f + 100), 0x80, 0x100}};
  }
  IlMapCache c(&src, 20);
  for (int round = 0; round < 3; ++round) {
    for (uint64_t f = 1; f <= 50; ++f) {
      EXPECT_EQ(il_at(c, 0x10000 * f + 0x90, f), f + 100);
      EXPECT_LE(c.rows(), 20u);
    }
  }
}

// Frames: one per distinct (function, IL offset), each defined once, after its function.
struct FixedResolver final : FrameResolver {
  std::map<uintptr_t, std::pair<std::string, int64_t>> code;  // pc → (function name, IL or -1)
  void resolve(uintptr_t pc, ResolvedFrame* out) override {
    auto it = code.find(pc);
    out->kind = 0;
    out->name = it->second.first;
    out->key = std::hash<std::string>()(it->second.first);
    out->thread_root = out->name == "Start";
    if (it->second.second >= 0) {
      out->offset_kind = 1;
      out->offset = static_cast<uint32_t>(it->second.second);
    }
  }
};

TEST(SymbolCache, InternsOneFramePerFunctionAndIlOffset) {
  FixedResolver r;
  r.code = {{1, {"Hot", 0x10}}, {2, {"Hot", 0x10}}, {3, {"Hot", 0x24}}, {4, {"Start", -1}}, {5, {"Hot", -1}}};
  std::vector<std::string> log;
  SymbolCache s(
      &r, [](uint32_t, const ResolvedFrame&) {},
      [&](uint32_t id, uint32_t, const ResolvedFrame& f) { log.push_back("F" + std::to_string(id) + " " + f.name); },
      [&](uint32_t frame, uint32_t function, uint8_t kind, uint32_t offset) {
        log.push_back("R" + std::to_string(frame) + " f" + std::to_string(function) + " k" + std::to_string(kind) + " " +
                      std::to_string(offset));
      });
  const uint32_t a = s.frame_for_pc(1), b = s.frame_for_pc(2), c = s.frame_for_pc(3), d = s.frame_for_pc(4),
                 e = s.frame_for_pc(5);
  EXPECT_EQ(a, b) << "two pcs on one IL offset are one frame";
  EXPECT_NE(a, c);
  EXPECT_EQ(s.function_of(a), s.function_of(c));
  EXPECT_EQ(s.function_of(e), s.function_of(a));
  EXPECT_NE(e, a) << "the offset-less frame is its own";
  EXPECT_TRUE(s.is_thread_root(d));
  EXPECT_FALSE(s.is_thread_root(a));
  EXPECT_EQ(s.functions(), 2u);
  EXPECT_EQ(s.frames(), 4u);
  const std::vector<std::string> want = {"F1 Hot", "R1 f1 k1 16", "R2 f1 k1 36", "F2 Start", "R3 f2 k0 0", "R4 f1 k0 0"};
  EXPECT_EQ(log, want);
  const uint32_t elided = s.synthetic("[frames elided]");
  EXPECT_EQ(s.synthetic("[frames elided]"), elided);
  EXPECT_EQ(s.frames(), 5u);
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// Names from the export table while DbgHelp loads a module elsewhere (Windows): each is used for
// its sample and asked again for the next, so the better name replaces it once it is ready.
class PromotingResolver : public FrameResolver {
 public:
  int calls = 0;
  bool ready = false;
  void resolve(uintptr_t pc, ResolvedFrame* out) override {
    ++calls;
    out->kind = 1;
    out->module = "ntdll.dll";
    out->name = ready ? "RtlpInternalWork" : "";
    out->key = ready ? pc - 4 : 0x1000;
    out->provisional = !ready;
  }
};

TEST(SymbolCache, AsksAgainForAProvisionalNameAndKeepsTheFinalOne) {
  PromotingResolver r;
  std::vector<std::string> names;
  SymbolCache s(
      &r, [](uint32_t, const ResolvedFrame&) {},
      [&](uint32_t, uint32_t, const ResolvedFrame& f) { names.push_back(f.module + "!" + f.name); },
      [](uint32_t, uint32_t, uint8_t, uint32_t) {});
  const uint32_t early = s.frame_for_pc(0x1234);
  EXPECT_EQ(s.frame_for_pc(0x1234), early) << "the same provisional function, interned once";
  EXPECT_EQ(r.calls, 2) << "a provisional name is not cached";
  r.ready = true;
  const uint32_t later = s.frame_for_pc(0x1234);
  EXPECT_NE(later, early);
  EXPECT_EQ(s.frame_for_pc(0x1234), later);
  EXPECT_EQ(r.calls, 3) << "the final name is cached";
  const std::vector<std::string> want = {"ntdll.dll!", "ntdll.dll!RtlpInternalWork"};
  EXPECT_EQ(names, want);
}

}  // namespace
}  // namespace clrscope

namespace clrscope {
namespace {

// One library unloaded and another loaded at its addresses: native code is keyed by address, so
// the second library's functions (and a frame known only by its library) share the first one's
// keys, and must still be named after their own library.
class SwappingResolver : public FrameResolver {
 public:
  std::string library = "libtorture_big.so";
  void resolve(uintptr_t pc, ResolvedFrame* out) override {
    out->kind = 1;
    out->module = library;
    out->name = pc == 0x7000 ? "" : library == "libtorture_big.so" ? "torture_big_spin" : "torture_small_spin";
    out->key = pc == 0x7000 ? 0x6000 : 0x6100;  // the module's base, or the symbol's address
  }
};

TEST(SymbolCache, ALibraryAtAnotherOnesAddressesIsNamedAfterItself) {
  SwappingResolver r;
  std::vector<std::string> names;
  SymbolCache s(
      &r, [](uint32_t, const ResolvedFrame&) {},
      [&](uint32_t, uint32_t, const ResolvedFrame& f) { names.push_back(f.module + "!" + f.name); },
      [](uint32_t, uint32_t, uint8_t, uint32_t) {});
  const uint32_t big_spin = s.frame_for_pc(0x6120);
  const uint32_t big_module = s.native_module("libtorture_big.so", 0x6000);
  r.library = "libtorture_small.so";
  s.forget_range(0x6000, 0x8000);
  const uint32_t small_spin = s.frame_for_pc(0x6120);
  const uint32_t small_module = s.native_module("libtorture_small.so", 0x6000);
  EXPECT_NE(s.function_of(small_spin), s.function_of(big_spin));
  EXPECT_NE(s.function_of(small_module), s.function_of(big_module));
  const std::vector<std::string> want = {"libtorture_big.so!torture_big_spin", "libtorture_big.so!",
                                         "libtorture_small.so!torture_small_spin", "libtorture_small.so!"};
  EXPECT_EQ(names, want);
}

}  // namespace
}  // namespace clrscope
