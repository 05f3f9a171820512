// ReadyToRun unwinding on real bytes: the installed runtime's System.Private.CoreLib.dll, laid out
// in memory as the runtime maps it (each section at its offset in the image), its function table
// read by core/r2r_image.cpp and walked by the frame walker through its own unwind codes. The
// frameless function taken is CoreLib's Task.Wait() where this runtime has it (`push rax; mov
// esi, -1; xor edx, edx; call [rip+..]; nop; add rsp, 8; ret`): the frame-pointer chain skips
// its caller, the unwind codes do not.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/frame_walker.h"
#include "core/module_table.h"
#include "core/page_memory.h"
#include "core/platform.h"
#include "core/r2r_image.h"
#include "core/r2r_unwind.h"

namespace clrscope {
namespace {

namespace fs = std::filesystem;

// The newest System.Private.CoreLib.dll of an installed shared runtime, or "".
std::string find_corelib() {
  std::vector<fs::path> roots;
  if (const char* r = std::getenv("DOTNET_ROOT")) roots.emplace_back(r);
  roots.emplace_back("/usr/share/dotnet");
  roots.emplace_back("/usr/lib/dotnet");
  if (const char* h = std::getenv("HOME")) roots.emplace_back(fs::path(h) / ".dotnet");
  std::string best;
  for (const fs::path& root : roots) {
    std::error_code ec;
    const fs::path dir = root / "shared" / "Microsoft.NETCore.App";
    for (const auto& v : fs::directory_iterator(dir, ec)) {
      const fs::path p = v.path() / "System.Private.CoreLib.dll";
      if (fs::exists(p, ec) && (best.empty() || p.string() > best)) best = p.string();
    }
  }
  return best;
}

template <typename T>
T at(const std::vector<uint8_t>& b, size_t off) {
  T v{};
  if (off + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

// The file laid out as a loaded image: headers, then each section's bytes at its offset.
struct LoadedImage {
  std::vector<uint8_t> bytes;
  uintptr_t base() const { return reinterpret_cast<uintptr_t>(bytes.data()); }
  bool read(uint32_t rva, void* out, size_t n) const {
    if (rva > bytes.size() || n > bytes.size() - rva) return false;
    std::memcpy(out, bytes.data() + rva, n);
    return true;
  }
};

bool load(const std::string& path, LoadedImage* img) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const uint32_t pe = at<uint32_t>(file, 0x3C);
  const uint16_t sections = at<uint16_t>(file, pe + 6);
  const uint16_t opt_size = at<uint16_t>(file, pe + 20);
  const uint32_t opt = pe + 24;
  const uint32_t image_size = at<uint32_t>(file, opt + 56);
  const uint32_t headers = at<uint32_t>(file, opt + 60);
  if (image_size == 0 || headers > file.size()) return false;
  img->bytes.assign(image_size, 0);
  std::memcpy(img->bytes.data(), file.data(), headers);
  for (uint16_t i = 0; i < sections; ++i) {
    const size_t h = opt + opt_size + 40u * i;
    const uint32_t va = at<uint32_t>(file, h + 12), raw = at<uint32_t>(file, h + 16), ptr = at<uint32_t>(file, h + 20);
    if (va > image_size || ptr > file.size()) return false;
    const size_t n = std::min<size_t>({raw, file.size() - ptr, image_size - va});
    std::memcpy(img->bytes.data() + va, file.data() + ptr, n);
  }
  return true;
}

class R2rCoreLib : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = find_corelib();
    if (path.empty()) GTEST_SKIP() << "no installed .NET runtime";
    ASSERT_TRUE(load(path, &image_)) << path;
    ASSERT_EQ(read_r2r_table([this](uint32_t rva, void* out, size_t n) { return image_.read(rva, out, n); },
                             image_.base(), &table_),
              R2rRead::kOk)
        << path;
    snapshot_ = R2rSnapshot::allocate(1);
    snapshot_->tables[0] = table_;
  }
  void TearDown() override {
    if (snapshot_ != nullptr) big_free(snapshot_, R2rSnapshot::bytes_for(1));
    if (table_ != nullptr) big_free(table_, table_->block_bytes);
  }
  const uint8_t* info(const win::RuntimeFunction& f) const { return table_->pool() + f.unwind; }
  // Task.Wait()'s body where this CoreLib has it, else any function with that prolog (one
  // 8-byte allocation, no frame register): its first byte.
  const win::RuntimeFunction* frameless_push_rax() const {
    static const uint8_t kWait[] = {0x50, 0xBE, 0xFF, 0xFF, 0xFF, 0xFF, 0x33, 0xD2, 0xFF, 0x15};
    const win::RuntimeFunction* any = nullptr;
    for (uint32_t i = 0; i < table_->count; ++i) {
      const win::RuntimeFunction& f = table_->functions()[i];
      const uint8_t* u = info(f);
      if (u[2] != 1 || (u[3] & 0xF) != 0 || (u[5] & 0xF) != win::kAllocSmall || (u[5] >> 4) != 0) continue;
      if (f.end - f.begin >= sizeof kWait && std::memcmp(image_.bytes.data() + f.begin, kWait, sizeof kWait) == 0) return &f;
      if (any == nullptr) any = &f;
    }
    return any;
  }

