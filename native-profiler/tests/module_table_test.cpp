// The module table against a library that is really loaded and unloaded: the handler's view of
// its unwind tables must outlive the library's own pages.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "core/cfi_unwind.h"
#include "core/module_history.h"
#include "core/module_table.h"
#include "core/platform.h"

namespace clrscope {
namespace {

bool mapped(const std::string& path) {
  FILE* f = std::fopen("/proc/self/maps", "re");
  if (f == nullptr) return false;
  char line[1024];
  bool found = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strstr(line, path.c_str()) != nullptr) found = true;
  }
  std::fclose(f);
  return found;
}

TEST(ModuleTable, UnwindsThroughALibraryAfterItWasUnloaded) {
  const std::string path = CLRSCOPE_TEST_UNLOAD_LIB;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  const uintptr_t fn = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  ASSERT_NE(fn, 0u);
  platform::refresh_modules();
  const uint64_t while_loaded = platform::mono_now_ns();
  platform::refresh_modules();  // a look that finds it still there
  const ModuleSnapshot* snap = current_modules();
  ASSERT_NE(snap, nullptr);
  const CodeModule* m = snap->find(fn);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->eh_frame_hdr, 0u);
  ASSERT_EQ(m->unwind.count, 2u);
  // The view is the profiler's copy, not the library's pages.
  const uint8_t* hdr_bytes = nullptr;
  ASSERT_TRUE(view_read(m->unwind, m->eh_frame_hdr, 4, &hdr_bytes));
  EXPECT_NE(reinterpret_cast<uintptr_t>(hdr_bytes), m->eh_frame_hdr);

  // At the function's first instruction the return address sits at sp.
  uintptr_t stack[8] = {0xABCDEF0, 0, 0, 0, 0, 0, 0, 0};
  const StackBounds bounds{reinterpret_cast<uintptr_t>(stack), reinterpret_cast<uintptr_t>(stack + 8)};
  WalkRegisters before{fn, reinterpret_cast<uintptr_t>(stack), 0};
  ASSERT_EQ(cfi_step(*m, snap->generation, fn, &before, bounds), CfiStep::kOk);
  EXPECT_EQ(before.ip, 0xABCDEF0u);

  ASSERT_EQ(dlclose(lib), 0);
  ASSERT_FALSE(mapped(path)) << "the library must really be gone for this test to mean anything";
  // A handler still holding the old table (the sampler has not refreshed yet) reads only the
  // copy; a generation never seen keeps the rule cache out of it.
  WalkRegisters after{fn, reinterpret_cast<uintptr_t>(stack), 0};
  EXPECT_EQ(cfi_step(*m, snap->generation + 100000, fn, &after, bounds), CfiStep::kOk);
  EXPECT_EQ(after.ip, 0xABCDEF0u);
  uintptr_t out[8];
  const WalkResult w = walk_frames(WalkRegisters{fn, reinterpret_cast<uintptr_t>(stack), 0}, bounds, out, 8, 2, snap);
  EXPECT_GE(w.count, 2u);
  EXPECT_EQ(out[1], 0xABCDEF0u);

  // The next look records the library as gone: a capture from while it was certainly loaded is
  // still its, one from after is nobody's, and the old table waits for idle handlers before
  // it is freed.
  const uint32_t old_gen = snap->generation;
  EXPECT_TRUE(platform::refresh_modules());
  const CodeSpan* owner = nullptr;
  EXPECT_EQ(module_history().owner_at(fn, while_loaded, &owner), ModuleHistory::Owner::kGone);
  ASSERT_NE(owner, nullptr);
  EXPECT_NE(owner->name.find("clrscope_test_unload"), std::string::npos);
  EXPECT_EQ(module_history().in_generation(fn, old_gen), owner);
  EXPECT_EQ(module_history().owner_at(fn, platform::mono_now_ns(), &owner), ModuleHistory::Owner::kNone);
  EXPECT_EQ(current_modules()->find(fn), nullptr);
  EXPECT_GT(reclaim_modules(false), 0u) << "nothing is freed while a handler may be running";
  reclaim_modules(true);
  EXPECT_EQ(reclaim_modules(true), 0u);
}

