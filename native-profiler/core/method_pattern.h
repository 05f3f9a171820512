#pragma once
// Which methods to measure, as a developer names them: `Namespace.Type.Method`, every method of
// a type with `Namespace.Type.*`, nested types joined with `+` (`Ns.Outer+Inner.Method`),
// constructors as `Ns.Type..ctor`. A frame name from a flame graph is a pattern too: generic
// arguments (`Ns.Cache<System.Int32>.Get<System.String>`) are dropped, since one measurement
// covers every instantiation of a method. Overloads share a name and are all matched.
#include <string>

namespace clrscope {

struct MethodPattern {
  std::string type;    // "Ns.Outer+Inner", without generic arity unless the pattern spelled it
  std::string method;  // "Get", ".ctor"; empty with any_method
  bool any_method = false;
};

// False with a sentence in *reason when the text is not a pattern.
bool parse_method_pattern(const std::string& text, MethodPattern* out, std::string* reason);

// `type_name` is the metadata's full name of a type: "Ns.Name`1" for a top-level type, the
// enclosing type's full name + "+" + "Inner`2" for a nested one. Generic arity ("`1") is
// ignored unless the pattern has a backtick of its own.
bool pattern_matches_type(const MethodPattern& p, const std::string& type_name);
bool pattern_matches_method(const MethodPattern& p, const std::string& method_name);

// A metadata type name without its generic arity, part by part ("Ns.A`1+B`2" -> "Ns.A+B").
std::string without_arity(const std::string& type_name);

}  // namespace clrscope
