//===- ToolMainTest.cpp - unit tests of the tools' edge -------------------===//

#include "remat/Support/ToolMain.h"
#include "remat/Support/FileName.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

TEST(ToolMain, ReturnsTheBodysStatus) {
  EXPECT_EQ(runToolMain("tool", [] { return 0; }), 0);
  EXPECT_EQ(runToolMain("tool", [] { return 3; }), 3);
}

TEST(ToolMain, MessagesDropLibTorchsBacktrace) {
  EXPECT_EQ(getExceptionMessage("value cannot be converted\nException raised "
                                "from checked_convert at c10/util/x.h:1 "
                                "(most recent call first):\nframe #0: ..."),
            "value cannot be converted");
  EXPECT_EQ(getExceptionMessage("two\nlines \n"), "two\nlines");
}

TEST(FileName, OnlyOneComponentIsPlain) {
  EXPECT_EQ(whyNotPlainFileName("fc.weight"), "");
  EXPECT_EQ(whyNotPlainFileName("..x"), "");
  EXPECT_NE(whyNotPlainFileName(""), "");
  EXPECT_NE(whyNotPlainFileName(".."), "");
  EXPECT_NE(whyNotPlainFileName("a/b"), "");
  EXPECT_NE(whyNotPlainFileName("a\\b"), "");
  EXPECT_NE(whyNotPlainFileName(llvm::StringRef("a\0b", 3)), "");
}

} // namespace
