#include "core/method_pattern.h"

#include <cctype>

namespace clrscope {
namespace {

bool fail(std::string* reason, const std::string& text) {
  if (reason != nullptr) *reason = text;
  return false;
}

// Drops generic arguments, <...> at any depth; false when the brackets do not pair up.
bool without_generic_arguments(const std::string& s, std::string* out) {
  out->clear();
  int depth = 0;
  for (char c : s) {
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (--depth < 0) return false;
    } else if (depth == 0) {
      out->push_back(c);
    }
  }
  return depth == 0;
}

}  // namespace

std::string without_arity(const std::string& type_name) {
  std::string out;
  for (size_t i = 0; i < type_name.size(); ++i) {
    if (type_name[i] == '`') {
      while (i + 1 < type_name.size() && std::isdigit(static_cast<unsigned char>(type_name[i + 1]))) ++i;
      continue;
    }
    out.push_back(type_name[i]);
  }
  return out;
}

bool parse_method_pattern(const std::string& text, MethodPattern* out, std::string* reason) {
  *out = MethodPattern{};
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  std::string s;
  if (!without_generic_arguments(text.substr(b, e - b), &s)) {
    return fail(reason, "'" + text + "' has generic brackets < > that do not pair up");
  }
  // A parameter list, as some tools print method names, is not needed to find the method.
  const size_t paren = s.find('(');
  if (paren != std::string::npos && !s.empty() && s.back() == ')') s.resize(paren);
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) return fail(reason, "'" + text + "' has a space inside the name");
  }
  size_t dot = s.rfind('.');
  if (dot != std::string::npos && dot > 0 && s[dot - 1] == '.') --dot;  // Type..ctor: the method is ".ctor"
  if (dot == std::string::npos || dot == 0 || dot + 1 >= s.size()) {
    return fail(reason, "'" + text + "' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*");
  }
  out->type = s.substr(0, dot);
  out->method = s.substr(dot + 1);
  if (out->type.find('*') != std::string::npos || (out->method != "*" && out->method.find('*') != std::string::npos)) {
    return fail(reason, "'" + text + "' uses * where only the whole method name may be one: Namespace.Type.*");
  }
  if (out->method == "*") {
    out->any_method = true;
    out->method.clear();
  }
  return true;
}

bool pattern_matches_type(const MethodPattern& p, const std::string& type_name) {
  if (p.type.find('`') != std::string::npos) return type_name == p.type;
  return without_arity(type_name) == p.type;
}

bool pattern_matches_method(const MethodPattern& p, const std::string& method_name) {
  return p.any_method || method_name == p.method;
}

}  // namespace clrscope
