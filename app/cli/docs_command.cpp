// `ductile-cli docs parameters` (docs/cli.md): prints ParameterDocs(), or runs UpdateParameterDocs over a file.
#include "docs_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "atomic_file.h"
#include "ductile/parameters.h"
#include "run_command.h"

namespace ductile::cli {

namespace {

bool ReadFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return static_cast<bool>(in) || in.eof();
}

}  // namespace

int DocsParameters(const DocsOptions& options) {
  const std::string& path = options.update_file.empty() ? options.check_file : options.update_file;
  if (path.empty()) {
    std::cout << ParameterDocs();
    return kExitOk;
  }
  std::string text;
  if (!ReadFile(path, text)) {
    std::cerr << "cannot read '" << path << "'\n";
    return kExitBadInput;
  }
  const ParameterDocsUpdate update = UpdateParameterDocs(text);
  for (const std::string& problem : update.problems) std::cerr << path << ": " << problem << '\n';
  if (!options.check_file.empty()) {
    for (const int line : update.changed)
      std::cerr << path << ':' << line << ": differs from the parameter table (ductile-cli docs parameters --update "
                << path << ")\n";
    return update.changed.empty() && update.problems.empty() ? kExitOk : kExitFailure;
  }
  if (!update.changed.empty()) {
    try {
      AtomicFile file(path);
      file.stream() << update.text;
      file.Commit();
    } catch (const std::exception& e) {
      std::cerr << e.what() << '\n';
      return kExitBadInput;
    }
  }
  const std::size_t n = update.changed.size();
  std::cout << path << ": " << n << (n == 1 ? " line" : " lines") << " written from the parameter table\n";
  return update.problems.empty() ? kExitOk : kExitFailure;
}

}  // namespace ductile::cli
