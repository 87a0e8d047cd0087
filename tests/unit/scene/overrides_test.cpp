// `--set dotted.key=value` overrides: parsing, setting present and omitted keys, and errors that name the
// override.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ductile/scene.h"

namespace ductile {
namespace {

const std::filesystem::path kMinimal = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "minimal.yaml";
const std::filesystem::path kRigid = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "rigid_full.yaml";

SceneDesc LoadWith(const std::vector<std::string>& sets, const std::filesystem::path& file = kMinimal) {
  std::vector<Override> overrides;
  for (const std::string& text : sets) overrides.push_back(ParseOverride(text));
  return LoadScene(file, overrides);
}

// The SceneError that loading with `sets` throws; fails the test when it loads.
SceneError ErrorWith(const std::vector<std::string>& sets, const std::filesystem::path& file = kMinimal) {
  try {
    LoadWith(sets, file);
  } catch (const SceneError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error";
  return SceneError("", 0, 0, "");
}

// The message of a SceneError from an override, checking that it names "--set" and no line.
std::string OverrideMessage(const std::vector<std::string>& sets, const std::filesystem::path& file = kMinimal) {
  const SceneError e = ErrorWith(sets, file);
  EXPECT_EQ(e.file(), "--set");
  EXPECT_EQ(e.line(), 0);
  return e.message();
}

TEST(ParseOverride, SplitsAtTheFirstEquals) {
  const Override o = ParseOverride(" materials.dough.youngs_modulus = 2e4 ");
  EXPECT_EQ(o.path, "materials.dough.youngs_modulus");
  EXPECT_EQ(o.value, "2e4");
  EXPECT_EQ(ParseOverride("a.b=x=y").value, "x=y");
}

TEST(ParseOverride, RejectsMalformedText) {
  for (const char* text : {"simulation.dt", "=3", "simulation..dt=3", ".dt=3", "simulation.=3"}) {
    try {
      ParseOverride(text);
      ADD_FAILURE() << text;
    } catch (const SceneError& e) {
      EXPECT_EQ(e.file(), "--set");
      EXPECT_EQ(e.line(), 0);
      EXPECT_NE(e.message().find(std::string("'") + text + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Overrides, SetExistingValues) {
  const SceneDesc scene = LoadWith({"materials.rubber.poisson_ratio=0.45", "objects.cube.pose.position.2=0.6"});
  EXPECT_DOUBLE_EQ(scene.materials[0].poisson_ratio, 0.45);
  EXPECT_DOUBLE_EQ(scene.objects[0].pose.position[2], 0.6);
  EXPECT_DOUBLE_EQ(scene.objects[0].pose.position[0], 0);
}

TEST(Overrides, CreateKeysTheFileOmits) {
  // minimal.yaml has no simulation or grid section and no velocity, particles_per_cell or rpy_deg.
  const SceneDesc scene = LoadWith({"simulation.dt=5e-4", "simulation.gravity.2=-1.62", "grid.boundary.type=friction",
                                    "grid.boundary.friction=0.4", "objects.cube.particles_per_cell=27",
                                    "objects.cube.velocity=[1, 2, 3]", "objects.cube.pose.rpy_deg.2=90"});
  EXPECT_DOUBLE_EQ(scene.simulation.dt, 5e-4);
  EXPECT_EQ(scene.simulation.gravity, (Vector3{0, 0, -1.62}));
  EXPECT_EQ(scene.walls.type, BoundaryType::kFriction);
  EXPECT_DOUBLE_EQ(scene.walls.friction, 0.4);
  EXPECT_EQ(scene.objects[0].particles_per_cell, 27);
  EXPECT_EQ(scene.objects[0].velocity, (Vector3{1, 2, 3}));
  EXPECT_NEAR(scene.objects[0].pose.quaternion[3], std::sqrt(0.5), 1e-12);
}

TEST(Overrides, TheLastOfTwoWins) {
  EXPECT_DOUBLE_EQ(LoadWith({"simulation.dt=1e-3", "simulation.dt=2e-3"}).simulation.dt, 2e-3);
  EXPECT_EQ(OverrideMessage({"simulation.dt=-1", "simulation.dt=fast"}),
            "--set simulation.dt=fast: 'dt' must be a number, got 'fast'");
}

TEST(Overrides, PathsOutsideTheFormatAreErrorsWithSuggestions) {
  EXPECT_EQ(OverrideMessage({"simulation.dtt=1e-3"}),
            "--set simulation.dtt=1e-3: unknown key 'dtt' in 'simulation'; did you mean 'dt'?");
  EXPECT_EQ(OverrideMessage({"simulaton.dt=1e-3"}),
            "--set simulaton.dt=1e-3: unknown key 'simulaton' in the scene; did you mean 'simulation'?");
  EXPECT_EQ(OverrideMessage({"materials.rubbr.density=900"}),
            "--set materials.rubbr.density=900: no material 'rubbr' in the scene; did you mean 'rubber'? (defined: "
            "rubber)");
  EXPECT_EQ(OverrideMessage({"materials.rubber.youngs_modulu=1e6"}),
            "--set materials.rubber.youngs_modulu=1e6: unknown key 'youngs_modulu' in 'materials.rubber'; did you "
            "mean 'youngs_modulus'?");
  EXPECT_EQ(OverrideMessage({"simulation.gravity.3=1"}),
            "--set simulation.gravity.3=1: '3' is not an element of 'simulation.gravity' (indices 0 to 2)");
  EXPECT_EQ(OverrideMessage({"simulation=1"}),
            "--set simulation=1: 'simulation' is a section; set one of its values "
            "instead");
  EXPECT_EQ(OverrideMessage({"simulation.dt.x=1"}),
            "--set simulation.dt.x=1: 'simulation.dt' is a value, not a map "
            "with key 'x'");
  EXPECT_EQ(OverrideMessage({"recording.main.x=1"}), "--set recording.main.x=1: 'recording' is not supported yet");
  EXPECT_EQ(OverrideMessage({"colliders.ground.pose.position.2=1"}),
            "--set colliders.ground.pose.position.2=1: no collider 'ground' in the scene (defined: none)");
}

TEST(Overrides, BadValuesNameTheOverride) {
  EXPECT_EQ(OverrideMessage({"materials.rubber.poisson_ratio=0.7"}),
            "--set materials.rubber.poisson_ratio=0.7: 'poisson_ratio' must be in (-1, 0.5), got 0.7");
  EXPECT_EQ(OverrideMessage({"simulation.substeps=0"}), "--set simulation.substeps=0: 'substeps' must be >= 1, got 0");
  EXPECT_EQ(OverrideMessage({"simulation.gravity=[0, 0, .nan]"}),
            "--set simulation.gravity=[0, 0, .nan]: 'gravity[2]' must be finite, got .nan");
  EXPECT_EQ(OverrideMessage({"simulation.gravity=-9.81"}),
            "--set simulation.gravity=-9.81: 'gravity' must be a list of 3 numbers, got '-9.81'");
  EXPECT_EQ(OverrideMessage({"materials.rubber.yield_stress=100"}),
            "--set materials.rubber.yield_stress=100: 'yield_stress' does not apply to model fixed_corotated");
  EXPECT_EQ(OverrideMessage({"objects.cube.material=dogh"}),
            "--set objects.cube.material=dogh: undefined material 'dogh' (defined: rubber)");
  EXPECT_EQ(OverrideMessage({"simulation.gravity=[0, 0"})
                .rfind("--set simulation.gravity=[0, 0: value '[0, 0' is "
                       "not a valid YAML list",
                       0),
            0u);
  // The cube moved out of the domain by an override of its position, or by shrinking the domain.
  EXPECT_EQ(OverrideMessage({"objects.cube.pose.position.2=0.97"})
                .rfind("--set objects.cube.pose.position.2=0.97: object 'cube' is not inside the grid domain", 0),
            0u);
  EXPECT_EQ(OverrideMessage({"grid.domain.max.2=0.2"})
                .rfind("--set grid.domain.max.2=0.2: object 'cube' is not inside the grid domain", 0),
            0u);
}

TEST(Overrides, SetRigidBodiesRobotsAndContact) {
  const SceneDesc scene = LoadWith(
      {"rigid_bodies.crate.mass=2", "robots.arm.controllers.iiwa_joint_1.target=0.3", "contact.friction=0.9",
       "rigid_bodies.pusher.keyframes.1.time=2.5", "rigid_bodies.pusher.keyframes.0.position.1=0.25",
       "rigid_bodies.pusher.keyframes.0.rpy_deg.2=90", "rigid_bodies.pusher.keyframes.2.quaternion=[1, 0, 0, 1]",
       "rigid_bodies.crate.color.3=1", "rigid_bodies.pill.shape.radius=0.03", "rigid_bodies.floor.stiffness=3e6",
       "robots.arm.initial_positions.iiwa_joint_2=-0.25", "robots.arm.floating_base=false",
       "robots.arm.pose.position.2=0.1", "robots.arm.controllers.iiwa_joint_4.kp=5e3", "contact.stiction_speed=2e-4"},
      kRigid);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[0].mass, 2);
  EXPECT_DOUBLE_EQ(scene.robots[0].controllers[1].target, 0.3);
  EXPECT_DOUBLE_EQ(scene.contact.friction, 0.9);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[3].keyframes[1].time, 2.5);
  EXPECT_EQ(scene.rigid_bodies[3].keyframes[0].pose.position, (Vector3{0, 0.25, 0.1}));
  EXPECT_NEAR(scene.rigid_bodies[3].keyframes[0].pose.quaternion[3], std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(scene.rigid_bodies[3].keyframes[2].pose.quaternion[0], std::sqrt(0.5), 1e-12);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[0].rgba[3], 1);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[1].shape.radius, 0.03);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[2].stiffness, 3e6);
  EXPECT_DOUBLE_EQ(scene.robots[0].initial_positions.at("iiwa_joint_2"), -0.25);
  EXPECT_FALSE(scene.robots[0].floating_base);
  EXPECT_DOUBLE_EQ(scene.robots[0].pose.position[2], 0.1);
  EXPECT_DOUBLE_EQ(scene.robots[0].controllers[0].kp, 5e3);
  EXPECT_DOUBLE_EQ(scene.contact.stiction_speed, 2e-4);
  // Keys the file omits are created, also in a section the file lacks.
  EXPECT_DOUBLE_EQ(LoadWith({"contact.friction=0.9"}).contact.friction, 0.9);
  EXPECT_DOUBLE_EQ(LoadWith({"robots.arm.controllers.iiwa_joint_1.kp=7"}, kRigid).robots[0].controllers[1].kp, 7);
}

TEST(Overrides, SetInterpolationAndMaterialFriction) {
  // The file's pusher has no `interpolation` and its rubber no `friction`: the overrides create them.
  EXPECT_EQ(LoadWith({"rigid_bodies.pusher.interpolation=smooth"}, kRigid).rigid_bodies[3].interpolation,
            KeyframeInterpolation::kSmooth);
  EXPECT_DOUBLE_EQ(LoadWith({"materials.rubber.friction=0.3"}).materials[0].friction, 0.3);
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.interpolation=cubic"}, kRigid),
            "--set rigid_bodies.pusher.interpolation=cubic: unknown keyframe interpolation 'cubic' (one of: linear, "
            "smooth)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.crate.interpolation=smooth"}, kRigid),
            "--set rigid_bodies.crate.interpolation=smooth: 'interpolation' does not apply to dynamic rigid bodies: "
            "only kinematic bodies follow keyframes, and 'interpolation' says how they move between them (set 'type: "
            "kinematic')");
  EXPECT_EQ(OverrideMessage({"materials.rubber.friction=-1"}),
            "--set materials.rubber.friction=-1: 'friction' must be >= 0, got -1");
}

