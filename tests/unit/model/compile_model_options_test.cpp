// CompileModel carries options that later stages read: each material's friction coefficient against rigid
// geometry (Model::material_friction) and each kinematic body's keyframe interpolation (its PoseTrajectory).
#include <gtest/gtest.h>

#include <string>

#include "ductile/model.h"
#include "model/rigid_model.h"

namespace ductile {
namespace {

Model Compile(const std::string& yaml) {
  return CompileModel(LoadSceneFromString(yaml, std::string(DUCTILE_TEST_DATA_DIR) + "/scenes/inline.yaml"));
}

TEST(CompileModelOptions, MaterialFrictionFollowsTheMaterials) {
  const Model model = Compile(
      "materials:\n"
      "  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3, friction: 0.8}\n"
      "  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2e4, poisson_ratio: 0.4}\n"
      "  water: {model: fluid, density: 1000, bulk_modulus: 1e5, friction: 0}\n");
  // One entry per material, in the order of Model::materials; negative where the scene does not set it.
  ASSERT_EQ(model.material_friction.size(), model.materials.size());
  ASSERT_EQ(model.material_names, (std::vector<std::string>{"rubber", "dough", "water"}));
  EXPECT_DOUBLE_EQ(model.material_friction[0], 0.8);
  EXPECT_LT(model.material_friction[1], 0);
  EXPECT_EQ(model.material_friction[2], 0);
  EXPECT_TRUE(Compile("grid: {h: 0.05}\n").material_friction.empty());
}

TEST(CompileModelOptions, KinematicBodiesKeepTheirInterpolation) {
  const std::string body =
      "    type: kinematic\n    shape: {type: sphere, radius: 0.05}\n"
      "    keyframes: [{time: 0}, {time: 1, position: [0.2, 0, 0]}]\n";
  const Model model = Compile("rigid_bodies:\n  plain:\n" + body + "  eased:\n" + body + "    interpolation: smooth\n");
  const multibody::MultibodyTree& tree = model.rigid->tree;
  ASSERT_EQ(tree.trajectories().size(), 2u);
  const multibody::PoseTrajectory& plain = tree.trajectories()[tree.body(tree.FindBody("plain")).trajectory];
  const multibody::PoseTrajectory& eased = tree.trajectories()[tree.body(tree.FindBody("eased")).trajectory];
  EXPECT_EQ(plain.interpolation, KeyframeInterpolation::kLinear);
  EXPECT_EQ(eased.interpolation, KeyframeInterpolation::kSmooth);
  // A quarter of the way in time, the linear body has gone a quarter of the way; the smooth one e(1/4) = 5/32.
  EXPECT_NEAR(plain.Pose(0.25).translation().x(), 0.05, 1e-12);
  EXPECT_NEAR(eased.Pose(0.25).translation().x(), 0.2 * 5 / 32, 1e-12);
}

}  // namespace
}  // namespace ductile
