#include "core/il_signature.h"

#include <gtest/gtest.h>

namespace clrscope {
namespace il {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes ret_of(const Bytes& sig) {
  Bytes out;
  std::string reason;
  EXPECT_TRUE(return_type(sig.data(), sig.size(), &out, &reason)) << reason;
  return out;
}

TEST(IlSignature, CompressedIntegersFollowPartitionII) {
  const std::pair<uint32_t, Bytes> cases[] = {
      {0x03, {0x03}},         {0x7F, {0x7F}},
      {0x80, {0x80, 0x80}},   {0x2E57, {0xAE, 0x57}},
      {0x3FFF, {0xBF, 0xFF}}, {0x4000, {0xC0, 0x00, 0x40, 0x00}},
      {0x1FFFFFFF, {0xDF, 0xFF, 0xFF, 0xFF}},
  };
  for (const auto& c : cases) {
    Bytes out;
    write_compressed(&out, c.first);
    EXPECT_EQ(out, c.second) << c.first;
    const uint8_t* p = out.data();
    uint32_t back = 0;
    ASSERT_TRUE(read_compressed(&p, out.data() + out.size(), &back));
    EXPECT_EQ(back, c.first);
    EXPECT_EQ(p, out.data() + out.size());
  }
  const Bytes truncated = {0xC0, 0x00};
  const uint8_t* p = truncated.data();
  uint32_t v = 0;
  EXPECT_FALSE(read_compressed(&p, truncated.data() + truncated.size(), &v));
}

TEST(IlSignature, FindsTheReturnType) {
  EXPECT_EQ(ret_of({0x20, 0x02, 0x08, 0x08, 0x0E}), (Bytes{0x08}));          // instance int32 (int32, string)
  EXPECT_EQ(ret_of({0x00, 0x01, 0x01, 0x10, 0x08}), Bytes{});                // static void (ref int32)
  EXPECT_EQ(ret_of({0x30, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00}), (Bytes{0x1E, 0x00}));  // !!0 M<T>(!!0)
  EXPECT_EQ(ret_of({0x00, 0x00, 0x10, 0x08}), (Bytes{0x10, 0x08}));          // ref int32
  EXPECT_EQ(ret_of({0x00, 0x00, 0x15, 0x12, 0x49, 0x02, 0x08, 0x0E}),        // class G<int32, string>
            (Bytes{0x15, 0x12, 0x49, 0x02, 0x08, 0x0E}));
  EXPECT_EQ(ret_of({0x00, 0x00, 0x1F, 0x49, 0x10, 0x08}), (Bytes{0x1F, 0x49, 0x10, 0x08}));  // modreq(In) ref int32
  EXPECT_EQ(ret_of({0x00, 0x00, 0x14, 0x08, 0x02, 0x01, 0x05, 0x01, 0x7E}),  // int32[0...4, ...] with a bound of -1
            (Bytes{0x14, 0x08, 0x02, 0x01, 0x05, 0x01, 0x7E}));
  EXPECT_EQ(ret_of({0x00, 0x00, 0x1B, 0x00, 0x01, 0x08, 0x0A}), (Bytes{0x1B, 0x00, 0x01, 0x08, 0x0A}));  // method int32 *(int64)
  EXPECT_EQ(ret_of({0x00, 0x00, 0x1D, 0x0F, 0x01}), (Bytes{0x1D, 0x0F, 0x01}));  // void*[]
  EXPECT_EQ(ret_of({0x00, 0x00, 0x11, 0x81, 0x02}), (Bytes{0x11, 0x81, 0x02}));  // a value type, 2-byte token
  Bytes out;
  std::string reason;
  const Bytes internal = {0x00, 0x00, 0x21, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_FALSE(return_type(internal.data(), internal.size(), &out, &reason));
  EXPECT_EQ(reason, "its return type is not one the rewriter can read");
  const Bytes cut = {0x00, 0x00, 0x15, 0x12};
  EXPECT_FALSE(return_type(cut.data(), cut.size(), &out, &reason));
}

TEST(IlSignature, AppendsLocals) {
  Bytes out;
  uint32_t old_count = 99;
  std::string reason;
  ASSERT_TRUE(extend_locals(nullptr, 0, {{0x0A}, {0x08}}, &out, &old_count, &reason)) << reason;
  EXPECT_EQ(out, (Bytes{0x07, 0x02, 0x0A, 0x08}));
  EXPECT_EQ(old_count, 0u);
  const Bytes two = {0x07, 0x02, 0x45, 0x10, 0x08, 0x16};  // pinned ref int32, typedref
  ASSERT_TRUE(extend_locals(two.data(), two.size(), {{0x0A}, {0x15, 0x12, 0x49, 0x01, 0x0E}}, &out, &old_count, &reason));
  EXPECT_EQ(out, (Bytes{0x07, 0x04, 0x45, 0x10, 0x08, 0x16, 0x0A, 0x15, 0x12, 0x49, 0x01, 0x0E}));
  EXPECT_EQ(old_count, 2u);
  // 127 locals: the count grows from one byte to two.
  Bytes many = {0x07, 0x7F};
  for (int i = 0; i < 127; ++i) many.push_back(0x08);
  ASSERT_TRUE(extend_locals(many.data(), many.size(), {{0x0A}}, &out, &old_count, &reason));
  EXPECT_EQ(out.size(), many.size() + 2);
  EXPECT_EQ(out[1], 0x80);
  EXPECT_EQ(out[2], 0x80);
  EXPECT_EQ(old_count, 127u);
  const Bytes trailing = {0x07, 0x01, 0x08, 0x08};
  EXPECT_FALSE(extend_locals(trailing.data(), trailing.size(), {{0x0A}}, &out, &old_count, &reason));
  EXPECT_EQ(reason, "its locals signature has bytes after its last local");
  const Bytes not_locals = {0x06, 0x08};
  EXPECT_FALSE(extend_locals(not_locals.data(), not_locals.size(), {{0x0A}}, &out, &old_count, &reason));
  EXPECT_EQ(reason, "its locals signature is malformed");
}

TEST(IlSignature, BuildsUnmanagedCallSites) {
  // TypeRef row 5 encodes as (5 << 2) | 1.
  EXPECT_EQ(unmanaged_call_signature(kElementI8, {}, 0x01000005), (Bytes{0x09, 0x00, 0x20, 0x15, 0x0A}));
  EXPECT_EQ(unmanaged_call_signature(kElementVoid, {kElementI4, kElementI8}, 0x01000005),
            (Bytes{0x09, 0x02, 0x20, 0x15, 0x01, 0x08, 0x0A}));
  EXPECT_EQ(unmanaged_call_signature(kElementI8, {}, 0), (Bytes{0x01, 0x00, 0x0A}));
  // A TypeDef (inside System.Private.CoreLib itself), row 0x123: (0x123 << 2) | 0 = 0x48C.
  EXPECT_EQ(unmanaged_call_signature(kElementI8, {}, 0x02000123), (Bytes{0x09, 0x00, 0x20, 0x84, 0x8C, 0x0A}));
  EXPECT_EQ(static_method_signature(kElementVoid, {kElementI4, kElementI8}), (Bytes{0x00, 0x02, 0x01, 0x08, 0x0A}));
}

}  // namespace
}  // namespace il
}  // namespace clrscope
