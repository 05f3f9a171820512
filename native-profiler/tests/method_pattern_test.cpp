#include "core/method_pattern.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

MethodPattern parse(const std::string& text) {
  MethodPattern p;
  std::string reason;
  EXPECT_TRUE(parse_method_pattern(text, &p, &reason)) << text << ": " << reason;
  return p;
}

TEST(MethodPattern, ReadsTypeAndMethod) {
  MethodPattern p = parse("Measure.Target.A");
  EXPECT_EQ(p.type, "Measure.Target");
  EXPECT_EQ(p.method, "A");
  EXPECT_FALSE(p.any_method);
  p = parse("  Measure.Target.*  ");
  EXPECT_EQ(p.type, "Measure.Target");
  EXPECT_TRUE(p.any_method);
  p = parse("Measure.Outer+Inner..ctor");
  EXPECT_EQ(p.type, "Measure.Outer+Inner");
  EXPECT_EQ(p.method, ".ctor");
  p = parse("Program.Main");
  EXPECT_EQ(p.type, "Program");
  EXPECT_EQ(p.method, "Main");
}

// A flame graph's frame name works as a pattern: its generic arguments are dropped.
TEST(MethodPattern, TakesAFrameName) {
  MethodPattern p = parse("Measure.Cache<System.Collections.Generic.List<System.Int32>>.Get<System.String>");
  EXPECT_EQ(p.type, "Measure.Cache");
  EXPECT_EQ(p.method, "Get");
  p = parse("Measure.Target.B(int, string)");
  EXPECT_EQ(p.method, "B");
}

TEST(MethodPattern, MatchesMetadataNamesWithOrWithoutArity) {
  const MethodPattern p = parse("Measure.Cache.Get");
  EXPECT_TRUE(pattern_matches_type(p, "Measure.Cache`1"));
  EXPECT_TRUE(pattern_matches_type(p, "Measure.Cache"));
  EXPECT_FALSE(pattern_matches_type(p, "Measure.CacheX"));
  EXPECT_FALSE(pattern_matches_type(p, "Other.Measure.Cache"));
  EXPECT_TRUE(pattern_matches_method(p, "Get"));
  EXPECT_FALSE(pattern_matches_method(p, "get"));
  const MethodPattern exact = parse("Measure.Cache`2.*");
  EXPECT_FALSE(pattern_matches_type(exact, "Measure.Cache`1"));
  EXPECT_TRUE(pattern_matches_type(exact, "Measure.Cache`2"));
  EXPECT_TRUE(pattern_matches_method(exact, "Anything"));
  EXPECT_TRUE(pattern_matches_type(parse("A.Outer+Inner.M"), "A.Outer`1+Inner`2"));
  EXPECT_EQ(without_arity("Ns.A`1+B`12"), "Ns.A+B");
}

TEST(MethodPattern, RefusesWhatIsNotAPattern) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "'' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"},
      {"Main", "'Main' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"},
      {"Ns.Type.", "'Ns.Type.' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"},
      {".Main", "'.Main' does not name a type and a method: write Namespace.Type.Method or Namespace.Type.*"},
      {"Ns.*.Run", "'Ns.*.Run' uses * where only the whole method name may be one: Namespace.Type.*"},
      {"Ns.Type.Get*", "'Ns.Type.Get*' uses * where only the whole method name may be one: Namespace.Type.*"},
      {"Ns.List<int.Add", "'Ns.List<int.Add' has generic brackets < > that do not pair up"},
      {"Ns.Ty pe.M", "'Ns.Ty pe.M' has a space inside the name"},
  };
  for (const auto& c : cases) {
    MethodPattern p;
    std::string reason;
    EXPECT_FALSE(parse_method_pattern(c.first, &p, &reason)) << c.first;
    EXPECT_EQ(reason, c.second);
  }
}

}  // namespace
}  // namespace clrscope