TEST(Overrides, ListEntriesMustExist) {
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes.3.time=4"}, kRigid),
            "--set rigid_bodies.pusher.keyframes.3.time=4: no keyframe '3' in 'rigid_bodies.pusher.keyframes': the "
            "file lists 3 (indices 0 to 2)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes.last.time=4"}, kRigid),
            "--set rigid_bodies.pusher.keyframes.last.time=4: no keyframe 'last' in 'rigid_bodies.pusher.keyframes': "
            "the file lists 3 (indices 0 to 2)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.crate.keyframes.0.time=1"}, kRigid),
            "--set rigid_bodies.crate.keyframes.0.time=1: no keyframe '0' in 'rigid_bodies.crate.keyframes': the file "
            "lists none");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes=[]"}, kRigid),
            "--set rigid_bodies.pusher.keyframes=[]: 'rigid_bodies.pusher.keyframes' is a list of keyframes; set a "
            "value of one of them instead (rigid_bodies.pusher.keyframes.0.time)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes.1=3"}, kRigid),
            "--set rigid_bodies.pusher.keyframes.1=3: 'rigid_bodies.pusher.keyframes.1' is a section; set one of its "
            "values instead");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes.1.tme=1"}, kRigid),
            "--set rigid_bodies.pusher.keyframes.1.tme=1: unknown key 'tme' in 'rigid_bodies.pusher.keyframes.1'; did "
            "you mean 'time'?");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.type.0=1"}, kRigid),
            "--set rigid_bodies.pusher.type.0=1: 'rigid_bodies.pusher.type' is a value, not a map with key '0'");
}

