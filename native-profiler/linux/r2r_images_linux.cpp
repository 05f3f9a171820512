// The ReadyToRun images the runtime has mapped, found in /proc/self/maps (the runtime maps them
// itself, not through the dynamic loader, so dl_iterate_phdr does not list them) and read
// through process_vm_readv, which fails instead of faulting if an image goes away meanwhile.
// Looked for again only when the runtime said a module loaded or unloaded, at most every
// kRescanNs; each image's table is built once and kept while the image stays where it was. A
// module the runtime announces as loaded has its table added at once, on the loading thread.
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "core/log.h"
#include "core/module_table.h"
#include "core/page_memory.h"
#include "core/platform.h"
#include "core/r2r_unwind.h"

namespace clrscope::platform {
namespace {

constexpr uint64_t kRescanNs = 200'000'000;
constexpr size_t kChunk = 64 * 1024;

struct Mapping {
  uintptr_t lo;
  uintptr_t hi;
  bool exec;
  unsigned long long offset;
  unsigned long long inode;
  std::string path;
};

struct Image {
  unsigned long long inode;
  const R2rTable* table;  // null: looked at, not a ReadyToRun image we can use
};

struct State {
  // The sampler's looks and the loading threads' additions.
  std::mutex lock;
  uint64_t changes_seen = ~0ull;
  uint64_t last_scan = 0;
  std::map<uintptr_t, Image> images;  // by base
  size_t table_bytes = 0;
};

State& state() {
  static State* s = new State;
  return *s;
}

bool read_self(uintptr_t addr, void* out, size_t n) {
  iovec local{out, n};
  iovec remote{reinterpret_cast<void*>(addr), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

// Reads of one image through a window of kChunk bytes: its headers are read a few bytes at a
// time, the tables in one piece each.
class ChunkedImage {
 public:
  ChunkedImage(uintptr_t base, uintptr_t end) : base_(base), end_(end), buf_(kChunk) {}
  bool read(uint32_t rva, void* out, size_t n) {
    const uintptr_t a = base_ + rva;
    if (a < base_ || a > end_ || n > end_ - a) return false;
    if (n > kChunk / 2) return read_self(a, out, n);
    if (!(have_ && a >= lo_ && a + n <= lo_ + len_)) {
      lo_ = a & ~static_cast<uintptr_t>(4095);
      len_ = std::min<uintptr_t>(kChunk, end_ - lo_);
      // A window reaching past the image's last mapped page fails whole: then just these bytes.
      have_ = read_self(lo_, buf_.data(), len_);
      if (!have_) return read_self(a, out, n);
    }
    std::memcpy(out, buf_.data() + (a - lo_), n);
    return true;
  }

 private:
  uintptr_t base_, end_;
  std::vector<uint8_t> buf_;
  uintptr_t lo_ = 0, len_ = 0;
  bool have_ = false;
};

std::vector<Mapping> read_maps() {
  std::vector<Mapping> out;
  FILE* f = std::fopen("/proc/self/maps", "re");
  if (f == nullptr) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long lo = 0, hi = 0;
    unsigned long long offset = 0, inode = 0;
    char perms[8] = {0};
    int path_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %llx %*s %llu %n", &lo, &hi, perms, &offset, &inode, &path_at) < 5) continue;
    std::string path = path_at > 0 ? std::string(line + path_at) : std::string();
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    out.push_back(Mapping{lo, hi, perms[2] == 'x', offset, inode, std::move(path)});
  }
  std::fclose(f);
  return out;
}

bool managed_file(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(c | 0x20);
  return ext == ".dll" || ext == ".exe";
}

// The table of the image whose loaded layout starts at `base`, or null: its size is SizeOfImage,
// read from its headers (the runtime maps an image's sections into a reservation of that size,
// whose unused parts are anonymous).
R2rTable* table_from(uintptr_t base) {
  uint32_t lfanew = 0, image_size = 0;
  if (!read_self(base + 0x3C, &lfanew, 4) || lfanew > 4096 || !read_self(base + lfanew + 24 + 56, &image_size, 4)) {
    return nullptr;
  }
  ChunkedImage image(base, base + image_size);
  R2rTable* t = nullptr;
  const R2rRead got = read_r2r_table([&image](uint32_t rva, void* out, size_t n) { return image.read(rva, out, n); }, base, &t);
  return got == R2rRead::kOk ? t : nullptr;
}

// The table of the image mapped at maps[i], or null. Its code must lie in an executable mapping
// of the same file: the runtime also maps each assembly flat (as the file is), which parses the
// same but is never run.
const R2rTable* table_at(const std::vector<Mapping>& maps, size_t i) {
  const Mapping& m = maps[i];
  R2rTable* t = table_from(m.lo);
  if (t == nullptr) return nullptr;
  for (const Mapping& x : maps) {
    if (x.exec && x.inode == m.inode && x.lo <= t->code_lo && t->code_lo < x.hi) return t;
  }
  big_free(t, t->block_bytes);
  return nullptr;
}

// Publishes the images' tables as one snapshot; false if it could not be allocated. Under st.lock.
bool publish_tables(const State& st, size_t* published = nullptr) {
  std::vector<const R2rTable*> tables;
  for (const auto& [base, img] : st.images) {
    if (img.table != nullptr) tables.push_back(img.table);
  }
  std::sort(tables.begin(), tables.end(), [](const R2rTable* a, const R2rTable* b) { return a->code_lo < b->code_lo; });
  // Overlapping ranges would make the lookup wrong for both: keep the first.
  std::vector<const R2rTable*> disjoint;
  for (const R2rTable* t : tables) {
    if (disjoint.empty() || disjoint.back()->code_hi <= t->code_lo) disjoint.push_back(t);
  }
  R2rSnapshot* s = R2rSnapshot::allocate(static_cast<uint32_t>(disjoint.size()));
  if (s == nullptr) return false;
  std::copy(disjoint.begin(), disjoint.end(), s->tables);
  publish_r2r(s);
  if (published != nullptr) *published = disjoint.size();
  return true;
}

}  // namespace

bool refresh_r2r_images() {
  State& st = state();
  const std::lock_guard<std::mutex> hold(st.lock);
  const uint64_t changes = managed_module_changes();
  const uint64_t now = mono_now_ns();
  if (changes == st.changes_seen || (st.last_scan != 0 && now - st.last_scan < kRescanNs)) return false;
  st.changes_seen = changes;
  st.last_scan = now;
  const std::vector<Mapping> maps = read_maps();
  std::map<uintptr_t, Image> next;
  bool changed = false;
  for (size_t i = 0; i < maps.size(); ++i) {
    const Mapping& m = maps[i];
    // An image's headers are mapped read-only at its base; its code, executable, further on
    // (from the file's start too, on some runtimes: not a base).
    if (m.offset != 0 || m.exec || m.inode == 0 || !managed_file(m.path) || next.count(m.lo) != 0) continue;
    auto old = st.images.find(m.lo);
    if (old != st.images.end() && old->second.inode == m.inode) {
      next.emplace(m.lo, old->second);
      st.images.erase(old);
      continue;
    }
    const R2rTable* t = table_at(maps, i);
    next.emplace(m.lo, Image{m.inode, t});
    if (t != nullptr) {
      changed = true;
      st.table_bytes += t->block_bytes;
    }
  }
  // What is left of the old set went away (or something else is there now).
  std::vector<const R2rTable*> gone;
  for (const auto& [base, img] : st.images) {
    if (img.table != nullptr) gone.push_back(img.table);
  }
  st.images = std::move(next);
  if (!changed && gone.empty()) return false;
  size_t published = 0;
  if (!publish_tables(st, &published)) return false;
  for (const R2rTable* t : gone) {
    st.table_bytes -= t->block_bytes;
    retire_memory(const_cast<R2rTable*>(t), t->block_bytes);
  }
  log_line("precompiled code: %zu ReadyToRun images, %zu KiB of unwind tables", published, st.table_bytes / 1024);
  return true;
}

bool add_r2r_image(uintptr_t base, const char* path) {
  struct stat file{};
  if (base == 0 || path == nullptr || ::stat(path, &file) != 0) return false;
  State& st = state();
  const std::lock_guard<std::mutex> hold(st.lock);
  if (st.images.count(base) != 0) return false;
  // Kept under the file's inode, as the sampler's look would: that look then keeps it.
  const R2rTable* t = table_from(base);
  st.images.emplace(base, Image{static_cast<unsigned long long>(file.st_ino), t});
  if (t == nullptr) return false;
  st.table_bytes += t->block_bytes;
  if (publish_tables(st)) return true;
  // Not published: forgotten, so the sampler's next look tries again.
  st.table_bytes -= t->block_bytes;
  st.images.erase(base);
  big_free(const_cast<R2rTable*>(t), t->block_bytes);
  return false;
}

void release_r2r_images() {
  State& st = state();
  const std::lock_guard<std::mutex> hold(st.lock);
  publish_r2r(nullptr);
  for (const auto& [base, img] : st.images) {
    if (img.table != nullptr) retire_memory(const_cast<R2rTable*>(img.table), img.table->block_bytes);
  }
  st.images.clear();
  st.table_bytes = 0;
  st.changes_seen = ~0ull;
  st.last_scan = 0;
}

}  // namespace clrscope::platform
