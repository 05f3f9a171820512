#include "core/utf16.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace {

TEST(Utf16, ConvertsEveryPlaneAndStopsAtNul) {
  const char16_t s[] = u"A\u00e9\u4e2d\U0001F600\0tail";
  EXPECT_EQ(utf16_to_utf8(s, sizeof s / sizeof s[0]), "A\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
}

TEST(Utf16, ReplacesUnpairedSurrogates) {
  const char16_t s[] = {0xD800, u'x', 0xDC00};
  EXPECT_EQ(utf16_to_utf8(s, 3), "\xEF\xBF\xBDx\xEF\xBF\xBD");
}

TEST(Utf16, RespectsTheUnitCount) {
  const char16_t s[] = u"abcdef";
  EXPECT_EQ(utf16_to_utf8(s, 3), "abc");
  EXPECT_EQ(utf16_to_utf8(nullptr, 3), "");
}

}  // namespace
}  // namespace clrscope
