// `ductile-cli docs parameters` and `docs telemetry` (docs/cli.md): print ParameterDocs() or TelemetryDocs(), or write
// them into a docs file (the parameters' table lines; the telemetry table's block).
#include "docs_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "atomic_file.h"
#include "ductile/parameters.h"
#include "ductile/telemetry.h"
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

// Writes `text` over `path` atomically; prints why not and returns false when it cannot.
bool WriteFile(const std::string& path, const std::string& text) {
  try {
    AtomicFile file(path);
    file.stream() << text;
    file.Commit();
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return false;
  }
  return true;
}

// The file --check or --update names, read into `text`; with neither, prints `table()` instead. Returns the exit code
// to end with, or -1 to go on with `path` and `text`.
template <typename Table>
int ReadDocsFile(const DocsOptions& options, Table table, std::string& path, std::string& text) {
  path = options.update_file.empty() ? options.check_file : options.update_file;
  if (path.empty()) {
    std::cout << table();
    return kExitOk;
  }
  if (!ReadFile(path, text)) {
    std::cerr << "cannot read '" << path << "'\n";
    return kExitBadInput;
  }
  return -1;
}

}  // namespace

int DocsParameters(const DocsOptions& options) {
  std::string path, text;
  if (const int done = ReadDocsFile(options, ParameterDocs, path, text); done >= 0) return done;
  const ParameterDocsUpdate update = UpdateParameterDocs(text);
  for (const std::string& problem : update.problems) std::cerr << path << ": " << problem << '\n';
  if (!options.check_file.empty()) {
    for (const int line : update.changed)
      std::cerr << path << ':' << line << ": differs from the parameter table (ductile-cli docs parameters --update "
                << path << ")\n";
    return update.changed.empty() && update.problems.empty() ? kExitOk : kExitFailure;
  }
  if (!update.changed.empty() && !WriteFile(path, update.text)) return kExitBadInput;
  const std::size_t n = update.changed.size();
  std::cout << path << ": " << n << (n == 1 ? " line" : " lines") << " written from the parameter table";
  if (!update.added.empty()) std::cout << " (" << update.added.size() << " of them new)";
  std::cout << '\n';
  return update.problems.empty() ? kExitOk : kExitFailure;
}

int DocsTelemetry(const DocsOptions& options) {
  std::string path, text;
  if (const int done = ReadDocsFile(options, TelemetryDocs, path, text); done >= 0) return done;
  const TelemetryDocsUpdate update = UpdateTelemetryDocs(text);
  if (!update.problem.empty()) {
    std::cerr << path << ": " << update.problem << '\n';
    return kExitFailure;
  }
  if (!update.changed) {
    std::cout << path << ": the telemetry table is the engine's\n";
    return kExitOk;
  }
  if (!options.check_file.empty()) {
    std::cerr << path << ": the telemetry table differs from the engine's (ductile-cli docs telemetry --update " << path
              << ")\n";
    return kExitFailure;
  }
  if (!WriteFile(path, update.text)) return kExitBadInput;
  std::cout << path << ": telemetry table written\n";
  return kExitOk;
}

}  // namespace ductile::cli
