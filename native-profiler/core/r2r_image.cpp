#include "core/r2r_image.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/page_memory.h"

namespace clrscope {
namespace {

// PE layout (Microsoft's PE format documentation) and the ReadyToRun header
// (readytorun-format.md): only the fields this reader needs.
constexpr uint16_t kDosMagic = 0x5A4D;      // "MZ"
constexpr uint32_t kPeSignature = 0x4550;   // "PE\0\0"
constexpr uint16_t kPe32Plus = 0x20B;
constexpr uint32_t kComDescriptorDir = 14;  // IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR
constexpr uint32_t kCorManagedNativeHeader = 64;  // IMAGE_COR20_HEADER.ManagedNativeHeader
constexpr uint32_t kR2rSignature = 0x00525452;    // "RTR"
constexpr uint32_t kSectionRuntimeFunctions = 102;
// A table larger than this is taken for garbage rather than allocated (CoreLib has ~60,000).
constexpr uint32_t kMaxFunctions = 4u << 20;
// UNWIND_INFO: 4 bytes of header and at most 255 two-byte codes.
constexpr uint32_t kMaxInfo = 4 + 2 * 256;
// The span of all unwind codes and GC info read at once (CoreLib's is under 4 MiB).
constexpr uint32_t kMaxSpan = 256u << 20;

template <typename T>
bool get(const ImageRead& read, uint32_t rva, T* out) {
  return read(rva, out, sizeof(T));
}

// The RuntimeFunctions section's place, or false.
R2rRead find_runtime_functions(const ImageRead& read, uint32_t* rva, uint32_t* size) {
  uint16_t mz = 0;
  uint32_t lfanew = 0, sig = 0;
  if (!get(read, 0, &mz) || mz != kDosMagic || !get(read, 0x3C, &lfanew) || !get(read, lfanew, &sig) ||
      sig != kPeSignature) {
    return R2rRead::kNotPe;
  }
  const uint32_t opt = lfanew + 24;  // signature (4) and COFF header (20)
  uint16_t magic = 0;
  uint32_t dirs = 0;
  if (!get(read, opt, &magic) || magic != kPe32Plus || !get(read, opt + 108, &dirs)) return R2rRead::kNotPe;
  if (dirs <= kComDescriptorDir) return R2rRead::kNotReadyToRun;
  uint32_t cor = 0, native = 0, native_size = 0;
  if (!get(read, opt + 112 + kComDescriptorDir * 8, &cor) || cor == 0) return R2rRead::kNotReadyToRun;
  if (!get(read, cor + kCorManagedNativeHeader, &native) || !get(read, cor + kCorManagedNativeHeader + 4, &native_size)) {
    return R2rRead::kBadTable;
  }
  uint32_t r2r_sig = 0, sections = 0;
  if (native == 0 || native_size < 16 || !get(read, native, &r2r_sig) || r2r_sig != kR2rSignature) {
    return R2rRead::kNotReadyToRun;
  }
  if (!get(read, native + 12, &sections) || sections > 1024) return R2rRead::kBadTable;
  for (uint32_t i = 0; i < sections; ++i) {
    uint32_t entry[3];
    if (!read(native + 16 + i * 12, entry, sizeof entry)) return R2rRead::kBadTable;
    if (entry[0] == kSectionRuntimeFunctions) {
      *rva = entry[1];
      *size = entry[2];
      return R2rRead::kOk;
    }
  }
  return R2rRead::kNotReadyToRun;  // a component of a composite image: its code lives elsewhere
}

}  // namespace

const win::RuntimeFunction* R2rTable::find(uintptr_t pc) const {
  if (pc < code_lo || pc >= code_hi) return nullptr;
  const uint32_t rva = static_cast<uint32_t>(pc - base);
  const win::RuntimeFunction* f = functions();
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (f[mid].end <= rva) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && f[lo].begin <= rva ? &f[lo] : nullptr;
}

R2rRead read_r2r_table(const ImageRead& read, uintptr_t base, R2rTable** out) {
  *out = nullptr;
  uint32_t rf_rva = 0, rf_size = 0;
  const R2rRead found = find_runtime_functions(read, &rf_rva, &rf_size);
  if (found != R2rRead::kOk) return found;
  const uint32_t n = rf_size / sizeof(win::RuntimeFunction);
  if (n == 0 || n > kMaxFunctions) return R2rRead::kBadTable;
  std::vector<win::RuntimeFunction> raw(n);
  if (!read(rf_rva, raw.data(), n * sizeof(win::RuntimeFunction))) return R2rRead::kBadTable;

  // The unwind codes lie together (with the GC info between them), not in the functions'
  // order, as identical blobs are shared: read their whole span at once.
  uint32_t span_lo = UINT32_MAX, span_hi = 0;
  for (const win::RuntimeFunction& f : raw) {
    span_lo = std::min(span_lo, f.unwind);
    span_hi = std::max(span_hi, f.unwind);
  }
  span_hi = span_hi > UINT32_MAX - kMaxInfo ? UINT32_MAX : span_hi + kMaxInfo;
  if (span_hi - span_lo > kMaxSpan) return R2rRead::kBadTable;
  std::vector<uint8_t> span(span_hi - span_lo);
  // The last blob may end the image: read what is there, a page less at a time.
  size_t got = span.size();
  while (got > 0 && !read(span_lo, span.data(), got)) got = got > 4096 ? got - 4096 : 0;
  span.resize(got);

  // Functions whose unwind codes we can follow, each pointing into a pool of distinct codes:
  // most precompiled methods share a handful of prologs.
  std::vector<win::RuntimeFunction> kept;
  kept.reserve(n);
  std::vector<uint8_t> pool;
  std::unordered_map<std::string, uint32_t> seen;
  uint32_t last_end = 0;
  for (const win::RuntimeFunction& f : raw) {
    if (f.end <= f.begin || f.begin < last_end) continue;  // out of order or empty: not ours to trust
    const size_t off = f.unwind - span_lo;
    if (off + 4 > span.size()) continue;
    const uint8_t* info = span.data() + off;
    const uint8_t version = info[0] & 7;
    const uint8_t flags = info[0] >> 3;
    if ((version != 1 && version != 2) || (flags & win::kUnwFlagChainInfo) != 0) continue;
    const size_t len = 4 + 2 * static_cast<size_t>(info[2]);
    if (off + len > span.size()) continue;
    std::string key(reinterpret_cast<const char*>(info), len);
    auto it = seen.find(key);
    uint32_t at = 0;
    if (it != seen.end()) {
      at = it->second;
    } else {
      at = static_cast<uint32_t>(pool.size());
      pool.insert(pool.end(), info, info + len);
      // Keep each entry 2-byte aligned, as the codes are read as 16-bit slots.
      if (pool.size() & 1) pool.push_back(0);
      seen.emplace(std::move(key), at);
    }
    kept.push_back(win::RuntimeFunction{f.begin, f.end, at});
    last_end = f.end;
  }
  if (kept.empty()) return R2rRead::kBadTable;
  const size_t bytes = sizeof(R2rTable) + kept.size() * sizeof(win::RuntimeFunction) + pool.size();
  void* block = big_alloc(bytes);
  if (block == nullptr) return R2rRead::kBadTable;
  auto* t = new (block) R2rTable;
  t->base = base;
  t->code_lo = base + kept.front().begin;
  t->code_hi = base + kept.back().end;
  t->count = static_cast<uint32_t>(kept.size());
  t->pool_bytes = static_cast<uint32_t>(pool.size());
  t->block_bytes = bytes;
  std::memcpy(const_cast<win::RuntimeFunction*>(t->functions()), kept.data(), kept.size() * sizeof(win::RuntimeFunction));
  std::memcpy(const_cast<uint8_t*>(t->pool()), pool.data(), pool.size());
  *out = t;
  return R2rRead::kOk;
}

}  // namespace clrscope
