// Dry frictional contact of projective-dynamics bodies against rigid half-spaces: Signorini's condition and Coulomb's
// law per vertex (Ly, Jouve, Boissieux, Bertails-Descoubes 2020, "Projective dynamics with dry frictional contact";
// Qiao et al. 2021, Sec. 3.3), solved inside every global step.
//
// With contact forces f (a row per vertex, [N]) the global step is A q = b + f. A contact c joins vertex i to a
// half-space {x : n·x ≥ o} with friction μ; over the step its gap and tangential displacement are
//
//   d = n·qᵢ − o,       u = T (qᵢ − qᵢⁿ),  T = I − n nᵀ,
//
// and its force f_c = λ n + f_t satisfies Signorini's condition 0 ≤ d ⟂ λ ≥ 0 and Coulomb's law with the slip
// regularised below ε = ε_v h (ε_v = PdModel::stick_velocity, 1e-5 m/s by default):
//
//   f_t = −μλ φ(u),   φ(u) = f₁(‖u‖) u/‖u‖,   f₁(x) = 2x/ε − x²/ε² for x < ε, 1 beyond
//
// (the smoothed friction of Li et al. 2020, "Incremental potential contact", Sec. 5.1, on the step's slip). So
// ‖f_t‖ ≤ μλ always, with equality once the vertex slips faster than ε_v, and a vertex "sticks" by creeping slower
// than ε_v. Exact Coulomb (a set-valued law at u = 0) has no derivative at the stick/slip boundary, which Newton's
// method and the adjoint need; with ε_v far below any velocity a scene resolves, the difference is a creep of at
// most ε_v. (The impulse ξ = h f_c is the papers' velocity form, with v = u/h.)
//
// Given the projections P, q = A⁻¹(b + F) is linear in the forces, so the contact vertices' positions are
// q_C = q_C⁰ + W F_C with W = (A_ff⁻¹)_CC ⊗ I₃ the Delassus operator of the contact vertices (scalar, since A is).
// Each global step solves this contact problem by an active set over the contacts' normal state: for a guess of
// which contacts touch (d = 0) and which are apart (f = 0), the forces solve a small dense nonlinear system (the gap
// rows linear, the friction rows smooth) by Newton's method with a backtracking line search; a touching contact that
// pulls (λ < 0) is released and an apart one below its plane touches, until nothing changes (a round or two, warm-
// started from the previous global step). Where that fails (a vertex on two planes makes W's rows repeat), projected
// Gauss–Seidel over the contacts (Jean 1999, "The non-smooth contact dynamics method") takes over: W's diagonal
// blocks are w_cc I₃, so each contact's local problem, its own force with the others' fixed, reduces to one monotone
// scalar equation for its slip. Gauss–Seidel alone converges slowly on a stiff body, whose contacts W couples through
// its rigid motion (hundreds of sweeps a step), hence the active set first.
//
// Why not the papers' splitting. Ly et al. and Qiao et al. make the local problems per-vertex by the Jacobi splitting
// of the whole global step, (M + h²D) v = f − h²(L − D) v + ξ with D = diag(L), and Qiao et al. state that it
// converges for any h. A Jacobi splitting A = N − P of a symmetric positive definite A converges iff N + P ≻ 0, here
// M + h²(2D − L) ≻ 0 (PdSolver::SplittingConverges tests it); 2D − L is the signless counterpart of L, positive
// semi-definite when L's off-diagonal entries are all ≤ 0, but a tet mesh with obtuse dihedral angles has positive
// off-diagonal entries and then, for large h, the condition fails and the splitting diverges (a test shows a mesh
// and step where it does). The Delassus form keeps the prefactorised A for the coupling between vertices, so it
// converges whenever the contact problem is solved, at the price of |C| solves with A when the contact set changes.
//
// With a skeleton the contact vertices also move the joints: the global step's joint increments couple them through
// a low-rank term, W_eff = W ⊗ I₃ + U S⁻¹ Uᵀ (pd/pd_solver.h, SkeletonGlobalStep; PdContactSet::joint_compliance),
// whose diagonal blocks are no longer multiples of I₃. The active set takes W_eff as it is; Gauss–Seidel then solves
// each contact's local problem as if its own block were w̄ I₃, w̄ its largest eigenvalue, with the vertex's position
// less w̄ times its old force (a proximal step: at its fixed point, the contact conditions hold at the true positions,
// and w̄ ≥ the block keeps it from overshooting). Bones are rigid parts inside the flesh: their vertices are not held
// back by the half-spaces, only the free vertices are.
//
// Candidates: at the start of a step, every free vertex within `margin` of a half-space at qⁿ or at the inertial
// target s; a vertex that ends the step inside a half-space it was not a candidate for is added and the step redone.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "pd/pd_model.h"

