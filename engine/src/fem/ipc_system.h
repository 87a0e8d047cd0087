// The FEM–IPC system: tetrahedral soft bodies and affine rigid bodies in one incremental potential with IPC barrier
// contact and lagged friction, against kinematic bodies (robot links, obstacles) and half-spaces (Du, Yao et al.,
// "ZeMa"; Li et al. 2020, "Incremental Potential Contact"; Lan et al. 2022, "Affine Body Dynamics").
//
// One step of Δt = h from (xᵗ, vᵗ) minimises over the degrees of freedom z (soft vertices' positions, affine bodies'
// q = (p, A)) the incremental potential of implicit Euler (Li et al. 2020, Eq. 3):
//
//   E(z) = ½‖z − z̃‖²_M + h² [ Σₑ Vₑ Ψ(Fₑ) + Σ_b κ_A V_b ‖A_bA_bᵀ − I‖²_F ] + κ Σₖ b(sₖ(x(z))) + h² Σₖ μλₖ f₀(‖uₖ‖)
//
// with z̃ = zᵗ + h żᵗ + h² M⁻¹f_ext (gravity on the soft vertices and on the affine translations), the barrier over
// every point–triangle, edge–edge and point–half-space pair closer than d̂ (fem/ipc_barrier.h; κ absorbs h² and is
// adaptive, Li et al. 2020 Sec. 4.3 and supplement), and the lagged friction of each pair active at the step's start
// (fem/ipc_friction.h; its force λₖ = −(κ/h²) ∂b/∂d). Surface points of affine bodies are x = J(x̄) q, so their pair
// derivatives reach q through Jᵀ (fem/affine_body.h).
//
// Projected Newton (Li et al. 2020, Algorithm 1): every element, orthogonality and pair Hessian is projected to be
// positive semi-definite, the system is solved by a sparse Cholesky factorisation (CHOLMOD; later iterations of a
// step by CG preconditioned with it, fem/ipc_linear_solve.cpp), and the step length starts at the additive-CCD bound
// (fem/ipc_ccd.h) over all candidate pairs of the motion, then backtracks until the energy decreases, so that no
// iterate ever has an intersection. It stops after the first Newton step whose largest vertex displacement divided by
// h is below the tolerance [m/s] (that step is taken too). The barrier stiffness κ is adaptive with an elastic floor
// (ipc_newton.cpp, UpdateBarrierStiffnessAtStart).
//
// Kinematic bodies move from their pose at the step's start to their target over the step. Their displacement enters
// the Newton direction as a prescribed part (the free degrees of freedom answer it through the coupling blocks of the
// Hessian); CCD bounds the whole step, so a kinematic body blocked by contact reaches its target over several
// iterates. The contact forces on each kinematic body are summed (force and moment) for the rigid step.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <Eigen/SparseCore>
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fem/elasticity.h"
#include "fem/ipc_broad_phase.h"
#include "fem/ipc_friction.h"

namespace ductile::contact {
struct CholmodWorkspace;
}

