// Per-step measurements the simulator publishes (timings, grid occupancy) for stats, plots and benchmarks.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace ductile {

/// One rigid-rigid contact point of a step.
struct ContactReport {
  std::string body_a;              ///< Body the normal points out of ("world" for static geometry).
  std::string body_b;              ///< Body the normal points into.
  std::array<double, 3> point{};   ///< Contact point [m], world.
  std::array<double, 3> normal{};  ///< Unit normal from a into b.
  double depth = 0;                ///< Penetration [m].
  std::array<double, 3> force{};   ///< Mean force on b over the step [N], world (a receives the opposite).
};

/// A contact that a robot should not carry, found after one step (docs/architecture.md, "Robot contact checks"): two
/// of its links touching each other, or a link whose contact force exceeds the robot's `link_force_limit`.
struct RobotContactAlert {
  enum class Kind {
    /// Two links of the robot that can meet touch (a contact point between them, penetration > 0); a parallel
    /// gripper's fingers meet by design and are no such pair.
    kSelfContact,
    kLinkForce,  ///< A link's contact force, its mean over the last 20 ms, exceeds the robot's limit.
  };
  Kind kind = Kind::kSelfContact;
  std::string robot;       ///< The robot's name in the scene.
  std::string link;        ///< The link (a self-contact's first link, in tree order), without the robot's prefix.
  std::string other_link;  ///< A self-contact's other link; empty for kLinkForce.
  /// [N] kSelfContact: the magnitude of the mean force over the step between the two links; kLinkForce: the
  /// magnitude of the link's contact force (rigid-rigid plus MPM and IPC, as RigidBodySummary::contact_force)
  /// averaged over the last 20 ms (the steps within them), as a force sensor of about 50 Hz would read it.
  double force = 0;
  double limit = 0;  ///< The robot's link_force_limit [N].
};

/// The largest contact force on a link of one robot in one step.
struct RobotLinkLoad {
  std::string robot;
  std::string link;  ///< The most loaded link, without the robot's prefix.
  double force = 0;  ///< Magnitude of its contact force averaged over the last 20 ms [N] (as kLinkForce's).
  double limit = 0;  ///< The robot's link_force_limit [N].
};

/// What one outer step did and how long it took.
struct StepTelemetry {
  double wall_ms = 0;           ///< Wall-clock time of the step [ms].
  double active_nodes_avg = 0;  ///< Grid nodes with mass, averaged over the substeps.
  int active_blocks = 0;        ///< Allocated 4x4x4 grid blocks in the last substep.
  int substeps = 0;             ///< MPM substeps taken.
  // The step's wall-clock time by MPM phase, summed over its substeps [ms].
  double sort_ms = 0;  ///< Particle sort into grid blocks and block activation.
  /// Stress and P2G of the first substep when the last step did not prepare it; summing every P2G's block windows
  /// onto the grid.
  double p2g_ms = 0;
  double grid_ms = 0;  ///< Grid velocity update and boundary conditions, then the MPM-rigid contact solve.
  /// Grid-to-particle transfer, F update and plasticity of the last substep when it is not fused with the next
  /// step's P2G (while the mouse spring pulls an MPM object).
  double g2p_ms = 0;
  /// Fused G2P of a substep and stress and P2G of the next (after the last substep, the next step's first).
  double g2p2g_ms = 0;
  // The rigid step (SAP), when the scene has rigid bodies or robots.
  double rigid_ms = 0;                   ///< Wall-clock time of the rigid step [ms].
  int sap_iterations = 0;                ///< Newton iterations of the SAP solve.
  double sap_residual = 0;               ///< Its final optimality residual ‖D∇ℓ‖.
  bool sap_converged = true;             ///< Whether it met its stopping rule.
  int rigid_contacts = 0;                ///< Rigid-rigid contact points.
  std::vector<double> sap_cost_history;  ///< SAP cost of every Newton iterate, the initial guess first [J].
  std::vector<ContactReport> contacts;   ///< Every rigid-rigid contact point with its force.
  // MPM-rigid contact, when the scene has both.
  int mpm_contacts = 0;                       ///< Particle contacts in the last substep.
  int mpm_contacts_max = 0;                   ///< The most in one substep of the step.
  int mpm_contact_iterations = 0;             ///< Contact-solver iterations summed over the substeps.
  double mpm_contact_residual = 0;            ///< Final residual of the last substep's contact solve.
  bool mpm_contact_converged = true;          ///< Whether every substep's contact solve met its tolerance.
  std::vector<int> mpm_substep_iterations;    ///< Contact-solver iterations of each substep (0: no contact).
  std::vector<double> mpm_substep_residuals;  ///< Each substep's final residual ‖M^(−1/2)∇ℓ‖ [kg^(1/2)·m/s].
  // The FEM–IPC domain, when the scene has soft or affine bodies (fem/ipc_system.h).
  bool has_ipc = false;           ///< The scene has the domain (the fields below are its step's).
  int ipc_newton_iterations = 0;  ///< Projected Newton iterations of the step.
  bool ipc_converged = true;      ///< Whether Newton met its tolerance within the iteration limit.
  double ipc_min_distance = 0;    ///< Smallest pair distance over the step's iterates [m] (d̂ if none).
  int ipc_active_pairs = 0;       ///< Contact pairs closer than d̂ at the step's end.
  double ipc_kinematic_lag = 0;   ///< How far a kinematic (rigid) point fell short of its pose [m].
  double ipc_contact_force = 0;   ///< Sum of the contact force magnitudes on the rigid bodies [N].
  double ipc_ms = 0;              ///< Wall-clock time of the IPC step [ms], of which:
  double ipc_collision_ms = 0;    ///< broad and narrow phase,
  double ipc_energy_ms = 0;       ///< energies and gradients (line search included),
  double ipc_hessian_ms = 0;      ///< Hessians, projection and assembly,
  double ipc_solve_ms = 0;        ///< the sparse Cholesky factorisation and solve,
  double ipc_ccd_ms = 0;          ///< continuous collision detection.

