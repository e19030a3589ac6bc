//===- ByteSizeTest.cpp - unit tests of byte budgets ----------------------===//

#include "remat/Support/ByteSize.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

int64_t bytesOf(llvm::StringRef text) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse(text, error);
  EXPECT_TRUE(size.has_value()) << error;
  if (!size)
    return -1;
  std::optional<int64_t> bytes = size->resolve(1000, error);
  EXPECT_TRUE(bytes.has_value()) << error;
  return bytes.value_or(-1);
}

/// The error of resolving `text` (which parses) against `reference`.
std::string resolveErrorOf(llvm::StringRef text, int64_t reference) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse(text, error);
  EXPECT_TRUE(size.has_value()) << error;
  if (!size)
    return "";
  EXPECT_FALSE(size->resolve(reference, error).has_value()) << text.str();
  return error;
}

std::string errorOf(llvm::StringRef text) {
  std::string error;
  EXPECT_FALSE(ByteSize::parse(text, error).has_value()) << text.str();
  return error;
}

TEST(ByteSize, DecimalAndBinaryUnits) {
  EXPECT_EQ(bytesOf("2.5GB"), 2500000000);
  EXPECT_EQ(bytesOf("2500MB"), 2500000000);
  EXPECT_EQ(bytesOf("2.5GiB"), 2684354560);
  EXPECT_EQ(bytesOf("512MiB"), 536870912);
  EXPECT_EQ(bytesOf("12GiB"), 12884901888);
  EXPECT_EQ(bytesOf("4KB"), 4000);
  EXPECT_EQ(bytesOf("4KiB"), 4096);
  EXPECT_EQ(bytesOf("123456"), 123456);
  EXPECT_EQ(bytesOf("123456B"), 123456);
  EXPECT_EQ(bytesOf(" 1 TB "), 1000000000000);
}

TEST(ByteSize, PercentOfTheReferencePeak) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse("80%", error);
  ASSERT_TRUE(size);
  EXPECT_TRUE(size->isPercent());
  EXPECT_EQ(size->resolve(1000, error), 800);
  EXPECT_EQ(size->resolve(63221760, error), 50577408);
}

TEST(ByteSize, ExactWholeBytes) {
  // Computed from the decimal digits, not in floating point.
  EXPECT_EQ(bytesOf("1.1KB"), 1100);
  EXPECT_EQ(bytesOf("0.1GB"), 100000000);
  EXPECT_EQ(bytesOf("0.5KiB"), 512);
  EXPECT_EQ(bytesOf("1.000B"), 1);
  EXPECT_EQ(bytesOf("+3B"), 3);
  EXPECT_EQ(bytesOf("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(bytesOf("9000000TB"), 9000000000000000000);
}

TEST(ByteSize, FractionalAndOutOfRangeSizes) {
  EXPECT_NE(errorOf("1.5B").find("'1.5B' is not a whole number of bytes"),
            std::string::npos);
  EXPECT_NE(errorOf("1.0001KB").find("not a whole number of bytes"),
            std::string::npos);
  EXPECT_NE(errorOf("0.3KiB").find("not a whole number of bytes"),
            std::string::npos);
  EXPECT_NE(errorOf("0.0000001B").find("less than one byte"),
            std::string::npos);
  EXPECT_NE(errorOf("9223372036854775808").find("is too large"),
            std::string::npos);
  EXPECT_NE(errorOf("10000000TB").find("is too large"), std::string::npos);
  EXPECT_NE(errorOf("100000000000000000000000000GB").find("is too large"),
            std::string::npos);
  EXPECT_NE(errorOf("nan").find("is not a byte size"), std::string::npos);
  EXPECT_NE(errorOf("inf").find("is not a byte size"), std::string::npos);
  EXPECT_NE(errorOf("-5").find("not a positive byte size"), std::string::npos);
  EXPECT_NE(errorOf("-0.0001%").find("not a positive byte size"),
            std::string::npos);
}

TEST(ByteSize, PercentagesResolveToAtLeastOneByteInRange) {
  EXPECT_EQ(resolveErrorOf("1000000000000000%", 63221760),
            "'1000000000000000%' of 63221760 bytes exceeds the int64 range");
  EXPECT_EQ(resolveErrorOf("0.0000001%", 63221760),
            "'0.0000001%' of 63221760 bytes is less than one byte");
  EXPECT_EQ(resolveErrorOf("50%", 1), "'50%' of 1 bytes is less than one byte");
  EXPECT_EQ(bytesOf("0.1%"), 1);
  // A size in units resolves to itself whatever the reference.
  std::string error;
  EXPECT_EQ(ByteSize::parse("7B", error)->resolve(INT64_MAX, error), 7);
}

TEST(ByteSize, PrintsAsWritten) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse("2.5GB", error);
  ASSERT_TRUE(size);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << *size;
  EXPECT_EQ(printed, "2.5GB");
  EXPECT_FALSE(ByteSize().isSet());
  EXPECT_FALSE(ByteSize::parse("", error)->isSet());
}

TEST(ByteSize, Errors) {
  EXPECT_NE(errorOf("GB").find("is not a byte size"), std::string::npos);
  EXPECT_NE(errorOf("2.5XB").find("unknown unit 'XB'"), std::string::npos);
  EXPECT_NE(errorOf("0GB").find("not a positive byte size"), std::string::npos);
  EXPECT_NE(errorOf("-1GB").find("not a positive byte size"), std::string::npos);
  EXPECT_NE(errorOf("0%").find("not a positive byte size"), std::string::npos);
  EXPECT_NE(errorOf("0.5").find("less than one byte"), std::string::npos);
  EXPECT_NE(errorOf("2.5.1GB").find("is not a byte size"), std::string::npos);
  EXPECT_NE(errorOf("2.5gb").find("unknown unit"), std::string::npos);
}

} // namespace
