// Two-way MPM-rigid contact (Yu et al. 2025, Sec. IV and V): the rigid poses and
// velocities are frozen at the start of a step; in every MPM substep each particle inside a rigid geometry
// (φ < 0) becomes one contact (a particle of a round elastic object where the surface its object carries is inside:
// coupling/object_surface.h, docs/architecture.md "MPM-rigid contact"), the grid velocities are corrected by the
// quasi-Newton contact solve
// (contact/mpm_contact_solver.h), and the contact impulses are summed per rigid body. The rigid step then takes
// the sum as a known impulse (Eq. 3): the material pushes the bodies as hard as they push it (Newton's third law
// per step, up to the solver tolerance).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <memory>
#include <utility>
#include <vector>

#include "contact/mpm_contact_solver.h"
#include "contact/rigid_system.h"
#include "coupling/object_surface.h"
#include "domain/rigid_impulses.h"
#include "ductile/model.h"
#include "geometry/mesh_sdf.h"
#include "mpm/mpm_contact_state.h"
#include "mpm/mpm_solver.h"

namespace ductile::coupling {

struct MpmContactSettings {
  /// Point-contact stiffness per particle contact k [N/m] of the lagged Hunt-Crossley model, ≥ 0; 0 (the default):
  /// near-rigid, SAP's regularised friction cone per contact (contact/constraints/friction_cone_contact.h).
  double stiffness = 0;
  double dissipation = 10;       ///< Hunt-Crossley dissipation d [s/m], ≥ 0.
  double stiction_speed = 1e-4;  ///< v_s [m/s].
  double sigma = 1e-3;           ///< Friction regularisation σ of the Hunt-Crossley model.
  /// The near-rigid cone's friction regularisation σ (R_t = σ w): a sticking contact slips by σ times the velocity
  /// change its friction impulse makes in a substep. Drake's 1e-3 made a cloth sheet sticking on an incline take
  /// 45 solver iterations a substep (each substep's small change of v* sends contacts across the thin stiction band
  /// into sliding and back); 1e-2 takes 12 and creeps 0.01 mm/s (docs/architecture.md, "MPM-rigid contact").
  double cone_sigma = 1e-2;
  /// Near-rigid contacts register particles up to this far outside the geometry [m] (≥ 0; 5% of h by default,
  /// MpmContactSettingsOf): a resting particle that its contact left exactly on the surface stays a contact, whose
  /// impulse is zero while it does not approach (the cone's bias −φ₀/(Δt + τ_d) for φ₀ > 0), so that the contact
  /// set, and with it the impulse guess, carries over from one substep to the next.
  double resting_margin = 0;
  /// Per MPM material: its friction coefficient against rigid geometry, combined with the geometry's
  /// (contact::CombineFriction); negative: the geometry's μ alone.
  std::vector<double> material_friction;
  /// Grid spacing of the signed distance fields of mesh geometry [m] (the MPM grid's h / 2 by default).
  double mesh_sdf_cell = 0.01;
  /// The surfaces that round elastic objects carry for contact (coupling/object_surface.h); null: none (as
  /// MpmContactSettingsOf leaves it: the weak scheme's domain sets it, the strong scheme moves its own contacts).
  std::shared_ptr<const ObjectSurfaces> surfaces;
  contact::GridContactParams solver;

