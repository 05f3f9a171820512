#include "core/il_body.h"

#include <cstring>

#include "core/il_opcodes.h"

namespace clrscope {
namespace il {
namespace {

constexpr uint32_t kFatHeaderBytes = 12;
constexpr uint8_t kSectEhTable = 0x01;
constexpr uint8_t kSectFatFormat = 0x40;
constexpr uint8_t kSectMoreSects = 0x80;
constexpr uint32_t kSmallClauseBytes = 12;
constexpr uint32_t kFatClauseBytes = 24;

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t le64(const uint8_t* p) { return static_cast<uint64_t>(le32(p)) | (static_cast<uint64_t>(le32(p + 4)) << 32); }

bool fail(std::string* reason, std::string text) {
  if (reason != nullptr) *reason = std::move(text);
  return false;
}

std::string hex(uint32_t v) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string s = "0x";
  bool started = false;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const uint32_t d = (v >> shift) & 0xF;
    if (d != 0 || started || shift < 8) {
      s += kDigits[d];
      started = true;
    }
  }
  return s;
}

uint32_t instruction_size(const Instruction& in) {
  const Operand operand = opcode_info(in.opcode).operand;
  return opcode_size(in.opcode) + operand_size(operand) + (operand == Operand::kSwitch ? 4 * in.switch_count : 0);
}

// Decodes the instruction stream; branch targets stay byte offsets in `byte_targets` (in the
// order branches and switch targets occur) until every instruction's start is known.
bool decode_code(const uint8_t* code, uint32_t size, Body* out, std::vector<uint32_t>* starts, std::string* reason) {
  uint32_t at = 0;
  while (at < size) {
    Instruction in;
    in.original_offset = at;
    uint16_t opcode = code[at];
    uint32_t p = at + 1;
    if (opcode == 0xFE) {
      if (p >= size) return fail(reason, "the code ends inside a two-byte opcode at IL offset " + hex(at));
      opcode = static_cast<uint16_t>(0xFE00 | code[p]);
      ++p;
    }
    const OpcodeInfo& info = opcode_info(opcode);
    if (info.name == nullptr) return fail(reason, "it holds an unknown opcode " + hex(opcode) + " at IL offset " + hex(at));
    in.opcode = opcode;
    const uint32_t operand_bytes = operand_size(info.operand);
    if (size - p < operand_bytes) return fail(reason, "the code ends inside the operand of " + std::string(info.name) + " at IL offset " + hex(at));
    const uint8_t* o = code + p;
    p += operand_bytes;
    switch (info.operand) {
      case Operand::kNone: break;
      case Operand::kU8: in.operand = o[0]; break;
      case Operand::kI8: in.operand = static_cast<int8_t>(o[0]); break;
      case Operand::kU16: in.operand = le16(o); break;
      case Operand::kI32: in.operand = static_cast<int32_t>(le32(o)); break;
      case Operand::kR4:
      case Operand::kToken: in.operand = le32(o); break;
      case Operand::kI64:
      case Operand::kR8: in.operand = static_cast<int64_t>(le64(o)); break;
      // Byte offsets for now; turned into instruction indices once every start is known.
      case Operand::kShortBranch: in.operand = static_cast<int64_t>(p) + static_cast<int8_t>(o[0]); break;
      case Operand::kBranch: in.operand = static_cast<int64_t>(p) + static_cast<int32_t>(le32(o)); break;
      case Operand::kSwitch: {
        const uint32_t count = le32(o);
        if (count > (size - p) / 4) return fail(reason, "the code ends inside the targets of switch at IL offset " + hex(at));
        const uint32_t end = p + 4 * count;
        in.operand = static_cast<int64_t>(out->switch_targets.size());
        in.switch_count = count;
        for (uint32_t k = 0; k < count; ++k) {
          const int64_t target = static_cast<int64_t>(end) + static_cast<int32_t>(le32(code + p + 4 * k));
          out->switch_targets.push_back(static_cast<uint32_t>(target < 0 || target > 0xFFFFFFFFll ? 0xFFFFFFFFu : target));
        }
        p = end;
        break;
      }
    }
    starts->push_back(at);
    out->code.push_back(in);
    at = p;
  }
  return true;
}

// Maps a byte offset to the index of the instruction starting there (code size -> count).
class OffsetIndex {
 public:
  OffsetIndex(const std::vector<uint32_t>& starts, uint32_t size) : index_(size + 1, -1) {
    for (size_t i = 0; i < starts.size(); ++i) index_[starts[i]] = static_cast<int32_t>(i);
    index_[size] = static_cast<int32_t>(starts.size());
  }
  bool find(int64_t offset, uint32_t* out) const {
    if (offset < 0 || offset >= static_cast<int64_t>(index_.size()) || index_[static_cast<size_t>(offset)] < 0) return false;
    *out = static_cast<uint32_t>(index_[static_cast<size_t>(offset)]);
    return true;
  }

