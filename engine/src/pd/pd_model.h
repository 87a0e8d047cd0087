// The projective-dynamics soft multibody domain's model (docs/architecture.md, "Projective dynamics"): a tetrahedral
// mesh with lumped vertex masses, per-tet Young's modulus and Poisson's ratio, pinned vertices, and actuators, each
// element's energy written as a sum of projective terms (Bouaziz, Martin, Liu, Kavan, Pauly 2014, "Projective
// dynamics: fusing constraint projections for fast simulation", Eq. 10; Qiao, Liang, Koltun, Lin 2021,
// "Differentiable simulation of soft multi-body systems", Sec. 3.1):
//
//   E(q) = Σ_terms ω/2 ‖Y(q) − P(Y(q))‖²_F,     Y = X_eᵀ S,
//
// X_e the 4x3 matrix of the term's tet's vertex positions (a row per corner), S its 4xk stencil and P the closest
// point of a constraint set C. Every term acts on the three coordinates alike, so the global matrix is a scalar
// n x n matrix times the 3x3 identity (the Kronecker structure the solver factorises once, pd/pd_solver.h).
//
//   strain   (k = 3) S = ∇N (rows: the gradients of the tet's barycentric coordinates), Y = F;
//            C = c·SO(3), P = c R (R the rotation of F's signed polar decomposition, core/signed_polar.h);
//            ω = 2μV, so ω/2 ‖F − R‖² = μ V ‖F − R‖².
//   volume   (k = 3) the same Y = F; C = {X : tr S(X) = 3c}, P = F + (c − tr S/3) R, the matrix nearest F whose
//            signed singular values sum to 3c (each singular value moved by the same amount); ω = 3λV, so
//            ω/2 ‖F − P‖² = λV/2 (tr S − 3c)².
//   muscle   (k = 1) S = ∇N d (d the unit fibre direction at rest), Y = f = F d; C = the sphere of radius ℓ = 1 − κa
//            (a ∈ [0, 1] the activation, κ the body's largest contraction), P = ℓ f/‖f‖; ω = k_m V with k_m the
//            muscle stiffness [Pa] (Min, Won, Lee, Park, Lee 2019, "SoftCon", the fibre energy in PD form).
//
// Without actuators c = 1, and the elastic energy density is μ‖F − R‖² + λ/2 (tr S − 3)², the corotated model of
// projective dynamics (Qiao et al. 2021, Sec. 3.1). A tet of a pneumatic cell with target volume ratio a has
// c = a^{1/3}: both of its terms vanish at F = c R, so a free cell settles at det F = a exactly.
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

#include "fem/tet_mesh.h"

