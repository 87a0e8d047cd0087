// The demo logs shipped in scenes/demos/ (written by scripts/make-demos) replay to the final state they recorded:
// `ductile-cli replay LOG` exits 0 only when the final state hash matches bitwise. Label `slow`: the logs drive
// the teleoperation scenes for 2-3 simulated seconds each, minutes in all on 2 cores. A log that no longer matches
// after a change to the simulation's arithmetic is regenerated with scripts/make-demos.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ductile {
namespace {

TEST(ShippedDemos, ReplayToTheirRecordedState) {
  const std::filesystem::path folder = std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / "demos";
  std::vector<std::filesystem::path> logs;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().string().ends_with(".demo.yaml")) logs.push_back(entry.path());
  ASSERT_FALSE(logs.empty()) << "no demo logs in " << folder;
  for (const std::filesystem::path& log : logs) {
    const std::string command = std::string(DUCTILE_CLI_PATH) + " replay '" + log.string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    ASSERT_NE(pipe, nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get())) output += buffer.data();
    const int status = pclose(pipe.release());
    EXPECT_EQ(status, 0) << log << ":\n" << output;
    EXPECT_NE(output.find("replay reproduces the log"), std::string::npos) << log << ":\n" << output;
  }
}

}  // namespace
}  // namespace ductile