namespace ductile::fem {

/// IPC's settings (every one a scene key under `ipc:`).
struct IpcSettings {
  double dhat = 1e-3;               ///< d̂: the barrier's activation distance [m], > 0.
  double barrier_stiffness = 0;     ///< κ [J/(m⁴ s²)]: the potential holds κ h² b(s); 0: adaptive.
  double friction = 0.5;            ///< μ between every pair, ≥ 0.
  double friction_velocity = 1e-3;  ///< ε_v [m/s]: tangential speeds below it are smoothed into sticking, > 0.
  double newton_tolerance = 1e-3;   ///< Stop when max vertex displacement of a Newton step / h < this [m/s].
  int max_newton_iterations = 200;  ///< A step that needs more reports it and keeps its last iterate.
  Eigen::Vector3d gravity = Eigen::Vector3d(0, 0, -9.81);  ///< [m/s²].
};

/// What one step did.
struct IpcStepReport {
  int newton_iterations = 0;
  bool converged = false;
  double min_distance = 0;       ///< The smallest pair distance over every iterate of the step [m] (d̂ if none).
  double barrier_stiffness = 0;  ///< κ at the step's end [J/(m⁴ s²)], as the setting.
  int active_pairs = 0;          ///< Pairs closer than d̂ at the step's end.
  double kinematic_lag = 0;      ///< The largest distance a kinematic point fell short of its target [m].
  // Time by phase [s].
  double time_collision = 0;     ///< Broad and narrow phase (candidates, classification).
  double time_energy = 0;        ///< Energies and gradients (line search included).
  double time_hessian = 0;       ///< Hessians, projection and assembly.
  double time_linear_solve = 0;  ///< CHOLMOD factorisation and solve.
  double time_ccd = 0;           ///< Continuous collision detection.
  int factorizations = 0;        ///< Sparse Cholesky factorisations of the Newton matrix.
  int cg_iterations = 0;         ///< Preconditioned CG iterations (fem/ipc_linear_solve.cpp).
};

/// What changes as the system steps: the soft vertices' positions and velocities, the affine bodies' q and q̇, where
/// each kinematic point has got to (it may lag its body's pose where contact blocked it), and the barrier stiffness
/// κ (adaptive: it only grows within a run). A value: a copy saves it, assigning it back restores it, bitwise.
struct IpcState {
  std::vector<Eigen::Vector3d> x, v;                   ///< Soft vertices [m], [m/s].
  std::vector<Eigen::Matrix<double, 12, 1>> q, q_dot;  ///< Affine bodies: (p, a₁, a₂, a₃) [m, –] and its rate.
  std::vector<Eigen::Vector3d> kinematic_points;       ///< [m], world frame.
  double kappa = 0;                                    ///< κ inside the incremental potential (includes h²).

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(x, v, q, q_dot, kinematic_points, kappa);
  }
};

/// The contact force and moment (about the body's origin) on a kinematic body over the last step [N, N m].
struct KinematicWrench {
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
};

/// A soft body: a tetrahedral mesh at its initial (posed) positions, its material and velocity.
struct SoftBodyDesc {
  std::vector<Eigen::Vector3d> vertices;  ///< [m], world frame.
  std::vector<std::array<int, 4>> tets;   ///< Positively oriented.
  ElasticModel model = ElasticModel::kNeoHookean;
  LameParameters lame;
  double density = 1000;                               ///< [kg/m³].
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< [m/s].
  std::vector<int> pinned;                             ///< Vertices held at their initial position.
};

/// An affine body: its surface (body frame, about the centre of mass), mass properties, pose and velocity.
struct AffineBodyDesc {
  std::vector<Eigen::Vector3d> vertices;                        ///< x̄ [m].
  std::vector<std::array<int, 3>> faces;                        ///< Outward oriented.
  double mass = 1;                                              ///< [kg].
  Eigen::Matrix3d second_moment = Eigen::Matrix3d::Identity();  ///< S about the centre of mass [kg m²].
  double volume = 1;                                            ///< [m³].
  double stiffness = 1e8;                                       ///< κ_A [Pa].
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();       ///< Of the centre-of-mass frame.
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();           ///< Of the centre of mass [m/s].
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();   ///< [rad/s], world frame.
};

/// A kinematic body: a surface fixed in its frame, moved by its pose.
struct KinematicBodyDesc {
  std::vector<Eigen::Vector3d> vertices;  ///< Body frame [m].
  std::vector<std::array<int, 3>> faces;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
};

/// A fixed half-space boundary {x : n·x ≥ offset} (a ground plane).
struct HalfSpaceDesc {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< Unit.
  double offset = 0;                                  ///< [m].
};

class IpcSystem {
 public:
  IpcSystem();
  ~IpcSystem();
  IpcSystem(IpcSystem&&) noexcept;
  IpcSystem& operator=(IpcSystem&&) noexcept;

  /// Adds a body; returns its index among bodies of its kind. Call Finalize before the first step. Adding throws
  /// std::invalid_argument naming the body and element for a tet with non-positive rest volume or an index out of
  /// range.
  int AddSoftBody(const SoftBodyDesc& desc);
  int AddAffineBody(const AffineBodyDesc& desc);
  int AddKinematicBody(const KinematicBodyDesc& desc);
  void AddHalfSpace(const HalfSpaceDesc& desc);
  /// Builds the contact surface and the degrees of freedom. Throws std::invalid_argument if the initial
  /// configuration has an intersection or a pair closer than zero.
  void Finalize();