  /// The near-rigid friction cone (stiffness 0), not the lagged Hunt-Crossley model.
  bool near_rigid() const { return !(stiffness > 0); }
  /// σ of the cost in use: cone_sigma for the cone, sigma for Hunt-Crossley.
  double cost_sigma() const { return near_rigid() ? cone_sigma : sigma; }
  /// How far outside rigid geometry particles register [m]: resting_margin for the cone, 0 for Hunt-Crossley.
  double registration_margin() const { return near_rigid() ? resting_margin : 0.0; }
};

/// The settings of `model`'s MPM-rigid contact (contact.*, simulation.contact_tolerance_*, materials' friction).
MpmContactSettings MpmContactSettingsOf(const Model& model);

/// A particle at or near frozen rigid geometry at the start of a step: a contact of the strong coupling's one convex
/// problem (coupling/strong_coupling.h), registered before the step so that it acts within it.
struct ParticleContact {
  int particle = -1;  ///< Storage index.
  int geometry = -1;  ///< Index of the frozen geometry (MpmRigidContact::body_of, friction_of).
  double phi = 0;     ///< Signed distance at the step's start [m], < the particle's margin.
  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();  ///< The geometry's outward normal there.
};

/// A substep whose contacts were solved elsewhere (the device backend, backend/device_contact.h), as
/// MpmRigidContact::AddSolvedSubstep records it.
struct SolvedSubstep {
  int contacts = 0;
  std::vector<int> body_contacts;  ///< Per rigid body.
  int iterations = 0;
  double residual = 0;
  bool converged = true;
  std::vector<Eigen::Vector3d> linear, angular;  ///< Per rigid body: impulse [N·s], moment about its origin [N·m·s].
};

/// Of candidates (in particle order) that found the same point (within the later one's r_p) of one object against
/// one geometry, the one nearer its point keeps it: the particles of the others, in the order they were dropped.
std::vector<int> DropTwinContacts(const std::vector<SurfaceCandidate>& candidates);

class MpmRigidContact {
 public:
  /// One frozen rigid geometry of the step (BeginStep).
  struct Frozen {
    const geometry::CollisionGeometry* geometry = nullptr;
    const geometry::MeshSdf* sdf = nullptr;  // mesh geometry: its signed distance field
    Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
    Eigen::Isometry3d X_GW = Eigen::Isometry3d::Identity();  // its inverse, for the per-particle queries
    int body = -1;
    Eigen::Matrix<double, 6, 1> V = Eigen::Matrix<double, 6, 1>::Zero();  // body spatial velocity (world, at O)
    double radius = 0;                 // bounding sphere about X_WG's origin; infinite for a half-space
    Eigen::Vector3f box_min, box_max;  // a world box that holds the geometry (padded); infinite for a half-space
  };
  // The signed distance of world point x_W from frozen geometry f and its outward normal there in the geometry frame
  // (rotated to the world by whoever keeps it).
  static double FrozenDistance(const Frozen& f, const Eigen::Vector3d& x_W, Eigen::Vector3d& n_G);

  explicit MpmRigidContact(MpmContactSettings settings) : settings_(std::move(settings)) {}

  /// Freezes the rigid geometry's poses and velocities for this step (frozen(), origins(), FrozenDistance), for a
  /// domain that queries the geometry without this class's contact solve (the projective-dynamics domain).
  void Freeze(const contact::RigidSystem& rigid);
  /// Freeze, and prepares this step's contact solve: the substeps' impulses will be summed into
  /// `out`, cleared here, and their statistics and warm starts kept in `state` (the previous step's warm starts are
  /// read from it first). Both must outlive the step.
  void BeginStep(const contact::RigidSystem& rigid, RigidImpulses& out, mpm::MpmContactState& state);
  /// The contact solve of one substep: pass as MpmSolver::Substep's grid hook.
  void SolveSubstep(mpm::MpmSolver& mpm, float dt);

  /// After BeginStep: each particle whose signed distance to some frozen geometry is below its margin
  /// (`margin[p]` [m], ≥ 0), with the geometry it is deepest in or closest to, in particle order.
  std::vector<ParticleContact> FindParticleContacts(const mpm::Particles& particles, const std::vector<double>& margin);
  /// The same for points [m] (a soft body's vertices under the strong scheme): per point within its `margin` of a
  /// frozen geometry, the deepest one (ParticleContact::particle is the point's index).
  std::vector<ParticleContact> FindPointContacts(const std::vector<Eigen::Vector3d>& points,
                                                 const std::vector<double>& margin) const;
  /// After BeginStep: the frozen geometry (the device backend's contact solve takes it over), and the rigid bodies'
  /// origins at the step's start.
  const std::vector<Frozen>& frozen() const { return geometries_; }
  const std::vector<Eigen::Vector3d>& origins() const { return origins_; }
  const MpmContactSettings& settings() const { return settings_; }
  /// A substep solved elsewhere: its statistics and impulses into the step's sums, as SolveSubstep's own.
  void AddSolvedSubstep(const SolvedSubstep& s);
  /// The rigid body of frozen geometry g (−1: the world).
  int body_of(int g) const { return geometries_[static_cast<std::size_t>(g)].body; }
  /// The Coulomb μ between a particle of `material` and frozen geometry g.
  double friction_of(int material, int g) const;

