//===- RematOptions.cpp - the rematerialization options as tool flags -----===//
//
// Binds the one declaration of the options (RematOptions.h) to a tool's
// command line, with external storage in the tool's RematOptions.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/RematOptions.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::remat;
namespace cl = llvm::cl;

RematOptionFlags::RematOptionFlags(RematOptions &storage,
                                   cl::OptionCategory &category,
                                   std::vector<cl::SubCommand *> subcommands,
                                   std::vector<llvm::StringRef> except) {
  RematOptions defaults;
  forEachRematOption(
      [&](auto field, llvm::StringRef name, llvm::StringRef help) {
        if (llvm::is_contained(except, name))
          return;
        using T = std::decay_t<decltype(storage.*field)>;
        helps.push_back(std::make_unique<std::string>(
            withDefaultInHelp(help, defaults.*field)));
        auto flag = std::make_unique<cl::opt<T, /*ExternalStorage=*/true>>(
            name, cl::desc(*helps.back()), cl::location(storage.*field),
            cl::cat(category));
        if (!subcommands.empty()) {
          // Registered at the top level on construction: move it to the
          // subcommands that take it.
          flag->removeArgument();
          for (cl::SubCommand *subcommand : subcommands)
            flag->addSubCommand(*subcommand);
          flag->addArgument();
        }
        flags.push_back(std::move(flag));
      });
}
