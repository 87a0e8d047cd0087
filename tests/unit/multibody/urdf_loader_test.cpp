// LoadUrdf: a good arm (tests/data/urdf/ductile_test_robot) loads with the values it spells, in parent-before-
// child order, with rotations and inertias checked against independent Eigen formulas; the world-link convention;
// and each file in tests/data/urdf/bad/ fails with SceneError at the expected line and column (from 1) with a
// message that contains the expected text.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include "ductile/multibody_desc.h"

namespace ductile {
namespace {

const std::filesystem::path kUrdf = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "urdf";
const std::filesystem::path kRobot = kUrdf / "ductile_test_robot" / "urdf" / "robot.urdf";
const std::filesystem::path kBadUrdf = kUrdf / "bad";
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kHalfPi = 1.5707963267948966;

// URDF rpy: about the fixed X, then Y, then Z axes.
Eigen::Matrix3d FromRpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

Eigen::Matrix3d RotationOf(const PoseDesc& pose) {
  const std::array<double, 4>& q = pose.quaternion;
  EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-12);
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

void ExpectRotation(const PoseDesc& pose, const Eigen::Matrix3d& expected) {
  EXPECT_TRUE(RotationOf(pose).isApprox(expected, 1e-12)) << RotationOf(pose) << "\nexpected\n" << expected;
}

void ExpectVector(const Vector3& actual, const Vector3& expected) {
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(actual[i], expected[i]) << "component " << i;
}

void ExpectRgba(const std::array<double, 4>& actual, const std::array<double, 4>& expected) {
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(actual[i], expected[i]) << "component " << i;
}

void ExpectWhere(const SourceLocation& where, const std::filesystem::path& file, int line, int column) {
  EXPECT_EQ(where.file, file.string());
  EXPECT_EQ(where.line, line);
  EXPECT_EQ(where.column, column);
}

// The link and joint of that name; fails the test when missing.
const LinkDesc& Link(const MultibodyDesc& robot, const std::string& name) {
  const LinkDesc* link = robot.FindLink(name);
  if (link == nullptr) throw std::runtime_error("no link '" + name + "'");
  return *link;
}
const JointDesc& Joint(const MultibodyDesc& robot, const std::string& name) {
  const JointDesc* joint = robot.FindJoint(name);
  if (joint == nullptr) throw std::runtime_error("no joint '" + name + "'");
  return *joint;
}

TEST(UrdfLoader, LinksAndJointsComeParentFirstInDepthFirstOrder) {
  const MultibodyDesc robot = LoadUrdf(kRobot);
  EXPECT_EQ(robot.name, "test_arm");
  EXPECT_EQ(robot.source, kRobot);
  // The file lists links and joints out of tree order; children follow their parent's joints in file order.
  std::vector<std::string> links, joints;
  for (const LinkDesc& link : robot.links) links.push_back(link.name);
  for (const JointDesc& joint : robot.joints) joints.push_back(joint.name);
  EXPECT_EQ(links, (std::vector<std::string>{"base", "wheel", "upper_arm", "forearm", "tool", "slider"}));
  EXPECT_EQ(joints, (std::vector<std::string>{"wheel_joint", "shoulder", "elbow", "tool_joint", "slide"}));
  // Joint i's parent link comes before its child link, and the root has no joint.
  auto position = [&](const std::string& link) { return std::find(links.begin(), links.end(), link) - links.begin(); };
  for (const JointDesc& joint : robot.joints) EXPECT_LT(position(joint.parent), position(joint.child)) << joint.name;
  for (const JointDesc& joint : robot.joints) EXPECT_NE(joint.child, "base");
}

TEST(UrdfLoader, RecordsWhereEachLinkJointAndGeometryIs) {
  const MultibodyDesc robot = LoadUrdf(kRobot);
  ExpectWhere(Link(robot, "tool").where, kRobot, 9, 3);
  ExpectWhere(Link(robot, "base").where, kRobot, 11, 3);
  ExpectWhere(Link(robot, "base").visuals.at(0).where, kRobot, 16, 5);
  ExpectWhere(Link(robot, "base").collisions.at(0).where, kRobot, 20, 5);
  ExpectWhere(Link(robot, "forearm").visuals.at(1).where, kRobot, 47, 5);
  ExpectWhere(Joint(robot, "tool_joint").where, kRobot, 80, 3);
  ExpectWhere(Joint(robot, "shoulder").where, kRobot, 109, 3);
}

TEST(UrdfLoader, InertiaIsExpressedInTheLinkFrame) {
  const MultibodyDesc robot = LoadUrdf(kRobot);
  const InertiaDesc& base = Link(robot, "base").inertia;
  EXPECT_DOUBLE_EQ(base.mass, 2);
  ExpectVector(base.com, {0, 0, 0});
  EXPECT_EQ(base.inertia, (std::array<double, 6>{0.1, 0.2, 0.25, 0, 0, 0}));

  // Rotated 90° about z: the x and y moments swap (by hand).
  const InertiaDesc& slider = Link(robot, "slider").inertia;
  EXPECT_DOUBLE_EQ(slider.mass, 0.5);
  const std::array<double, 6> swapped = {0.002, 0.001, 0.0025, 0, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(slider.inertia[i], swapped[i], 1e-15) << "component " << i;

  // A full tensor in a frame rotated by rpy (0.3, -0.2, 0.5): I_L = R I_I Rᵀ.
  const InertiaDesc& upper_arm = Link(robot, "upper_arm").inertia;
  EXPECT_DOUBLE_EQ(upper_arm.mass, 1.5);
  ExpectVector(upper_arm.com, {0.01, 0.02, 0.15});
  Eigen::Matrix3d I_I;
  I_I << 0.02, 0.001, -0.002,  //
      0.001, 0.025, 0.0005,    //
      -0.002, 0.0005, 0.015;
  const Eigen::Matrix3d R = FromRpy(0.3, -0.2, 0.5);
  const Eigen::Matrix3d I_L = R * I_I * R.transpose();
  const std::array<double, 6> expected = {I_L(0, 0), I_L(1, 1), I_L(2, 2), I_L(0, 1), I_L(0, 2), I_L(1, 2)};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(upper_arm.inertia[i], expected[i], 1e-15) << "component " << i;
  // The rotation changed the tensor's entries, not its trace.
  EXPECT_GT(std::abs(upper_arm.inertia[0] - 0.02), 1e-4);
  EXPECT_NEAR(upper_arm.inertia[0] + upper_arm.inertia[1] + upper_arm.inertia[2], 0.06, 1e-15);

  // No <inertial>: massless.
  const InertiaDesc& tool = Link(robot, "tool").inertia;
  EXPECT_EQ(tool.mass, 0);
  EXPECT_EQ(tool.inertia, (std::array<double, 6>{0, 0, 0, 0, 0, 0}));

  // Rounded moments that break the triangle inequality by 6e-5 of the largest are accepted.
  EXPECT_DOUBLE_EQ(Link(robot, "wheel").inertia.inertia[2], 0.16667);
}

TEST(UrdfLoader, GeometryHasShapesPosesNamesAndColours) {
  const MultibodyDesc robot = LoadUrdf(kRobot);
  const std::array<double, 4> blue = {0, 0, 0.8, 1}, orange = {1, 0.5, 0, 1}, grey = GeometryDesc().rgba;

  const LinkDesc& base = Link(robot, "base");
  ASSERT_EQ(base.visuals.size(), 1u);
  ASSERT_EQ(base.collisions.size(), 1u);
  EXPECT_EQ(base.visuals[0].name, "base_visual_0");
  EXPECT_EQ(base.visuals[0].shape.type, ShapeType::kBox);
  ExpectVector(base.visuals[0].shape.size, {0.2, 0.3, 0.1});
  ExpectRgba(base.visuals[0].rgba, blue);  // A robot-level material named by a visual.
  ExpectVector(base.visuals[0].pose.position, {0, 0, 0});
  ExpectRotation(base.visuals[0].pose, Eigen::Matrix3d::Identity());
  EXPECT_EQ(base.collisions[0].name, "base_box");
  ExpectVector(base.collisions[0].pose.position, {0, 0, 0.05});
  ExpectRotation(base.collisions[0].pose, Eigen::Matrix3d(Eigen::AngleAxisd(kHalfPi, Eigen::Vector3d::UnitZ())));

  const LinkDesc& upper_arm = Link(robot, "upper_arm");
  ASSERT_EQ(upper_arm.visuals.size(), 1u);
  EXPECT_EQ(upper_arm.visuals[0].shape.type, ShapeType::kCylinder);
  EXPECT_DOUBLE_EQ(upper_arm.visuals[0].shape.radius, 0.03);
  EXPECT_DOUBLE_EQ(upper_arm.visuals[0].shape.length, 0.3);
  ExpectVector(upper_arm.visuals[0].pose.position, {0, 0, 0.15});
  ExpectRotation(upper_arm.visuals[0].pose, FromRpy(0.1, 0.2, 0.3));
  ExpectRgba(upper_arm.visuals[0].rgba, orange);  // Defined inside the visual.
  EXPECT_EQ(upper_arm.collisions.at(0).name, "upper_arm_collision_0");
  EXPECT_DOUBLE_EQ(upper_arm.collisions.at(0).shape.radius, 0.035);

  // A mesh by package:// and by a relative path resolve to the same absolute file.
  const std::filesystem::path tetra = kUrdf / "ductile_test_robot" / "meshes" / "tetra.obj";
  const LinkDesc& forearm = Link(robot, "forearm");
  ASSERT_EQ(forearm.visuals.size(), 2u);
  const ShapeDesc& mesh = forearm.visuals[0].shape;
  EXPECT_EQ(mesh.type, ShapeType::kMesh);
  EXPECT_TRUE(mesh.mesh_file.is_absolute()) << mesh.mesh_file;
  EXPECT_TRUE(std::filesystem::equivalent(mesh.mesh_file, tetra)) << mesh.mesh_file;
  EXPECT_EQ(mesh.mesh_file, mesh.mesh_file.lexically_normal());
  EXPECT_DOUBLE_EQ(mesh.mesh_scale, 0.5);
  ExpectRgba(forearm.visuals[0].rgba, grey);  // No material.
  EXPECT_EQ(forearm.visuals[1].name, "forearm_marker");
  EXPECT_EQ(forearm.visuals[1].shape.type, ShapeType::kSphere);
  EXPECT_DOUBLE_EQ(forearm.visuals[1].shape.radius, 0.02);
  ExpectVector(forearm.visuals[1].pose.position, {0.1, 0, 0});
  ExpectRgba(forearm.visuals[1].rgba, blue);
  ASSERT_EQ(forearm.collisions.size(), 1u);
  EXPECT_TRUE(forearm.collisions[0].shape.mesh_file.is_absolute());
  EXPECT_TRUE(std::filesystem::equivalent(forearm.collisions[0].shape.mesh_file, tetra));
  EXPECT_DOUBLE_EQ(forearm.collisions[0].shape.mesh_scale, 1);

  // A material defined inside an earlier visual is known by name afterwards (as urdfdom resolves it).
  ExpectRgba(Link(robot, "slider").visuals.at(0).rgba, orange);
  // A mesh format other than OBJ is accepted when the file exists.
  EXPECT_EQ(Link(robot, "wheel").collisions.at(0).shape.mesh_file.filename(), "tetra.stl");
  EXPECT_TRUE(Link(robot, "tool").visuals.empty());
}

TEST(UrdfLoader, JointsHaveTypesFramesAxesLimitsAndDamping) {
  const MultibodyDesc robot = LoadUrdf(kRobot);

  const JointDesc& shoulder = Joint(robot, "shoulder");
  EXPECT_EQ(shoulder.type, JointType::kRevolute);
  EXPECT_EQ(shoulder.parent, "base");
  EXPECT_EQ(shoulder.child, "upper_arm");
  ExpectVector(shoulder.origin.position, {0, 0, 0.1});
  ExpectRotation(shoulder.origin, FromRpy(0, 0, 0.5));
  ExpectVector(shoulder.axis, {0, 0, 1});  // Written as 0 0 2.
  EXPECT_DOUBLE_EQ(shoulder.lower, -1.5);
  EXPECT_DOUBLE_EQ(shoulder.upper, 1.5);
  EXPECT_DOUBLE_EQ(shoulder.effort, 50);
  EXPECT_DOUBLE_EQ(shoulder.velocity, 2);
  EXPECT_DOUBLE_EQ(shoulder.damping, 0.5);

  const JointDesc& elbow = Joint(robot, "elbow");
  EXPECT_EQ(elbow.type, JointType::kRevolute);
  ExpectVector(elbow.axis, {1, 0, 0});  // URDF's default axis.
  EXPECT_DOUBLE_EQ(elbow.lower, -2);
  EXPECT_DOUBLE_EQ(elbow.upper, 2);
  EXPECT_DOUBLE_EQ(elbow.damping, 0);

  // Continuous: revolute without position limits, keeping its effort and velocity limits.
  const JointDesc& wheel = Joint(robot, "wheel_joint");
  EXPECT_EQ(wheel.type, JointType::kRevolute);
  EXPECT_EQ(wheel.lower, -kInf);
  EXPECT_EQ(wheel.upper, kInf);
  EXPECT_DOUBLE_EQ(wheel.effort, 5);
  EXPECT_DOUBLE_EQ(wheel.velocity, 10);
  ExpectVector(wheel.axis, {0, 1, 0});
  ExpectRotation(wheel.origin, FromRpy(kHalfPi, 0, 0));

  const JointDesc& slide = Joint(robot, "slide");
  EXPECT_EQ(slide.type, JointType::kPrismatic);
  ExpectVector(slide.axis, {1, 0, 0});
  EXPECT_DOUBLE_EQ(slide.lower, 0);
  EXPECT_DOUBLE_EQ(slide.upper, 0.1);
  EXPECT_DOUBLE_EQ(slide.effort, 100);
  EXPECT_DOUBLE_EQ(slide.velocity, 0.5);
  EXPECT_DOUBLE_EQ(slide.damping, 2);

  const JointDesc& tool = Joint(robot, "tool_joint");
  EXPECT_EQ(tool.type, JointType::kFixed);
  ExpectVector(tool.origin.position, {0.3, 0, 0});
  EXPECT_EQ(tool.lower, -kInf);
  EXPECT_EQ(tool.effort, kInf);
}

TEST(UrdfLoader, WorldLinkIsTheWorldFrame) {
  const MultibodyDesc welded = LoadUrdf(kUrdf / "world_fixed.urdf");
  ASSERT_EQ(welded.links.size(), 1u);
  EXPECT_EQ(welded.links[0].name, "base");
  EXPECT_EQ(welded.FindLink("world"), nullptr);
  ASSERT_EQ(welded.joints.size(), 1u);
  EXPECT_EQ(welded.joints[0].type, JointType::kFixed);
  EXPECT_EQ(welded.joints[0].parent, "world");
  EXPECT_EQ(welded.joints[0].child, "base");
  ExpectVector(welded.joints[0].origin.position, {0, 0, 0.5});

  const MultibodyDesc free_body = LoadUrdf(kUrdf / "world_floating.urdf");
  ASSERT_EQ(free_body.joints.size(), 1u);
  EXPECT_EQ(free_body.joints[0].type, JointType::kFloating);
  EXPECT_EQ(free_body.joints[0].parent, "world");
  EXPECT_EQ(free_body.links.at(0).name, "body");
}

TEST(UrdfLoader, RootWithoutJointGetsNoJoint) {
  const MultibodyDesc brick = LoadUrdf(kUrdf / "single_link.urdf");
  ASSERT_EQ(brick.links.size(), 1u);
  EXPECT_TRUE(brick.joints.empty());
  EXPECT_EQ(brick.links[0].collisions.at(0).name, "brick_collision_0");
  ExpectVector(brick.links[0].collisions[0].shape.size, {0.1, 0.05, 0.02});
}

// The SceneError that loading `file` throws; fails the test when it loads.
SceneError ErrorOf(const std::filesystem::path& file) {
  try {
    LoadUrdf(file);
  } catch (const SceneError& e) {
    return e;
  }
  ADD_FAILURE() << file << " loaded without error";
  return SceneError("", 0, 0, "");
}

TEST(UrdfLoader, MissingFileHasNoLine) {
  const std::filesystem::path file = kUrdf / "no_such_robot.urdf";
  const SceneError error = ErrorOf(file);
  EXPECT_EQ(error.file(), file.string());
  EXPECT_EQ(error.line(), 0);
  EXPECT_EQ(error.message(), "URDF file not found");
  EXPECT_EQ(std::string(error.what()), file.string() + ": URDF file not found");
}

TEST(UrdfLoader, FolderIsNotAFile) {
  const SceneError error = ErrorOf(kUrdf);
  EXPECT_EQ(error.line(), 0);
  EXPECT_EQ(error.message(), "cannot read the URDF file: it is a folder");
}

struct BadUrdf {
  const char* name;  // File name in tests/data/urdf/bad/ without ".urdf".
  int line;
  int column;
  const char* message;  // A substring of SceneError::message().
};

// Every file in the folder has exactly one row (checked below).
const BadUrdf kBadUrdfTable[] = {
    // The file and its XML.
    {"malformed_xml", 3, 3, "malformed XML: Error reading end tag."},
    {"empty", 1, 1, "the file holds no XML element; a URDF file holds one <robot> element"},
    {"no_robot", 2, 1, "the top-level element must be <robot>, got <sdf>"},
    {"two_top_level", 4, 1, "a URDF file holds one top-level element <robot>; found another element <robot>"},
    {"robot_without_name", 1, 1, "missing 'name' attribute in <robot>"},
    {"unsupported_version", 1, 17, "URDF version '2.0' is not supported (only 1.0)"},
    {"no_links", 1, 1, "the robot has no <link>"},
    // Names and the tree.
    {"unknown_parent_link", 5, 13, "joint 'j2' names parent link 'lnk1', which is not defined; did you mean 'link1'?"},
    {"unknown_child_link", 5, 12, "joint 'j' names child link 'gripper', which is not defined"},
    {"joint_without_child", 4, 3, "missing <child> in joint 'j'"},
    {"two_parents", 6, 58, "link 'c' has two parent joints: 'j1' (line 5) and 'j2'"},
    {"self_loop", 3, 57, "joint 'j' connects link 'a' to itself"},
    {"cycle", 8, 3, "the joints form a cycle: 'b' -> 'c' -> 'b'"},
    {"no_root", 7, 3,
     "no root link: every link is the child of a joint, so the joints form a cycle: 'a' -> 'b' -> 'c' -> 'a'"},
    {"two_roots", 4, 3,
     "several root links (links that are not the child of any joint): 'base' (line 2), 'tool' (line 4); a URDF "
     "describes one tree"},
    {"duplicate_link", 4, 3, "duplicate link name 'arm' (first at line 2)"},
    {"duplicate_joint", 6, 3, "duplicate joint name 'j' (first at line 5)"},
    {"world_two_children", 6, 3,
     "link 'world' has more than one child joint ('ja' (line 5), 'jb'); a robot is attached to the world by one "
     "joint"},
    {"world_with_geometry", 3, 5, "link 'world' is the world frame and cannot have <visual>"},
    // Mass properties.
    {"negative_mass", 4, 13, "mass of link 'arm' must be >= 0, got -1"},
    {"missing_mass", 3, 5, "missing <mass> in <inertial> of link 'arm'"},
    {"inertia_missing_attribute", 5, 7, "missing 'iyz' attribute in <inertia> of link 'arm'"},
    {"inertia_not_psd", 5, 7,
     "inertia of link 'arm' is not positive semi-definite: its principal moments are -1, 1, 3"},
    {"inertia_triangle", 5, 7,
     "inertia of link 'arm' violates the triangle inequality: its principal moments 1, 1, 3 do not satisfy 1 + 1 >= "
     "3"},
    {"not_a_number", 4, 15,
     "'xyz' in <origin> of link 'arm' must be 3 finite numbers separated by spaces, got '0 0 zero'"},
    // Joints.
    {"limits_inverted", 7, 5, "joint 'elbow' has lower limit 1 > upper limit -1"},
    {"effort_zero", 7, 33, "effort limit of joint 'elbow' must be > 0, got 0"},
    {"velocity_negative", 7, 44, "velocity limit of joint 'rail' must be > 0, got -0.5"},
    {"limit_without_effort", 7, 5, "missing 'effort' attribute in <limit> of joint 'axle'"},
    {"revolute_without_limit", 4, 3,
     "revolute joint 'shoulder' needs a <limit> element with 'effort' and 'velocity' (a joint without position "
     "limits has type 'continuous')"},
    {"damping_negative", 7, 15, "damping of joint 'axle' must be >= 0, got -0.1"},
    {"axis_zero", 7, 11, "axis of joint 'axle' must not be zero"},
    {"planar_joint", 4, 23,
     "joint 'slide' has type 'planar', which is not supported (supported: revolute, continuous, prismatic, fixed, "
     "floating)"},
    {"unknown_joint_type", 4, 19, "joint 'j' has unknown type 'revolut'; did you mean 'revolute'?"},
    {"floating_between_links", 5, 13, "floating joint 'j' must have the parent link 'world'"},
    // Geometry and materials.
    {"mesh_missing", 4, 23,
     "mesh file 'meshes/missing.obj' of visual 'a_visual_0' of link 'a' not found (looked for '"},
    {"mesh_unknown_package", 4, 23,
     "mesh file 'package://no_such_package/meshes/a.obj' of collision 'a_collision_0' of link 'a': no folder named "
     "'no_such_package' in '"},
    {"mesh_missing_in_package", 4, 23, "ductile_test_robot/meshes/missing.obj')"},
    {"mesh_nonuniform_scale", 4, 73,
     "mesh scale of visual 'a_visual_0' of link 'a' must be uniform (the same on every axis), got '1 2 1'"},
    {"mesh_url", 4, 23, "uses the unsupported URI scheme 'https' (use a path, file:// or package://)"},
    {"unknown_geometry", 4, 17,
     "unknown geometry type <capsule> in collision 'bumper' of link 'a' (one of: box, sphere, cylinder, mesh)"},
    {"missing_geometry", 3, 5, "missing <geometry> in visual 'a_visual_0' of link 'a'"},
    {"sphere_radius_zero", 4, 25, "sphere radius of collision 'a_collision_0' of link 'a' must be > 0, got 0"},
    {"undefined_material", 6, 17,
     "visual 'a_visual_0' of link 'a' uses material 'blu', which is not defined; did you mean 'blue'?"},
    {"color_out_of_range", 2, 34, "'rgba' in <color> of material 'bright' must be 4 numbers in [0, 1], got '2 0 0 1'"},
    // What urdfdom refuses among the elements this loader does not use is reported at <robot>.
    {"urdfdom_rejects_mimic", 1, 1, "urdfdom could not read the robot description"},
};

class UrdfBadFileTest : public testing::TestWithParam<BadUrdf> {};

TEST_P(UrdfBadFileTest, FailsAtLineAndColumnWithMessage) {
  const BadUrdf& expected = GetParam();
  const std::filesystem::path file = kBadUrdf / (std::string(expected.name) + ".urdf");
  const SceneError error = ErrorOf(file);
  EXPECT_EQ(error.file(), file.string());
  EXPECT_EQ(error.line(), expected.line) << error.what();
  EXPECT_EQ(error.column(), expected.column) << error.what();
  EXPECT_NE(error.message().find(expected.message), std::string::npos) << error.what();
  const std::string prefix =
      file.string() + ":" + std::to_string(expected.line) + ":" + std::to_string(expected.column) + ": ";
  EXPECT_EQ(std::string(error.what()).rfind(prefix, 0), 0u) << error.what();
}

INSTANTIATE_TEST_SUITE_P(UrdfBadFiles, UrdfBadFileTest, testing::ValuesIn(kBadUrdfTable),
                         [](const testing::TestParamInfo<BadUrdf>& param) { return std::string(param.param.name); });

TEST(UrdfLoader, EveryBadFileHasATableRow) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBadUrdf)) {
    ++files;
    const std::string name = entry.path().stem().string();
    bool listed = false;
    for (const BadUrdf& row : kBadUrdfTable) listed = listed || name == row.name;
    EXPECT_TRUE(listed) << entry.path() << " has no row in kBadUrdfTable";
  }
  EXPECT_EQ(files, static_cast<int>(std::size(kBadUrdfTable)));
}

}  // namespace
}  // namespace ductile
