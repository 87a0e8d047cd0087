// The Simulator: steps a Model's State (docs/architecture.md, "Model, State and Step"). One object per running scene;
// its methods are not thread-safe (the studio's SimController owns it on the simulation thread). Work inside a step
// runs on an internal TBB task arena with the requested number of threads; results do not depend on that number.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/body_summary.h"
#include "ductile/gradient.h"
#include "ductile/inputs.h"
#include "ductile/model.h"
#include "ductile/snapshot.h"
#include "ductile/state.h"
#include "ductile/telemetry.h"

namespace ductile {

/// Thrown by Simulator::Step when the state stops being physical (non-finite values, a particle crossing more
/// than one grid cell in a substep). The state is left as it was after the failing substep.
class SimulationDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimulatorOptions {
  /// Worker threads; 0 takes the scene's `simulation.threads`, and if that is 0 too, all cores.
  int threads = 0;
};

/// Aggregates of one MPM object's particles.
struct ObjectSummary {
  double mass = 0;                         ///< [kg].
  std::array<double, 3> center_of_mass{};  ///< [m].
  std::array<double, 3> velocity{};        ///< Centre-of-mass velocity [m/s].
  std::array<double, 3> bounds_min{};      ///< [m].
  std::array<double, 3> bounds_max{};      ///< [m].
  double kinetic_energy = 0;               ///< ½ Σ m v² [J].
};

/// Where one soft or affine body of the FEM–IPC domain is (scene `soft_bodies`, then `affine_bodies`).
struct IpcBodySummary {
  std::string name;
  bool affine = false;
  /// Soft body: the centre of mass of its vertices (lumped masses); affine body: its centre of mass [m].
  std::array<double, 3> position{};
  /// Affine body: the rotation nearest its A (w, x, y, z); a soft body: identity.
  std::array<double, 4> quaternion{1, 0, 0, 0};
};

/// Pose and contact loads of one rigid body after the last step.
struct RigidBodySummary {
  std::string name;                    ///< Body name, "<robot>/<link>" for robot links.
  std::array<double, 3> position{};    ///< Body frame origin p_WB [m].
  std::array<double, 4> quaternion{};  ///< R_WB as (w, x, y, z).
  /// Mean contact force on the body over the last step [N], world: rigid-rigid plus MPM contact.
  std::array<double, 3> contact_force{};
  std::array<double, 3> contact_torque{};  ///< Its moment about the body origin [N·m], world.
  int mpm_contacts = 0;                    ///< Particles in contact with the body in the last substep.
};

/// How well a teleoperated arm follows its target.
struct TeleopStatus {
  bool active = false;          ///< A target is set.
  double ik_position = 0;       ///< What the IK could not reach: tool point to target [m] at the joint targets.
  double ik_rotation = 0;       ///< Likewise for the orientation [rad].
  double tracking = 0;          ///< The measured tool point's distance from the target [m].
  int ik_iterations = 0;        ///< IK iterations in the last step.
  bool at_joint_limit = false;  ///< A joint target sits at its limit.
  double gripper_opening = 1;   ///< The gripper command, when there is a gripper.
  double gripper_force = 0;
};

/// One moving (one-dof) joint of a robot now.
struct JointStatus {
  std::string name;       ///< The URDF joint's name.
  double position = 0;    ///< q [rad or m].
  double velocity = 0;    ///< q̇ [rad/s or m/s].
  double lower = -1e300;  ///< Position limits [rad or m] (±1e300: none).
  double upper = 1e300;
  bool controlled = false;  ///< It has a PD controller.
  double target = 0;        ///< The controller's target q_d when controlled [rad or m].
};

/// Throws SceneError, at the key's place in the scene ("FILE:LINE:COL: simulation.coupling: strong: the strong
/// coupling takes no colliders ..."), when a domain of `model` cannot run it as it is set: each domain kind declares
/// what it refuses (docs/architecture.md, "Domains and couplings"). The Simulator's constructor calls it;
/// `ductile-cli validate` too.
void CheckModel(const Model& model);

class Simulator {
 public:
  /// Throws SceneError when a domain refuses the model (CheckModel), std::runtime_error when its device backend
  /// cannot start.
  explicit Simulator(std::shared_ptr<const Model> model, SimulatorOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Advances by one outer step Δt: N MPM substeps of Δt/N. Throws SimulationDiverged.
  void Step();
  /// Back to the initial state at t = 0. Throws std::runtime_error when the model's device backend cannot take it.
  void Reset();
  /// Continues from the current state with the parameters of `model` (live editing: materials, friction,
  /// contact stiffness and dissipation, Δt, N, tolerances, gravity). `model` must come from the same scene
  /// structure: the same particles, grid and rigid bodies. Returns an empty string when applied, else why not (the
  /// state is then unchanged); a Reset() afterwards starts from the new model's initial state either way. Also
  /// non-empty when the model was applied but its device backend could not start (the message says so; the CPU
  /// backend goes on). When both models carry their scenes, the parameters that differ (DiffParameters) are
  /// classified by their rows: a refusal names those that need a reset; once applied, every change acts from the
  /// next step (a controller's new target included) except an initial condition's (ParameterInfo::initial_condition:
  /// at the next reset) and a kReload row's (when the scene is loaded again), for which `later`, when not null, gets
  /// a line each ("objects.cube.velocity is an initial condition: it applies at the next reset").
  std::string UpdateModel(std::shared_ptr<const Model> model, std::vector<std::string>* later = nullptr);
  /// Sets one parameter of the parameter table (ductile/parameters.h), e.g. "materials.dough.youngs_modulus" to
  /// "3e4" or "simulation.gravity" to "[0, 0, -1.62]", from the next step on: the model is patched in place (no scene
  /// file is read, no particle sampled) to bitwise what CompileModel makes of the scene with that value, and the
  /// state carries over (the particles keep their storage). Only the model's kLive parameters apply; the model must
  /// come from CompileModel. Returns an empty string when applied, else why not (an unknown key or entry, a value of
  /// the wrong type or out of range, "grid.h changes the grid and the particles: reset to apply"); nothing changes
  /// then; or, as for UpdateModel, that the device backend could not start. Like UpdateModel, the edit also holds
  /// after a Reset().
  std::string SetParameter(const std::string& key, const std::string& value);

  /// The current state (valid until the next call that changes it).
  const State& state() const;
  /// Continues from `state`, a state of this simulator's scene (from state() or a copy of it). Throws StateError
  /// when it belongs to another scene; the current state is then unchanged.
  void SetState(const State& state);
  /// The same, taking the state over (no copy of its particles).
  void SetState(State&& state);
  /// The current state in its binary form (versioned, checksummed; docs/architecture.md, "State").
  std::vector<std::uint8_t> SaveState() const;
  /// Continues from a state that SaveState wrote. Throws StateError when the bytes are not a state file, of another
  /// format version, truncated or corrupt, or from another scene; the current state is then unchanged.
  void RestoreState(const std::vector<std::uint8_t>& bytes);
  /// SaveState into a file, written beside it and renamed over it (a failed write leaves an earlier file as it
  /// was). Throws StateError naming the path when it cannot be written.
  void SaveStateFile(const std::string& path) const;
  /// RestoreState from a file. Throws StateError naming the path and what is wrong with it.
  void LoadStateFile(const std::string& path);

  double time() const;              ///< Simulated time [s].
  std::int64_t step_count() const;  ///< Steps since the last reset.
  int threads() const;              ///< Worker threads in use.
  /// Where the MPM domain runs: "cpu", "cuda" or "emulated" (simulation.backend, `auto` resolved).
  const char* backend() const;
  const Model& model() const;
  const StepTelemetry& last_step() const;

  /// The bodies of every deformable domain (MPM objects, then soft and affine bodies; the domain registry's order,
  /// then the scene's) and where each is now (ductile/body_summary.h).
  int num_bodies() const;
  /// Throws std::out_of_range for i outside [0, num_bodies()).
  BodySummary SummarizeBody(int i) const;
  ObjectSummary SummarizeObject(int object) const;
  /// Rigid bodies reported in outputs (Model::rigid.output_bodies).
  int num_rigid_bodies() const;
  RigidBodySummary SummarizeRigidBody(int i) const;
  /// Soft bodies, then affine bodies (Model::fem), in scene order.
  int num_ipc_bodies() const;
  IpcBodySummary SummarizeIpcBody(int i) const;
  /// Starts, moves (same kind and index: only the target is taken) or ends (kind kNone) the mouse spring; it acts
  /// on every later step. A body is grabbed at `anchor`, fixed in the body from then on. An object is grabbed by
  /// its particles within 3 grid cells of `anchor` (the nearest one if none is that close), weighted towards the
  /// grabbed point; the spring acts on the whole object's mass, spread over that patch.
  void SetPerturbation(const Perturbation& perturbation);
  /// The grabbed point now [m], world, and whether a perturbation is active.
  bool PerturbationAnchor(std::array<double, 3>& anchor) const;
  /// Fills `out` with the current state for drawing and plots (reusing its storage). Snapshot::bodies lists the
  /// bodies of num_rigid_bodies() in the same order.
  /// `with_stress`: also the particles' von Mises stress (one stress evaluation per particle, the costly part);
  /// without it SnapshotParticles::von_mises is left empty.
  void CaptureSnapshot(Snapshot& out, bool with_stress = true) const;
  /// Names of the scene's robots, in scene order.
  std::vector<std::string> RobotNames() const;
  /// Whether the scene has a robot of that name.
  bool HasRobot(const std::string& robot) const;
  /// The pose of a robot link now: frame origin [m] and orientation (w, x, y, z), world. Returns an error message
  /// naming the unknown robot or link, empty on success.
  std::string LinkPose(const std::string& robot, const std::string& link, std::array<double, 3>& position,
                       std::array<double, 4>& quaternion) const;
  /// Starts or moves a teleoperation target; it acts from the next step on, until ClearTeleopTarget or Reset.
  /// Returns an error message (unknown robot or link, no controlled joint on the way to the link, non-finite
  /// numbers), empty on success; on error nothing changes.
  std::string SetTeleopTarget(const TeleopTarget& target);
  /// Stops teleoperating the robot's arm: its controllers keep their last targets.
  void ClearTeleopTarget(const std::string& robot);
  /// Opens, closes or squeezes a robot's gripper from the next step on. Returns an error message (unknown robot,
  /// no gripper, opening outside [0, 1], negative force), empty on success.
  std::string SetGripper(const GripperCommand& command);
  /// The robot's teleoperation status after the last step (inactive for an unknown robot).
  TeleopStatus GetTeleopStatus(const std::string& robot) const;
  /// The robot's moving joints, root to leaves (tree order), into `joints`. Returns an error message naming an
  /// unknown robot, empty on success.
  std::string RobotJoints(const std::string& robot, std::vector<JointStatus>& joints) const;
  /// Sets the target of one joint's PD controller, q_d = `position` and q̇_d = `velocity`, from the next step on; it
  /// holds until changed (the controller's gains and feed-forward effort stay as they are). Like SetTeleopTarget it
  /// takes the robot over from its scene script. Returns an error message (unknown robot or joint, a joint without
  /// a controller, a target that is not finite or outside the joint's limits, a joint that an active teleoperation
  /// target or gripper command drives: ClearTeleopTarget first), empty on success; on error nothing changes.
  std::string SetJointTarget(const std::string& robot, const std::string& joint, double position, double velocity = 0);

  /// The loss of `request` over a run of its steps from the scene's initial state at the current (live) parameters,
  /// and its gradient by the adjoint method with respect to the keys of request.wrt (ductile/gradient.h; the keys:
  /// GradientKeys). Takes the scene's pd bodies only (they meet no other domain), without touching this simulator's
  /// state; GradientResult::error says why there is no result.
  GradientResult LossAndGradient(const GradientRequest& request) const;
  /// The keys LossAndGradient differentiates by, `*` standing for a pd body's name.
  static std::vector<std::string> GradientKeys();

  /// A 64-bit hash of the full particle state in id order (positions, velocities, F, C, plastic strain):
  /// equal hashes mean bitwise-equal states. Includes the cloth triangles' d₃, the rigid state (q, v), the soft and
  /// affine bodies' and the pd bodies' states when there are any.
  std::uint64_t StateHash() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ductile
