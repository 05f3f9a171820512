#include "core/il_signature.h"

namespace clrscope {
namespace il {
namespace {

// ECMA-335 II.23.1.16 element types and II.23.2.1 calling conventions.
enum : uint8_t {
  kEnd = 0x00,
  kVoid = 0x01,
  kBoolean = 0x02,
  kR8 = 0x0D,
  kString = 0x0E,
  kPtr = 0x0F,
  kByRef = 0x10,
  kValueType = 0x11,
  kClass = 0x12,
  kVar = 0x13,
  kArray = 0x14,
  kGenericInst = 0x15,
  kTypedByRef = 0x16,
  kI = 0x18,
  kU = 0x19,
  kFnPtr = 0x1B,
  kObject = 0x1C,
  kSzArray = 0x1D,
  kMVar = 0x1E,
  kCModReqd = 0x1F,
  kCModOpt = 0x20,
  kSentinel = 0x41,
  kPinned = 0x45,
  kLocalSig = 0x07,
  kCallConvDefault = 0x00,
  kCallConvC = 0x01,
  kCallConvUnmanaged = 0x09,
  kCallConvGeneric = 0x10,
};

constexpr int kMaxDepth = 64;

bool fail(std::string* reason, const char* text) {
  if (reason != nullptr) *reason = text;
  return false;
}

bool skip_custom_mods(const uint8_t** p, const uint8_t* end) {
  while (*p < end && (**p == kCModOpt || **p == kCModReqd)) {
    ++*p;
    uint32_t token = 0;
    if (!read_compressed(p, end, &token)) return false;
  }
  return *p < end;
}

bool skip_type_at(const uint8_t** p, const uint8_t* end, int depth);

bool skip_method_sig(const uint8_t** p, const uint8_t* end, int depth) {
  if (*p >= end) return false;
  const uint8_t callconv = *(*p)++;
  uint32_t n = 0;
  if ((callconv & kCallConvGeneric) != 0 && !read_compressed(p, end, &n)) return false;
  uint32_t params = 0;
  if (!read_compressed(p, end, &params)) return false;
  if (!skip_type_at(p, end, depth + 1)) return false;  // the return type
  for (uint32_t i = 0; i < params; ++i) {
    if (*p < end && **p == kSentinel) ++*p;
    if (!skip_type_at(p, end, depth + 1)) return false;
  }
  return true;
}

bool skip_type_at(const uint8_t** p, const uint8_t* end, int depth) {
  if (depth > kMaxDepth || !skip_custom_mods(p, end)) return false;
  const uint8_t e = *(*p)++;
  uint32_t v = 0;
  if ((e >= kVoid && e <= kString) || e == kTypedByRef || e == kI || e == kU || e == kObject) return true;
  switch (e) {
    case kPtr:
    case kByRef:
    case kPinned:
    case kSzArray: return skip_type_at(p, end, depth + 1);
    case kValueType:
    case kClass:
    case kVar:
    case kMVar: return read_compressed(p, end, &v);
    case kArray: {
      uint32_t rank = 0, sizes = 0, bounds = 0;
      if (!skip_type_at(p, end, depth + 1) || !read_compressed(p, end, &rank) || !read_compressed(p, end, &sizes)) return false;
      for (uint32_t i = 0; i < sizes; ++i) {
        if (!read_compressed(p, end, &v)) return false;
      }
      if (!read_compressed(p, end, &bounds)) return false;
      // Lower bounds are signed, but a compressed signed value has the same length encoding.
      for (uint32_t i = 0; i < bounds; ++i) {
        if (!read_compressed(p, end, &v)) return false;
      }
      return true;
    }
    case kGenericInst: {
      if (*p >= end || (**p != kClass && **p != kValueType)) return false;
      ++*p;
      uint32_t count = 0;
      if (!read_compressed(p, end, &v) || !read_compressed(p, end, &count) || count == 0) return false;
      for (uint32_t i = 0; i < count; ++i) {
        if (!skip_type_at(p, end, depth + 1)) return false;
      }
      return true;
    }
    case kFnPtr: return skip_method_sig(p, end, depth);
    default: return false;  // END, SENTINEL out of place, or the runtime's internal types
  }
}

}  // namespace

bool read_compressed(const uint8_t** p, const uint8_t* end, uint32_t* out) {
  const uint8_t* s = *p;
  if (s >= end) return false;
  if ((s[0] & 0x80) == 0) {
    *out = s[0];
    *p = s + 1;
    return true;
  }
  if ((s[0] & 0xC0) == 0x80) {
    if (end - s < 2) return false;
    *out = (static_cast<uint32_t>(s[0] & 0x3F) << 8) | s[1];
    *p = s + 2;
    return true;
  }
  if ((s[0] & 0xE0) == 0xC0) {
    if (end - s < 4) return false;
    *out = (static_cast<uint32_t>(s[0] & 0x1F) << 24) | (static_cast<uint32_t>(s[1]) << 16) |
           (static_cast<uint32_t>(s[2]) << 8) | s[3];
    *p = s + 4;
    return true;
  }
  return false;
}

void write_compressed(std::vector<uint8_t>* out, uint32_t v) {
  if (v < 0x80) {
    out->push_back(static_cast<uint8_t>(v));
  } else if (v < 0x4000) {
    out->push_back(static_cast<uint8_t>(0x80 | (v >> 8)));
    out->push_back(static_cast<uint8_t>(v));
  } else {
    out->push_back(static_cast<uint8_t>(0xC0 | ((v >> 24) & 0x1F)));
    out->push_back(static_cast<uint8_t>(v >> 16));
    out->push_back(static_cast<uint8_t>(v >> 8));
    out->push_back(static_cast<uint8_t>(v));
  }
}

bool encode_type_token(uint32_t token, std::vector<uint8_t>* out) {
  uint32_t tag = 0;
  switch (token >> 24) {
    case 0x02: tag = 0; break;  // TypeDef
    case 0x01: tag = 1; break;  // TypeRef
    case 0x1B: tag = 2; break;  // TypeSpec
    default: return false;
  }
  const uint32_t row = token & 0x00FFFFFFu;
  if (row == 0 || row > 0x07FFFFFFu) return false;
  write_compressed(out, (row << 2) | tag);
  return true;
}

bool skip_type(const uint8_t** p, const uint8_t* end) { return skip_type_at(p, end, 0); }

bool return_type(const uint8_t* sig, size_t size, std::vector<uint8_t>* out, std::string* reason) {
  out->clear();
  const uint8_t* p = sig;
  const uint8_t* end = sig + size;
  if (size == 0) return fail(reason, "its signature is empty");
  const uint8_t callconv = *p++;
  uint32_t n = 0;
  if ((callconv & kCallConvGeneric) != 0 && !read_compressed(&p, end, &n)) return fail(reason, "its signature is malformed");
  if (!read_compressed(&p, end, &n)) return fail(reason, "its signature is malformed");
  const uint8_t* start = p;
  if (!skip_custom_mods(&p, end)) return fail(reason, "its signature is malformed");
  if (*p == kVoid) return true;
  p = start;
  if (!skip_type(&p, end)) return fail(reason, "its return type is not one the rewriter can read");
  out->assign(start, p);
  return true;
}

bool extend_locals(const uint8_t* sig, size_t size, const std::vector<std::vector<uint8_t>>& extra,
                   std::vector<uint8_t>* out, uint32_t* old_count, std::string* reason) {
  out->clear();
  uint32_t count = 0;
  const uint8_t* p = sig;
  const uint8_t* end = sig + size;
  if (size > 0) {
    if (*p++ != kLocalSig || !read_compressed(&p, end, &count)) return fail(reason, "its locals signature is malformed");
    const uint8_t* types = p;
    for (uint32_t i = 0; i < count; ++i) {
      if (!skip_type(&p, end)) return fail(reason, "its locals signature has a type the rewriter cannot read");
    }
    if (p != end) return fail(reason, "its locals signature has bytes after its last local");
    p = types;
  }
  // ldloc and stloc take a 16-bit index, and the runtime allows at most 0x7FFE locals.
  if (count + extra.size() > 0x7FFE) return fail(reason, "it has too many locals to add two more");
  *old_count = count;
  out->push_back(kLocalSig);
  write_compressed(out, count + static_cast<uint32_t>(extra.size()));
  out->insert(out->end(), p, end);
  for (const std::vector<uint8_t>& t : extra) out->insert(out->end(), t.begin(), t.end());
  return true;
}

std::vector<uint8_t> unmanaged_call_signature(uint8_t ret, const std::vector<uint8_t>& params,
                                              uint32_t suppress_gc_transition_type) {
  std::vector<uint8_t> sig;
  std::vector<uint8_t> modifier;
  const bool suppress = suppress_gc_transition_type != 0 && encode_type_token(suppress_gc_transition_type, &modifier);
  sig.push_back(suppress ? kCallConvUnmanaged : kCallConvC);
  write_compressed(&sig, static_cast<uint32_t>(params.size()));
  // The runtime reads calling-convention modifiers from the return type's custom modifiers,
  // by the modifier type's name (System.Runtime.CompilerServices.CallConv*).
  if (suppress) {
    sig.push_back(kCModOpt);
    sig.insert(sig.end(), modifier.begin(), modifier.end());
  }
  sig.push_back(ret);
  sig.insert(sig.end(), params.begin(), params.end());
  return sig;
}

std::vector<uint8_t> static_method_signature(uint8_t ret, const std::vector<uint8_t>& params) {
  std::vector<uint8_t> sig;
  sig.push_back(kCallConvDefault);
  write_compressed(&sig, static_cast<uint32_t>(params.size()));
  sig.push_back(ret);
  sig.insert(sig.end(), params.begin(), params.end());
  return sig;
}

}  // namespace il
}  // namespace clrscope
