//===- ByteSizeTest.cpp - unit tests of byte budgets ----------------------===//

#include "remat/Support/ByteSize.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

int64_t bytesOf(llvm::StringRef text) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse(text, error);
  EXPECT_TRUE(size.has_value()) << error;
  return size ? size->resolve(1000) : -1;
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
  EXPECT_EQ(size->resolve(1000), 800);
  EXPECT_EQ(size->resolve(63221760), 50577408);
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
