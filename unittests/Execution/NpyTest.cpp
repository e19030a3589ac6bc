//===- NpyTest.cpp - unit tests of the .npy reader ------------------------===//
//
// Headers that claim what the data cannot hold are errors, never reads out
// of bounds or overflowing sizes (inputs from fuzz/corpus/npy).
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/Npy.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

/// A version-1 .npy file with `header` (padded) and `data`.
std::string npy(const std::string &header, const std::string &data) {
  std::string padded = header;
  padded.append((64 - (10 + padded.size() + 1) % 64) % 64, ' ');
  padded += '\n';
  std::string file = "\x93NUMPY";
  file += char(1);
  file += char(0);
  file += char(padded.size() & 0xff);
  file += char(padded.size() >> 8);
  return file + padded + data;
}

std::string errorOf(const std::string &bytes) {
  std::string error;
  EXPECT_FALSE(parseNpy(bytes, "x.npy", error).has_value());
  return error;
}

TEST(Npy, ReadsWhatItsHeaderSays) {
  std::string error;
  std::optional<NpyArray> array = parseNpy(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
          std::string(24, '\0')),
      "x.npy", error);
  ASSERT_TRUE(array.has_value()) << error;
  EXPECT_EQ(array->type, NpyType::F32);
  EXPECT_EQ(array->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array->data.size(), 24u);
}

TEST(Npy, NegativeDimensionsAreMalformed) {
  EXPECT_EQ(errorOf(npy("{'descr': '<i4', 'fortran_order': False, "
                        "'shape': (-1, -1), }",
                        std::string(4, '\0'))),
            "'x.npy' has a malformed header: 'shape' holds something other "
            "than sizes");
}

TEST(Npy, HeaderSpacingAndQuotesAreFree) {
  std::string error;
  std::optional<NpyArray> array =
      parseNpy(npy("{\"descr\":\"<i4\",\"shape\":(3,),\"fortran_order\":False}",
                   std::string(12, '\0')),
               "x.npy", error);
  ASSERT_TRUE(array.has_value()) << error;
  EXPECT_EQ(array->type, NpyType::I32);
  EXPECT_EQ(array->shape, (std::vector<int64_t>{3}));
}

TEST(Npy, FortranOrderIsReorderedIntoCOrder) {
  // The 2x3 matrix [[0, 1, 2], [3, 4, 5]] column by column.
  std::string data = {0, 3, 1, 4, 2, 5};
  std::string error;
  std::optional<NpyArray> array =
      parseNpy(npy("{'descr':'|u1','fortran_order':True,'shape':(2,3)}", data),
               "x.npy", error);
  ASSERT_TRUE(array.has_value()) << error;
  EXPECT_EQ(array->data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Npy, MalformedHeadersAreNamed) {
  EXPECT_EQ(errorOf(npy("{'descr': '<f4', 'shape': (1,), }", "abcd")),
            "'x.npy' has a malformed header: it has no 'fortran_order'");
  EXPECT_EQ(errorOf(npy("{'descr': '<f4', 'fortran_order': 1, 'shape': (1,)}",
                        "abcd")),
            "'x.npy' has a malformed header: 'fortran_order' is neither True "
            "nor False");
  EXPECT_EQ(errorOf(npy("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (1,), 'extra': 1}",
                        "abcd")),
            "'x.npy' has a malformed header: it has the unknown key 'extra'");
}

TEST(Npy, OverflowingShapeIsAnError) {
  EXPECT_EQ(errorOf(npy("{'descr': '<f8', 'fortran_order': False, "
                        "'shape': (4294967296, 4294967296), }",
                        "")),
            "'x.npy' has a shape of more than 2^63 bytes");
}

TEST(Npy, TruncatedVersion2HeaderIsAnError) {
  // Version 2 has a 4-byte header length: 10 bytes do not hold it.
  EXPECT_EQ(errorOf(std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
            "'x.npy' has a truncated header");
}

} // namespace