namespace ductile::pd {

/// 4x3: a row per corner of a tet, the gradient of that corner's barycentric coordinate [1/m].
using ShapeGradients = Eigen::Matrix<double, 4, 3>;

/// What a projective term's constraint set is (file comment).
enum class TermKind { kStrain, kVolume, kMuscle };

/// One projective term. Plain data.
struct Term {
  int tet = 0;
  TermKind kind = TermKind::kStrain;
  int actuator = -1;  ///< The pneumatic cell (strain, volume) or the muscle group (muscle) it belongs to, or −1.
  Eigen::Vector4d fibre = Eigen::Vector4d::Zero();  ///< Muscle terms: S = ∇N d [1/m]; unused otherwise.
};

/// A fibre of muscle in one tet. Plain data.
struct MuscleFibre {
  int tet = 0;
  int group = 0;                                         ///< The activation it follows (PdControls::muscle_activation).
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX();  ///< At rest; normalised by MakePdModel.
  double stiffness = 0;                                  ///< k_m [Pa] > 0.
};

/// A rigid half-space the body cannot enter: the points x with n·x ≥ offset are outside it (the ground, an incline,
/// a wall). Plain data.
struct PdHalfSpace {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< Outward; normalised by MakePdModel.
  double offset = 0;                                  ///< [m], at the step's end.
  double friction = 0.5;                              ///< Coulomb's μ ≥ 0 against the body.
  /// The one vertex it holds back (a rigid body's surface near that vertex, linearised at the step's start), or −1
  /// for every vertex (the ground).
  int vertex = -1;
  /// How far the plane moves over the step [m] (a moving rigid body's surface): friction acts on the slip relative to
  /// it (pd/pd_contact.h).
  Eigen::Vector3d motion = Eigen::Vector3d::Zero();
};

/// How a bone moves relative to its parent (pd/pd_skeleton.h).
enum class JointKind { kRevolute, kPrismatic };

/// A rigid bone: a set of the mesh's vertices moved by one joint coordinate relative to its parent bone (or the
/// world). Plain data.
struct PdBone {
  int parent = -1;  ///< An earlier bone, or −1 for the world.
  JointKind joint = JointKind::kRevolute;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();   ///< At rest, in the world frame; normalised by MakePdModel.
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();  ///< A point of a revolute joint's axis at rest [m].
  std::vector<int> vertices;                         ///< Its vertices: not pinned, in no other bone.
};

/// What MakePdModel builds a body from. Plain data.
struct PdBodyDesc {
  fem::TetMesh mesh;                     ///< Checked and oriented by MakePdModel.
  double density = 1000;                 ///< ρ [kg/m³] > 0.
  std::vector<double> youngs_modulus;    ///< E [Pa] > 0: one per tet, or one for all.
  std::vector<double> poisson_ratio;     ///< ν ∈ [0, 0.5): one per tet, or one for all.
  std::vector<int> pinned;               ///< Vertices that follow prescribed positions (PdControls::pinned_targets).
  std::vector<int> pneumatic_cell;       ///< Per tet: the pneumatic cell it belongs to, or −1; empty for none.
  std::vector<MuscleFibre> muscles;      ///< Muscle fibres.
  std::vector<PdHalfSpace> obstacles;    ///< Rigid half-spaces (pd/pd_contact.h).
  std::vector<PdBone> bones;             ///< The skeleton (pd/pd_skeleton.h), parents before children.
  double stick_velocity = 1e-5;          ///< ε_v [m/s] > 0: slips slower than this are sticking (pd/pd_contact.h).
  double max_contraction = 0.5;          ///< κ ∈ (0, 1): a fully activated fibre's length ratio is 1 − κ.
  Eigen::Vector3d gravity{0, 0, -9.81};  ///< [m/s²].
  double dt = 0.01;                      ///< Time step h [s] > 0.
};

/// A body of the domain, compiled (file comment). Immutable once made, except for the material arrays, which a
/// live edit or an optimiser changes through PdSolver::SetMaterials.
struct PdModel {
  std::vector<Eigen::Vector3d> rest;      ///< Rest positions X [m], n of them.
  std::vector<std::array<int, 4>> tets;   ///< Positively oriented corners.
  std::vector<ShapeGradients> gradients;  ///< ∇N per tet [1/m].
  std::vector<double> volumes;            ///< Rest volume per tet [m³].
  std::vector<double> masses;             ///< Lumped mass per vertex [kg] (ρV/4 from each tet).
  std::vector<double> youngs_modulus;     ///< E per tet [Pa].
  std::vector<double> poisson_ratio;      ///< ν per tet.
  std::vector<int> pinned;                ///< Ascending, distinct.
  std::vector<int> free_index;            ///< Per vertex: its row among the free vertices, or −1 if pinned.
  std::vector<int> free_vertices;         ///< The free vertices, ascending.
  std::vector<Term> terms;                ///< Two per tet (strain, volume), then one per muscle fibre.
  std::vector<MuscleFibre> muscles;
  std::vector<PdHalfSpace> obstacles;
  std::vector<int> shared_obstacles;       ///< The obstacles that hold back every vertex (vertex −1).
  std::vector<int> vertex_obstacles;       ///< The others, by vertex: those of vertex i from vertex_obstacle_start[i].
  std::vector<int> vertex_obstacle_start;  ///< n + 1 entries.
  std::vector<PdBone> bones;
  std::vector<int> bone_of;        ///< Per vertex: its bone, or −1.
  std::vector<int> bone_vertices;  ///< The vertices of every bone, ascending.
  double stick_velocity = 1e-5;
  int cell_count = 0;          ///< Pneumatic cells (PdControls::cell_volume_ratio).
  int muscle_group_count = 0;  ///< Muscle groups (PdControls::muscle_activation).
  double max_contraction = 0.5;
  Eigen::Vector3d gravity{0, 0, -9.81};
  double dt = 0.01;

