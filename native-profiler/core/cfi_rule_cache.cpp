#include "core/cfi_rule_cache.h"

#include <atomic>

namespace clrscope {
namespace {

constexpr uint32_t kCacheEntries = 4096;

struct CacheEntry {
  std::atomic<uint32_t> seq;  // odd while being written
  std::atomic<uint32_t> generation;
  std::atomic<uint64_t> pc;
  std::atomic<uint64_t> packed;
};

CacheEntry g_cache[kCacheEntries];

uint32_t cache_slot(uintptr_t pc) {
  return static_cast<uint32_t>((static_cast<uint64_t>(pc) * 0x9E3779B97F4A7C15ull) >> 52) % kCacheEntries;
}

bool fits16(int64_t v) { return v >= INT16_MIN && v <= INT16_MAX; }

// status 3 bits | cfa_from_fp | fp_saved | cfa_offset, ra_offset, fp_offset as 16-bit fields.
bool pack(const PcRules& r, uint64_t* out) {
  if (!fits16(r.cfa_offset) || !fits16(r.ra_offset) || !fits16(r.fp_offset)) return false;
  *out = static_cast<uint64_t>(r.status) | (r.cfa_from_fp ? 8ull : 0ull) | (r.fp_saved ? 16ull : 0ull) |
         (static_cast<uint64_t>(static_cast<uint16_t>(r.cfa_offset)) << 16) |
         (static_cast<uint64_t>(static_cast<uint16_t>(r.ra_offset)) << 32) |
         (static_cast<uint64_t>(static_cast<uint16_t>(r.fp_offset)) << 48);
  return true;
}

PcRules unpack(uint64_t v) {
  PcRules r;
  r.status = static_cast<CfiStep>(v & 7);
  r.cfa_from_fp = (v & 8) != 0;
  r.fp_saved = (v & 16) != 0;
  r.cfa_offset = static_cast<int16_t>(static_cast<uint16_t>(v >> 16));
  r.ra_offset = static_cast<int16_t>(static_cast<uint16_t>(v >> 32));
  r.fp_offset = static_cast<int16_t>(static_cast<uint16_t>(v >> 48));
  return r;
}

}  // namespace

bool cfi_cache_get(uintptr_t pc, uint32_t generation, PcRules* out) {
  CacheEntry& e = g_cache[cache_slot(pc)];
  const uint32_t s1 = e.seq.load(std::memory_order_acquire);
  if (s1 & 1) return false;
  const uint32_t gen = e.generation.load(std::memory_order_relaxed);
  const uint64_t key = e.pc.load(std::memory_order_relaxed);
  const uint64_t packed = e.packed.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (e.seq.load(std::memory_order_relaxed) != s1 || key != pc || gen != generation || packed == 0) return false;
  *out = unpack(packed);
  return true;
}

void cfi_cache_put(uintptr_t pc, uint32_t generation, const PcRules& r) {
  uint64_t packed = 0;
  if (!pack(r, &packed)) return;
  CacheEntry& e = g_cache[cache_slot(pc)];
  uint32_t s = e.seq.load(std::memory_order_relaxed);
  if ((s & 1) || !e.seq.compare_exchange_strong(s, s + 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
  std::atomic_thread_fence(std::memory_order_release);
  e.generation.store(generation, std::memory_order_relaxed);
  e.pc.store(pc, std::memory_order_relaxed);
  e.packed.store(packed, std::memory_order_relaxed);
  e.seq.store(s + 2, std::memory_order_release);
}

}  // namespace clrscope
