#include "core/perf_map.h"

#include <gtest/gtest.h>

#include <string>

namespace clrscope {
namespace {

TEST(PerfMap, ReadsLinesAsTheyArriveAndLaterLinesWin) {
  PerfMap m;
  const std::string text =
      "0x7f7405040000 110 stub InitThreadManagerPerfMapData<JIT_CopiedWriteBarriers>\n"
      "7f7406030000 10000 stub ReportStubBlock<VSD_ResolveStub>\n"
      "0x7f7406031000 40 void [App] App.Program::Main()[Optimized]\n";
  // Cut mid-line: the first half waits for the rest.
  m.feed(text.data(), 100);
  std::string name;
  EXPECT_TRUE(m.lookup(0x7f740504010f, &name));
  EXPECT_EQ(name, "stub InitThreadManagerPerfMapData<JIT_CopiedWriteBarriers>");
  EXPECT_FALSE(m.lookup(0x7f7406030010, &name));
  m.feed(text.data() + 100, text.size() - 100);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_FALSE(m.lookup(0x7f7405040110, &name));  // one past the end
  ASSERT_TRUE(m.lookup(0x7f7406031010, &name));
  EXPECT_EQ(name, "void [App] App.Program::Main()[Optimized]");
  // Inside the block, past the method listed within it.
  ASSERT_TRUE(m.lookup(0x7f7406035000, &name));
  EXPECT_EQ(name, "stub ReportStubBlock<VSD_ResolveStub>");
  const std::string again = "0x7f7406031000 40 stub ReportStubBlock<VSD_DispatchStub>\nnot a line\n0x10 0 empty\n";
  m.feed(again.data(), again.size());
  ASSERT_TRUE(m.lookup(0x7f7406031000, &name));
  EXPECT_EQ(name, "stub ReportStubBlock<VSD_DispatchStub>");
  EXPECT_EQ(m.size(), 3u);
}

TEST(PerfMap, LabelsStubsByKind) {
  EXPECT_EQ(perf_map_label("stub ReportStubBlock<VSD_ResolveStub>"), "[runtime stub] VSD_ResolveStub");
  EXPECT_EQ(perf_map_label("stub InitThreadManagerPerfMapData<JIT_CopiedWriteBarriers>"),
            "[runtime stub] JIT_CopiedWriteBarriers");
  EXPECT_EQ(perf_map_label("stub CreateHelper<DynamicHelper>"), "[runtime stub] DynamicHelper CreateHelper");
  EXPECT_EQ(perf_map_label("void [App] App.Program::Main()[Optimized]"), "void [App] App.Program::Main()[Optimized]");
}

TEST(PerfMap, ShortensIlStubSignatures) {
  EXPECT_EQ(il_stub_label("void [System.Management.Automation] dynamicClass::IL_STUB_PInvoke(System.Management.Automation."
                          "Tracing.NativeMethods/SysLogPriority /* MT: 0x7f7407d29f18 */,string)[Optimized]"),
            "IL_STUB_PInvoke: SysLogPriority,string");
  EXPECT_EQ(il_stub_label("int32 [App] dynamicClass::IL_STUB_PInvoke(int32,native int)[Optimized]"),
            "IL_STUB_PInvoke: int32,native int");
  EXPECT_EQ(il_stub_label("void [App] dynamicClass::IL_STUB_ReversePInvoke()[Optimized]"), "IL_STUB_ReversePInvoke");
  EXPECT_EQ(il_stub_label("void [App] App.Program::Main()[Optimized]"), "");
}

}  // namespace
}  // namespace clrscope
