// The scene description: what a user writes in a YAML scene file (docs/scene-format.md), validated.
// LoadScene parses and validates; every error names FILE:LINE:COL. A SceneDesc that LoadScene returned is valid:
// CompileModel (model.h) turns it into the immutable Model the simulator steps.
#pragma once

#include <array>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/kinds.h"

namespace ductile {

using Vector3 = std::array<double, 3>;

/// A problem in user input, with the place it was found. line and column count from 1; 0 means unknown.
class SceneError : public std::runtime_error {
 public:
  SceneError(std::string file, int line, int column, const std::string& message)
      : std::runtime_error(Format(file, line, column, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        message_(message) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  /// The message without the FILE:LINE:COL prefix.
  const std::string& message() const { return message_; }

 private:
  static std::string Format(const std::string& file, int line, int column, const std::string& message) {
    // A message that already starts with its source (e.g. "--set a.b=1: ...") is not prefixed twice.
    if (line == 0 && message.rfind(file, 0) == 0) return message;
    std::ostringstream s;
    s << file;
    if (line > 0) s << ':' << line << ':' << column;
    s << ": " << message;
    return s.str();
  }
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

/// Where in the scene file a definition came from, for messages produced after parsing.
struct SourceLocation {
  std::string file;
  int line = 0;    ///< From 1; 0 = unknown.
  int column = 0;  ///< From 1; 0 = unknown.
};

/// A rigid placement: position and orientation of a body frame B in the world W.
struct PoseDesc {
  Vector3 position{0, 0, 0};  ///< p_WB [m].
  /// Orientation as a unit quaternion (w, x, y, z). In YAML given as `rpy_deg: [r, p, y]` (extrinsic X-Y-Z,
  /// degrees) or `quaternion: [w, x, y, z]` (normalised on load).
  std::array<double, 4> quaternion{1, 0, 0, 0};
};

/// How the deformable domains and the rigid system advance together (`simulation.coupling`).
enum class CouplingKind : std::int32_t {
  kWeak = 0,    ///< Yu et al. 2025: MPM substeps against frozen rigid geometry, then the rigid step.
  kStrong = 1,  ///< Zong, Jiang, Han 2024: one implicit MPM step and the rigid step in one convex problem.
};

/// Where the MPM domain runs (`simulation.backend`; docs/architecture.md, "The device backend").
enum class BackendKind : std::int32_t {
  kCpu = 0,       ///< The CPU backend (TBB), the reference.
  kCuda = 1,      ///< The device backend on a CUDA GPU; refused where there is none.
  kAuto = 2,      ///< CUDA when a device is present and runs the whole scene, else the CPU backend.
  kEmulated = 3,  ///< The device backend's code on the CPU implementation of its launch layer (tests, bench/gpu-check).
};

/// Simulation settings (`simulation:`).
struct SimulationDesc {
  double dt = 1e-3;                          ///< Rigid (outer) time step Δt [s], > 0.
  int substeps = 1;                          ///< MPM substeps N per Δt, ≥ 1.
  double duration = 1.0;                     ///< Default run length [s], > 0.
  Vector3 gravity{0, 0, -9.81};              ///< [m/s²].
  double output_rate = 60;                   ///< Output frames per simulated second (trajectory, probes) [Hz], > 0.
  double contact_tolerance_relative = 5e-2;  ///< ε_r of the contact solvers [-], > 0 (used from issue 4 on).
  double contact_tolerance_absolute = 1e-6;  ///< ε_a [-], ≥ 0.
  int max_solver_iterations = 100;           ///< ≥ 1.
  double cfl = 0.4;  ///< Max fraction of a cell a wave or particle may cross in one substep, in (0, 1].
  int threads = 0;   ///< Worker threads; 0 = all cores.
  CouplingKind coupling = CouplingKind::kWeak;  ///< `weak` or `strong`.
  SourceLocation coupling_where;                ///< Where `coupling` was given (for the strong scheme's refusals).
  BackendKind backend = BackendKind::kCpu;      ///< `cpu`, `cuda`, `auto` or `emulated`.
  SourceLocation backend_where;                 ///< Where `backend` was given (for its refusals).
  double strong_tolerance = 1e-6;               ///< ε_r of the strong scheme's joint SAP solve, > 0.
  int strong_dense_limit = 1500;                ///< Most kept grid dofs for the dense (Schur) joint solve, ≥ 0.
  double implicit_tolerance = 1e-8;             ///< The strong scheme's free-motion CG residual, > 0.
  /// Seed of the particle sampling, ≥ 0: 0 the scene's own particles, another value another sampling of the same
  /// shapes (jittered lattices, other random points); `ductile-cli sweep --seeds`.
  int seed = 0;
};

/// The MPM background grid (`grid:`).
struct GridDesc {
  double h = 0.01;                    ///< Grid spacing [m], > 0.
  Vector3 domain_min{-0.5, -0.5, 0};  ///< Lower corner of the simulation domain [m].
  Vector3 domain_max{0.5, 0.5, 1};    ///< Upper corner [m]; every component > domain_min's.
};

/// How a boundary treats grid velocities at nodes inside it.
enum class BoundaryType {
  kSticky,    ///< v = 0 (velocity of the collider).
  kSlip,      ///< Normal component removed in both directions (bilateral), tangential kept.
  kSeparate,  ///< Approaching normal component removed (unilateral), no friction.
  kFriction,  ///< Unilateral with Coulomb friction μ on the tangential component.
};

/// A boundary condition (domain walls or a collider).
struct BoundaryDesc {
  BoundaryType type = BoundaryType::kSeparate;
  double friction = 0;  ///< Coulomb μ ≥ 0, used by kFriction.
};

/// A named material (`materials: NAME: {...}`). Which fields apply depends on the model.
struct MaterialDesc {
  std::string name;
  MaterialModelDesc model = MaterialModelDesc::kFixedCorotated;
  double density = 1000;           ///< ρ [kg/m³], > 0.
  double youngs_modulus = 1e5;     ///< E [Pa], > 0 (solids).
  double poisson_ratio = 0.3;      ///< ν, in (−1, 0.5) (solids).
  double yield_stress = 0;         ///< η [Pa], ≥ 0 (linear_corotated, stvk_hencky): bound on ‖dev τ‖_F.
  double friction_angle_deg = 30;  ///< φ [deg], in [0, 90) (drucker_prager).
  double cohesion = 0;             ///< ≥ 0 (drucker_prager), Hencky volumetric strain shift [-].
  double bulk_modulus = 1e5;       ///< κ [Pa], > 0 (fluid).
  double gamma = 7;                ///< Tait exponent γ, ≥ 1 (fluid).
  double viscosity = 0;            ///< [Pa·s], ≥ 0 (fluid).
  double thickness = 1e-3;         ///< [m], > 0 (cloth): a triangle's volume is its area times this.
  double normal_stiffness = -1;    ///< k [Pa], > 0 (cloth); negative = not set: the Young's modulus.
  double shear_stiffness = -1;     ///< γ [Pa], ≥ 0 (cloth); negative = not set: the Young's modulus.
  double layer_friction = 0.3;     ///< c_F, ≥ 0 (cloth): Coulomb friction between layers of cloth.
  double implicit_in_plane = 0;    ///< θ in [0, 1] (cloth): implicit weight of the in-plane elastic force.
  /// Display colour [r, g, b, a], each in [0, 1]; empty: a colour per model (Snapshot::material_rgba).
  std::optional<std::array<double, 4>> rgba;
  /// Coulomb friction coefficient μ of this material against rigid geometry, ≥ 0 (any model); combined with
  /// the geometry's μ by the rigid-rigid rule (contact/friction_combination.h). Negative = not set: the
  /// geometry's μ alone.
  double friction = -1;
  SourceLocation where;
};

/// A shape in its own frame S. Which fields apply depends on type.
struct ShapeDesc {
  ShapeType type = ShapeType::kBox;
  Vector3 size{0.1, 0.1, 0.1};  ///< Box full extents [m], each > 0.
  double radius = 0.05;         ///< Sphere, cylinder [m], > 0.
  double length = 0.1;          ///< Cylinder or capsule length along its z axis [m], > 0 (capsule: without caps).
  /// Mesh: resolved absolute path of a closed triangle mesh (OBJ), relative paths resolve against the scene
  /// file's folder.
  std::filesystem::path mesh_file;
  double mesh_scale = 1.0;  ///< Uniform scale applied to the mesh's vertices, > 0.
  Vector3 normal{0, 0, 1};  ///< Plane: outward normal in S (normalised on load); the solid is below.
  /// Sheet (cloth): a width × length rectangle in S's x-y plane, centred on S's origin, meshed with `vertices`
  /// vertices along x and as many along y as keep the spacing (round((vertices − 1)·length/width) + 1), each square
  /// cut into two triangles.
  double width = 0.1;  ///< Sheet extent along x [m], > 0 (`length`, above, is its extent along y).
  int vertices = 10;   ///< Sheet vertices along x, ≥ 2.
};

/// A group of pinned cloth vertices (`objects: NAME: pins: GROUP: {...}`): they hold their initial positions
/// plus an offset that starts at 0 and follows the keyframes (linearly, holding the last), until `release_time`.
struct PinGroupDesc {
  std::string name;
  std::vector<int> vertices;  ///< Vertex indices (a sheet's: row-major from its −x, −y corner; a mesh's: its own).
  bool corners = false;       ///< A sheet's four corners.
  bool has_box = false;       ///< The vertices initially inside [box_min, box_max] (world).
  Vector3 box_min{0, 0, 0};
  Vector3 box_max{0, 0, 0};
  std::vector<double> key_times;     ///< [s], increasing, > 0.
  std::vector<Vector3> key_offsets;  ///< [m] from the initial positions, one per key time.
  double release_time = -1;          ///< [s]; negative: never released.
  SourceLocation where;
};

/// An MPM object (`objects: NAME: {...}`).
struct MpmObjectDesc {
  std::string name;
  std::string material;            ///< Name of an entry of SceneDesc::materials.
  ShapeDesc shape;                 ///< box, sphere, cylinder or mesh.
  PoseDesc pose;                   ///< X_WS: where the shape's frame is placed.
  int particles_per_cell = 8;      ///< ≥ 1; k³ gives a k×k×k lattice per cell, otherwise uniform random points.
  Vector3 velocity{0, 0, 0};       ///< Initial velocity [m/s].
  std::vector<PinGroupDesc> pins;  ///< Cloth only: pinned vertex groups, in file order.
  SourceLocation where;
};

/// A static analytic collider acting on the MPM grid (`colliders: NAME: {...}`).
struct ColliderDesc {
  std::string name;
  ShapeDesc shape;  ///< plane, box, sphere or cylinder.
  PoseDesc pose;
  BoundaryDesc boundary;
  SourceLocation where;
};

enum class ProbeQuantity {
  kCenterOfMass,   ///< x, y, z of the object's centre of mass [m].
  kVelocity,       ///< centre-of-mass velocity [m/s].
  kBounds,         ///< axis-aligned bounds of the object's particles: min x, y, z, max x, y, z [m].
  kKineticEnergy,  ///< [J].
};

/// An output probe (`output: probes: NAME: {...}`): a quantity of an object sampled every output frame.
struct ProbeDesc {
  std::string name;
  std::string object;  ///< Name of an MPM object.
  ProbeQuantity quantity = ProbeQuantity::kCenterOfMass;
  SourceLocation where;
};

/// Default contact properties of rigid geometry (`contact:`); a body's or URDF geometry's own values win.
struct ContactDesc {
  double friction = 0.5;         ///< Coulomb μ, ≥ 0.
  double stiffness = 1e6;        ///< Point-contact stiffness k [N/m], > 0.
  double dissipation = 10;       ///< Hunt-Crossley dissipation d [s/m], ≥ 0.
  double stiction_speed = 1e-4;  ///< Regularised friction's slip speed v_s [m/s], > 0.
  /// Stiffness of one MPM particle's contact with rigid geometry [N/m], ≥ 0; 0 (the default): near-rigid, SAP's
  /// friction cone with the compliance chosen per contact from its mass and the substep; > 0: the lagged
  /// Hunt-Crossley model with that stiffness.
  double mpm_stiffness = 0;
  double mpm_dissipation = 10;  ///< Its Hunt-Crossley dissipation [s/m], ≥ 0.
  SourceLocation where;
};

enum class RigidBodyType {
  kDynamic,    ///< Moves under gravity, contact and applied forces (a floating joint).
  kStatic,     ///< Fixed in the world (infinite mass).
  kKinematic,  ///< Follows its keyframes exactly; pushes others, is not pushed.
};

/// One keyframe of a kinematic body: its pose at a time.
struct KeyframeDesc {
  double time = 0;  ///< [s], strictly increasing along the list.
  PoseDesc pose;
  SourceLocation where;
};

/// How a scene's rigid body hangs on another (`rigid_bodies: NAME: joint: {...}`), making articulated trees in
/// YAML: a rolling pin turning on a kinematic carrier, a door on a hinge, a panel on a rail.
struct BodyJointDesc {
  JointType type = JointType::kRevolute;  ///< revolute, prismatic or fixed.
  std::string parent;     ///< An earlier rigid body (any type; a static body's pose is the parent frame), or "world".
  PoseDesc origin;        ///< X_PJ: the joint frame in the parent's frame (the world's for "world"); the body's frame
                          ///< is the joint frame at position 0.
  Vector3 axis{0, 0, 1};  ///< Unit axis in the joint frame (normalised on load).
  double position = 0;    ///< Initial joint position [rad or m], within the limits.
  double lower = -std::numeric_limits<double>::infinity();  ///< Limits, lower ≤ upper.
  double upper = std::numeric_limits<double>::infinity();
  double damping = 0;                                       ///< ≥ 0 [N·m·s/rad or N·s/m].
  double effort = std::numeric_limits<double>::infinity();  ///< Effort limit of its controller, > 0.
  double effort_applied = 0;  ///< Constant feed-forward effort [N·m or N], |·| ≤ effort.
  double kp = 0;              ///< PD controller gains (both 0: no controller) [N·m/rad or N/m].
  double kd = 0;              ///< [N·m·s/rad or N·s/m].
  double target = 0;          ///< PD target position [rad or m], within the limits.
  SourceLocation where;
};

/// A single rigid body (`rigid_bodies: NAME: {...}`).
struct RigidBodyDesc {
  std::string name;
  RigidBodyType type = RigidBodyType::kDynamic;
  ShapeDesc shape;  ///< box, sphere, cylinder, capsule, mesh; plane only for static bodies.
  /// Mass [kg] > 0, or 0 when `density` gives it. Dynamic bodies need one of the two.
  double mass = 0;
  double density = 0;                   ///< [kg/m³], > 0 when given.
  PoseDesc pose;                        ///< Initial pose X_WB (static and dynamic bodies).
  Vector3 velocity{0, 0, 0};            ///< Initial velocity of the body origin [m/s] (dynamic).
  Vector3 angular_velocity{0, 0, 0};    ///< Initial ω [rad/s] (dynamic).
  std::vector<KeyframeDesc> keyframes;  ///< Kinematic bodies: at least one.
  /// Kinematic bodies: how they move between keyframes.
  KeyframeInterpolation interpolation = KeyframeInterpolation::kLinear;
  /// Dynamic bodies: the joint to a parent (has_joint), instead of a free-floating pose.
  bool has_joint = false;
  BodyJointDesc joint;
  Vector3 force{0, 0, 0};   ///< Constant applied force at the body origin, world frame [N] (dynamic).
  Vector3 torque{0, 0, 0};  ///< Constant applied torque, world frame [N·m] (dynamic).
  double friction = -1;     ///< Contact properties; negative = the `contact:` default.
  double stiffness = -1;
  double dissipation = -1;
  std::array<double, 4> rgba{0.6, 0.6, 0.65, 1.0};  ///< Colour for drawing.
  SourceLocation where;
};

/// A PD controller on one joint of a robot (`robots: NAME: controllers: JOINT: {...}`).
struct JointControllerDesc {
  std::string joint;
  double kp = 0;           ///< [N·m/rad or N/m], ≥ 0.
  double kd = 0;           ///< [N·m·s/rad or N·s/m], ≥ 0; kp + kd > 0.
  double target = 0;       ///< q_d [rad or m]; within the joint's limits.
  double feedforward = 0;  ///< u_ff [N·m or N].
  SourceLocation where;
};

struct MultibodyDesc;  // ductile/multibody_desc.h

/// One waypoint of a robot's script (`robots: NAME: script: keyframes:`): where the tool is at a time, and
/// optionally a gripper command that holds from then on.
struct ScriptKeyframeDesc {
  double time = 0;             ///< [s], ≥ 0, strictly increasing along the list.
  PoseDesc pose;               ///< Target of the tool point (position) and of the tool link's orientation, world.
  bool has_gripper = false;    ///< The keyframe gives a gripper command.
  double gripper_opening = 1;  ///< Fraction of the fingers' range, 0 closed to 1 open (with force 0).
  double gripper_force = 0;    ///< > 0: squeeze with this force per finger [N]; 0: hold the opening.
  SourceLocation where;
};

/// A robot's scripted task (`robots: NAME: script:`): the tool link follows the keyframes through the teleoperation
/// IK (as if a person drove it from the Teleop dock), the gripper takes each keyframe's command at its time.
struct RobotScriptDesc {
  std::string link;               ///< The tool link, e.g. "gripper_tcp".
  Vector3 tool_point{0, 0, 0};    ///< The point on the link that follows the keyframes, link frame [m].
  bool track_orientation = true;  ///< False: the keyframes' orientations are ignored.
  KeyframeInterpolation interpolation = KeyframeInterpolation::kSmooth;
  std::vector<ScriptKeyframeDesc> keyframes;  ///< At least one.
  SourceLocation where;
};

/// The default of RobotDesc::link_force_limit [N]: 4 · 7 kg · 9.81 m/s².
inline constexpr double kDefaultLinkForceLimit = 274.68;

/// A robot from a URDF file (`robots: NAME: {...}`).
struct RobotDesc {
  std::string name;
  std::filesystem::path urdf;  ///< Resolved path; relative paths resolve against the scene file's folder.
  std::shared_ptr<const MultibodyDesc> model;  ///< The URDF as loaded and checked by LoadScene.
  PoseDesc pose;                               ///< Where the URDF's root link is placed (X_WR).
  bool floating_base = false;  ///< The root floats (a floating joint) instead of being welded at `pose`.
  std::map<std::string, double> initial_positions;  ///< Joint name → q at t = 0 (others 0), within limits.
  std::vector<JointControllerDesc> controllers;     ///< By joint, in file order.
  std::map<std::string, double> joint_efforts;      ///< Joint name → constant feed-forward effort [N·m or N].
  std::optional<RobotScriptDesc> script;            ///< A scripted task; none: the robot holds its targets.
  /// The contact force one of its links may carry before each step reports it [N], > 0 (docs/architecture.md,
  /// "Robot contact checks"): by default 4 · 7 kg · 9.81 m/s², four times the weight of the rated payload of the
  /// KUKA LBR iiwa 7 R800, the arm of the shipped robots.
  double link_force_limit = kDefaultLinkForceLimit;
  SourceLocation where;
};

/// A weld between two rigid bodies, or a body and the world (`welds: NAME: {...}`): holds frame F of body A on
/// frame G of body B, either near-rigidly or through a spring-damper (a "mocap" handle when A is kinematic).
struct WeldDesc {
  std::string name;
  std::string body_a;    ///< A rigid body name, "ROBOT/LINK", or "world".
  std::string body_b;    ///< Likewise; different from body_a.
  PoseDesc frame_a;      ///< X_AF: the weld frame in A (in the world for "world").
  PoseDesc frame_b;      ///< X_BG: its partner in B.
  double stiffness = 0;  ///< 0: near-rigid; > 0: translational stiffness [N/m], rotational stiffness·1 m² [N·m/rad].
  double damping = 0;    ///< ≥ 0 [N·s/m] (rotational: damping·1 m²), with stiffness > 0.
  SourceLocation where;
};

/// A pair of bodies that never collide (`collision_filters: NAME: {...}`), on top of the automatic filtering of
/// links joined by a joint. "world" or a static body stands for all static geometry.
struct CollisionFilterDesc {
  std::string name;
  std::string body_a;  ///< A rigid body name, "ROBOT/LINK", or "world".
  std::string body_b;  ///< Likewise; different from body_a.
  SourceLocation where;
};

/// A camera preset of the studio's viewport (`cameras: NAME: {...}`).
struct CameraDesc {
  std::string name;
  Vector3 eye{1.0, -1.5, 1.0};  ///< Where the camera is [m].
  Vector3 target{0, 0, 0};      ///< The point it looks at [m]; not at `eye`.
  double fov_deg = 40;          ///< Vertical field of view [deg], in (0, 180).
  SourceLocation where;
};

/// The elastic energy of a soft body (fem/elasticity.h).
enum class SoftModelDesc { kNeoHookean, kFixedCorotated, kStvk };

/// A tetrahedral FEM soft body of the IPC domain (`soft_bodies: NAME: {...}`).
struct SoftBodyDesc {
  std::string name;
  /// box, sphere, cylinder, capsule, sheet (one layer of tets `thickness` thick), or mesh: a Gmsh `.msh` tet mesh
  /// as it is, or a closed OBJ surface tetrahedralised at `resolution`.
  ShapeDesc shape;
  double resolution = 0.01;  ///< Target tet edge length h [m], > 0 (not for a `.msh` mesh).
  double thickness = 0.005;  ///< Sheet thickness [m], > 0 (sheets only).
  SoftModelDesc model = SoftModelDesc::kNeoHookean;
  double youngs_modulus = 1e5;  ///< E [Pa], > 0.
  double poisson_ratio = 0.4;   ///< ν, in (−1, 0.5).
  double density = 1000;        ///< ρ [kg/m³], > 0.
  PoseDesc pose;                ///< X_WS: where the shape's frame is placed.
  Vector3 velocity{0, 0, 0};    ///< Initial velocity [m/s].
  bool has_pin_box = false;     ///< The vertices initially inside [pin_min, pin_max] (world) are held in place.
  Vector3 pin_min{0, 0, 0};
  Vector3 pin_max{0, 0, 0};
  std::array<double, 4> rgba{0.85, 0.45, 0.35, 1.0};  ///< Colour for drawing.
  SourceLocation where;
};

/// An affine rigid body of the IPC domain (`affine_bodies: NAME: {...}`; Lan et al. 2022).
struct AffineBodyDesc {
  std::string name;
  ShapeDesc shape;                                  ///< box, sphere, cylinder, capsule or a closed OBJ mesh.
  double resolution = 0.01;                         ///< Surface resolution of round shapes [m], > 0.
  double density = 1000;                            ///< ρ [kg/m³], > 0.
  double stiffness = 1e8;                           ///< Orthogonality stiffness κ_A [Pa], > 0.
  PoseDesc pose;                                    ///< Initial pose of the shape's frame.
  Vector3 velocity{0, 0, 0};                        ///< Initial velocity of the shape frame's origin [m/s].
  Vector3 angular_velocity{0, 0, 0};                ///< Initial ω [rad/s], world frame.
  std::array<double, 4> rgba{0.55, 0.6, 0.7, 1.0};  ///< Colour for drawing.
  SourceLocation where;
};

/// The IPC domain's contact and solver settings (`ipc:`; fem/ipc_system.h).
struct IpcDesc {
  double dhat = 1e-3;               ///< d̂: barrier activation distance [m], > 0.
  double barrier_stiffness = 0;     ///< κ, ≥ 0; 0: adaptive (Li et al. 2020, Sec. 4.3).
  double friction = 0.5;            ///< μ between every pair, ≥ 0.
  double friction_velocity = 1e-3;  ///< ε_v [m/s], > 0.
  double newton_tolerance = 1e-3;   ///< Newton stops when max vertex increment / Δt is below it [m/s], > 0.
  int max_newton_iterations = 200;  ///< ≥ 1.
  SourceLocation where;
};

/// A solid that selects a pd body's vertices: a primitive shape (box, sphere, cylinder, capsule) placed in the world at
/// t = 0.
struct PlacedShapeDesc {
  ShapeDesc shape;
  PoseDesc pose;  ///< X_WG.
};

/// A bone of a projective-dynamics body's skeleton (`pd_bodies.*.skeleton.*`; engine/src/pd/pd_skeleton.h): the
/// body's vertices inside a box (or a URDF link's solids), moved rigidly by one joint relative to its parent bone or
/// the world. Its geometry is given in the world at t = 0 (as `pin_box` is).
struct PdBoneDesc {
  std::string name;
  std::string parent;        ///< A bone of the same body listed before this one; empty (`world`): the world.
  bool prismatic = false;    ///< `joint`: `revolute` (false) or `prismatic`.
  Vector3 axis{0, 0, 1};     ///< The joint's axis (world, t = 0), non-zero.
  Vector3 anchor{0, 0, 0};   ///< A point on a revolute joint's axis [m] (world, t = 0).
  Vector3 box_min{0, 0, 0};  ///< `box: {min, max}`: the body's vertices inside it at t = 0 form the bone [m].
  Vector3 box_max{0, 0, 0};
  /// From a URDF (`skeleton_urdf`): its link's geometry selects the vertices instead of the box.
  std::vector<PlacedShapeDesc> shapes;
  double torque = 0;  ///< The joint's torque [N·m] (revolute) or force [N] (prismatic), constant until edited.
  SourceLocation where;
};

/// A soft body of the projective-dynamics domain (`pd_bodies: NAME: {...}`; Qiao et al. 2021, engine/src/pd/): a tet
/// mesh with the corotated strain and volume energies, optionally a pneumatic chamber (the whole body) and muscle
/// fibres along one direction, whose activations are live, and a skeleton.
struct PdSoftBodyDesc {
  std::string name;
  /// box, sphere, cylinder, capsule, or mesh: a Gmsh `.msh` tet mesh as it is, or a closed OBJ surface
  /// tetrahedralised at `resolution`.
  ShapeDesc shape;
  double resolution = 0.01;     ///< Target tet edge length h [m], > 0 (not for a `.msh` mesh).
  double youngs_modulus = 1e5;  ///< E [Pa], > 0.
  double poisson_ratio = 0.3;   ///< ν, in [0, 0.5).
  double density = 1000;        ///< ρ [kg/m³], > 0.
  PoseDesc pose;                ///< X_WS: where the shape's frame is placed.
  Vector3 velocity{0, 0, 0};    ///< Initial velocity [m/s].
  bool has_pin_box = false;     ///< The vertices initially inside [pin_min, pin_max] (world) are held in place.
  Vector3 pin_min{0, 0, 0};
  Vector3 pin_max{0, 0, 0};
  double pneumatic_ratio = 1;         ///< The volume ratio a > 0 every tet is driven to (1: at rest).
  double muscle_stiffness = 0;        ///< k_m [Pa] ≥ 0 of a muscle fibre in every tet; 0: no muscles.
  Vector3 muscle_direction{1, 0, 0};  ///< The fibres' direction in the shape frame, non-zero.
  double muscle_activation = 0;       ///< a ∈ [0, 1]: the fibres shorten towards 1 − κ of their length at 1.
  std::vector<PdBoneDesc> skeleton;   ///< Bones, parents before children (`skeleton:`, in file order).
  /// `skeleton_urdf`: the URDF the skeleton came from (its root link frame the shape frame; empty: none). Its
  /// movable joints are the bones (named by the joints), the links fixed to the world pin the vertices in
  /// `pin_shapes`.
  std::filesystem::path skeleton_urdf;
  std::vector<PlacedShapeDesc> pin_shapes;
  std::array<double, 4> rgba{0.45, 0.7, 0.4, 1.0};  ///< Colour for drawing.
  SourceLocation where;
};

/// The projective-dynamics domain's solver and contact settings (`pd:`; engine/src/pd/pd_solver.h).
struct PdDesc {
  double tolerance = 1e-6;       ///< Relative force residual a step stops at, > 0.
  int max_iterations = 200;      ///< Local/global sweeps and Newton steps per step, ≥ 1.
  double friction = 0.5;         ///< Coulomb's μ against every rigid geometry, ≥ 0.
  double stick_velocity = 1e-5;  ///< ε_v [m/s] > 0: slips slower than this count as sticking.
  double max_contraction = 0.5;  ///< κ ∈ (0, 1): a fully activated fibre's length ratio is 1 − κ.
  SourceLocation where;
};

/// A whole scene. Maps are ordered by name; objects keep their file order in `objects`.
struct SceneDesc {
  std::filesystem::path file;  ///< The scene file it was loaded from.
  SimulationDesc simulation;
  GridDesc grid;
  BoundaryDesc walls;  ///< Domain walls (`grid: boundary:`).
  std::vector<MaterialDesc> materials;
  std::vector<MpmObjectDesc> objects;
  std::vector<ColliderDesc> colliders;
  std::vector<ProbeDesc> probes;
  ContactDesc contact;
  std::vector<RigidBodyDesc> rigid_bodies;             ///< In file order.
  std::vector<RobotDesc> robots;                       ///< In file order.
  std::vector<WeldDesc> welds;                         ///< In file order.
  std::vector<CollisionFilterDesc> collision_filters;  ///< In file order.
  std::vector<CameraDesc> cameras;                     ///< In file order; the first is the studio's initial view.
  std::vector<SoftBodyDesc> soft_bodies;               ///< In file order.
  std::vector<AffineBodyDesc> affine_bodies;           ///< In file order.
  IpcDesc ipc;
  std::vector<PdSoftBodyDesc> pd_bodies;  ///< In file order.
  PdDesc pd;

  const MaterialDesc* FindMaterial(const std::string& name) const {
    for (const MaterialDesc& m : materials)
      if (m.name == name) return &m;
    return nullptr;
  }
};

/// One `--set dotted.key=value` override: path components are map keys (sequence elements by index).
struct Override {
  std::string path;   ///< e.g. "materials.dough.youngs_modulus".
  std::string value;  ///< Parsed as YAML scalar, e.g. "2e4".
};

/// Parses an `a.b.c=value` command-line override. Throws SceneError (file "--set") when malformed.
Override ParseOverride(const std::string& text);

/// Loads, applies overrides to, and validates a scene file.
/// Throws SceneError with FILE:LINE:COL for every kind of bad input (syntax, unknown key with a suggestion,
/// wrong type, out-of-range value, undefined material, missing or open mesh). An override that names a key
/// that does not exist or is not a scalar is an error naming the override.
SceneDesc LoadScene(const std::filesystem::path& file, const std::vector<Override>& overrides = {});

/// Same as LoadScene but from text; `file_name` is used in messages and to resolve relative mesh paths.
SceneDesc LoadSceneFromString(const std::string& text, const std::filesystem::path& file_name,
                              const std::vector<Override>& overrides = {});

}  // namespace ductile
