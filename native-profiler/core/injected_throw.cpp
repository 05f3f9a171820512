#include "core/injected_throw.h"

#include <string>

#include "core/platform.h"

namespace clrscope {

bool injected_throw(const char* place) {
  // Read once, at the first check; leaked so that checks during exit still find it.
  static const std::string* names = new std::string("," + platform::env("CLRSCOPE_INJECT_THROW") + ",");
  if (names->size() == 2) return false;
  return names->find("," + std::string(place) + ",") != std::string::npos;
}

}  // namespace clrscope