 private:
  std::vector<int32_t> index_;
};

bool resolve_branches(Body* out, const OffsetIndex& index, std::string* reason) {
  const uint32_t count = static_cast<uint32_t>(out->code.size());
  for (Instruction& in : out->code) {
    const Operand operand = opcode_info(in.opcode).operand;
    if (operand == Operand::kShortBranch || operand == Operand::kBranch) {
      uint32_t target = 0;
      if (!index.find(in.operand, &target) || target >= count) {
        return fail(reason, std::string(opcode_info(in.opcode).name) + " at IL offset " + hex(in.original_offset) +
                                " jumps to " + hex(static_cast<uint32_t>(in.operand)) + ", which is not the start of an instruction");
      }
      in.operand = target;
    } else if (operand == Operand::kSwitch) {
      for (uint32_t k = 0; k < in.switch_count; ++k) {
        uint32_t& t = out->switch_targets[static_cast<size_t>(in.operand) + k];
        uint32_t target = 0;
        if (!index.find(t, &target) || target >= count) {
          return fail(reason, "switch at IL offset " + hex(in.original_offset) + " jumps to " + hex(t) +
                                  ", which is not the start of an instruction");
        }
        t = target;
      }
    }
  }
  return true;
}

bool parse_clause(uint32_t flags, uint32_t try_off, uint32_t try_len, uint32_t handler_off, uint32_t handler_len,
                  uint32_t extra, const OffsetIndex& index, Clause* c, std::string* reason) {
  if (flags != kClauseCatch && flags != kClauseFilter && flags != kClauseFinally && flags != kClauseFault) {
    return fail(reason, "it has an exception clause of unknown kind " + hex(flags));
  }
  c->kind = flags;
  const std::string where = " of the exception clause at try " + hex(try_off) + " does not fall on an instruction";
  if (!index.find(try_off, &c->try_begin) || !index.find(static_cast<int64_t>(try_off) + try_len, &c->try_end)) {
    return fail(reason, "the protected range" + where);
  }
  if (!index.find(handler_off, &c->handler_begin) ||
      !index.find(static_cast<int64_t>(handler_off) + handler_len, &c->handler_end)) {
    return fail(reason, "the handler" + where);
  }
  if (c->try_begin >= c->try_end || c->handler_begin >= c->handler_end) {
    return fail(reason, "the exception clause at try " + hex(try_off) + " has an empty range");
  }
  c->class_token_or_filter = extra;
  if (flags == kClauseFilter && !index.find(extra, &c->class_token_or_filter)) return fail(reason, "the filter" + where);
  return true;
}

bool parse_sections(const uint8_t* data, size_t size, size_t at, const OffsetIndex& index, Body* out, std::string* reason) {
  for (;;) {
    at = (at + 3) & ~static_cast<size_t>(3);
    if (at + 4 > size) return fail(reason, "the header announces more sections than the body holds");
    const uint8_t kind = data[at];
    if ((kind & kSectEhTable) == 0 || (kind & ~(kSectEhTable | kSectFatFormat | kSectMoreSects)) != 0) {
      return fail(reason, "it has an extra data section of unknown kind " + hex(kind));
    }
    const bool fat = (kind & kSectFatFormat) != 0;
    const uint32_t data_size = fat ? (data[at + 1] | (data[at + 2] << 8) | (data[at + 3] << 16)) : data[at + 1];
    if (data_size < 4 || at + data_size > size) return fail(reason, "an exception section runs past the end of the body");
    const uint32_t clause_bytes = fat ? kFatClauseBytes : kSmallClauseBytes;
    const uint32_t count = (data_size - 4) / clause_bytes;
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* c = data + at + 4 + i * clause_bytes;
      Clause clause;
      const bool ok = fat ? parse_clause(le32(c), le32(c + 4), le32(c + 8), le32(c + 12), le32(c + 16), le32(c + 20), index, &clause, reason)
                          : parse_clause(le16(c), le16(c + 2), c[4], le16(c + 5), c[7], le32(c + 8), index, &clause, reason);
      if (!ok) return false;
      out->clauses.push_back(clause);
    }
    at += data_size;
    if ((kind & kSectMoreSects) == 0) return true;
  }
}

