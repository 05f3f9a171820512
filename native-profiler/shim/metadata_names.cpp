#include "shim/metadata_names.h"

#include "core/utf16.h"

namespace clrscope {

using namespace clr;

std::string nested_type_name(IMetaDataImport* import, mdTypeDef type, int max_hops, std::string (*part)(std::string)) {
  constexpr ULONG kChars = 1024;
  std::string name;
  for (int hops = 0; import != nullptr && hops < max_hops && !IsNilToken(type); ++hops) {
    WCHAR buf[kChars];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (FAILED(import->GetTypeDefProps(type, buf, kChars, &len, &flags, &extends))) break;
    std::string text = utf16_to_utf8(reinterpret_cast<const char16_t*>(buf), len < kChars ? len : kChars);
    if (part != nullptr) text = part(std::move(text));
    name = name.empty() ? text : text + "+" + name;
    if (!IsTdNested(flags)) break;
    mdTypeDef outer = mdTokenNil;
    if (FAILED(import->GetNestedClassProps(type, &outer))) break;
    type = outer;
  }
  return name;
}

}  // namespace clrscope
