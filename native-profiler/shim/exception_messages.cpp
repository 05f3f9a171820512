#include "shim/exception_messages.h"

#include <cstring>

#include "clr/metadata.h"
#include "core/log.h"

namespace clrscope {

using namespace clr;

namespace {

// Exception classes are a handful of levels deep; the walk gives up well past any real one.
constexpr int kMaxDepth = 32;
// System.Exception declares about a dozen instance fields.
constexpr ULONG kMaxFields = 64;

template <typename T>
T load(uintptr_t at) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(at), sizeof v);
  return v;
}

}  // namespace

bool ExceptionMessages::read(ObjectID thrown, ClassID type, const char16_t** text, uint32_t* length) {
  if (thrown == 0 || type == 0) return false;
  int state = state_.load(std::memory_order_acquire);
  if (state == kUnknown) {
    int expected = kUnknown;
    // One thread learns; one that throws meanwhile records its exception without a message
    // rather than wait inside the runtime's callback.
    if (!state_.compare_exchange_strong(expected, kLearning, std::memory_order_acq_rel)) return false;
    state = learn(thrown, type);
    state_.store(state, std::memory_order_release);
  }
  if (state != kReady || !is_exception(type)) return false;
  const uintptr_t message = load<uintptr_t>(thrown + message_offset_);
  if (message == 0) return false;
  const int32_t n = load<int32_t>(message + length_offset_);
  if (n <= 0) return false;
  *text = reinterpret_cast<const char16_t*>(message + chars_offset_);
  *length = static_cast<uint32_t>(n);
  return true;
}

bool ExceptionMessages::type_name_is(ModuleID module, mdTypeDef type, const char* name) {
  IUnknown* unk = nullptr;
  if (FAILED(info_->GetModuleMetaData(module, ofRead, IID_IMetaDataImport, &unk)) || unk == nullptr) return false;
  IMetaDataImport* md = static_cast<IMetaDataImport*>(unk);
  WCHAR buffer[64];
  ULONG len = 0;
  DWORD flags = 0;
  mdToken extends = 0;
  bool same = false;
  if (SUCCEEDED(md->GetTypeDefProps(type, buffer, 64, &len, &flags, &extends)) && len > 0 && len <= 64) {
    const size_t want = std::strlen(name);
    same = len == want + 1;  // the count includes the NUL
    for (size_t i = 0; same && i < want; ++i) same = buffer[i] == static_cast<WCHAR>(name[i]);
  }
  md->Release();
  return same;
}

