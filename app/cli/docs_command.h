// `ductile-cli docs parameters`: the parameter table as the Markdown of docs/scene-format.md (docs/cli.md).
#pragma once

#include <string>

namespace ductile::cli {

struct DocsOptions {
  std::string check_file;   ///< --check: report the lines of this file that the table would change.
  std::string update_file;  ///< --update: write the table's lines into this file.
};

/// Prints the table's Markdown, or checks or updates a docs file. Returns the exit code: kExitBadInput for a file
/// that cannot be read or written, kExitFailure when --check finds lines that differ or rows the file lacks.
int DocsParameters(const DocsOptions& options);

}  // namespace ductile::cli