  void set_settings(const IpcSettings& settings) { settings_ = settings; }
  const IpcSettings& settings() const { return settings_; }

  /// Live edits for the next steps: a soft body's energy and Lamé parameters, an affine body's orthogonality
  /// stiffness κ_A [Pa]. Throws std::out_of_range for a body that does not exist.
  void SetSoftMaterial(int body, ElasticModel model, const LameParameters& lame);
  void SetAffineStiffness(int body, double stiffness);
  /// The pose a kinematic body reaches at the end of the next step.
  void SetKinematicTarget(int body, const Eigen::Isometry3d& pose);
  /// Advances by h [s].
  IpcStepReport Step(double h);

  // State.
  int soft_vertex_count() const { return static_cast<int>(state_.x.size()); }
  const std::vector<Eigen::Vector3d>& soft_positions() const { return state_.x; }
  int soft_tet_count() const { return static_cast<int>(tets_.size()); }
  const std::vector<Eigen::Vector3d>& soft_velocities() const { return state_.v; }
  int affine_body_count() const { return static_cast<int>(affine_.size()); }
  const Eigen::Matrix<double, 12, 1>& affine_q(int body) const { return state_.q[body]; }
  const Eigen::Matrix<double, 12, 1>& affine_q_dot(int body) const { return state_.q_dot[body]; }
  /// Lumped mass of every soft vertex [kg].
  const std::vector<double>& soft_vertex_masses() const { return vertex_mass_; }
  double affine_mass(int body) const { return affine_[body].mass; }
  const Eigen::Matrix3d& affine_second_moment(int body) const { return affine_[body].second_moment; }
  const KinematicWrench& kinematic_wrench(int body) const { return kinematic_[body].wrench; }
  /// The pose a kinematic body was set to reach in the last step (its target).
  const Eigen::Isometry3d& kinematic_target(int body) const { return kinematic_[body].target; }
  /// The whole changing state (save), and a state of this system's bodies to go on from (restore; sizes checked:
  /// throws std::invalid_argument when they do not match).
  const IpcState& state() const { return state_; }
  void set_state(const IpcState& state);
  /// Per soft vertex: the mean over the tets around it of the von Mises equivalent √(3/2)‖dev σ‖ of the Cauchy
  /// stress σ = P Fᵀ / det F [Pa] (what the studio colours soft bodies by).
  std::vector<double> SoftVonMises() const;
  /// Every surface point's current position (soft, affine, kinematic), the contact surface's vertex order.
  std::vector<Eigen::Vector3d> SurfacePositions() const;
  const ContactSurface& surface() const { return surface_; }
  /// Per half-space: the normal contact force on it over the last step [N] (what a resting stack weighs).
  const std::vector<double>& half_space_normal_forces() const { return half_space_force_; }
  /// Every iterate's minimum distance in the last step (for tests of the invariant).
  const std::vector<double>& iterate_min_distances() const { return iterate_min_distance_; }

