// The --stats file of `ductile-cli run`: one JSON object (keys in docs/cli.md, "Statistics JSON").
#pragma once

#include <ostream>
#include <string>

#include "ductile/simulator.h"
#include "run_result.h"

namespace ductile::cli {

/// Writes the statistics of a run of `scene` that ended in `sim`'s current state.
void WriteStatsJson(const std::string& scene, const Simulator& sim, const RunResult& run, std::ostream& out);

}  // namespace ductile::cli