void put16(std::vector<uint8_t>* out, uint32_t v) {
  out->push_back(static_cast<uint8_t>(v));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
void put32(std::vector<uint8_t>* out, uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}
void put64(std::vector<uint8_t>* out, uint64_t v) {
  put32(out, static_cast<uint32_t>(v));
  put32(out, static_cast<uint32_t>(v >> 32));
}

bool is_short_branch(uint16_t opcode) { return opcode_info(opcode).operand == Operand::kShortBranch; }

}  // namespace

bool parse_body(const uint8_t* data, size_t size, Body* out, std::string* reason) {
  *out = Body{};
  if (data == nullptr || size == 0) return fail(reason, "the method has no IL body");
  uint32_t header = 0, code_size = 0;
  bool more_sects = false;
  switch (data[0] & 0x3) {
    case kTinyFormat:
      out->tiny = true;
      header = 1;
      code_size = data[0] >> 2;
      out->max_stack = 8;
      break;
    case kFatFormat: {
      if (size < kFatHeaderBytes) return fail(reason, "the body is shorter than its fat header");
      const uint16_t flags_size = le16(data);
      if ((flags_size >> 12) != kFatHeaderBytes / 4) return fail(reason, "its fat header has an unknown size of " + std::to_string((flags_size >> 12) * 4) + " bytes");
      header = kFatHeaderBytes;
      more_sects = (flags_size & kMoreSects) != 0;
      out->init_locals = (flags_size & kInitLocals) != 0;
      out->max_stack = le16(data + 2);
      code_size = le32(data + 4);
      out->local_sig_token = le32(data + 8);
      break;
    }
    default:
      return fail(reason, "its header is neither tiny nor fat");
  }
  if (code_size == 0) return fail(reason, "the method has no code");
  if (code_size > size - header) return fail(reason, "the code runs past the end of the body");
  std::vector<uint32_t> starts;
  if (!decode_code(data + header, code_size, out, &starts, reason)) return false;
  const OffsetIndex index(starts, code_size);
  if (!resolve_branches(out, index, reason)) return false;
  if (more_sects && !parse_sections(data, size, header + code_size, index, out, reason)) return false;
  return true;
}