 private:
  struct SoftBody {
    int first_vertex = 0, vertex_count = 0, first_tet = 0, tet_count = 0;
    ElasticModel model = ElasticModel::kNeoHookean;
    LameParameters lame;
    double element_size = 0;  // ℓ = ∛(6 × mean rest volume) [m]
  };
  struct AffineBody {
    double mass = 0, volume = 0, stiffness = 0;
    Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();
    Eigen::Matrix<double, 12, 12> mass_matrix = Eigen::Matrix<double, 12, 12>::Zero();
    Eigen::Matrix<double, 12, 1> q_start = Eigen::Matrix<double, 12, 1>::Zero();  // this step's start
    Eigen::Matrix<double, 12, 1> q_tilde = Eigen::Matrix<double, 12, 1>::Zero();  // and prediction
  };
  struct KinematicBody {
    int first_point = 0;
    std::vector<Eigen::Vector3d> local;
    Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
    KinematicWrench wrench;
  };
  // A contact-surface point: a soft vertex, an affine body's rest point x̄, or a kinematic point (its index among all
  // kinematic points in `index`).
  enum class PointKind { kSoft, kAffine, kKinematic };
  struct SurfacePoint {
    PointKind kind = PointKind::kSoft;
    int index = 0;  // soft vertex, affine body, or kinematic point
    Eigen::Vector3d x_bar = Eigen::Vector3d::Zero();
  };
  // One contact pair near enough to count (indices into the surface; a point–half-space pair has points[0] only and
  // `plane` set).
  struct ActivePair {
    std::array<int, 4> points{};
    int plane = -1;
    bool edge_edge = false;
    int kind = 0;      // PointTriangleCase or EdgeEdgeCase
    double eps_x = 0;  // edge–edge mollifier threshold
    double s = 0;      // squared distance when collected
  };
  // Which terms of the incremental potential an evaluation includes.
  enum Terms : unsigned { kInertiaAndElastic = 1, kBarrier = 2, kFriction = 4, kAllTerms = 7 };
  // Gradient and Hessian of the potential over the free degrees of freedom: the Hessian's lower triangle as the
  // values of the fixed pattern (`base_values`, inertia, elements, affine bodies) plus contact triplets (`hessian`);
  // `prescribed` holds −H_zk Δk, the free side's answer to the kinematic points' displacement Δk;
  // `kinematic_gradient` the gradient at kinematic points.
  struct Derivative {
    Eigen::VectorXd gradient, prescribed;
    std::vector<double> base_values;
    std::vector<Eigen::Triplet<double>> hessian;
    std::vector<Eigen::Vector3d> kinematic_gradient;
    std::vector<double> half_space_force;
  };
  // How a point's position depends on the degrees of freedom: x = Σ c·z[dof..dof+2] (one entry for a soft vertex,
  // four for an affine body's point: J(x̄)), or a kinematic point's index.
  struct PointMap {
    int count = 0;
    std::array<int, 4> dof{};
    std::array<double, 4> c{};
    int kinematic = -1;
  };
  PointMap SoftVertexMap(int vertex) const;
  PointMap SurfacePointMap(int point) const;
  template <int N>
  void Scatter(const std::array<PointMap, N>& maps, const Eigen::Matrix<double, 3 * N, 1>& g,
               const Eigen::Matrix<double, 3 * N, 3 * N>* H, const std::vector<Eigen::Vector3d>& kinematic_step,
               Derivative& out) const;

