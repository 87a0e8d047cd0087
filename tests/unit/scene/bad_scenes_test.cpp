// Malformed scenes: each file in tests/data/scenes/bad/ must fail with SceneError at the expected line and
// column (from 1) with a message that contains the expected text. The place is in the scene file, or in the file
// the row names when the problem lies in a file the scene loads (a URDF).
#include <string>

#include <gtest/gtest.h>

#include "ductile/scene.h"

namespace ductile {
namespace {

const std::filesystem::path kBadScenes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "bad";

struct BadScene {
  const char* name;  // File name in tests/data/scenes/bad/ without ".yaml".
  int line;
  int column;
  const char* message;  // A substring of SceneError::message().
  // The file the error names, relative to tests/data, when it is not the scene (a URDF the scene loads).
  const char* error_file = nullptr;
};

// Every file in the folder has exactly one row (checked below).
const BadScene kBadSceneTable[] = {
    {"unknown_material_key", 2, 51, "unknown key 'youngs_modulu' in material 'rubber'; did you mean 'youngs_modulus'?"},
    {"poisson_ratio_half", 6, 20, "'poisson_ratio' must be in (-1, 0.5), got 0.5"},
    {"poisson_ratio_minus_one", 2, 87, "'poisson_ratio' must be in (-1, 0.5), got -1"},
    {"dt_not_a_number", 2, 7, "'dt' must be a number, got 'fast'"},
    {"dt_zero", 3, 7, "'dt' must be > 0, got 0"},
    {"grid_too_large", 2, 6,
     "the grid would have 10001 x 10001 x 10001 nodes (domain / h), more than the 1e9 supported"},
    {"substeps_zero", 1, 34, "'substeps' must be >= 1, got 0"},
    {"substeps_not_integer", 2, 13, "'substeps' must be an integer, got '2.5'"},
    {"youngs_modulus_zero", 2, 67, "'youngs_modulus' must be > 0, got 0"},
    {"density_negative", 2, 34, "'density' must be > 0, got -1"},
    {"yield_stress_negative", 7, 19, "'yield_stress' must be >= 0, got -5"},
    {"yield_stress_not_applicable", 7, 5, "'yield_stress' does not apply to model fixed_corotated"},
    {"missing_poisson_ratio", 3, 5, "missing required key 'poisson_ratio' in material 'rubber'"},
    {"unknown_model", 2, 19, "unknown material model 'fixed_corotatd'; did you mean 'fixed_corotated'?"},
    {"friction_angle_90", 2, 107, "'friction_angle' must be in [0, 90), got 90"},
    {"undefined_material", 6, 15, "undefined material 'dogh' (defined: dough, rubber); did you mean 'dough'?"},
    {"mesh_missing", 6, 31, "mesh file 'missing.obj' not found"},
    {"mesh_open", 8, 13, "mesh '../../meshes/open_cube.obj' is not closed: edge (5, 8) is used by 1 face(s)"},
    {"mesh_inconsistent", 6, 31, "is not closed: edge (5, 8) is traversed twice in the same direction"},
    {"mesh_garbage", 6, 31, "cannot load mesh '../../meshes/garbage.obj': mesh file"},
    {"mesh_collider", 3, 19, "shape type 'mesh' is not supported for colliders"},
    {"syntax_error", 4, 11, "YAML syntax error: end of sequence flow not found"},
    {"bad_indentation", 3, 12, "YAML syntax error: illegal map value"},
    {"duplicate_key", 4, 3, "duplicate key 'dt' in section 'simulation' (first at line 2)"},
    {"duplicate_material", 3, 3, "duplicate key 'rubber' in section 'materials' (first at line 2)"},
    {"empty", 1, 1, "the scene file is empty"},
    {"only_comments", 1, 1, "the scene file is empty"},
    {"top_level_list", 1, 1,
     "a scene must be a map of sections (simulation, grid, materials, objects, ...), got a list"},
    {"two_documents", 3, 1, "a scene file holds one YAML document"},
    {"unknown_section", 1, 1, "unknown key 'simulaton' in the scene; did you mean 'simulation'?"},
    {"unknown_key_no_suggestion", 3, 3, "unknown key 'resolution' in section 'grid' (known keys: h, domain, boundary)"},
    {"reserved_section", 1, 1, "'recording' is not supported yet"},
    {"camera_fov_180", 3, 53, "'fov_deg' must be in (0, 180), got 180"},
    {"cloth_sheet_not_cloth", 6, 12, "object 'towel' is a sheet: its material must have model cloth"},
    {"cloth_box", 6, 12, "object 'towel' has the cloth material 'cotton': its shape must be of type sheet or mesh"},
    {"cloth_mesh_missing", 6, 31, "mesh file 'missing.obj' not found"},
    {"cloth_mesh_degenerate", 6, 31,
     "mesh '../../meshes/cloth_degenerate.obj' cannot be a cloth: triangle 2 (1, 2, 4) has zero area"},
    {"cloth_mesh_fin", 6, 31,
     "mesh '../../meshes/cloth_fin.obj' cannot be a cloth: triangle 3 (1, 2, 5) is the third triangle on edge (1, 2), "
     "after triangles 1 and 2: a cloth's edge borders at most two triangles"},
    {"cloth_mesh_no_triangles", 6, 31, "cannot load mesh '../../meshes/no_faces.obj': mesh file"},
    {"cloth_mesh_corners", 9, 14,
     "'corners' of pin group 'hold' of object 'shirt' applies to sheets only: a mesh has no corners (use 'vertices' "
     "or 'box')"},
    {"cloth_pins_not_cloth", 8, 5, "object 'cube' is not cloth: only a cloth's vertices can be pinned"},
    {"cloth_pin_two_selections", 9, 7,
     "pin group 'hold' of object 'towel' must name its vertices with exactly one of 'vertices', 'corners' or 'box'"},
    {"cloth_pin_keyframes_backwards", 9, 80, "keyframe times must increase strictly: keyframe 1 of pin group 'hold'"},
    {"cloth_sheet_collider", 3, 19, "shape type 'sheet' is only for cloth objects"},
    {"robot_script_unknown_link", 6, 13,
     "unknown link 'gripper_tpc' in 'script' of robot 'arm'; did you mean 'gripper_tcp'?"},
    {"robot_script_no_position", 7, 55, "missing required key 'position' in keyframe 1 of 'script' of robot 'arm'"},
    {"camera_eye_is_target", 3, 9, "camera 'top': 'eye' and 'target' are the same point"},
    {"camera_unknown_key", 3, 44, "unknown key 'fov' in camera 'top' (known keys: eye, target, fov_deg)"},
    {"section_not_a_map", 1, 13, "section 'simulation' must be a map, got '5'"},
    {"domain_inverted", 2, 11, "grid domain 'min' must be below 'max' on every axis, got min z = 1 >= max z = 0"},
    {"object_outside_domain", 4, 3,
     "object 'cube' is not inside the grid domain: its bounds are (-0.05, -0.05, 0.93) to (0.05, 0.05, 1.03)"},
    {"probe_unknown_object", 10, 19, "undefined object 'cub' (defined: cube); did you mean 'cube'?"},
    {"probe_unknown_quantity", 10, 35,
     "unknown probe quantity 'momentum' (one of: center_of_mass, velocity, bounds, kinetic_energy)"},
    {"duration_nan", 2, 13, "'duration' must be finite, got .nan"},
    {"gravity_inf", 2, 19, "'gravity[2]' must be finite, got -.inf"},
    {"gravity_two_numbers", 2, 12, "'gravity' must be a list of 3 numbers, got a list of 2"},
    {"box_negative_size", 6, 36, "'size[1]' must be > 0, got -0.1"},
    {"sphere_radius_on_box", 6, 47, "'radius' does not apply to shape type box"},
    {"plane_object", 6, 19, "shape type 'plane' cannot be an MPM object"},
    {"missing_shape_type", 6, 12, "missing required key 'type' in shape of object 'ball'"},
    {"rpy_and_quaternion", 10, 7, "pose of object 'cube' takes either 'rpy_deg' or 'quaternion', not both"},
    {"quaternion_zero", 4, 24, "'quaternion' must not be zero"},
    {"plane_normal_zero", 2, 41, "'normal' must not be zero"},
    {"boundary_type_typo", 2, 20,
     "unknown boundary type 'stiky'; did you mean 'sticky'? (one of: sticky, slip, separate, friction)"},
    {"friction_negative", 4, 42, "'friction' must be >= 0, got -0.1"},
    {"cfl_above_one", 2, 8, "'cfl' must be in (0, 1], got 1.5"},
    {"coupling_typo", 2, 13, "unknown coupling scheme 'stron'; did you mean 'strong'? (one of: weak, strong)"},
    {"name_with_dot", 4, 3, "object name 'cube.1' must not contain '.'"},
    {"material_not_a_map", 2, 11, "material 'rubber' must be a map, got 'soft'"},
    {"velocity_not_a_list", 8, 15, "'velocity' must be a list of 3 numbers, got '3'"},
    // contact, rigid_bodies and robots.
    {"contact_stiffness_zero", 3, 14, "'stiffness' must be > 0, got 0"},
    {"rigid_unknown_key", 5, 5, "unknown key 'frction' in rigid body 'box'; did you mean 'friction'?"},
    {"rigid_type_typo", 3, 11,
     "unknown rigid body type 'kinematc'; did you mean 'kinematic'? (one of: dynamic, static, kinematic)"},
    {"rigid_plane_dynamic", 3, 19, "shape type 'plane' is only for static rigid bodies"},
    {"rigid_mass_and_density", 5, 5, "rigid body 'box' takes either 'mass' or 'density', not both"},
    {"rigid_no_mass", 3, 5, "missing required key 'mass' or 'density' in dynamic rigid body 'box'"},
    {"rigid_mass_negative", 2, 58, "'mass' must be > 0, got -1"},
    {"rigid_static_mass", 5, 5, "'mass' does not apply to static rigid bodies: they are fixed in the world"},
    {"static_velocity", 5, 5, "'velocity' does not apply to static rigid bodies: they do not move"},
    {"kinematic_without_keyframes", 3, 5, "missing required key 'keyframes' in kinematic rigid body 'pusher'"},
    {"keyframes_empty", 5, 16, "'keyframes' of rigid body 'pusher' must list at least one keyframe"},
    {"keyframe_times_not_increasing", 8, 16,
     "keyframe times must increase strictly: keyframe 2 of rigid body 'pusher' has 'time' 1, not after keyframe 1's "
     "1"},
    {"kinematic_pose", 5, 5, "'pose' does not apply to kinematic rigid bodies: they follow their 'keyframes'"},
    {"rigid_color_out_of_range", 5, 18, "'color[1]' must be in [0, 1], got 1.5"},
    {"name_object_and_rigid_body", 9, 3, "rigid body name 'cube' is already used by object 'cube' (line 4)"},
    {"name_robot_before_object", 6, 3, "object name 'arm' is already used by robot 'arm' (line 2)"},
    {"robot_without_urdf", 3, 5, "missing required key 'urdf' in robot 'arm'"},
    {"robot_urdf_missing", 3, 11, "URDF file 'robots/missing.urdf' not found (looked for /"},
    {"robot_urdf_negative_mass", 4, 13, "mass of link 'arm' must be >= 0, got -1", "urdf/bad/negative_mass.urdf"},
    {"floating_base_not_bool", 4, 20, "'floating_base' must be true or false, got 'maybe'"},
    {"controller_unknown_joint", 6, 7, "unknown joint 'iiwa_jiont_3' in robot 'arm'; did you mean 'iiwa_joint_3'?"},
    {"controller_fixed_joint", 5, 7,
     "joint 'iiwa_joint_ee' of robot 'arm' is fixed: only revolute and prismatic joints take initial positions"},
    {"controller_gains_zero", 5, 7,
     "controller of joint 'iiwa_joint_1' of robot 'arm' needs a positive 'kp' or 'kd' (both are 0)"},
    {"controller_target_outside_limits", 5, 47,
     "'target' of joint 'iiwa_joint_2' must be within the joint's limits [-2.0944, 2.0944] rad, got -2.5"},
    {"initial_position_outside_limits", 6, 21,
     "initial position of joint 'iiwa_joint_2' must be within the joint's limits [-2.0944, 2.0944] rad, got 2.5"},
    // Applied loads (force, torque, joint_efforts) and welds.
    {"rigid_force_static", 5, 5,
     "'force' does not apply to static rigid bodies: they are fixed in the world, no force moves them"},
    {"rigid_torque_kinematic", 7, 5,
     "'torque' does not apply to kinematic rigid bodies: they follow their keyframes whatever the forces"},
    {"joint_effort_unknown_joint", 6, 7, "unknown joint 'iiwa_jiont_2' in robot 'arm'; did you mean 'iiwa_joint_2'?"},
    {"joint_effort_above_limit", 4, 54,
     "effort of joint 'iiwa_joint_6' must not exceed the joint's URDF effort limit 40 N·m in magnitude, got -50"},
    {"weld_unknown_body", 8, 13, "unknown body 'cupp' in 'body_b' of weld 'hold'; did you mean 'cup'?"},
    {"weld_unknown_robot_link", 10, 13,
     "unknown body 'arm/gripper' in 'body_a' of weld 'grip' (robot 'arm' has: arm/iiwa_link_0, arm/iiwa_link_1"},
    {"collision_filter_unknown_body", 5, 38,
     "unknown body 'crat' in 'body_b' of collision filter 'no_floor'; did you mean 'crate'?"},
    {"collision_filter_same_body", 4, 33, "collision filter 'self' names 'crate' twice"},
    {"weld_body_to_itself", 6, 31,
     "weld 'hold' joins dynamic rigid body 'cup' to itself: 'body_a' and 'body_b' must differ"},
    {"weld_world_and_static", 8, 13,
     "weld 'bolt' joins the world and static rigid body 'table', which are both fixed in the world: nothing to move"},
    {"weld_kinematic_and_world", 9, 13,
     "weld 'tether' joins kinematic rigid body 'handle' and the world, which no force moves: nothing for the weld "
     "to act on"},
    {"weld_damping_without_stiffness", 9, 14,
     "'damping' of weld 'hold' needs a 'stiffness' > 0: with stiffness 0 the weld is near-rigid and has no damper"},
    {"weld_stiffness_negative", 6, 49, "'stiffness' must be >= 0, got -100"},
    {"rigid_name_world", 2, 3, "rigid body name 'world' is reserved: welds use it for the world frame"},
    // Rigid bodies on joints.
    {"joint_on_kinematic", 6, 5,
     "'joint' does not apply to kinematic rigid bodies: they follow their 'keyframes'; only dynamic bodies hang on a "
     "joint (a kinematic body may be a joint's 'parent')"},
    {"joint_with_pose", 6, 5,
     "'pose' does not apply to rigid body 'door', which hangs on a 'joint': its pose follows from the joint's "
     "'parent', 'origin' and 'position'"},
    {"joint_with_velocity", 5, 5,
     "'angular_velocity' does not apply to rigid body 'door', which hangs on a 'joint': it starts moving with its "
     "'parent'"},
    {"joint_unknown_parent", 10, 15, "unknown parent 'carier' of rigid body 'pin'; did you mean 'carrier'?"},
    {"joint_parent_later", 5, 21,
     "parent 'carrier' of rigid body 'pin' is defined later in the file (line 6): a parent must come before the "
     "bodies on its joints in 'rigid_bodies'"},
    {"joint_parent_itself", 5, 21, "rigid body 'pin' cannot be its own 'parent'"},
    {"joint_missing_parent", 6, 7, "missing required key 'parent' in joint of rigid body 'door'"},
    {"joint_type_floating", 5, 19, "unknown joint type 'floating' (one of: revolute, prismatic, fixed)"},
    {"joint_axis_zero", 7, 13, "'axis' must not be zero"},
    {"joint_position_outside_limits", 9, 17,
     "'position' of joint of rigid body 'door' must be within the joint's limits [-1.5, 1.5] rad, got 2"},
    {"joint_lower_above_upper", 5, 69,
     "joint of rigid body 'panel' has 'lower' 0.6 above 'upper' 0: the limits need lower <= upper"},
    {"joint_effort_applied_above_effort", 8, 23,
     "'effort_applied' of rigid body 'door' must not exceed the joint's 'effort' limit 50 N·m in magnitude, got -60"},
    {"joint_target_default_outside_limits", 5, 5,
     "joint of rigid body 'panel' needs a 'target': the default 0 is outside the joint's limits [0.1, 0.6] m"},
    {"joint_fixed_axis", 8, 7,
     "'axis' does not apply to fixed joints: they hold the body at 'origin' with no degree of freedom (only revolute "
     "and prismatic joints move)"},
    {"weld_fixed_joint_to_world", 9, 13,
     "weld 'glue' joins the world and dynamic rigid body 'plate' (on a fixed joint to the world), which are both "
     "fixed in the world: nothing to move"},
};

class BadSceneTest : public testing::TestWithParam<BadScene> {};

TEST_P(BadSceneTest, FailsAtLineAndColumnWithMessage) {
  const BadScene& expected = GetParam();
  const std::filesystem::path file = kBadScenes / (std::string(expected.name) + ".yaml");
  const std::filesystem::path error_file =
      expected.error_file == nullptr
          ? file
          : (std::filesystem::path(DUCTILE_TEST_DATA_DIR) / expected.error_file).lexically_normal();
  try {
    LoadScene(file);
    FAIL() << file << " loaded without error";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), error_file.string());
    EXPECT_EQ(e.line(), expected.line) << e.what();
    EXPECT_EQ(e.column(), expected.column) << e.what();
    EXPECT_NE(e.message().find(expected.message), std::string::npos) << e.what();
    const std::string prefix =
        error_file.string() + ":" + std::to_string(expected.line) + ":" + std::to_string(expected.column) + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, BadSceneTest, testing::ValuesIn(kBadSceneTable),
                         [](const testing::TestParamInfo<BadScene>& param) { return std::string(param.param.name); });

TEST(BadScenes, EveryFileHasATableRowAndThereAreAtLeast25) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBadScenes)) {
    ++files;
    const std::string name = entry.path().stem().string();
    bool listed = false;
    for (const BadScene& row : kBadSceneTable) listed = listed || name == row.name;
    EXPECT_TRUE(listed) << entry.path() << " has no row in kBadSceneTable";
  }
  EXPECT_EQ(files, static_cast<int>(std::size(kBadSceneTable)));
  EXPECT_GE(files, 25);
}

}  // namespace
}  // namespace ductile