  int vertex_count() const { return static_cast<int>(rest.size()); }
  int tet_count() const { return static_cast<int>(tets.size()); }
};

/// The controls of one step: the actuators' activations and the pinned vertices' positions at the step's end. Plain
/// data; PdControls::Rest(model) is the resting default.
struct PdControls {
  std::vector<double> cell_volume_ratio;        ///< a > 0 per pneumatic cell (1: at rest).
  std::vector<double> muscle_activation;        ///< a ∈ [0, 1] per muscle group (0: relaxed).
  std::vector<Eigen::Vector3d> pinned_targets;  ///< Per pinned vertex (PdModel::pinned order) [m].
  std::vector<double> joint_torques;            ///< Per bone: the torque [N·m] (revolute) or force [N] (prismatic)
                                                ///< its joint applies along its axis.

  static PdControls Rest(const PdModel& model);
};

/// Positions q and velocities v of every vertex, a row each (n x 3, column-major: a coordinate's column is
/// contiguous, as the solver's right-hand sides). Plain data.
struct PdState {
  Eigen::MatrixX3d q;
  Eigen::MatrixX3d v;
  Eigen::VectorXd z;  ///< Joint coordinates, one per bone [rad or m]; the bones' vertices are where they put them.
  static PdState AtRest(const PdModel& model);

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(q, v, z);
  }
};

/// The projective-dynamics domain's part of a State (model/pd_domain.h): each body's state, in scene order.
struct PdDomainState {
  std::vector<PdState> bodies;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(bodies);
  }
};

/// A model, or why there is none (`error` names the tet, vertex or value).
struct PdModelResult {
  PdModel model;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// Checks `desc` and compiles it: the mesh (fem::CheckAndOrient), E > 0, 0 ≤ ν < 0.5 (a negative ν has λ < 0 and a
/// volume term of negative weight, which projective dynamics cannot take), ρ > 0, h > 0, pinned vertices in range,
/// actuators' tets in range, fibre directions non-zero, muscle stiffness > 0, 0 < κ < 1, obstacles' normals non-zero
/// and friction ≥ 0; bones: parents before children, axes non-zero, vertices in range, not pinned and in one bone
/// only. Pure.
PdModelResult MakePdModel(PdBodyDesc desc);

/// Why `obstacles` cannot be a body's with `vertices` vertices (a zero or non-finite normal, offset or motion, μ < 0, a
/// vertex out of range), naming the first; empty when they can.
std::string ObstaclesError(const std::vector<PdHalfSpace>& obstacles, int vertices);
/// Sets `model`'s obstacles (normalised, checked by ObstaclesError) and their index by vertex.
void SetObstacles(PdModel& model, std::vector<PdHalfSpace> obstacles);

/// Why per-tet `youngs_modulus` and `poisson_ratio` (one each per tet) are not a valid material (E > 0 finite,
/// 0 ≤ ν < 0.5), naming the first tet; empty when they are. MakePdModel and PdSolver::SetMaterials check with it.
std::string MaterialsError(const std::vector<double>& youngs_modulus, const std::vector<double>& poisson_ratio);

/// The body's mass Σ m_i [kg].
double TotalMass(const PdModel& model);

/// The weight ω of `term` at the model's materials (file comment) [N·m = J per unit ‖·‖²].
double TermWeight(const PdModel& model, const Term& term);
/// ∂ω/∂E and ∂ω/∂ν of a strain or volume term (0 for a muscle term).
Eigen::Vector2d TermWeightDerivatives(const PdModel& model, const Term& term);

/// k, the columns of `term`'s stencil S and of its Y (file comment).
inline int StencilColumns(const Term& term) {
  return term.kind == TermKind::kMuscle ? 1 : 3;
}

}  // namespace ductile::pd