namespace ductile::pd {

/// A contact's state in the last solve: apart (no force) or touching (d = 0, friction by the regularised law).
enum class ContactMode { kApart, kTouching };

/// A vertex against a half-space in one step. Plain data.
struct PdContact {
  int vertex = 0;
  int free_row = 0;  ///< The vertex's row among the free vertices.
  int obstacle = 0;
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  ///< f_c [N], the last solve's.
  ContactMode mode = ContactMode::kApart;
};

/// φ(u) of the regularised friction law (file comment) and its derivative ∂φ/∂u (3x3, to be applied to tangential
/// du), for the slip u [m] and regularisation ε [m] > 0.
struct SlipDirection {
  Eigen::Vector3d phi;
  Eigen::Matrix3d derivative;
};
SlipDirection RegularisedSlip(const Eigen::Vector3d& u, double epsilon);

/// u = T (x − xⁿ − m): a vertex's slip over the step along half-space h's plane, from its start xⁿ to x, relative to
/// the plane's motion m [m].
inline Eigen::Vector3d TangentialSlip(const PdHalfSpace& h, const Eigen::Vector3d& x, const Eigen::Vector3d& start) {
  const Eigen::Vector3d d = x - start - h.motion;
  return d - h.normal * h.normal.dot(d);
}

/// ε = ε_v h of `model` [m].
inline double SlipRegularisation(const PdModel& model) {
  return model.stick_velocity * model.dt;
}

/// The contacts of a step and the Delassus operator of their vertices; kept by a solver from step to step (W is
/// reused while the contact vertices and A stay the same).
struct PdContactSet {
  std::vector<PdContact> contacts;
  Eigen::MatrixXd columns;  ///< A_ff⁻¹'s columns of `vertices` (n_f x |vertices|) [m/N].
  Eigen::MatrixXd W;        ///< (A_ff⁻¹)_CC over `vertices` [m/N].
  /// With a skeleton, the joints' share of the compliance (pd/pd_solver.h, SkeletonGlobalStep): U S⁻¹ Uᵀ over
  /// `vertices`, 3|vertices| square, vertex-major, set by every global step; empty without bones.
  Eigen::MatrixXd joint_compliance;
  std::vector<int> vertices;         ///< Distinct free rows of the contacts, W's order.
  std::vector<int> slot;             ///< Per contact: its vertex's index in `vertices`.
  long long matrix_generation = -1;  ///< Of the A that W was made from.
  int sweeps = 0;                    ///< Gauss–Seidel sweeps of the last solve.
};

/// The compliance between the contact vertices in W's slots a and b [m/N]: W_ab I₃, plus the joints' share.
inline Eigen::Matrix3d Compliance(const PdContactSet& set, Eigen::Index a, Eigen::Index b) {
  Eigen::Matrix3d c = set.W(a, b) * Eigen::Matrix3d::Identity();
  if (set.joint_compliance.size() > 0) c += set.joint_compliance.block<3, 3>(3 * a, 3 * b);
  return c;
}

/// Calls visit(free_row, vertex, obstacle index, half-space) for every free vertex and every half-space of `model`
/// that holds it back (the shared ones, then the vertex's own), in that order; `visit` returns false to skip the
/// vertex's remaining half-spaces.
template <typename Visit>
void ForEachFreeVertexAndObstacle(const PdModel& model, Visit&& visit) {
  for (std::size_t f = 0; f < model.free_vertices.size(); ++f) {
    const int i = model.free_vertices[f];
    bool more = true;
    for (std::size_t k = 0; more && k < model.shared_obstacles.size(); ++k) {
      const int o = model.shared_obstacles[k];
      more = visit(static_cast<int>(f), i, o, model.obstacles[static_cast<std::size_t>(o)]);
    }
    const auto first = static_cast<std::size_t>(model.vertex_obstacle_start[static_cast<std::size_t>(i)]);
    const auto last = static_cast<std::size_t>(model.vertex_obstacle_start[static_cast<std::size_t>(i) + 1]);
    for (std::size_t k = first; more && k < last; ++k) {
      const int o = model.vertex_obstacles[k];
      more = visit(static_cast<int>(f), i, o, model.obstacles[static_cast<std::size_t>(o)]);
    }
  }
}

/// The candidates for a step from positions `start` with inertial target `target` (file comment); `margin` [m].
std::vector<PdContact> FindContactCandidates(const PdModel& model, const Eigen::MatrixX3d& start,
                                             const Eigen::MatrixX3d& target, double margin);

/// Free vertices of `q` inside a half-space by more than `tolerance` [m] that `set` has no contact for.
std::vector<PdContact> FindPenetrations(const PdModel& model, const Eigen::MatrixX3d& q, const PdContactSet& set,
                                        double tolerance);

/// The contact problem (file comment), by the active set, else projected Gauss–Seidel: `q_free_C` the contact vertices'
/// positions without contact forces (a row per entry of set.vertices), `start` every vertex's position at the step's
/// start. Updates the contacts' forces and modes in place; returns the Gauss–Seidel sweeps done (0 when the active set
/// solved it).
int SolveContacts(const PdModel& model, const Eigen::MatrixX3d& q_free_C, const Eigen::MatrixX3d& start,
                  PdContactSet& set);
/// Projected Gauss–Seidel alone, from the contacts' current forces; returns the sweeps done.
int SolveByGaussSeidel(const PdModel& model, const Eigen::MatrixX3d& q_free_C, const Eigen::MatrixX3d& start,
                       PdContactSet& set);

}  // namespace ductile::pd