// An event's stack is walked on its own thread, outside any signal handler: a table it holds
// through a ModuleReadScope outlives the library's unload and any number of reclaims, and is
// freed by the first reclaim after the scope ends.
TEST(ModuleTable, ATableHeldByAWalkOutsideAHandlerIsNotFreedUnderIt) {
  const std::string path = CLRSCOPE_TEST_UNLOAD_LIB;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  const uintptr_t fn = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  platform::refresh_modules();
  reclaim_modules(true);
  reclaim_modules(true);
  ASSERT_EQ(reclaim_modules(true), 0u);
  uintptr_t stack[8] = {0xABCDEF0, 0, 0, 0, 0, 0, 0, 0};
  const StackBounds bounds{reinterpret_cast<uintptr_t>(stack), reinterpret_cast<uintptr_t>(stack + 8)};
  {
    const ModuleReadScope scope;
    const ModuleSnapshot* held = scope.modules();
    ASSERT_NE(held, nullptr);
    ASSERT_NE(held->find(fn), nullptr);
    ASSERT_EQ(dlclose(lib), 0);
    EXPECT_TRUE(platform::refresh_modules());  // retires the held table and the library's unwind copy
    for (int i = 0; i < 4; ++i) EXPECT_GT(reclaim_modules(true), 0u) << "freed while a walk held it";
    // Still readable: ASan would report a use after free here if it had been freed.
    uintptr_t out[8];
    const WalkResult w = walk_frames(WalkRegisters{fn, reinterpret_cast<uintptr_t>(stack), 0}, bounds, out, 8, 2, held);
    EXPECT_GE(w.count, 2u);
    EXPECT_EQ(out[1], 0xABCDEF0u);
  }
  reclaim_modules(true);
  EXPECT_EQ(reclaim_modules(true), 0u);
}

TEST(ModuleTable, ANewLibraryInAnOldOnesPlaceIsNotTrustedForOlderCaptures) {
  const std::string path = CLRSCOPE_TEST_UNLOAD_LIB;
  platform::refresh_modules();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  // Loaded, unloaded and loaded again between two looks: the loader's counters show an object
  // that came and went unseen, so for the time between the looks nobody can say whose code
  // was at the new one's address; after the look, it is certainly the new one's.
  ASSERT_EQ(dlclose(lib), 0);
  const uint64_t between = platform::mono_now_ns();
  lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  const uintptr_t fn2 = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  EXPECT_TRUE(platform::refresh_modules());
  const CodeSpan* owner = nullptr;
  EXPECT_EQ(module_history().owner_at(fn2, between, &owner), ModuleHistory::Owner::kUnknown);
  EXPECT_EQ(module_history().owner_at(fn2, platform::mono_now_ns(), &owner), ModuleHistory::Owner::kLoaded);
  dlclose(lib);
  platform::refresh_modules();
}

// The same library seen by two looks at the same place, but unloaded and loaded again between
// them (another library could have been in its place meanwhile): between the looks its span is
// no certain owner. Named after it, a frame of the other library got its name (library-swap).
TEST(ModuleTable, ALibrarySeenOnBothSidesOfAnUnseenReloadIsNoCertainOwnerBetween) {
  const std::string path = CLRSCOPE_TEST_UNLOAD_LIB;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  const uintptr_t fn1 = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  platform::refresh_modules();
  ASSERT_EQ(dlclose(lib), 0);
  const uint64_t between = platform::mono_now_ns();
  lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  const uintptr_t fn2 = reinterpret_cast<uintptr_t>(dlsym(lib, "clrscope_unload_probe"));
  ASSERT_EQ(fn2, fn1) << "the loader put the library back elsewhere: the case this test is about did not happen";
  EXPECT_TRUE(platform::refresh_modules());
  const CodeSpan* owner = nullptr;
  EXPECT_EQ(module_history().owner_at(fn2, between, &owner), ModuleHistory::Owner::kUnknown);
  EXPECT_EQ(module_history().owner_at(fn2, platform::mono_now_ns(), &owner), ModuleHistory::Owner::kLoaded);
  dlclose(lib);
  platform::refresh_modules();
}

}  // namespace
}  // namespace clrscope
