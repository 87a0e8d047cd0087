// A run saved half-way and resumed against the same run made in one go, through ductile-cli: what the CLI tests
// check for a few scenes at short durations and the slow test for every shipped scene.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/run_command.h"

namespace ductile::testing {

/// The value of `key` in a --stats JSON file, without quotes; empty when the file or the key is missing.
inline std::string StatsValue(const std::filesystem::path& stats, const std::string& key) {
  std::ifstream in(stats);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size() + 4;
  const std::size_t end = json.find_first_of(",\n", begin);
  std::string value = json.substr(begin, end - begin);
  if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
  return value;
}

/// The three runs of a resume check and what they ended with.
struct ResumeRuns {
  CommandResult first, resumed, straight;  ///< Exit status and messages of each run.
  std::string resumed_hash, straight_hash;
};

/// In `dir`: `run SCENE --duration FIRST --save-state first.state`, then `run SCENE --load-state first.state
/// --duration SECOND` and `run SCENE --duration TOTAL` (TOTAL = FIRST + SECOND, given as text so that it is the
/// same decimal). Each writes NAME.json statistics; `extra` is added to every command line.
inline ResumeRuns RunResumeCheck(const std::filesystem::path& scene, const std::string& first,
                                 const std::string& second, const std::string& total, const std::filesystem::path& dir,
                                 const std::string& extra = "") {
  const std::string run = "run '" + scene.string() + "' --quiet " + extra;
  const std::filesystem::path state = dir / "first.state";
  ResumeRuns runs;
  runs.first = RunCli(run + " --duration " + first + " --save-state '" + state.string() + "' --stats '" +
                      (dir / "first.json").string() + "'");
  runs.resumed = RunCli(run + " --load-state '" + state.string() + "' --duration " + second + " --stats '" +
                        (dir / "resumed.json").string() + "'");
  runs.straight = RunCli(run + " --duration " + total + " --stats '" + (dir / "straight.json").string() + "'");
  runs.resumed_hash = StatsValue(dir / "resumed.json", "state_hash");
  runs.straight_hash = StatsValue(dir / "straight.json", "state_hash");
  return runs;
}

}  // namespace ductile::testing
