//===- OutputFileTest.cpp - unit tests of files written whole -------------===//
//
// Each test works in a fresh directory and checks, besides the destination,
// that no temporary is left beside it: the directory's names after the run.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/OutputFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
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
  writeText(at("weights/.remat-output"), "marker");
  std::string error;
  FailureOr<OutputDirectory> dir =
      OutputDirectory::create(at("weights"), error);
  ASSERT_TRUE(succeeded(dir)) << error;
  writeText((dir->getTemporaryPath() + "/w.npy").str(), "new");
  EXPECT_EQ(names(at("weights")), (Names{".remat-output", "stale.npy"}));
  ASSERT_TRUE(succeeded(dir->commit(error))) << error;
  EXPECT_EQ(names(at("weights")), (Names{".remat-output", "w.npy"}));
  EXPECT_EQ(names(), Names{"weights"});

  FailureOr<OutputDirectory> fresh = OutputDirectory::create(at("new"), error);
  ASSERT_TRUE(succeeded(fresh)) << error;
  ASSERT_TRUE(succeeded(fresh->commit(error))) << error;
  EXPECT_TRUE(fs::is_directory(at("new")));
  EXPECT_EQ(names(at("new")), Names{".remat-output"});
}

TEST_F(OutputFileTest, DirectoryWithATrailingSlash) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  std::string error;
  FailureOr<OutputDirectory> dir =
      OutputDirectory::create(at("weights") + "/", error);
  ASSERT_TRUE(succeeded(dir)) << error;
  writeText((dir->getTemporaryPath() + "/w.npy").str(), "new");
  ASSERT_TRUE(succeeded(dir->commit(error))) << error;
  EXPECT_EQ(names(at("weights")), (Names{".remat-output", "w.npy"}));
  EXPECT_EQ(names(), Names{"weights"});
}

TEST_F(OutputFileTest, UnmarkedDirectoryIsNeverReplaced) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  writeText(at("weights/precious.txt"), "keep");
  std::string error;
  EXPECT_TRUE(failed(OutputDirectory::create(at("weights"), error)));
  EXPECT_NE(error.find("did not write"), std::string::npos) << error;
  EXPECT_EQ(readText(at("weights/precious.txt")), "keep");
  EXPECT_EQ(names(), Names{"weights"});
}

TEST_F(OutputFileTest, ReplacedDirectoryKeepsItsPermissions) {
  ASSERT_FALSE(fs::create_directory(at("weights")));
  auto mode = static_cast<fs::perms>(0711);
  ASSERT_FALSE(fs::setPermissions(at("weights"), mode));
  std::string error;
  FailureOr<OutputDirectory> dir =
      OutputDirectory::create(at("weights"), error);
  ASSERT_TRUE(succeeded(dir)) << error;
  ASSERT_TRUE(succeeded(dir->commit(error))) << error;
  llvm::ErrorOr<fs::perms> kept = fs::getPermissions(at("weights"));
  ASSERT_TRUE(bool(kept));
  EXPECT_EQ(*kept, mode);
}

/// The error of claiming `later` after `earlier`, "" when it succeeds.
static std::string claimBoth(
    llvm::function_ref<LogicalResult(OutputPaths &, std::string &)> earlier,
    llvm::function_ref<LogicalResult(OutputPaths &, std::string &)> later) {
  OutputPaths paths;
  std::string error;
  if (failed(earlier(paths, error)))
    return "earlier: " + error;
  return succeeded(later(paths, error)) ? "" : error;
}

TEST_F(OutputFileTest, OutputsNeverNameAnInputOrEachOther) {
  writeText(at("model.pt"), "model");
  std::string model = at("model.pt"), out = at("out.mlir");
  auto input = [&](std::string path) {
    return [=](OutputPaths &paths, std::string &error) {
      return paths.claimInput("the model", path, error);
    };
  };
  auto file = [&](llvm::StringRef what, std::string path) {
    return [=](OutputPaths &paths, std::string &error) {
      return paths.claimFile(what, path, error);
    };
  };
  auto directory = [&](std::string path) {
    return [=](OutputPaths &paths, std::string &error) {
      return paths.claimDirectory("--weights", path, error);
    };
  };
  EXPECT_EQ(claimBoth(input(model), file("-o", out)), "");
  EXPECT_NE(claimBoth(input(model), file("-o", model))
                .find("-o '" + model + "' names the same file as the model"),
            std::string::npos);
  // Spelled another way: through `..`, and a new file through its parent.
  std::string dotted = at("sub/../model.pt");
  EXPECT_NE(claimBoth(input(model), file("-o", dotted)), "");
  EXPECT_NE(claimBoth(file("--report", out), file("-o", at("./out.mlir"))), "");
  // A file inside a directory output, either way round.
  EXPECT_NE(claimBoth(directory(at("d")), file("-o", at("d/m.mlir")))
                .find("is inside --weights"),
            std::string::npos);
  EXPECT_NE(claimBoth(input(model), directory(root.str().str())), "");
  EXPECT_EQ(claimBoth(directory(at("d")), file("-o", at("d.mlir"))), "");
  // Standard output once; standard input is no file.
  EXPECT_NE(claimBoth(file("-o", "-"), file("--write-unplanned", "-"))
                .find("both write to standard output"),
            std::string::npos);
  EXPECT_EQ(claimBoth(input("-"), file("-o", "-")), "");
  // Devices are written in place.
  EXPECT_EQ(claimBoth(file("-o", "/dev/null"), file("--report", "/dev/null")),
            "");
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
  writeText(at("weights/.remat-output"), "marker");
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
