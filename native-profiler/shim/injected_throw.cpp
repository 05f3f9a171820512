#include "shim/injected_throw.h"

#include <string>

#include "core/platform.h"

namespace clrscope {

bool injected_throw(const char* callback) {
  // Read once, on the first callback; leaked so that callbacks during exit still find it.
  static const std::string* names = new std::string("," + platform::env("CLRSCOPE_INJECT_THROW") + ",");
  if (names->size() == 2) return false;
  return names->find("," + std::string(callback) + ",") != std::string::npos;
}

}  // namespace clrscope