TEST(Overrides, RigidAndRobotPathsOutsideTheFormat) {
  EXPECT_EQ(OverrideMessage({"rigid_bodies.crat.mass=2"}, kRigid),
            "--set rigid_bodies.crat.mass=2: no rigid body 'crat' in the scene; did you mean 'crate'? (defined: crate, "
            "pill, floor, pusher)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.crate.mas=2"}, kRigid),
            "--set rigid_bodies.crate.mas=2: unknown key 'mas' in 'rigid_bodies.crate'; did you mean 'mass'?");
  EXPECT_EQ(OverrideMessage({"robots.arm.controllers.iiwa_joint_9.kp=1"}, kRigid),
            "--set robots.arm.controllers.iiwa_joint_9.kp=1: no controller 'iiwa_joint_9' in the scene; did you mean "
            "'iiwa_joint_4'? (defined: iiwa_joint_4, iiwa_joint_1)");
  EXPECT_EQ(
      OverrideMessage({"robots.arm.controllers.iiwa_joint_1.kq=1"}, kRigid),
      "--set robots.arm.controllers.iiwa_joint_1.kq=1: unknown key 'kq' in 'robots.arm.controllers.iiwa_joint_1'; "
      "did you mean 'kp'?");
  EXPECT_EQ(OverrideMessage({"contact.frition=1"}),
            "--set contact.frition=1: unknown key 'frition' in 'contact'; did you mean 'friction'?");
}

