// Good scenes load with the values they spell, and omitted keys take the defaults of scene.h.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ductile/scene.h"
#include "scene_test_support.h"

namespace ductile {
namespace {

using testing::ExpectVector;

const std::filesystem::path kScenes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes";

SceneError ErrorOf(const std::string& text, const std::filesystem::path& file = "inline.yaml") {
  return testing::ErrorOf(text, file);
}

TEST(SceneLoader, FullSceneHasEveryValue) {
  const SceneDesc scene = LoadScene(kScenes / "full.yaml");
  EXPECT_EQ(scene.file, kScenes / "full.yaml");

  const SimulationDesc& sim = scene.simulation;
  EXPECT_DOUBLE_EQ(sim.dt, 2e-3);
  EXPECT_EQ(sim.substeps, 20);
  EXPECT_DOUBLE_EQ(sim.duration, 1.5);
  ExpectVector(sim.gravity, {0, 0, -1.62});
  EXPECT_DOUBLE_EQ(sim.output_rate, 30);
  EXPECT_DOUBLE_EQ(sim.contact_tolerance_relative, 1e-2);
  EXPECT_DOUBLE_EQ(sim.contact_tolerance_absolute, 1e-8);
  EXPECT_EQ(sim.max_solver_iterations, 50);
  EXPECT_DOUBLE_EQ(sim.cfl, 0.5);
  EXPECT_EQ(sim.threads, 2);

  EXPECT_DOUBLE_EQ(scene.grid.h, 0.02);
  ExpectVector(scene.grid.domain_min, {-1, -1, 0});
  ExpectVector(scene.grid.domain_max, {1, 1, 2});
  EXPECT_EQ(scene.walls.type, BoundaryType::kFriction);
  EXPECT_DOUBLE_EQ(scene.walls.friction, 0.3);

  ASSERT_EQ(scene.materials.size(), 5u);
  const MaterialDesc* rubber = scene.FindMaterial("rubber");
  ASSERT_NE(rubber, nullptr);
  EXPECT_EQ(rubber->model, MaterialModelDesc::kFixedCorotated);
  EXPECT_DOUBLE_EQ(rubber->density, 1100);
  EXPECT_DOUBLE_EQ(rubber->youngs_modulus, 1e5);
  EXPECT_DOUBLE_EQ(rubber->poisson_ratio, 0.3);
  EXPECT_EQ(rubber->where.line, 18);
  EXPECT_EQ(rubber->where.column, 3);
  EXPECT_EQ(scene.FindMaterial("dough")->model, MaterialModelDesc::kLinearCorotated);
  EXPECT_DOUBLE_EQ(scene.FindMaterial("dough")->yield_stress, 1e3);
  EXPECT_EQ(scene.FindMaterial("clay")->model, MaterialModelDesc::kStvkHencky);
  EXPECT_DOUBLE_EQ(scene.FindMaterial("clay")->yield_stress, 2e3);
  const MaterialDesc* sand = scene.FindMaterial("sand");
  EXPECT_EQ(sand->model, MaterialModelDesc::kDruckerPrager);
  EXPECT_DOUBLE_EQ(sand->friction_angle_deg, 35);
  EXPECT_DOUBLE_EQ(sand->cohesion, 0.01);
  const MaterialDesc* water = scene.FindMaterial("water");
  EXPECT_EQ(water->model, MaterialModelDesc::kFluid);
  EXPECT_DOUBLE_EQ(water->density, 997);
  EXPECT_DOUBLE_EQ(water->bulk_modulus, 2e5);
  EXPECT_DOUBLE_EQ(water->gamma, 7.5);
  EXPECT_DOUBLE_EQ(water->viscosity, 1e-3);

  // Objects keep their file order.
  ASSERT_EQ(scene.objects.size(), 5u);
  EXPECT_EQ(scene.objects[0].name, "cube");
  EXPECT_EQ(scene.objects[1].name, "ball");
  EXPECT_EQ(scene.objects[4].name, "puddle");
  const MpmObjectDesc& cube = scene.objects[0];
  EXPECT_EQ(cube.material, "rubber");
  EXPECT_EQ(cube.shape.type, ShapeType::kBox);
  ExpectVector(cube.shape.size, {0.1, 0.2, 0.3});
  ExpectVector(cube.pose.position, {0, 0, 0.5});
  // rpy_deg [0, 0, 90]: a quarter turn about z, q = (cos 45°, 0, 0, sin 45°).
  EXPECT_NEAR(cube.pose.quaternion[0], std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(cube.pose.quaternion[1], 0, 1e-12);
  EXPECT_NEAR(cube.pose.quaternion[2], 0, 1e-12);
  EXPECT_NEAR(cube.pose.quaternion[3], std::sqrt(0.5), 1e-12);
  EXPECT_EQ(cube.particles_per_cell, 27);
  ExpectVector(cube.velocity, {1, 0, -2});
  EXPECT_EQ(cube.where.line, 25);

  EXPECT_EQ(scene.objects[1].shape.type, ShapeType::kSphere);
  EXPECT_DOUBLE_EQ(scene.objects[1].shape.radius, 0.05);
  EXPECT_EQ(scene.objects[1].particles_per_cell, 8);
  const MpmObjectDesc& log = scene.objects[2];
  EXPECT_EQ(log.shape.type, ShapeType::kCylinder);
  EXPECT_DOUBLE_EQ(log.shape.radius, 0.04);
  EXPECT_DOUBLE_EQ(log.shape.length, 0.3);
  EXPECT_EQ(log.pose.quaternion, (std::array<double, 4>{1, 0, 0, 0}));  // [2, 0, 0, 0] normalised.
  const MpmObjectDesc& pile = scene.objects[3];
  EXPECT_EQ(pile.shape.type, ShapeType::kMesh);
  EXPECT_EQ(pile.shape.mesh_file, (std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "meshes" / "cube.obj"));
  EXPECT_TRUE(pile.shape.mesh_file.is_absolute());
  EXPECT_DOUBLE_EQ(pile.shape.mesh_scale, 0.2);

  ASSERT_EQ(scene.colliders.size(), 4u);
  const ColliderDesc& ground = scene.colliders[0];
  EXPECT_EQ(ground.name, "ground");
  EXPECT_EQ(ground.shape.type, ShapeType::kPlane);
  ExpectVector(ground.shape.normal, {0, 0, 1});  // [0, 0, 2] normalised.
  EXPECT_EQ(ground.boundary.type, BoundaryType::kFriction);
  EXPECT_DOUBLE_EQ(ground.boundary.friction, 0.5);
  EXPECT_EQ(scene.colliders[1].shape.type, ShapeType::kCylinder);
  EXPECT_EQ(scene.colliders[1].boundary.type, BoundaryType::kSticky);
  EXPECT_EQ(scene.colliders[2].boundary.type, BoundaryType::kSlip);
  EXPECT_EQ(scene.colliders[3].boundary.type, BoundaryType::kSeparate);

  ASSERT_EQ(scene.probes.size(), 4u);
  EXPECT_EQ(scene.probes[0].name, "cube_com");
  EXPECT_EQ(scene.probes[0].object, "cube");
  EXPECT_EQ(scene.probes[0].quantity, ProbeQuantity::kCenterOfMass);
  EXPECT_EQ(scene.probes[1].quantity, ProbeQuantity::kVelocity);
  EXPECT_EQ(scene.probes[2].quantity, ProbeQuantity::kBounds);
  EXPECT_EQ(scene.probes[3].quantity, ProbeQuantity::kKineticEnergy);
}

TEST(SceneLoader, MinimalSceneTakesDefaults) {
  const SceneDesc scene = LoadScene(kScenes / "minimal.yaml");
  const SimulationDesc defaults;
  EXPECT_EQ(scene.simulation.dt, defaults.dt);
  EXPECT_EQ(scene.simulation.substeps, defaults.substeps);
  EXPECT_EQ(scene.simulation.gravity, defaults.gravity);
  EXPECT_EQ(scene.grid.h, GridDesc{}.h);
  EXPECT_EQ(scene.walls.type, BoundaryType::kSeparate);
  ASSERT_EQ(scene.objects.size(), 1u);
  EXPECT_EQ(scene.objects[0].particles_per_cell, 8);
  EXPECT_EQ(scene.objects[0].pose.quaternion, (std::array<double, 4>{1, 0, 0, 0}));
  EXPECT_TRUE(scene.colliders.empty());
  EXPECT_TRUE(scene.probes.empty());
}

TEST(SceneLoader, EmptySectionsAreAllowed) {
  const SceneDesc scene = LoadScene(kScenes / "empty_sections.yaml");
  EXPECT_TRUE(scene.materials.empty());
  EXPECT_TRUE(scene.objects.empty());
}

TEST(SceneLoader, FluidDefaultsAndSolidRequirements) {
  const SceneDesc scene =
      LoadSceneFromString("materials:\n  w: {model: fluid, density: 1000, bulk_modulus: 1e5}\n", "inline.yaml");
  EXPECT_DOUBLE_EQ(scene.materials[0].gamma, 7);
  EXPECT_DOUBLE_EQ(scene.materials[0].viscosity, 0);
  const SceneError e = ErrorOf("materials:\n  s: {model: stvk_hencky, density: 1000, poisson_ratio: 0.3}\n");
  EXPECT_EQ(e.message(), "missing required key 'youngs_modulus' in material 's'");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 6);
  EXPECT_EQ(
      ErrorOf("materials:\n  w: {model: fluid, density: 1000, bulk_modulus: 1e5, poisson_ratio: 0.3}\n").message(),
      "'poisson_ratio' does not apply to model fluid");
  EXPECT_EQ(ErrorOf("materials:\n  w: {model: fluid, density: 1000, bulk_modulus: 1e5, gamma: 0.5}\n").message(),
            "'gamma' must be >= 1, got 0.5");
}

TEST(SceneLoader, MaterialFrictionAgainstRigidGeometry) {
  const std::string dough =
      "materials:\n  dough:\n    model: linear_corotated\n    density: 1000\n    youngs_modulus: 2e4\n"
      "    poisson_ratio: 0.4\n";
  // Not set by default (negative): the rigid geometry's own μ applies alone.
  EXPECT_LT(LoadSceneFromString(dough, "inline.yaml").materials[0].friction, 0);
  EXPECT_DOUBLE_EQ(LoadSceneFromString(dough + "    friction: 0.3\n", "inline.yaml").materials[0].friction, 0.3);
  // Every model takes it, 0 included (a frictionless material).
  const SceneDesc scene = LoadSceneFromString(
      "materials:\n  w: {model: fluid, density: 1000, bulk_modulus: 1e5, friction: 0}\n"
      "  s: {model: drucker_prager, density: 1600, youngs_modulus: 3e5, poisson_ratio: 0.3, friction: 0.6, "
      "friction_angle: 35}\n",
      "inline.yaml");
  EXPECT_EQ(scene.materials[0].friction, 0);
  EXPECT_DOUBLE_EQ(scene.materials[1].friction, 0.6);
  EXPECT_DOUBLE_EQ(scene.materials[1].friction_angle_deg, 35);
  const SceneError negative = ErrorOf(dough + "    friction: -0.2\n");
  EXPECT_EQ(negative.message(), "'friction' must be >= 0, got -0.2");
  EXPECT_EQ(negative.line(), 7);
  EXPECT_EQ(negative.column(), 15);
  EXPECT_EQ(ErrorOf(dough + "    friction: rough\n").message(), "'friction' must be a number, got 'rough'");
}

TEST(SceneLoader, MeshPathsResolveAgainstTheSceneFolder) {
  const std::string text =
      "materials:\n  r: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
      "objects:\n  t:\n    material: r\n    shape: {type: mesh, file: meshes/tetrahedron.obj, scale: 0.5}\n";
  const std::filesystem::path data(DUCTILE_TEST_DATA_DIR);
  const SceneDesc scene = LoadSceneFromString(text, data / "virtual.yaml");
  EXPECT_EQ(scene.objects[0].shape.mesh_file, data / "meshes" / "tetrahedron.obj");
  // The same text elsewhere does not find the mesh.
  const SceneError e = ErrorOf(text, data / "scenes" / "virtual.yaml");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.message().rfind("mesh file 'meshes/tetrahedron.obj' not found", 0), 0u) << e.what();
}

TEST(SceneLoader, MeshBoundsUseScaleAndPose) {
  const std::string text =
      "materials:\n  r: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
      "objects:\n  t:\n    material: r\n    shape: {type: mesh, file: meshes/cube.obj, scale: SCALE}\n"
      "    pose: {position: [0, 0, 0.5]}\n";
  const std::filesystem::path file = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "virtual.yaml";
  auto with_scale = [&](const std::string& scale) {
    std::string t = text;
    t.replace(t.find("SCALE"), 5, scale);
    return t;
  };
  EXPECT_NO_THROW(LoadSceneFromString(with_scale("0.99"), file));
  const SceneError e = ErrorOf(with_scale("1.01"), file);
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(e.message().find("its bounds are (-0.505, -0.505, -0.005) to (0.505, 0.505, 1.005)"), std::string::npos)
      << e.what();
}

TEST(SceneLoader, RotatedShapesUseTheirRotatedBounds) {
  const std::string head =
      "materials:\n  r: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
      "objects:\n  o:\n    material: r\n";
  // A 0.9 m long cylinder standing up fits the 1 m tall domain; lying along x it does not fit 0.4 m of width.
  EXPECT_NO_THROW(LoadSceneFromString(
      head + "    shape: {type: cylinder, radius: 0.05, length: 0.9}\n    pose: {position: [0, 0, 0.5]}\n", "a.yaml"));
  const SceneError e = ErrorOf(head +
                               "    shape: {type: cylinder, radius: 0.05, length: 0.9}\n"
                               "    pose: {position: [0.1, 0, 0.5], rpy_deg: [0, 90, 0]}\n");
  EXPECT_NE(e.message().find("its bounds are (-0.35, -0.05, 0.45) to (0.55, 0.05, 0.55)"), std::string::npos)
      << e.what();
}

TEST(SceneLoader, MissingSceneFile) {
  try {
    LoadScene(kScenes / "no_such_scene.yaml");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(e.message(), "cannot open the scene file");
  }
}

// A material's `color` (any model) replaces the colour its model gets in pictures; out of [0, 1] it is refused
// with its place.
TEST(SceneLoader, MaterialColour) {
  const std::string cloth =
      "materials:\n  cotton: {model: cloth, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3";
  EXPECT_FALSE(LoadSceneFromString(cloth + "}\n", "inline.yaml").materials[0].rgba);
  const SceneDesc scene = LoadSceneFromString(cloth + ", color: [0.8, 0.3, 0.2, 1]}\n", "inline.yaml");
  ASSERT_TRUE(scene.materials[0].rgba);
  EXPECT_EQ(*scene.materials[0].rgba, (std::array<double, 4>{0.8, 0.3, 0.2, 1}));
  const SceneError bad = ErrorOf(cloth + ", color: [0.8, 1.3, 0.2, 1]}\n");
  EXPECT_EQ(bad.line(), 2);
  EXPECT_NE(bad.message().find("got 1.3"), std::string::npos) << bad.message();
  EXPECT_EQ(ErrorOf(cloth + ", color: [0.8, 0.3]}\n").message(),
            "'color' must be a list of 4 numbers, got a list of 2");
}

TEST(SceneLoader, ErrorsOfInlineScenes) {
  EXPECT_EQ(ErrorOf("simulation: {dt: }\n").message(), "'dt' must be a number, got nothing");
  EXPECT_EQ(ErrorOf("simulation: {gravity: {x: 1}}\n").message(), "'gravity' must be a list of 3 numbers, got a map");
  EXPECT_EQ(ErrorOf("simulation: {threads: -1}\n").message(), "'threads' must be >= 0, got -1");
  EXPECT_EQ(ErrorOf("simulation: {dt: 1e400}\n").message(), "'dt' must be a number, got '1e400'");
  EXPECT_EQ(ErrorOf("grid: {h: 0.01, domain: {min: [0, 0, 0], mx: [1, 1, 1]}}\n").message(),
            "unknown key 'mx' in grid domain; did you mean 'max'?");
  EXPECT_EQ(ErrorOf("? [a, b]\n: 1\n").message(), "a key in the scene must be a name, got a list of 2");
  EXPECT_EQ(ErrorOf("materials:\n  \"\": {model: fluid}\n").message(), "a material name must not be empty");
  const SceneError no_materials = ErrorOf("objects:\n  o: {material: rubber, shape: {type: sphere, radius: 0.1}}\n");
  EXPECT_EQ(no_materials.message(), "undefined material 'rubber' (defined: none)");
}

}  // namespace
}  // namespace ductile
