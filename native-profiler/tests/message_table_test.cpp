#include "core/message_table.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace clrscope {
namespace {

// Stands in for the sampler's STRING definitions: numbers texts from 1 and remembers them.
struct Strings {
  std::vector<std::string> defined;
  MessageTable table{[this](const std::string& text) {
    defined.push_back(text);
    return static_cast<uint32_t>(defined.size());
  }};
  uint32_t intern(const std::u16string& s, uint32_t cap = 256) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    return table.intern(s.data(), n < cap ? n : cap, n);
  }
};

TEST(MessageTable, NamesEachDistinctMessageOnce) {
  Strings s;
  const uint32_t a = s.intern(u"clrscope test");
  const uint32_t b = s.intern(u"key 7");
  EXPECT_NE(a, b);
  EXPECT_EQ(s.intern(u"clrscope test"), a);
  EXPECT_EQ(s.intern(u"key 7"), b);
  EXPECT_EQ(s.defined, (std::vector<std::string>{"clrscope test", "key 7"}));
  EXPECT_EQ(s.table.kept(), 2u);
  EXPECT_EQ(s.table.overflowed(), 0u);
}

TEST(MessageTable, KeepsAtMostItsCapAndCountsTheRestUnderOneString) {
  Strings s;
  std::map<uint32_t, int> ids;
  for (size_t i = 0; i < MessageTable::kMaxMessages; ++i) {
    ++ids[s.intern(u"request " + std::u16string(1, static_cast<char16_t>(u'a' + i % 26)) +
                   std::u16string(1, static_cast<char16_t>(0x4E00 + i)))];
  }
  EXPECT_EQ(ids.size(), MessageTable::kMaxMessages);
  EXPECT_EQ(s.table.kept(), MessageTable::kMaxMessages);
  // Past the cap: new texts share one id, defined once; texts already kept keep theirs.
  const uint32_t over1 = s.intern(u"one more");
  const uint32_t over2 = s.intern(u"and another");
  EXPECT_EQ(over1, over2);
  EXPECT_EQ(s.defined.back(), MessageTable::kOverflowText);
  EXPECT_EQ(s.defined.size(), MessageTable::kMaxMessages + 1);
  EXPECT_EQ(s.table.overflowed(), 2u);
  EXPECT_EQ(s.intern(u"request a\u4E00"), ids.begin()->first);
  EXPECT_EQ(s.table.kept(), MessageTable::kMaxMessages);
  EXPECT_EQ(s.intern(u"one more"), over1);
  EXPECT_EQ(s.table.overflowed(), 3u);
}

TEST(MessageTable, ConvertsUtf16ToUtf8) {
  EXPECT_EQ(message_text(u"caf\u00e9 \u20ac", 6, 6), "caf\xC3\xA9 \xE2\x82\xAC");
  const std::u16string astral = u"\U0001F600!";  // a surrogate pair, then '!'
  EXPECT_EQ(message_text(astral.data(), 3, 3), "\xF0\x9F\x98\x80!");
  const char16_t lone[] = {u'a', 0xDC00, u'b'};
  EXPECT_EQ(message_text(lone, 3, 3), "a\xEF\xBF\xBD" "b");
}

TEST(MessageTable, MarksACutMessageAndNeverSplitsAPair) {
  EXPECT_EQ(message_text(u"abcdef", 3, 6), "abc\xE2\x80\xA6");
  const std::u16string astral = u"ab\U0001F600";
  // Cut between the two halves of the pair: the high half goes with what was cut.
  EXPECT_EQ(message_text(astral.data(), 3, 4), "ab\xE2\x80\xA6");
  // A cut message and the whole one are different texts.
  Strings s;
  const std::u16string long_text(300, u'x');
  const uint32_t cut = s.intern(long_text, 256);
  const uint32_t whole = s.intern(long_text, 300);
  EXPECT_NE(cut, whole);
  EXPECT_EQ(s.defined[cut - 1], std::string(256, 'x') + "\xE2\x80\xA6");
}

}  // namespace
}  // namespace clrscope
