// Gradients of a loss over a scene's pd bodies by scene keys (step/scene_gradient.h, Simulator::LossAndGradient):
// every key kind at once against central differences, with friction and the actuators active; the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ductile/gradient.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

// A block thrown along the ground (it lands and slides: friction acts), inflating and flexing its muscles; and a
// cantilevered arm whose tip is a bone on a hinge, turned by its torque.
constexpr const char* kScene = R"(
simulation: {dt: 0.01}
pd_bodies:
  block: {shape: {type: box, size: [0.04, 0.04, 0.04]}, resolution: 0.02, youngs_modulus: 5.0e4,
          poisson_ratio: 0.3, pose: {position: [0, 0, 0.025]}, velocity: [0.6, 0.1, -0.3],
          pneumatic_ratio: 1.2, muscle_stiffness: 2.0e4, muscle_direction: [1, 0, 0], muscle_activation: 0.3}
  arm:
    shape: {type: box, size: [0.06, 0.02, 0.02]}
    resolution: 0.01
    youngs_modulus: 5.0e4
    pose: {position: [0.5, 0, 0.2]}
    pin_box: {min: [0.469, -0.011, 0.189], max: [0.471, 0.011, 0.211]}
    skeleton:
      tip: {joint: revolute, axis: [0, 1, 0], anchor: [0.515, 0, 0.2], torque: 0.01,
            box: {min: [0.516, -0.011, 0.189], max: [0.531, 0.011, 0.211]}}
pd: {friction: 0.4}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
)";

Simulator Make(const std::string& text) {
  return Simulator(std::make_shared<const Model>(CompileModel(LoadSceneFromString(text, "grad.yaml"))));
}

// Five-point central differences of the loss (δ = 1e-4 of each value) agree with the adjoint gradient within 1e-5
// relative, the issue's bound (the forward steps stop at a residual of 1e-10 of their reference, which the differences
// divide by δ; the relative errors are recorded as properties), on the material, the initial velocity, both actuators
// and the friction, through sliding contact; and on a joint's torque.
TEST(SceneGradient, EveryKeyKindAgreesWithCentralDifferences) {
  const Simulator sim = Make(kScene);
  GradientRequest request;
  request.steps = 15;
  request.loss = {
      {.body = "block", .quantity = LossQuantity::kCenterOfMass, .time = 0.15, .target = {0.1, 0, 0}},
      {.body = "block", .quantity = LossQuantity::kVelocity, .time = 0.1, .target = {0, 0, 0}, .weight = 0.5},
      {.body = "arm", .quantity = LossQuantity::kCenterOfMass, .time = 0.15, .target = {0.5, 0, 0.21}, .weight = 100}};
  request.wrt = {"pd_bodies.block.youngs_modulus",   "pd_bodies.block.poisson_ratio",     "pd_bodies.block.velocity",
                 "pd_bodies.block.pneumatic_ratio",  "pd_bodies.block.muscle_activation", "pd.friction",
                 "pd_bodies.arm.skeleton.tip.torque"};
  request.check_fd = true;
  const GradientResult result = sim.LossAndGradient(request);
  ASSERT_EQ(result.error, "");
  EXPECT_TRUE(result.converged);
  ASSERT_EQ(result.gradient.size(), 9u);
  EXPECT_GT(result.loss, 0);
  for (std::size_t k = 0; k < result.gradient.size(); ++k) {
    const double g = result.gradient[k], fd = result.central_difference[k];
    // Relative to the differences; for a derivative near zero, to 1e-3 of the loss per unit of the parameter (a
    // change of the parameter by itself moving the loss by a thousandth), so that round-off of a vanishing
    // derivative is not called an error. Every derivative here is above that floor, so the bound is relative to the
    // differences themselves (E's 9x above it, the others 17x to 10,000x; the properties record the errors
    // relative to |differences| alone).
    const double scale =
        std::max(std::abs(fd), 1e-3 * std::abs(result.loss) / std::max(1.0, std::abs(result.values[k])));
    EXPECT_LT(std::abs(g - fd), 1e-5 * scale) << result.names[k] << ": adjoint " << g << ", differences " << fd;
    std::ostringstream error;
    error << std::abs(g - fd) / std::max(std::abs(fd), 1e-300);
    ::testing::Test::RecordProperty(result.names[k], error.str());
  }
  // The checkpointed gradient is the same.
  request.checkpoint_interval = 4;
  request.check_fd = false;
  const GradientResult checkpointed = sim.LossAndGradient(request);
  for (std::size_t k = 0; k < result.gradient.size(); ++k)
    EXPECT_EQ(checkpointed.gradient[k], result.gradient[k]) << result.names[k];
}

TEST(SceneGradient, RefusesWhatItCannotDifferentiate) {
  const Simulator sim = Make(kScene);
  GradientRequest request;
  request.steps = 5;
  request.loss = {{.body = "block", .time = 0.05}};
  request.wrt = {"pd_bodies.block.density"};
  EXPECT_NE(sim.LossAndGradient(request).error.find("the gradient keys are"), std::string::npos);
  request.wrt = {"pd_bodies.ball.youngs_modulus"};
  EXPECT_NE(sim.LossAndGradient(request).error.find("no pd body 'ball'"), std::string::npos);
  request.wrt = {"pd_bodies.arm.skeleton.elbow.torque"};
  EXPECT_NE(sim.LossAndGradient(request).error.find("has no bone 'elbow' (bones: tip)"), std::string::npos);
  request.wrt = {"pd_bodies.arm.skeleton.tip.axis"};
  EXPECT_NE(sim.LossAndGradient(request).error.find("the gradient keys are"), std::string::npos);
  request.wrt = {};
  request.loss = {{.body = "ground", .time = 0.05}};
  EXPECT_NE(sim.LossAndGradient(request).error.find("not a pd body"), std::string::npos);
  request.loss = {{.body = "block", .time = 1.0}};
  EXPECT_NE(sim.LossAndGradient(request).error.find("after the run's end"), std::string::npos);
  const std::string with_box = std::string(kScene) +
                               "  table: {type: static, shape: {type: box, size: [1, 1, 0.1]}, "
                               "pose: {position: [2, 0, 0.05]}}\n";
  request.loss = {{.body = "block", .time = 0.05}};
  EXPECT_NE(Make(with_box).LossAndGradient(request).error.find("not supported yet"), std::string::npos);
}

TEST(SceneGradient, LossFilesAreReadAndBadOnesRefusedWithTheirPlace) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ductile_loss_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const std::vector<LossTerm> terms = LoadLossFile(
      write("good.yaml", "loss:\n  - {body: block, quantity: velocity, time: 0.1, target: [1, 2, 3], weight: 2}\n"));
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].quantity, LossQuantity::kVelocity);
  EXPECT_EQ(terms[0].target[2], 3);
  EXPECT_EQ(terms[0].weight, 2);
  const auto error = [&](const std::string& text) {
    try {
      LoadLossFile(write("bad.yaml", text));
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("loss:\n  - {body: b, time: 0.1, target: [1, 2]}\n").find("bad.yaml:2:"), std::string::npos);
  EXPECT_NE(error("loss:\n  - {body: b, time: 0.1, target: [1, 2, 3], quantity: speed}\n").find("unknown quantity"),
            std::string::npos);
  EXPECT_NE(error("loss:\n  - {body: b, target: [1, 2, 3]}\n").find("needs 'time'"), std::string::npos);
  EXPECT_NE(error("losses: []\n").find("holds 'loss:'"), std::string::npos);
  EXPECT_NE(error("loss: [").find("YAML syntax error"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ductile
