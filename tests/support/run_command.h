// Runs a shell command line for the tests that drive the command-line tools: its exit status and everything it
// printed (stdout and stderr together). RunCli runs ductile-cli (DUCTILE_CLI_PATH, defined for every test target).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ductile::testing {

struct CommandResult {
  int exit_code = -1;  ///< −1 when the command could not be started or did not exit normally.
  std::string output;  ///< stdout and stderr together.
};

inline CommandResult RunCommand(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) r.output += buffer;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// ductile-cli with `args`.
inline CommandResult RunCli(const std::string& args) {
  return RunCommand(std::string(DUCTILE_CLI_PATH) + " " + args);
}

}  // namespace ductile::testing
