#include "core/thread_names.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

TEST(ThreadNames, GivesTheRuntimesThreadsTheirFullNames) {
  EXPECT_EQ(name_from_os(".NET Tiered Com", false, "dotnet"), ".NET Tiered Compilation Worker");
  EXPECT_EQ(name_from_os(".NET Server GC", false, "dotnet"), ".NET Server GC");
  EXPECT_EQ(name_from_os(".NET BGC", false, "dotnet"), ".NET Background GC");
}

TEST(ThreadNames, NamesTheMainThreadAndLeavesProcessNamedThreadsUnnamed) {
  EXPECT_EQ(name_from_os("WebApp", true, "WebApp"), "Main Thread");
  EXPECT_EQ(name_from_os("WebApp", false, "WebApp"), "");
  EXPECT_EQ(name_from_os("", false, "WebApp"), "");
}

TEST(ThreadNames, MarksANameTheOsMayHaveCut) {
  EXPECT_EQ(name_from_os("worker-1", false, "dotnet"), "worker-1");
  EXPECT_EQ(name_from_os("OrderProcessing", false, "dotnet"), "OrderProcessing\xE2\x80\xA6");
}

}  // namespace
}  // namespace clrscope