ExceptionMessages::State ExceptionMessages::learn(ObjectID thrown, ClassID type) {
  ModuleID module = 0;
  mdTypeDef def = 0;
  ClassID cls = type;
  for (int depth = 0; cls != 0 && depth < kMaxDepth; ++depth) {
    ClassID parent = 0;
    if (FAILED(info_->GetClassIDInfo2(cls, &module, &def, &parent, 0, nullptr, nullptr))) break;
    if (type_name_is(module, def, "System.Exception")) {
      exception_class_ = cls;
      break;
    }
    cls = parent;
  }
  if (exception_class_ == 0) {
    // An object that is no exception (or a class the runtime has not finished loading): the
    // next throw tries again, a few times.
    if (++attempts_ < kMaxAttempts) return kUnknown;
    log_line("exception messages: System.Exception not found among the thrown types' bases; messages are not recorded");
    return kUnavailable;
  }
  IUnknown* unk = nullptr;
  mdFieldDef field = 0;
  if (SUCCEEDED(info_->GetModuleMetaData(module, ofRead, IID_IMetaDataImport, &unk)) && unk != nullptr) {
    IMetaDataImport* md = static_cast<IMetaDataImport*>(unk);
    const WCHAR name[] = {'_', 'm', 'e', 's', 's', 'a', 'g', 'e', 0};
    if (FAILED(md->FindField(def, name, nullptr, 0, &field))) field = 0;
    md->Release();
  }
  // GetClassLayout gives each field's offset from the start of the object, the MethodTable
  // pointer included, for reference types: dotnet/runtime src/coreclr/vm/proftoeeinterfaceimpl.cpp,
  // ProfToEEInterfaceImpl::GetClassLayout, sets ulOffset to FieldDesc::GetOffset() plus
  // Object::GetOffsetOfFirstField() when the type is not a value type. GetStringLayout2's offsets
  // are likewise "within an OBJECTREF of a string" (StringObject::GetStringLengthOffset,
  // GetBufferOffset, same file). So both add to the object's address as the ObjectID gives it.
  COR_FIELD_OFFSET fields[kMaxFields];
  ULONG count = 0;
  ULONG size = 0;
  bool found = false;
  if (field != 0 && SUCCEEDED(info_->GetClassLayout(exception_class_, fields, kMaxFields, &count, &size))) {
    for (ULONG i = 0; i < count && i < kMaxFields; ++i) {
      if (fields[i].ridOfField != field) continue;
      message_offset_ = fields[i].ulOffset;
      found = true;
    }
  }
  ULONG length_offset = 0, chars_offset = 0;
  const bool string_layout = SUCCEEDED(info_->GetStringLayout2(&length_offset, &chars_offset));
  // A reference field lies after the MethodTable pointer, aligned, inside the object's base size.
  if (!found || !string_layout || message_offset_ < sizeof(void*) || message_offset_ % sizeof(void*) != 0 ||
      (size != 0 && message_offset_ + sizeof(void*) > size)) {
    log_line("exception messages: no layout for System.Exception._message (field %s, string layout %s); messages are not recorded",
             found ? "found" : "not found", string_layout ? "known" : "unknown");
    return kUnavailable;
  }
  length_offset_ = length_offset;
  chars_offset_ = chars_offset;
  // The one check an instance allows: what the field refers to is a System.String.
  const uintptr_t message = thrown == 0 ? 0 : load<uintptr_t>(thrown + message_offset_);
  if (message != 0) {
    ClassID string_class = 0;
    ModuleID string_module = 0;
    mdTypeDef string_def = 0;
    if (FAILED(info_->GetClassFromObject(message, &string_class)) ||
        FAILED(info_->GetClassIDInfo2(string_class, &string_module, &string_def, nullptr, 0, nullptr, nullptr)) ||
        !type_name_is(string_module, string_def, "System.String")) {
      log_line("exception messages: System.Exception._message at offset %u does not refer to a string; messages are not recorded",
               static_cast<unsigned>(message_offset_));
      return kUnavailable;
    }
  }
  log_line("exception messages: System.Exception._message at offset %u, string length at %u, characters at %u",
           static_cast<unsigned>(message_offset_), static_cast<unsigned>(length_offset_), static_cast<unsigned>(chars_offset_));
  return kReady;
}

bool ExceptionMessages::is_exception(ClassID type) {
  if (type == 0) return false;
  const uint32_t start = static_cast<uint32_t>((type >> 4) * 0x9E3779B1u) % kKnownSlots;
  for (uint32_t k = 0; k < kKnownSlots; ++k) {
    const uintptr_t v = known_[(start + k) % kKnownSlots].load(std::memory_order_acquire);
    if (v == type) return true;
    if (v == 0) break;
  }
  bool derives = false;
  ClassID cls = type;
  for (int depth = 0; cls != 0 && depth < kMaxDepth; ++depth) {
    if (cls == exception_class_) {
      derives = true;
      break;
    }
    ClassID parent = 0;
    if (FAILED(info_->GetClassIDInfo2(cls, nullptr, nullptr, &parent, 0, nullptr, nullptr))) break;
    cls = parent;
  }
  if (!derives) return false;
  for (uint32_t k = 0; k < kKnownSlots; ++k) {
    std::atomic<uintptr_t>& slot = known_[(start + k) % kKnownSlots];
    uintptr_t expected = 0;
    if (slot.compare_exchange_strong(expected, type, std::memory_order_acq_rel) || expected == type) break;
  }
  return true;
}

}  // namespace clrscope