  LoadedImage image_;
  R2rTable* table_ = nullptr;
  R2rSnapshot* snapshot_ = nullptr;
};

// A fake stack in a real buffer, as the handler reads one.
struct Stack {
  std::vector<uintptr_t> words = std::vector<uintptr_t>(256, 0);
  uintptr_t addr(size_t i) const { return reinterpret_cast<uintptr_t>(words.data()) + i * sizeof(uintptr_t); }
  StackBounds bounds() const { return StackBounds{addr(0), addr(words.size())}; }
};

TEST_F(R2rCoreLib, ReadsTheWholeFunctionTableCompactly) {
  EXPECT_GT(table_->count, 10000u);
  EXPECT_LT(table_->code_lo, table_->code_hi);
  // Distinct unwind codes are few: the pool is far smaller than one copy per function.
  EXPECT_LT(table_->pool_bytes, table_->count * 4u);
  const win::RuntimeFunction* f = table_->functions();
  for (uint32_t i = 1; i < table_->count; ++i) ASSERT_LE(f[i - 1].end, f[i].begin);
  // What the sampler thread spends on it, once per image.
  const auto t0 = std::chrono::steady_clock::now();
  R2rTable* again = nullptr;
  ASSERT_EQ(read_r2r_table([this](uint32_t rva, void* out, size_t n) { return image_.read(rva, out, n); },
                           image_.base(), &again),
            R2rRead::kOk);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(again->count, table_->count);
  big_free(again, again->block_bytes);
  std::printf("CoreLib: %u functions, %u bytes of distinct unwind codes, %zu KiB in all, read in %.1f ms\n",
              table_->count, table_->pool_bytes, table_->block_bytes / 1024, ms);
}

// lambda_method -> BlockOn (frame pointer) -> Task.Wait() (frameless, precompiled) -> Wait(int,
// CancellationToken) (frame pointer), interrupted there: BlockOn must be in the walk.
TEST_F(R2rCoreLib, AFramelessPrecompiledFrameKeepsItsCaller) {
  const win::RuntimeFunction* wait = frameless_push_rax();
  ASSERT_NE(wait, nullptr);
  const uintptr_t in_wait = image_.base() + wait->begin + info(*wait)[1] + 2;  // past the prolog
  Stack s;
  // Wait(int, CT)'s record at word 10: saved rbp is BlockOn's (Task.Wait() kept it), return into
  // Task.Wait(); then Task.Wait()'s frame: its pushed slot (word 12) and the return into BlockOn.
  s.words[10] = s.addr(20);
  s.words[11] = in_wait;
  s.words[12] = 0x5A5A;
  s.words[13] = 0xB10C;  // into BlockOn
  s.words[20] = 0;       // BlockOn's record: the chain's end
  s.words[21] = 0x1A3B;  // into lambda_method
  const WalkRegisters regs{0x1000, s.addr(4), s.addr(10)};
  uintptr_t out[16];

  const WalkResult before = walk_frames(regs, s.bounds(), out, 16, 4, nullptr);  // frame pointers only
  ASSERT_EQ(before.count, 3u);
  EXPECT_EQ(out[2], 0x1A3Bu) << "the frame-pointer chain goes from Task.Wait() straight to lambda_method";

  publish_r2r(snapshot_);
  const WalkResult after = walk_frames(regs, s.bounds(), out, 16, 4, nullptr);
  publish_r2r(nullptr);
  reclaim_modules(true);
  reclaim_modules(true);
  snapshot_ = nullptr;  // retired and freed with the published one
  ASSERT_EQ(after.count, 4u);
  EXPECT_TRUE(after.complete);
  EXPECT_EQ(out[0], 0x1000u);
  EXPECT_EQ(out[1], in_wait);
  EXPECT_EQ(out[2], 0xB10Cu);
  EXPECT_EQ(out[3], 0x1A3Bu);
}

// Interrupted in the frameless function itself: at its first instruction (nothing pushed yet),
// in its body, and at its epilog's `ret` (the allocation already undone), found from its code.
TEST_F(R2rCoreLib, TheInterruptedFrameInPrologBodyAndEpilog) {
  const win::RuntimeFunction* wait = frameless_push_rax();
  ASSERT_NE(wait, nullptr);
  const uintptr_t begin = image_.base() + wait->begin;
  uintptr_t ret_at = 0;
  for (uintptr_t a = begin + info(*wait)[1]; a < image_.base() + wait->end; ++a) {
    if (*reinterpret_cast<const uint8_t*>(a) == 0xC3) {
      ret_at = a;
      break;
    }
  }
  ASSERT_NE(ret_at, 0u);
  Stack s;
  s.words[40] = 0x5A5A;
  s.words[41] = 0xCA11;
  struct Case {
    uintptr_t pc;
    size_t sp_word;
  } cases[] = {{begin, 41}, {begin + info(*wait)[1], 40}, {ret_at, 41}};
  for (const Case& c : cases) {
    WalkRegisters r{c.pc, s.addr(c.sp_word), 0x7777};
    ASSERT_EQ(r2r_step(*snapshot_, c.pc, true, &r, s.bounds()), R2rStep::kOk) << std::hex << c.pc - begin;
    EXPECT_EQ(r.ip, 0xCA11u) << std::hex << c.pc - begin;
    EXPECT_EQ(r.sp, s.addr(42));
    EXPECT_EQ(r.fp, 0x7777u);
  }
}

// A function that sets up rbp as its frame pointer (a few hundred in CoreLib: most of its
// precompiled code keeps none): its prolog run forward on a fake stack as its codes describe it,
// then undone; the caller's rbp comes back from the slot the prolog pushed it to.
TEST_F(R2rCoreLib, AFramePointerFunctionRestoresItsCallersFramePointer) {
  int tried = 0;
  for (uint32_t i = 0; i < table_->count; ++i) {
    const win::RuntimeFunction& f = table_->functions()[i];
    const uint8_t* u = info(f);
    const uint32_t n = u[2];
    if ((u[3] & 0xF) != win::kRbp || n == 0) continue;
    // Only pushes, small and large allocations and the frame register: run the prolog (the codes
    // in reverse) on a stack whose entry rsp is word 200.
    Stack s;
    s.words.assign(512, 0);
    uintptr_t rsp = s.addr(200), rbp = 0;
    s.words[200] = 0xCA11;
    bool simple = true;
    std::vector<uint32_t> starts;
    for (uint32_t k = 0; k < n;) {
      starts.push_back(k);
      const uint8_t op = u[4 + 2 * k + 1] & 0xF;
      k += win::unwind_code_slots(op, u[4 + 2 * k + 1] >> 4);
    }
    for (auto it = starts.rbegin(); it != starts.rend() && simple; ++it) {
      const uint32_t k = *it;
      const uint8_t op = u[4 + 2 * k + 1] & 0xF, op_info = u[4 + 2 * k + 1] >> 4;
      uint16_t slot = 0;
      std::memcpy(&slot, u + 4 + 2 * (k + 1), 2);
      switch (op) {
        case win::kPushNonvol:
          rsp -= 8;
          *reinterpret_cast<uintptr_t*>(rsp) = op_info == win::kRbp ? s.addr(400) : 0xDEAD;
          break;
        case win::kAllocSmall: rsp -= op_info * 8u + 8; break;
        case win::kAllocLarge:
          if (op_info != 0) simple = false;
          rsp -= slot * 8u;
          break;
        case win::kSetFpreg: rbp = rsp + (u[3] >> 4) * 16u; break;
        default: simple = false;
      }
    }
    if (!simple || rbp == 0 || rsp < s.addr(0)) continue;
    ++tried;
    WalkRegisters r{image_.base() + f.begin + u[1], rsp, rbp};
    ASSERT_EQ(r2r_step(*snapshot_, r.ip - 1, false, &r, s.bounds()), R2rStep::kOk) << i;
    EXPECT_EQ(r.ip, 0xCA11u) << i;
    EXPECT_EQ(r.sp, s.addr(201)) << i;
    EXPECT_EQ(r.fp, s.addr(400)) << i;
  }
  EXPECT_GT(tried, 50);
}

// What a precompiled frame costs the handler against a frame-pointer hop (figures in the log).
// A module the runtime announces as loaded (ModuleLoadFinished) is unwound with its own codes at
// once: its table is in the published snapshot before the sampler's next look at the maps, which
// on a busy machine came after the first stacks through it; the same image announced again adds
// nothing.
TEST_F(R2rCoreLib, AnAnnouncedImageIsPublishedAtOnce) {
  const std::string path = find_corelib();
  const win::RuntimeFunction& f = table_->functions()[table_->count / 2];
  const uintptr_t pc = image_.base() + f.begin;
  const R2rSnapshot* before = current_r2r();
  ASSERT_TRUE(before == nullptr || before->find(pc) == nullptr);
  ASSERT_TRUE(platform::add_r2r_image(image_.base(), path.c_str()));
  const R2rSnapshot* now = current_r2r();
  ASSERT_NE(now, nullptr);
  const R2rTable* published = now->find(pc);
  ASSERT_NE(published, nullptr);
  EXPECT_EQ(published->count, table_->count);
  EXPECT_EQ(published->code_lo, table_->code_lo);
  EXPECT_FALSE(platform::add_r2r_image(image_.base(), path.c_str()));
  // Not a file: nothing to key the image by, so nothing is added.
  EXPECT_FALSE(platform::add_r2r_image(image_.base() + 4096, "/nonexistent/clrscope/None.dll"));
  platform::release_r2r_images();
  EXPECT_EQ(current_r2r(), nullptr);
  reclaim_modules(true);
  reclaim_modules(true);
}

TEST_F(R2rCoreLib, StepCost) {
  const win::RuntimeFunction* wait = frameless_push_rax();
  ASSERT_NE(wait, nullptr);
  const uintptr_t pc = image_.base() + wait->begin + info(*wait)[1] + 2;
  Stack s;
  s.words[41] = 0xCA11;
  constexpr int kRounds = 1'000'000;
  uintptr_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    WalkRegisters r{pc + (i & 1), s.addr(40), 0};
    r2r_step(*snapshot_, r.ip - 1, false, &r, s.bounds());
    sink += r.ip;
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kRounds;
  // Beside a frame-pointer hop: a chain of 32 records walked whole.
  Stack chain;
  for (size_t k = 0; k < 32; ++k) {
    chain.words[4 * k] = k + 1 < 32 ? chain.addr(4 * (k + 1)) : 0;
    chain.words[4 * k + 1] = 0x1000 + k;
  }
  uintptr_t out[64];
  const auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds / 32; ++i) sink += walk_frames(WalkRegisters{0x10, chain.addr(0), chain.addr(0)}, chain.bounds(), out, 64, 8, nullptr).count;
  const double fp_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() / kRounds;
  std::printf("r2r_step: %.1f ns a frame over %u functions; a frame-pointer hop %.1f ns\n", ns, table_->count, fp_ns);
  EXPECT_GT(sink, static_cast<uintptr_t>(kRounds) * 0xCA11u);
  EXPECT_LT(ns, 2000.0);
}

TEST(R2rImage, NotAnImage) {
  std::vector<uint8_t> junk(4096, 0x90);
  R2rTable* t = nullptr;
  auto read = [&](uint32_t rva, void* out, size_t n) {
    if (rva > junk.size() || n > junk.size() - rva) return false;
    std::memcpy(out, junk.data() + rva, n);
    return true;
  };
  EXPECT_EQ(read_r2r_table(read, 0x10000, &t), R2rRead::kNotPe);
  EXPECT_EQ(t, nullptr);
}

}  // namespace
}  // namespace clrscope