  // ipc_system.cpp: building, configurations, state.
  void BuildContactSurface();
  void ComputeScales();
  Eigen::VectorXd GatherDofs() const;
  void ScatterDofs(const Eigen::VectorXd& z);
  std::vector<Eigen::Vector3d> SoftFrom(const Eigen::VectorXd& z) const;
  Eigen::Matrix<double, 12, 1> AffineFrom(const Eigen::VectorXd& z, int body) const;
  std::vector<Eigen::Vector3d> SurfaceFrom(const Eigen::VectorXd& z,
                                           const std::vector<Eigen::Vector3d>& kinematic) const;
  std::vector<Eigen::Vector3d> KinematicTargets() const;
  // ipc_energy.cpp: the incremental potential.
  void CollectPairs(const std::vector<Eigen::Vector3d>& surface, const Candidates& candidates,
                    std::vector<ActivePair>& pairs, double& min_distance) const;
  double Energy(const Eigen::VectorXd& z, const std::vector<Eigen::Vector3d>& kinematic, const Candidates& candidates,
                double h) const;
  void Derivatives(const Eigen::VectorXd& z, const std::vector<Eigen::Vector3d>& kinematic,
                   const std::vector<Eigen::Vector3d>& kinematic_step, const Candidates& candidates, double h,
                   unsigned terms, bool with_hessian, Derivative& out) const;
  void BuildBasePattern();
  void InertiaAndElasticDerivatives(const Eigen::VectorXd& z, double h2, bool with_hessian, Derivative& out) const;
  void ElementDerivatives(const std::vector<Eigen::Vector3d>& x, double h2, bool with_hessian, Derivative& out) const;
  PairEnergy BarrierEnergy(const ActivePair& p, const std::vector<Eigen::Vector3d>& surface, bool with_hessian) const;
  void ScatterPair(const ActivePair& p, const PairEnergy& e, const std::vector<Eigen::Vector3d>& kinematic_step,
                   bool with_hessian, Derivative& out) const;
  void LagFriction(const std::vector<Eigen::Vector3d>& surface, const Candidates& candidates, double h);
  // ipc_newton.cpp: the step.
  // The Newton loop's iterate: degrees of freedom, kinematic points reached, their targets, the candidates.
  struct NewtonState {
    Eigen::VectorXd z;
    std::vector<Eigen::Vector3d> kinematic, target;
    Candidates candidates;
    double previous_min = std::numeric_limits<double>::infinity();
  };
  enum class IterationResult { kContinue, kConverged, kFailed };
  void Predict(double h);
  IterationResult NewtonIteration(NewtonState& newton, double h, IpcStepReport& report);
  void RecordIterate(NewtonState& newton, IpcStepReport& report);
  double StepBound(const std::vector<Eigen::Vector3d>& from, const std::vector<Eigen::Vector3d>& to,
                   const Candidates& swept) const;
  void UpdateBarrierStiffnessAtStart(const Eigen::VectorXd& z, const Candidates& candidates, double h);
  // ipc_linear_solve.cpp: the Newton system.
  bool SolveNewtonSystem(const Derivative& d, Eigen::VectorXd& step, IpcStepReport& report);
  void AssembleNewtonMatrix(const Derivative& d);
  bool Factorize();
  bool ApplyFactor(const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  bool PreconditionedCg(const Eigen::VectorXd& b, Eigen::VectorXd& x, IpcStepReport& report) const;
  void FinishStep(const NewtonState& newton, double h, IpcStepReport& report);

  IpcSettings settings_;
  // Soft bodies: vertices (x, v, mass, pinned) and tets, concatenated.
  std::vector<SoftBody> soft_;
  IpcState state_;
  std::vector<Eigen::Vector3d> x_start_, x_tilde_;
  std::vector<double> vertex_mass_;
  std::vector<bool> pinned_;
  std::vector<std::array<int, 4>> tets_;
  std::vector<TetRest> tet_rest_;
  std::vector<int> tet_body_;
  std::vector<AffineBody> affine_;
  std::vector<std::pair<std::vector<Eigen::Vector3d>, std::vector<std::array<int, 3>>>> affine_surfaces_;
  std::vector<std::vector<std::array<int, 3>>> kinematic_faces_;
  std::vector<KinematicBody> kinematic_;
  std::vector<int> kinematic_point_body_;
  std::vector<HalfSpaceDesc> half_spaces_;
  std::vector<double> half_space_force_;
  // Contact surface.
  ContactSurface surface_;
  std::vector<SurfacePoint> points_;
  // Degrees of freedom: free soft coordinates first, then 12 per affine body; −1 for held ones.
  std::vector<int> soft_dof_;    // per soft vertex: first dof or −1 (pinned)
  std::vector<int> affine_dof_;  // per affine body: first dof
  int dof_count_ = 0;
  double kappa_max_ = 0;  // κ's adaptive upper bound
  double bbox_diagonal_ = 1, average_mass_ = 1;
  std::vector<ActivePair> friction_pairs_;
  std::vector<FrictionFrame> friction_frames_;
  std::vector<Eigen::Vector3d> friction_start_;  // surface positions at the step's start (xᵗ of the friction)
  std::vector<Eigen::Vector3d> surface_rest_;    // the surface's initial positions (edge lengths for ε×)
  std::vector<double> iterate_min_distance_;
  Derivative derivative_;  // the last iteration's (scratch, reused)
  // Per element: gradient and Hessian of the last evaluation (scratch).
  mutable std::vector<Vector12d> element_gradient_;
  mutable std::vector<Matrix12d> element_hessian_;
  mutable std::vector<PairEnergy> pair_energy_;
  // The Hessian's fixed pattern (lower triangle) and where each element's, vertex mass's and affine body's entries go
  // in its values (−1: upper triangle or a held dof).
  Eigen::SparseMatrix<double> base_pattern_;
  std::vector<std::array<int, 144>> tet_slots_;
  std::vector<int> mass_slots_;
  std::vector<std::array<int, 144>> affine_slots_;
  // The Newton matrix (lower triangle), the linear solver and the sparsity pattern its symbolic analysis was made for
  // (fem/ipc_linear_solve.cpp).
  Eigen::SparseMatrix<double> newton_matrix_;
  std::unique_ptr<contact::CholmodWorkspace> linear_solver_;
  std::vector<int> pattern_outer_, pattern_inner_;
};

}  // namespace ductile::fem