  // The projective-dynamics domain, when the scene has pd bodies (pd/pd_solver.h).
  bool has_pd = false;          ///< The scene has the domain (the fields below are its step's).
  int pd_iterations = 0;        ///< Local/global sweeps and Newton steps, the most of any body.
  bool pd_converged = true;     ///< Whether every body met `pd.tolerance` within `pd.max_iterations`.
  double pd_residual = 0;       ///< The largest body's force residual relative to its reference force.
  int pd_contacts = 0;          ///< Vertices carrying a contact force at the step's end.
  double pd_contact_force = 0;  ///< Sum of the contact force magnitudes on rigid geometry and planes [N].
  double pd_ms = 0;             ///< Wall-clock time of the domain's step [ms].
  /// Per cloth pin group (Model::pin_groups, same order): the mean force over the step with which the pins hold
  /// their vertices [N], world; zero once released.
  std::vector<std::array<double, 3>> pin_forces;
  // The robots' contacts (docs/architecture.md, "Robot contact checks"), after the step.
  std::vector<RobotContactAlert> robot_alerts;  ///< Every self-contact and every link above its robot's limit.
  std::vector<RobotLinkLoad> robot_loads;       ///< Per robot, in scene order: its most loaded link.
};

/// What kind of number a telemetry channel carries: Python's telemetry() gives a bool, an int or a float.
enum class ChannelType { kReal, kInteger, kFlag };

/// How a run sums a channel up over its steps (`ductile-cli run --stats`, `ductile-cli bench`).
enum class ChannelStat {
  kMean,             ///< The mean over the steps.
  kMeanPerSubstep,   ///< The mean over the steps, divided by the model's substeps.
  kMax,              ///< The largest of any step.
  kMin,              ///< The smallest of any step.
  kStepsWhereFalse,  ///< The steps whose value was 0 (a flag that was false: a solve that did not converge).
};

/// One line of `--stats` a channel makes: its statistic and the JSON key it is written under.
struct ChannelSummary {
  ChannelStat stat = ChannelStat::kMean;
  const char* json_key = "";  ///< "sap_iterations_mean"; a key of docs/cli.md's table, never renamed.
};

/// One scalar that every step publishes in StepTelemetry: a row of the channel table, which `--stats`, `ductile-cli
/// bench`, the studio's plots and their CSV, and Python's telemetry() all read, so that a new channel is its field
/// in StepTelemetry, the code that fills it and one row (domain/telemetry_channels.cpp; docs/architecture.md,
/// "Telemetry channels").
struct TelemetryChannel {
  const char* key = "";     ///< "sap_iterations": telemetry()'s key and the plots CSV's column.
  const char* label = "";   ///< "SAP iterations": for legends.
  const char* unit = "";    ///< "ms", "m", "N"; empty for a count or a flag.
  const char* doc = "";     ///< One line: what the step measured.
  const char* domain = "";  ///< Who fills it: "step", "mpm", "rigid", "mpm_contact", "ipc" or "pd".
  ChannelType type = ChannelType::kReal;
  double (*read)(const StepTelemetry&) = nullptr;  ///< The value of one step (a flag: 1 or 0).
  /// The flag of StepTelemetry that says whether a step has the channel (`has_ipc`); null: every step has it.
  bool StepTelemetry::*present = nullptr;
  const char* when = "";  ///< With `present`: which scenes' steps have it ("with soft or affine bodies").
  std::vector<ChannelSummary> summaries;  ///< What `--stats` writes of it, in order; may be empty.

  bool In(const StepTelemetry& t) const { return present == nullptr || t.*present; }
};

/// Every channel, in the order of docs/cli.md's statistics table. Immutable; thread-safe.
const std::vector<TelemetryChannel>& TelemetryChannels();
/// The index of the channel `key` in TelemetryChannels(), or −1.
int FindTelemetryChannel(const std::string& key);
/// The table as Markdown, one line per channel: key, type, unit, domain, meaning and its `--stats` keys (the table
/// of telemetry() in docs/python.md; `ductile-cli docs telemetry` prints it).
std::string TelemetryDocs();
/// What UpdateTelemetryDocs made of a Markdown text.
struct TelemetryDocsUpdate {
  std::string text;      ///< The text with its generated block holding TelemetryDocs().
  bool changed = false;  ///< The block differed from the table.
  std::string problem;   ///< The text has no generated block (its two marker lines); `text` is then the input.
};
/// Writes TelemetryDocs() into `markdown`'s generated block: the lines between the marker line that names
/// `ductile-cli docs telemetry` and the end marker (docs/python.md).
TelemetryDocsUpdate UpdateTelemetryDocs(const std::string& markdown);

}  // namespace ductile
