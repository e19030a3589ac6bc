//===- OutputFileTest.cpp - unit tests of files written whole -------------===//
//
// Each test works in a fresh directory and checks, besides the destination,
// that no temporary is left beside it: the directory's names after the run.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::remat;
namespace fs = llvm::sys::fs;

namespace {

class OutputFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("remat-output-test", root));
  }
  void TearDown() override { fs::remove_directories(root); }

  std::string at(llvm::StringRef name) const {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

  static void writeText(llvm::StringRef path, llvm::StringRef text) {
    std::error_code code;
    llvm::raw_fd_ostream os(path, code);
    ASSERT_FALSE(code);
    os << text;
  }

  static std::string readText(llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : "<missing>";
  }

  /// The sorted names in `dir` (the test's root by default).
  std::vector<std::string> names(llvm::StringRef dir = "") const {
    std::vector<std::string> result;
    std::error_code code;
    llvm::StringRef where = dir.empty() ? llvm::StringRef(root) : dir;
    for (fs::directory_iterator it(where, code), end; !code && it != end;
         it.increment(code))
      result.push_back(llvm::sys::path::filename(it->path()).str());
    std::sort(result.begin(), result.end());
    return result;
  }

  llvm::SmallString<256> root;
};

using Names = std::vector<std::string>;

TEST_F(OutputFileTest, CommitReplacesTheOldFile) {
  writeText(at("out.txt"), "old");
  std::string error;
  FailureOr<OutputFile> file = OutputFile::create(at("out.txt"), error);
  ASSERT_TRUE(succeeded(file)) << error;
  file->os() << "new";
  file->os().flush();
  // Until the commit the old file is there, the new text beside it.
  EXPECT_EQ(readText(at("out.txt")), "old");
  EXPECT_EQ(names().size(), 2u);
  ASSERT_TRUE(succeeded(file->commit(error))) << error;
  EXPECT_EQ(readText(at("out.txt")), "new");
  EXPECT_EQ(names(), Names{"out.txt"});
}

TEST_F(OutputFileTest, UncommittedLeavesTheOldFileAndNoTemporary) {
  writeText(at("out.txt"), "old");
  std::string error;
  {
    FailureOr<OutputFile> file = OutputFile::create(at("out.txt"), error);
    ASSERT_TRUE(succeeded(file)) << error;
    file->os() << "half";
  }
  EXPECT_EQ(readText(at("out.txt")), "old");
  EXPECT_EQ(names(), Names{"out.txt"});

  FailureOr<OutputFile> file = OutputFile::create(at("new.txt"), error);
  ASSERT_TRUE(succeeded(file)) << error;
  file->discard();
  EXPECT_EQ(names(), Names{"out.txt"});
}

TEST_F(OutputFileTest, UnwritableDestinationsFailAtCreate) {
  std::string error;
  EXPECT_TRUE(failed(OutputFile::create(at("missing/out.txt"), error)));
  EXPECT_NE(error.find("cannot write '"), std::string::npos) << error;
  ASSERT_FALSE(fs::create_directory(at("dir")));
  EXPECT_TRUE(failed(OutputFile::create(at("dir"), error)));
  EXPECT_NE(error.find("it is a directory"), std::string::npos) << error;
  EXPECT_EQ(names(), Names{"dir"});
}

TEST_F(OutputFileTest, SymbolicLinkKeptAndItsFileReplaced) {
  writeText(at("target.txt"), "old");
  ASSERT_FALSE(fs::create_link(at("target.txt"), at("link.txt")));
  std::string error;
  FailureOr<OutputFile> file = OutputFile::create(at("link.txt"), error);
  ASSERT_TRUE(succeeded(file)) << error;
  file->os() << "new";
  ASSERT_TRUE(succeeded(file->commit(error))) << error;
  EXPECT_TRUE(fs::is_symlink_file(at("link.txt")));
  EXPECT_EQ(readText(at("target.txt")), "new");
  EXPECT_EQ(names(), (Names{"link.txt", "target.txt"}));
}

TEST_F(OutputFileTest, PermissionsKept) {
  writeText(at("run.sh"), "old");
  ASSERT_FALSE(fs::setPermissions(at("run.sh"), fs::perms(0750)));
  std::string error;
  FailureOr<OutputFile> file = OutputFile::create(at("run.sh"), error);
  ASSERT_TRUE(succeeded(file)) << error;
  file->os() << "new";
  ASSERT_TRUE(succeeded(file->commit(error))) << error;
  llvm::ErrorOr<fs::perms> perms = fs::getPermissions(at("run.sh"));
  ASSERT_TRUE(bool(perms));
  EXPECT_EQ(*perms, fs::perms(0750));
}

TEST_F(OutputFileTest, DeviceWrittenInPlace) {
  std::string error;
  FailureOr<OutputFile> file = OutputFile::create("/dev/null", error);
  ASSERT_TRUE(succeeded(file)) << error;
  EXPECT_EQ(file->getTemporaryPath(), "/dev/null");
  file->os() << "discarded";
  ASSERT_TRUE(succeeded(file->commit(error))) << error;
  fs::file_status status;
  ASSERT_FALSE(fs::status("/dev/null", status));
  EXPECT_EQ(status.type(), fs::file_type::character_file);
}