 private:
  // One substep's contact problem, with per contact its particle and geometry (index in geometries_), and per
  // problem node its grid node (storage index).
  struct SubstepContacts {
    contact::GridContactProblem problem;
    std::vector<int> particle_of, geometry_of, global_of;
    std::vector<std::int64_t> cell_of;      // per problem node: its grid coordinates (WarmNode::cell)
    std::vector<Eigen::Vector3d> point_of;  // where each contact acts (world)
  };
  /// The geometry each particle is deepest inside of (inside_, depth_, normal_), in parallel; with `margin`
  /// (per particle [m]), the one it is deepest in or closest to among those nearer than its margin.
  void FindInsideGeometries(const mpm::Particles& particles, const std::vector<double>* margin = nullptr);
  /// sc.problem.v_guess from warm_nodes_ (v* at nodes they do not hold).
  void GuessVelocities(SubstepContacts& sc) const;
  /// The contact of particle p with the geometry it is inside of, added to `sc`.
  void AddContact(mpm::MpmSolver& mpm, int p, float dt, SubstepContacts& sc);
  /// The particles of objects that carry a surface (settings_.surfaces): registered from 5 r_p away, each moved onto
  /// its object's surface (surface_[p], point_[p]) and kept where that point is inside the geometry.
  void OntoSurfaces(const mpm::Particles& particles, const Model& model);
  /// With the Hunt-Crossley model (a stiffness per particle), one contact per surface point: of the particles that
  /// found the same point (within r_p) of one object against one geometry, the nearest keeps it. Several at one
  /// point each push with k times the depth, and as their number changes from substep to substep the friction that
  /// the lagged model bounds by the starting depth swings: the ball on the slope slid at 3.58 m/s² against 4.48 in a
  /// run without this (MpmIncline.NearRigidBallSlidesWithTheCoulombAcceleration's default-contact case fails so).
  void KeepOnePerPoint(const mpm::Particles& particles);
  /// The 27 nodes of particle p's stencil as contact c's nodes, with their weights at the particle moved by
  /// `offset` (Σᵢ (w_ip + ∇w_ip·offset) vᵢ, exact for an affine grid field); a node joins the problem when a
  /// contact first touches it. Returns the contact's Delassus estimate Σ w_ip²/m from the particle's own weights.
  double AddContactNodes(mpm::MpmSolver& mpm, int p, const Eigen::Vector3d& offset, SubstepContacts& sc,
                         contact::GridContact& c);
  /// The substep's contact counts, into the statistics.
  void CountContacts(const SubstepContacts& sc);
  /// Clears local_of_ for the problem's nodes (all −1 between substeps).
  void ReleaseNodes(const SubstepContacts& sc);
  MpmContactSettings settings_;
  std::vector<Frozen> geometries_;
  // Per world geometry: the signed distance field of a mesh, built at the first step that sees it.
  std::vector<std::shared_ptr<const geometry::MeshSdf>> mesh_sdfs_;
  std::vector<Eigen::Vector3d> origins_;  // body origins at the start of the step
  RigidImpulses* out_ = nullptr;
  mpm::MpmContactState* kept_ = nullptr;  // the MPM State's contact part (BeginStep)
  std::vector<int> local_of_;             // grid node storage index -> problem node, −1
  // Per particle, reused across substeps: the geometry it is deepest inside (−1: none), φ there, ∇φ.
  std::vector<int> inside_;
  std::vector<double> depth_;
  std::vector<Eigen::Vector3d> normal_;
  // Per particle (OntoSurfaces): its registration margin, whether its contact acts on its object's surface, where.
  std::vector<double> margin_;
  std::vector<char> surface_;
  std::vector<Eigen::Vector3d> point_;
  // Per particle id: the geometry of its contact in the last substep (−1: none) and that contact's impulse (world),
  // the next substep's initial guess. BeginStep loads them from the State's MpmContactState::warm (the previous step's
  // last substep), so a step depends on the State alone.
  std::vector<int> warm_geometry_;
  std::vector<Eigen::Vector3d> warm_gamma_;
  // The last substep's contact nodes and their velocities at its last iterate, ascending by cell: the next
  // substep's velocity guess. Loaded from MpmContactState::warm_nodes like the impulses.
  std::vector<mpm::WarmNode> warm_nodes_;
};

}  // namespace ductile::coupling
