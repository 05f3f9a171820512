#pragma once
// A method body as ECMA-335 lays it out (Partition II §25.4): a tiny or fat header, the
// instruction stream and the exception-handling sections, decoded into a form that can be
// edited and written back. Branch targets and clause bounds are instruction indices, not byte
// offsets, so inserting or growing instructions never breaks them; the encoder lays the
// instructions out again and widens short branches that no longer reach.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clrscope {
namespace il {

struct Instruction {
  uint16_t opcode = 0;
  // The operand: an immediate, a token, the raw bits of a float, or for a branch the index of
  // the target instruction. A switch keeps its targets in Body::switch_targets instead:
  // `operand` is the first of them and `switch_count` how many.
  int64_t operand = 0;
  uint32_t switch_count = 0;
  // Byte offset in the body it was decoded from; kSynthetic for instructions a rewrite added.
  uint32_t original_offset = kSynthetic;
  static constexpr uint32_t kSynthetic = 0xFFFFFFFFu;
};

// Clause kinds (CorExceptionFlag).
enum ClauseKind : uint32_t { kClauseCatch = 0, kClauseFilter = 1, kClauseFinally = 2, kClauseFault = 4 };

// Bounds are instruction indices, `end` one past the last instruction of the range (the
// instruction count for a range that ends the body).
struct Clause {
  uint32_t kind = kClauseCatch;
  uint32_t try_begin = 0, try_end = 0;
  uint32_t handler_begin = 0, handler_end = 0;
  // The caught type's token (kClauseCatch) or the filter's first instruction (kClauseFilter).
  uint32_t class_token_or_filter = 0;
};

// Header flags (CorILMethodFlags).
enum HeaderFlags : uint16_t {
  kTinyFormat = 0x2,
  kFatFormat = 0x3,
  kMoreSects = 0x8,
  kInitLocals = 0x10,
};

struct Body {
  bool tiny = false;
  bool init_locals = false;
  uint16_t max_stack = 8;
  uint32_t local_sig_token = 0;  // a StandAloneSig token, 0 when the method has no locals
  std::vector<Instruction> code;
  std::vector<uint32_t> switch_targets;  // instruction indices
  std::vector<Clause> clauses;           // inner clauses before the ones that enclose them
};

// Decodes a whole method body (header, code, sections) of `size` bytes. Every opcode and
// operand is checked against the body's bounds, every branch and clause bound must fall on an
// instruction. False with one sentence in *reason otherwise.
bool parse_body(const uint8_t* data, size_t size, Body* out, std::string* reason);

// Where each original instruction landed: byte offsets in the body as decoded and as written.
struct OffsetMapping {
  uint32_t old_offset;
  uint32_t new_offset;
};

// Writes a body: tiny when it was tiny and still fits, fat otherwise; exception clauses in a
// small section when they all fit one, otherwise in a fat one. Short branches that no longer
// reach their target become long. False with a sentence when the body cannot be written (a
// branch to an instruction that does not exist).
bool encode_body(const Body& body, std::vector<uint8_t>* out, std::vector<OffsetMapping>* mapping, std::string* reason);

}  // namespace il
}  // namespace clrscope
