#include "core/cfi_unwind.h"

#include <cstring>

#include "core/cfi_rule_cache.h"

namespace clrscope {
namespace {

// DWARF register numbers on x86-64 (System V psABI). Other architectures walk frame pointers.
constexpr uint32_t kRegFp = 6;
constexpr uint32_t kRegSp = 7;
constexpr uint32_t kRegRa = 16;

// Pointer encodings (DW_EH_PE_*).
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeFormatMask = 0x0f;
constexpr uint8_t kPeApplyMask = 0x70;
constexpr uint8_t kPeIndirect = 0x80;

// Reads unwind data within [at, end) of the original address space through a view (the
// profiler's copy in a handler; the library's own pages while the loader holds it). The whole
// range is checked against the view once, up front; each read then only checks it stays
// inside the range.
class Reader {
 public:
  Reader(const MemoryView& v, uintptr_t at, uintptr_t end) : v_(v), start_(at), at_(at), end_(end) {
    ok_ = end >= at && view_read(v, at, end - at, &bytes_);
  }
  bool ok() const { return ok_; }
  uintptr_t at() const { return at_; }
  uintptr_t end() const { return end_; }
  void seek(uintptr_t a) { at_ = a; }
  bool done() const { return !ok_ || at_ >= end_; }

  template <typename T>
  T fixed() {
    if (!ok_ || at_ < start_ || at_ + sizeof(T) > end_) {
      ok_ = false;
      return T{};
    }
    T v;
    std::memcpy(&v, bytes_ + (at_ - start_), sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = fixed<uint8_t>();
      if (!ok_) return 0;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok_ = false;
    return 0;
  }
  int64_t sleb() {
    int64_t v = 0;
    int shift = 0;
    uint8_t b = 0;
    do {
      b = fixed<uint8_t>();
      if (!ok_ || shift >= 64) {
        ok_ = false;
        return 0;
      }
      v |= static_cast<int64_t>(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -(static_cast<int64_t>(1) << shift);
    return v;
  }
  // An encoded pointer; `data_base` serves DW_EH_PE_datarel (the .eh_frame_hdr start).
  uintptr_t encoded(uint8_t enc, uintptr_t data_base) {
    if (enc == kPeOmit) return 0;
    const uintptr_t field = at_;
    uintptr_t v = 0;
    switch (enc & kPeFormatMask) {
      case 0x00: v = fixed<uint64_t>(); break;
      case 0x01: v = uleb(); break;
      case 0x02: v = fixed<uint16_t>(); break;
      case 0x03: v = fixed<uint32_t>(); break;
      case 0x04: v = fixed<uint64_t>(); break;
      case 0x09: v = static_cast<uintptr_t>(sleb()); break;
      case 0x0a: v = static_cast<uintptr_t>(static_cast<int64_t>(fixed<int16_t>())); break;
      case 0x0b: v = static_cast<uintptr_t>(static_cast<int64_t>(fixed<int32_t>())); break;
      case 0x0c: v = static_cast<uintptr_t>(fixed<int64_t>()); break;
      default: ok_ = false; return 0;
    }
    switch (enc & kPeApplyMask) {
      case 0x00: break;
      case 0x10: v += field; break;      // pcrel
      case 0x30: v += data_base; break;  // datarel
      default: ok_ = false; return 0;    // textrel, funcrel, aligned: not used by the toolchains here
    }
    if (enc & kPeIndirect) {
      // The pointer lives in the library's data (a GOT slot), which no view holds: FDE
      // encodings never use this; personality routines, which we skip, do.
      Reader ind(v_, v, v + sizeof(uintptr_t));
      v = ind.fixed<uintptr_t>();
      if (!ind.ok()) ok_ = false;
    }
    return v;
  }

 private:
  const MemoryView& v_;
  uintptr_t start_;
  uintptr_t at_;
  uintptr_t end_;
  bool ok_ = false;
  const uint8_t* bytes_ = nullptr;
};

enum class Rule : uint8_t { kSame, kUndefined, kOffset, kUnsupported };

struct RegRule {
  Rule rule = Rule::kSame;
  int64_t offset = 0;
};

struct FrameRules {
  uint32_t cfa_reg = kRegSp;
  int64_t cfa_offset = 8;
  bool cfa_ok = true;
  RegRule fp;
  RegRule ra;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint64_t ra_reg = kRegRa;
  uint8_t fde_encoding = 0;
  bool augmented = false;  // 'z': FDEs carry an augmentation length
  uintptr_t insns = 0;
  uintptr_t end = 0;
};

bool parse_cie(const MemoryView& m, uintptr_t at, Cie* cie) {
  Reader r(m, at, at + 16);
  uint64_t length = r.fixed<uint32_t>();
  if (!r.ok() || length == 0) return false;
  if (length == 0xffffffffu) {
    length = r.fixed<uint64_t>();
    if (!r.ok()) return false;
  }
  const uintptr_t end = r.at() + length;
  Reader b(m, r.at(), end);
  const uint64_t id = length > 0xffffffffull ? b.fixed<uint64_t>() : b.fixed<uint32_t>();
  if (!b.ok() || id != 0) return false;
  const uint8_t version = b.fixed<uint8_t>();
  char aug[8];
  int n = 0;
  for (;;) {
    const char c = static_cast<char>(b.fixed<uint8_t>());
    if (!b.ok()) return false;
    if (c == '\0') break;
    if (n >= 7) return false;
    aug[n++] = c;
  }
  aug[n] = '\0';
  cie->code_align = b.uleb();
  cie->data_align = b.sleb();
  cie->ra_reg = version == 1 ? b.fixed<uint8_t>() : b.uleb();
  cie->augmented = n > 0 && aug[0] == 'z';
  uintptr_t insns_at = 0;
  if (cie->augmented) {
    const uint64_t aug_len = b.uleb();
    insns_at = b.at() + aug_len;
    for (int i = 1; i < n && b.ok(); ++i) {
      switch (aug[i]) {
        case 'R': cie->fde_encoding = b.fixed<uint8_t>(); break;
        case 'L': b.fixed<uint8_t>(); break;
        case 'P': {
          const uint8_t enc = b.fixed<uint8_t>();
          b.encoded(static_cast<uint8_t>(enc & ~kPeIndirect), 0);
          break;
        }
        case 'S': break;  // signal frame: rules are still ordinary CFI (or expressions we refuse)
        default: i = n; break;  // unknown letters: the length above still tells where insns start
      }
    }
  } else if (n > 0) {
    return false;  // an old augmentation we cannot skip
  } else {
    insns_at = b.at();
  }
  if (!b.ok()) return false;
  cie->insns = insns_at;
  cie->end = end;
  return insns_at <= end;
}

// Runs CFA instructions over [r.at, r.end) until the location passes `pc`.
bool run_cfa(Reader& r, const Cie& cie, uintptr_t loc, uintptr_t pc, FrameRules* rules, const FrameRules& initial) {
  FrameRules stack[4];
  int depth = 0;
  auto set = [&](uint64_t reg, Rule rule, int64_t off) {
    if (reg == kRegFp) rules->fp = RegRule{rule, off};
    if (reg == cie.ra_reg) rules->ra = RegRule{rule, off};
  };
  auto restore = [&](uint64_t reg) {
    if (reg == kRegFp) rules->fp = initial.fp;
    if (reg == cie.ra_reg) rules->ra = initial.ra;
  };
  while (!r.done()) {
    const uint8_t op = r.fixed<uint8_t>();
    const uint8_t hi2 = op & 0xc0;
    const uint8_t low6 = op & 0x3f;
    if (hi2 == 0x40) {  // advance_loc
      loc += low6 * cie.code_align;
      if (loc > pc) return true;
      continue;
    }
    if (hi2 == 0x80) {  // offset
      set(low6, Rule::kOffset, static_cast<int64_t>(r.uleb()) * cie.data_align);
      continue;
    }
    if (hi2 == 0xc0) {  // restore
      restore(low6);
      continue;
    }
    switch (op) {
      case 0x00: break;  // nop
      case 0x01: loc = r.encoded(cie.fde_encoding, 0); if (loc > pc) return true; break;
      case 0x02: loc += r.fixed<uint8_t>() * cie.code_align; if (loc > pc) return true; break;
      case 0x03: loc += r.fixed<uint16_t>() * cie.code_align; if (loc > pc) return true; break;
      case 0x04: loc += r.fixed<uint32_t>() * cie.code_align; if (loc > pc) return true; break;
      case 0x05: {  // offset_extended
        const uint64_t reg = r.uleb();
        set(reg, Rule::kOffset, static_cast<int64_t>(r.uleb()) * cie.data_align);
        break;
      }
      case 0x06: restore(r.uleb()); break;
      case 0x07: set(r.uleb(), Rule::kUndefined, 0); break;
      case 0x08: set(r.uleb(), Rule::kSame, 0); break;
      case 0x09: {  // register: value lives in another register we do not track
        const uint64_t reg = r.uleb();
        r.uleb();
        set(reg, Rule::kUnsupported, 0);
        break;
      }
      case 0x0a:  // remember_state
        if (depth == 4) return false;
        stack[depth++] = *rules;
        break;
      case 0x0b:  // restore_state
        if (depth == 0) return false;
        // Compilers bracket an epilogue with remember/restore and expect the CFA back too,
        // as libgcc's unwinder restores it.
        *rules = stack[--depth];
        break;
      case 0x0c:
        rules->cfa_reg = static_cast<uint32_t>(r.uleb());
        rules->cfa_offset = static_cast<int64_t>(r.uleb());
        rules->cfa_ok = true;
        break;
      case 0x0d: rules->cfa_reg = static_cast<uint32_t>(r.uleb()); rules->cfa_ok = true; break;
      case 0x0e: rules->cfa_offset = static_cast<int64_t>(r.uleb()); break;
      case 0x0f: {  // def_cfa_expression
        const uint64_t len = r.uleb();
        r.seek(r.at() + len);
        rules->cfa_ok = false;
        break;
      }
      case 0x10: {  // expression
        const uint64_t reg = r.uleb();
        const uint64_t len = r.uleb();
        r.seek(r.at() + len);
        set(reg, Rule::kUnsupported, 0);
        break;
      }
      case 0x11: {  // offset_extended_sf
        const uint64_t reg = r.uleb();
        set(reg, Rule::kOffset, r.sleb() * cie.data_align);
        break;
      }
      case 0x12:
        rules->cfa_reg = static_cast<uint32_t>(r.uleb());
        rules->cfa_offset = r.sleb() * cie.data_align;
        rules->cfa_ok = true;
        break;
      case 0x13: rules->cfa_offset = r.sleb() * cie.data_align; break;
      case 0x14:    // val_offset
      case 0x15: {  // val_offset_sf
        const uint64_t reg = r.uleb();
        if (op == 0x14) r.uleb(); else r.sleb();
        set(reg, Rule::kUnsupported, 0);
        break;
      }
      case 0x16: {  // val_expression
        const uint64_t reg = r.uleb();
        const uint64_t len = r.uleb();
        r.seek(r.at() + len);
        set(reg, Rule::kUnsupported, 0);
        break;
      }
      case 0x2e: r.uleb(); break;  // GNU_args_size
      case 0x2f: {                 // GNU_negative_offset_extended
        const uint64_t reg = r.uleb();
        set(reg, Rule::kOffset, -static_cast<int64_t>(r.uleb()) * cie.data_align);
        break;
      }
      default:
        return false;
    }
  }
  return r.ok();
}

// The parsed header of .eh_frame_hdr: where .eh_frame starts and the binary-search table.
struct HdrTable {
  uintptr_t eh_frame;
  uintptr_t table;
  uintptr_t count;
};

bool read_hdr(const MemoryView& v, uintptr_t hdr, HdrTable* out) {
  Reader r(v, hdr, hdr + 4 + 8 + 8);
  const uint8_t version = r.fixed<uint8_t>();
  const uint8_t frame_ptr_enc = r.fixed<uint8_t>();
  const uint8_t count_enc = r.fixed<uint8_t>();
  const uint8_t table_enc = r.fixed<uint8_t>();
  if (!r.ok() || version != 1) return false;
  out->eh_frame = r.encoded(frame_ptr_enc, hdr);
  out->count = r.encoded(count_enc, hdr);
  // The table is sorted (initial location, FDE address) pairs; every linker here writes them
  // as 4-byte offsets from the header (datarel | sdata4).
  if (!r.ok() || table_enc != 0x3b || out->count == 0) return false;
  out->table = r.at();
  return out->count <= (UINTPTR_MAX - out->table) / 8;
}

// Finds the FDE for pc through the binary-search table of .eh_frame_hdr.
bool find_fde(const CodeModule& m, uintptr_t pc, uintptr_t* fde) {
  const uintptr_t hdr = m.eh_frame_hdr;
  HdrTable t;
  const uint8_t* bytes = nullptr;
  if (!read_hdr(m.unwind, hdr, &t) || !view_read(m.unwind, t.table, t.count * 8, &bytes)) return false;
  auto entry = [&](uintptr_t i) {
    int32_t v;
    std::memcpy(&v, bytes + i * 4, sizeof v);
    return hdr + static_cast<uintptr_t>(static_cast<int64_t>(v));
  };
  uintptr_t lo = 0, hi = t.count;
  while (lo + 1 < hi) {
    const uintptr_t mid = lo + (hi - lo) / 2;
    if (entry(2 * mid) <= pc) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (entry(2 * lo) > pc) return false;
  *fde = entry(2 * lo + 1);
  return true;
}

bool read_stack(const StackBounds& stack, uintptr_t addr, uintptr_t* out) {
  if ((addr & (sizeof(uintptr_t) - 1)) != 0 || addr < stack.lo || stack.hi < sizeof(uintptr_t) ||
      addr > stack.hi - sizeof(uintptr_t)) {
    return false;
  }
  *out = *reinterpret_cast<const uintptr_t*>(addr);
  return true;
}


PcRules rules_for_pc(const CodeModule& module, uintptr_t lookup_pc) {
  PcRules out{CfiStep::kNoInfo, false, false, 0, 0, 0};
  if (module.eh_frame_hdr == 0) return out;
  uintptr_t fde = 0;
  if (!find_fde(module, lookup_pc, &fde)) return out;

  Reader r(module.unwind, fde, fde + 16);
  uint64_t length = r.fixed<uint32_t>();
  if (!r.ok() || length == 0 || length == 0xffffffffu) return out;
  const uintptr_t end = r.at() + length;
  const uintptr_t cie_field = r.at();
  const uint32_t cie_delta = r.fixed<uint32_t>();
  if (!r.ok() || cie_delta == 0) return out;
  Cie cie;
  out.status = CfiStep::kBadRead;
  if (!parse_cie(module.unwind, cie_field - cie_delta, &cie)) return out;

  Reader f(module.unwind, r.at(), end);
  const uintptr_t pc_begin = f.encoded(cie.fde_encoding, 0);
  const uintptr_t pc_range = f.encoded(static_cast<uint8_t>(cie.fde_encoding & kPeFormatMask), 0);
  if (!f.ok()) return out;
  out.status = CfiStep::kNoInfo;
  if (lookup_pc < pc_begin || lookup_pc - pc_begin >= pc_range) return out;
  if (cie.augmented) {
    const uint64_t aug = f.uleb();
    f.seek(f.at() + aug);
  }

  out.status = CfiStep::kUnsupported;
  FrameRules initial;
  initial.ra = RegRule{Rule::kOffset, -8};
  Reader ci(module.unwind, cie.insns, cie.end);
  if (!run_cfa(ci, cie, 0, UINTPTR_MAX, &initial, initial)) return out;
  FrameRules rules = initial;
  if (!run_cfa(f, cie, pc_begin, lookup_pc, &rules, initial)) return out;
  if (!rules.cfa_ok || (rules.cfa_reg != kRegSp && rules.cfa_reg != kRegFp)) return out;
  if (rules.ra.rule == Rule::kUndefined) {
    out.status = CfiStep::kOutermost;
    return out;
  }
  if (rules.ra.rule != Rule::kOffset || (rules.fp.rule != Rule::kOffset && rules.fp.rule != Rule::kSame)) return out;
  out.status = CfiStep::kOk;
  out.cfa_from_fp = rules.cfa_reg == kRegFp;
  out.fp_saved = rules.fp.rule == Rule::kOffset;
  out.cfa_offset = rules.cfa_offset;
  out.ra_offset = rules.ra.offset;
  out.fp_offset = rules.fp.offset;
  return out;
}

}  // namespace

CfiStep cfi_step(const CodeModule& module, uint32_t generation, uintptr_t lookup_pc, WalkRegisters* regs,
                 const StackBounds& stack) {
  PcRules rules;
  if (!cfi_cache_get(lookup_pc, generation, &rules)) {
    rules = rules_for_pc(module, lookup_pc);
    // A bad read may be a transient state of the module; everything else is a fact of the code.
    if (rules.status != CfiStep::kBadRead) cfi_cache_put(lookup_pc, generation, rules);
  }
  if (rules.status != CfiStep::kOk) return rules.status;
  const uintptr_t cfa = (rules.cfa_from_fp ? regs->fp : regs->sp) + static_cast<uintptr_t>(rules.cfa_offset);
  uintptr_t ra = 0;
  if (!read_stack(stack, cfa + static_cast<uintptr_t>(rules.ra_offset), &ra)) return CfiStep::kBadRead;
  uintptr_t fp = regs->fp;
  if (rules.fp_saved && !read_stack(stack, cfa + static_cast<uintptr_t>(rules.fp_offset), &fp)) {
    return CfiStep::kBadRead;
  }
  regs->ip = ra;
  regs->sp = cfa;
  regs->fp = fp;
  return CfiStep::kOk;
}

bool unwind_extent(const MemoryView& live, uintptr_t eh_frame_hdr, ViewRange* hdr_range, ViewRange* frames_range) {
  HdrTable t;
  const uint8_t* bytes = nullptr;
  if (!read_hdr(live, eh_frame_hdr, &t) || !view_read(live, t.table, t.count * 8, &bytes)) return false;
  *hdr_range = ViewRange{eh_frame_hdr, t.table + t.count * 8, nullptr};
  // .eh_frame has no recorded size; it reaches at least to the end of its last FDE (the CIEs
  // each FDE names lie before it, from the section's start).
  uintptr_t lo = t.eh_frame, hi = t.eh_frame;
  for (uintptr_t i = 0; i < t.count; ++i) {
    int32_t off;
    std::memcpy(&off, bytes + (2 * i + 1) * 4, sizeof off);
    const uintptr_t fde = eh_frame_hdr + static_cast<uintptr_t>(static_cast<int64_t>(off));
    Reader r(live, fde, fde + 8);
    const uint32_t length = r.fixed<uint32_t>();
    const uint32_t cie_delta = r.fixed<uint32_t>();
    if (!r.ok() || length == 0 || length == 0xffffffffu || cie_delta == 0) return false;
    const uintptr_t cie = fde + 4 - cie_delta;
    if (fde < lo) lo = fde;
    if (cie < lo) lo = cie;
    if (fde + 4 + length > hi) hi = fde + 4 + length;
  }
  *frames_range = ViewRange{lo, hi, nullptr};
  const uint8_t* unused = nullptr;
  return hi > lo && view_read(live, lo, hi - lo, &unused);
}

}  // namespace clrscope