bool encode_body(const Body& body, std::vector<uint8_t>* out, std::vector<OffsetMapping>* mapping, std::string* reason) {
  const size_t n = body.code.size();
  if (n == 0) return fail(reason, "the method has no code");
  std::vector<uint16_t> opcodes(n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = body.code[i];
    opcodes[i] = in.opcode;
    const Operand operand = opcode_info(in.opcode).operand;
    if ((operand == Operand::kShortBranch || operand == Operand::kBranch) && (in.operand < 0 || static_cast<size_t>(in.operand) >= n)) {
      return fail(reason, "a branch points past the last instruction");
    }
    if (operand == Operand::kSwitch) {
      for (uint32_t k = 0; k < in.switch_count; ++k) {
        if (body.switch_targets.at(static_cast<size_t>(in.operand) + k) >= n) return fail(reason, "a switch points past the last instruction");
      }
    }
  }
  for (const Clause& c : body.clauses) {
    if (c.try_end > n || c.handler_end > n || c.try_begin >= c.try_end || c.handler_begin >= c.handler_end ||
        (c.kind == kClauseFilter && c.class_token_or_filter >= n)) {
      return fail(reason, "an exception clause has bounds outside the code");
    }
  }
  // Lay out, widen the short branches that do not reach, and again until nothing changes: a
  // widened branch can only push others further apart, so this ends.
  std::vector<uint32_t> offsets(n + 1);
  for (;;) {
    uint32_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = at;
      Instruction probe = body.code[i];
      probe.opcode = opcodes[i];
      at += instruction_size(probe);
    }
    offsets[n] = at;
    bool widened = false;
    for (size_t i = 0; i < n; ++i) {
      if (!is_short_branch(opcodes[i])) continue;
      const int64_t disp = static_cast<int64_t>(offsets[static_cast<size_t>(body.code[i].operand)]) - offsets[i + 1];
      if (disp < -128 || disp > 127) {
        opcodes[i] = long_branch_form(opcodes[i]);
        widened = true;
      }
    }
    if (!widened) break;
  }
  const uint32_t code_size = offsets[n];
  out->clear();
  const bool tiny = body.tiny && code_size < 64 && body.max_stack <= 8 && body.local_sig_token == 0 &&
                    body.clauses.empty() && !body.init_locals;
  if (tiny) {
    out->push_back(static_cast<uint8_t>((code_size << 2) | kTinyFormat));
  } else {
    uint16_t flags = kFatFormat | ((kFatHeaderBytes / 4) << 12);
    if (!body.clauses.empty()) flags |= kMoreSects;
    if (body.init_locals) flags |= kInitLocals;
    put16(out, flags);
    put16(out, body.max_stack);
    put32(out, code_size);
    put32(out, body.local_sig_token);
  }
  const size_t code_start = out->size();
  if (mapping != nullptr) mapping->clear();
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = body.code[i];
    const uint16_t opcode = opcodes[i];
    if (mapping != nullptr && in.original_offset != Instruction::kSynthetic) mapping->push_back({in.original_offset, offsets[i]});
    if (opcode >= 0xFE00) out->push_back(0xFE);
    out->push_back(static_cast<uint8_t>(opcode));
    const Operand operand = opcode_info(opcode).operand;
    const uint32_t next = offsets[i + 1];
    switch (operand) {
      case Operand::kNone: break;
      case Operand::kU8:
      case Operand::kI8: out->push_back(static_cast<uint8_t>(in.operand)); break;
      case Operand::kU16: put16(out, static_cast<uint32_t>(in.operand)); break;
      case Operand::kI32:
      case Operand::kR4:
      case Operand::kToken: put32(out, static_cast<uint32_t>(in.operand)); break;
      case Operand::kI64:
      case Operand::kR8: put64(out, static_cast<uint64_t>(in.operand)); break;
      case Operand::kShortBranch:
        out->push_back(static_cast<uint8_t>(static_cast<int8_t>(offsets[static_cast<size_t>(in.operand)] - static_cast<int64_t>(next))));
        break;
      case Operand::kBranch:
        put32(out, static_cast<uint32_t>(static_cast<int32_t>(offsets[static_cast<size_t>(in.operand)] - static_cast<int64_t>(next))));
        break;
      case Operand::kSwitch:
        put32(out, in.switch_count);
        for (uint32_t k = 0; k < in.switch_count; ++k) {
          const uint32_t target = body.switch_targets[static_cast<size_t>(in.operand) + k];
          put32(out, static_cast<uint32_t>(static_cast<int32_t>(offsets[target] - static_cast<int64_t>(next))));
        }
        break;
    }
  }
  if (out->size() - code_start != code_size) return fail(reason, "the encoder's layout disagreed with its output");
  if (body.clauses.empty()) return true;
  while (out->size() % 4 != 0) out->push_back(0);
  bool small = body.clauses.size() * kSmallClauseBytes + 4 <= 0xFF;
  for (const Clause& c : body.clauses) {
    const uint32_t try_len = offsets[c.try_end] - offsets[c.try_begin];
    const uint32_t handler_len = offsets[c.handler_end] - offsets[c.handler_begin];
    if (offsets[c.try_begin] > 0xFFFF || try_len > 0xFF || offsets[c.handler_begin] > 0xFFFF || handler_len > 0xFF) small = false;
  }
  const uint32_t clause_bytes = small ? kSmallClauseBytes : kFatClauseBytes;
  const uint32_t data_size = 4 + clause_bytes * static_cast<uint32_t>(body.clauses.size());
  if (data_size > 0xFFFFFF) return fail(reason, "the method has too many exception clauses");
  out->push_back(static_cast<uint8_t>(kSectEhTable | (small ? 0 : kSectFatFormat)));
  if (small) {
    out->push_back(static_cast<uint8_t>(data_size));
    put16(out, 0);
  } else {
    out->push_back(static_cast<uint8_t>(data_size));
    out->push_back(static_cast<uint8_t>(data_size >> 8));
    out->push_back(static_cast<uint8_t>(data_size >> 16));
  }
  for (const Clause& c : body.clauses) {
    const uint32_t try_off = offsets[c.try_begin], try_len = offsets[c.try_end] - try_off;
    const uint32_t handler_off = offsets[c.handler_begin], handler_len = offsets[c.handler_end] - handler_off;
    const uint32_t extra = c.kind == kClauseFilter ? offsets[c.class_token_or_filter] : c.class_token_or_filter;
    if (small) {
      put16(out, c.kind);
      put16(out, try_off);
      out->push_back(static_cast<uint8_t>(try_len));
      put16(out, handler_off);
      out->push_back(static_cast<uint8_t>(handler_len));
      put32(out, extra);
    } else {
      put32(out, c.kind);
      put32(out, try_off);
      put32(out, try_len);
      put32(out, handler_off);
      put32(out, handler_len);
      put32(out, extra);
    }
  }
  return true;
}

}  // namespace il
}  // namespace clrscope
