// `ductile-cli grad` (docs/cli.md): the loss and gradient of a run of a scene's pd bodies as a table or JSON, checked
// against central differences with --check-fd; bad keys and loss files exit 2 with the reason.
#include "cli_fixture.h"

namespace ductile::cli_test {
namespace {

const std::string kBall = std::string(DUCTILE_SOURCE_DIR) + "/scenes/pd_rolling_ball.yaml";

TEST_F(CliTest, GradPrintsTheGradientThatTheDifferencesConfirm) {
  const fs::path loss = dir_ / "loss.yaml";
  std::ofstream(loss) << "loss:\n  - {body: ball, quantity: center_of_mass, time: 0.1, target: [0.02, 0, 0.1]}\n";
  const Result json = RunCli("grad '" + kBall + "' --loss '" + loss.string() +
                             "' --wrt pd.friction,pd_bodies.ball.youngs_modulus --json --check-fd");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const char* key :
       {"\"steps\": 10", "\"loss\": ", "\"converged\": true", "\"differences_converged\": true",
        "\"gradient\": {\"pd.friction\": ", "\"pd_bodies.ball.youngs_modulus\": ", "\"central_difference\": {"})
    EXPECT_NE(json.output.find(key), std::string::npos) << key << " in " << json.output;
  // The table names each parameter with its value and gradient; a shipped loss file reads.
  const Result table = RunCli("grad '" + kBall + "' --loss '" + std::string(DUCTILE_SOURCE_DIR) +
                              "/scenes/losses/pd_rolling_ball.yaml' --wrt pd_bodies.ball.velocity --steps 30");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("pd_bodies.ball.velocity[2]"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("over 30 steps of 0.01 s"), std::string::npos) << table.output;
}

TEST_F(CliTest, GradRefusesBadKeysAndLossFilesWithTheReason) {
  const fs::path loss = dir_ / "loss.yaml";
  std::ofstream(loss) << "loss:\n  - {body: ball, time: 0.05, target: [0, 0, 0]}\n";
  const Result key = RunCli("grad '" + kBall + "' --loss '" + loss.string() + "' --wrt pd_bodies.ball.density");
  EXPECT_EQ(key.exit_code, 2) << key.output;
  EXPECT_NE(key.output.find("the gradient keys are"), std::string::npos) << key.output;
  const fs::path bad = dir_ / "bad.yaml";
  std::ofstream(bad) << "loss:\n  - {body: ball, time: 0.05, target: [0, 0]}\n";
  const Result file = RunCli("grad '" + kBall + "' --loss '" + bad.string() + "' --wrt pd.friction");
  EXPECT_EQ(file.exit_code, 2) << file.output;
  EXPECT_NE(file.output.find("bad.yaml:2:"), std::string::npos) << file.output;
  const Result scene = RunCli("grad '" + scene_.string() + "' --loss '" + loss.string() + "' --wrt pd.friction");
  EXPECT_EQ(scene.exit_code, 2) << scene.output;
  EXPECT_NE(scene.output.find("no pd bodies"), std::string::npos) << scene.output;
}

}  // namespace
}  // namespace ductile::cli_test