TEST_F(OutputFileTest, DirectorySwappedIn) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  writeText(at("weights/stale.npy"), "stale");
  std::string error;
  FailureOr<OutputDirectory> dir =
      OutputDirectory::create(at("weights"), error);
  ASSERT_TRUE(succeeded(dir)) << error;
  writeText((dir->getTemporaryPath() + "/w.npy").str(), "new");
  EXPECT_EQ(names(at("weights")), Names{"stale.npy"});
  ASSERT_TRUE(succeeded(dir->commit(error))) << error;
  EXPECT_EQ(names(at("weights")), Names{"w.npy"});
  EXPECT_EQ(names(), Names{"weights"});

  FailureOr<OutputDirectory> fresh = OutputDirectory::create(at("new"), error);
  ASSERT_TRUE(succeeded(fresh)) << error;
  ASSERT_TRUE(succeeded(fresh->commit(error))) << error;
  EXPECT_TRUE(fs::is_directory(at("new")));
}

TEST_F(OutputFileTest, DirectoryWithATrailingSlash) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  std::string error;
  FailureOr<OutputDirectory> dir =
      OutputDirectory::create(at("weights") + "/", error);
  ASSERT_TRUE(succeeded(dir)) << error;
  writeText((dir->getTemporaryPath() + "/w.npy").str(), "new");
  ASSERT_TRUE(succeeded(dir->commit(error))) << error;
  EXPECT_EQ(names(at("weights")), Names{"w.npy"});
  EXPECT_EQ(names(), Names{"weights"});
}

TEST_F(OutputFileTest, DirectoryOverARegularFileIsAnError) {
  writeText(at("weights"), "a file");
  std::string error;
  EXPECT_TRUE(failed(OutputDirectory::create(at("weights"), error)));
  EXPECT_NE(error.find("exists and is not a directory"), std::string::npos)
      << error;
  EXPECT_EQ(readText(at("weights")), "a file");
  EXPECT_EQ(names(), Names{"weights"});
}

TEST_F(OutputFileTest, UncommittedDirectoryLeavesTheOldOne) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  writeText(at("weights/w.npy"), "old");
  std::string error;
  {
    FailureOr<OutputDirectory> dir =
        OutputDirectory::create(at("weights"), error);
    ASSERT_TRUE(succeeded(dir)) << error;
    writeText((dir->getTemporaryPath() + "/w.npy").str(), "half");
  }
  EXPECT_EQ(readText(at("weights/w.npy")), "old");
  EXPECT_EQ(names(), Names{"weights"});
}

TEST_F(OutputFileTest, GroupCommitsInOrderOrNothing) {
  writeText(at("a.txt"), "old a");
  writeText(at("b.txt"), "old b");
  std::string error;
  {
    OutputGroup group;
    FailureOr<OutputFile *> a = group.addFile(at("a.txt"), error);
    ASSERT_TRUE(succeeded(a)) << error;
    (*a)->os() << "new a";
    // A failure before the commit: nothing changes.
    EXPECT_TRUE(failed(group.addFile(at("missing/b.txt"), error)));
  }
  EXPECT_EQ(readText(at("a.txt")), "old a");
  EXPECT_EQ(names(), (Names{"a.txt", "b.txt"}));

  OutputGroup group;
  FailureOr<OutputDirectory *> dir = group.addDirectory(at("d"), error);
  FailureOr<OutputFile *> a = group.addFile(at("a.txt"), error);
  FailureOr<OutputFile *> b = group.addFile(at("b.txt"), error);
  ASSERT_TRUE(succeeded(dir) && succeeded(a) && succeeded(b)) << error;
  (*a)->os() << "new a";
  (*b)->os() << "new b";
  ASSERT_TRUE(succeeded(group.commit(error))) << error;
  EXPECT_EQ(readText(at("a.txt")), "new a");
  EXPECT_EQ(readText(at("b.txt")), "new b");
  EXPECT_EQ(names(), (Names{"a.txt", "b.txt", "d"}));
}

TEST_F(OutputFileTest, GroupStopsAtTheFirstFailedRename) {
  writeText(at("b.txt"), "old b");
  std::string error;
  OutputGroup group;
  FailureOr<OutputFile *> a = group.addFile(at("a.txt"), error);
  FailureOr<OutputDirectory *> dir = group.addDirectory(at("d"), error);
  FailureOr<OutputFile *> b = group.addFile(at("b.txt"), error);
  ASSERT_TRUE(succeeded(a) && succeeded(dir) && succeeded(b)) << error;
  (*a)->os() << "new a";
  (*b)->os() << "new b";
  // Someone makes `d` a file between the writes and the commit.
  writeText(at("d"), "a file");
  EXPECT_TRUE(failed(group.commit(error)));
  EXPECT_NE(error.find("cannot write '"), std::string::npos) << error;
  // a.txt was committed before; d and b.txt are as they were.
  EXPECT_EQ(readText(at("a.txt")), "new a");
  EXPECT_EQ(readText(at("d")), "a file");
  EXPECT_EQ(readText(at("b.txt")), "old b");
  EXPECT_EQ(names(), (Names{"a.txt", "b.txt", "d"}));
}

} // namespace
