// `ductile-cli docs parameters` and `ductile-cli docs telemetry`: the engine's parameter table and telemetry channel
// table as the Markdown of docs/scene-format.md and docs/python.md (docs/cli.md).
#pragma once

#include <string>

namespace ductile::cli {

struct DocsOptions {
  std::string check_file;   ///< --check: report what of this file the table would change.
  std::string update_file;  ///< --update: write the table into this file.
};

/// Prints the parameter table's Markdown, or checks or updates a docs file's table lines. Returns the exit code:
/// kExitBadInput for a file that cannot be read or written, kExitFailure when --check finds lines that differ or rows
/// the file lacks.
int DocsParameters(const DocsOptions& options);

/// Prints the telemetry channel table's Markdown, or checks or updates the generated block of a docs file
/// (UpdateTelemetryDocs, ductile/telemetry.h). Exit codes as DocsParameters (a file without the block fails).
int DocsTelemetry(const DocsOptions& options);

}  // namespace ductile::cli