TEST(Overrides, BadRigidValuesNameTheOverride) {
  EXPECT_EQ(OverrideMessage({"rigid_bodies.crate.mass=-2"}, kRigid),
            "--set rigid_bodies.crate.mass=-2: 'mass' must be > 0, got -2");
  // Problems that an override causes elsewhere name the override.
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.keyframes.1.time=3.5"}, kRigid),
            "--set rigid_bodies.pusher.keyframes.1.time=3.5: keyframe times must increase strictly: keyframe 2 of "
            "rigid body 'pusher' has 'time' 3, not after keyframe 1's 3.5");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pill.mass=2"}, kRigid),
            "--set rigid_bodies.pill.mass=2: rigid body 'pill' takes either 'mass' or 'density', not both");
  EXPECT_EQ(OverrideMessage({"robots.arm.controllers.iiwa_joint_1.kd=0"}, kRigid),
            "--set robots.arm.controllers.iiwa_joint_1.kd=0: controller of joint 'iiwa_joint_1' of robot 'arm' needs "
            "a positive 'kp' or 'kd' (both are 0)");
  EXPECT_EQ(OverrideMessage({"robots.arm.initial_positions.iiwa_joint_4=3"}, kRigid),
            "--set robots.arm.initial_positions.iiwa_joint_4=3: initial position of joint 'iiwa_joint_4' must be "
            "within the joint's limits [-2.0944, 2.0944] rad, got 3");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pusher.pose.position.0=1"}, kRigid),
            "--set rigid_bodies.pusher.pose.position.0=1: 'pose' does not apply to kinematic rigid bodies: they "
            "follow their 'keyframes' (the first keyframe gives the initial pose)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.floor.type=dynamic"}, kRigid),
            "--set rigid_bodies.floor.type=dynamic: shape type 'plane' is only for static rigid bodies (a half-space "
            "cannot move)");
  EXPECT_EQ(OverrideMessage({"robots.arm.floating_base=2"}, kRigid),
            "--set robots.arm.floating_base=2: 'floating_base' must be true or false, got '2'");
}

TEST(Overrides, ErrorsElsewhereKeepTheirFileLocation) {
  // A valid override does not take the blame for a problem the file has on its own.
  const std::filesystem::path bad =
      std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "bad" / "poisson_ratio_half.yaml";
  try {
    LoadWith({"materials.rubber.density=900"}, bad);
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), bad.string());
    EXPECT_EQ(e.line(), 6);
    EXPECT_EQ(e.column(), 20);
  }
}

}  // namespace
}  // namespace ductile
