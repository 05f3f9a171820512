#pragma once
// Signature blobs (ECMA-335 Partition II §23.2) as far as instrumenting a method needs them:
// finding a method's return type, appending locals to a local variable signature, and building
// the stand-alone signature of an unmanaged call site.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clrscope {
namespace il {

// ECMA-335 compressed unsigned integer; false when it does not fit in [*p, end).
bool read_compressed(const uint8_t** p, const uint8_t* end, uint32_t* out);
// Appends v (at most 0x1FFFFFFF) in compressed form.
void write_compressed(std::vector<uint8_t>* out, uint32_t v);
// A TypeDef, TypeRef or TypeSpec token as a TypeDefOrRefOrSpecEncoded value.
bool encode_type_token(uint32_t token, std::vector<uint8_t>* out);

// Steps over one Type (with its custom modifiers, BYREF or PINNED prefix). False on anything
// malformed or on the runtime's internal element types, which never appear in metadata.
bool skip_type(const uint8_t** p, const uint8_t* end);

// The return type of a method signature (MethodDefSig), as the bytes of its RetType; empty
// when the method returns void. False with a sentence when the blob is malformed.
bool return_type(const uint8_t* sig, size_t size, std::vector<uint8_t>* out, std::string* reason);

// A local variable signature (LocalVarSig) with `extra` types appended; `sig` may be empty (a
// method without locals). *old_count is how many locals the method had: the first appended
// local gets that index.
bool extend_locals(const uint8_t* sig, size_t size, const std::vector<std::vector<uint8_t>>& extra,
                   std::vector<uint8_t>* out, uint32_t* old_count, std::string* reason);

// The call-site signature of an unmanaged function taking `params` (element types, e.g. I4,
// I8) and returning `ret` (ELEMENT_TYPE_VOID or a primitive), for calli. With a non-zero
// `suppress_gc_transition_type` (a TypeRef or TypeDef of
// System.Runtime.CompilerServices.CallConvSuppressGCTransition) the calling convention is the
// modopt-encoded unmanaged one with that modifier; otherwise plain unmanaged cdecl.
std::vector<uint8_t> unmanaged_call_signature(uint8_t ret, const std::vector<uint8_t>& params,
                                              uint32_t suppress_gc_transition_type);

// The MethodDefSig of a static method with these primitive parameters and return type (for a
// P/Invoke method defined through metadata).
std::vector<uint8_t> static_method_signature(uint8_t ret, const std::vector<uint8_t>& params);

// Element types this file writes.
enum ElementType : uint8_t {
  kElementVoid = 0x01,
  kElementI4 = 0x08,
  kElementI8 = 0x0A,
  kElementI = 0x18,
  kElementObject = 0x1C,
  kElementPinned = 0x45,
};

}  // namespace il
}  // namespace clrscope
