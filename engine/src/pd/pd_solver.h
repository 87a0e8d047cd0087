// The projective-dynamics step (Bouaziz et al. 2014, Sec. 4; Qiao, Liang, Koltun, Lin 2021, Sec. 3.1): implicit
// Euler as the minimisation of
//
//   Φ(q) = 1/(2h²) ‖q − s‖²_M + Σ_terms ω/2 ‖Y(q) − P(Y(q))‖²,     s = qⁿ + h vⁿ + h² g,
//
// over the free vertices' positions (pinned ones at their targets), by alternating
//
//   local step    P_i = P(Y_i(q)) for every term (pd/pd_projection.h), in parallel;
//   global step   A q = M s/h² + Σ ω S Pᵀ,   A = M/h² + L,   L = Σ ω S Sᵀ (scalar n x n, the same for x, y, z),
//
// with A's free block factorised once (CHOLMOD's supernodal Cholesky; numerically again when the materials change)
// and solved for the three coordinates at once; the pinned columns of A move to the right-hand side. Each sweep lowers
// Φ: the local step minimises over P with q fixed and the global step over q with P fixed, and Φ with the projections
// of the current q is the real energy (Bouaziz et al. 2014, Sec. 4.3), so Φ(q_k) is non-increasing (a test checks it).
//
// Iteration: local/global sweeps converge linearly, and slowly once the sweeps have removed the stiff error
// components (Liu, Bouaziz, Kavan 2017, Sec. 3: thousands of sweeps for 10⁻¹⁰); gradients need the step converged
// far below what a picture does. So once a sweep lowers the residual by less than half, the step goes on with
// Newton's method on Φ: H δ = −r by conjugate gradients preconditioned with the prefactorised A (pd/pd_hessian.h),
// then a backtracking line search on Φ. Φ still never rises (beyond its round-off, 10⁻¹² of itself, in the last
// steps, where a full step that lowers the residual is taken), and near the solution convergence is superlinear.
// `PdSolverSettings::newton = false` keeps the plain sweeps. With contacts (pd/pd_contact.h) every global step solves
// the contact problem, the residual below is taken with the contact forces, and Newton waits until the contacts'
// states have held for a few sweeps; its steps then hold the contacts' rows (pd/pd_step_system.h), it follows a
// contact that lets go or a vertex that goes into a plane, and it hands back to the sweeps (from the iterate where it
// started, unless it got further) when a step raises the residual. A body with a skeleton sweeps with
// pd/pd_skeleton.h's global step and finishes with Newton over the free vertices and the joint coordinates at once
// (pd_solver_skeleton.cpp: the joints' Schur complement on a sparse LU, the bones placed exactly at the new z), its
// line search on the residual's norm as with contacts (Φ over (q_f, z) is not convex along the joints' rotations).
//
// Stopping rule: the force residual of the implicit Euler optimality condition on the free rows,
//   r(q) = M (q − s)/h² + Σ ω S (Y − P)ᵀ = A q − (M s/h² + Σ ω S Pᵀ),
// which is zero exactly at a stationary point of Φ (with a skeleton, also the joints' Bᵀ g − τ, each read as a force
// at a lever of 1 m); the iteration stops when ‖r‖₂ ≤ tolerance · max(‖r(q₀)‖₂,
// m g₀) with m the body's mass and g₀ = 1 m/s² (a reference force, so a step that starts at equilibrium stops at
// once), or after max_iterations (the report says it did not converge). q₀ = s with the pinned rows at their
// targets. Then vⁿ⁺¹ = (qⁿ⁺¹ − qⁿ)/h.
//
// Thread-safety: a PdSolver is used by one thread at a time; the local step runs on the calling thread's TBB arena.
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "pd/pd_contact.h"
#include "pd/pd_model.h"
#include "pd/pd_projection.h"
#include "pd/pd_step_system.h"

namespace ductile::pd {

struct HessianPattern;

/// How far the local/global iteration goes. Plain data.
struct PdSolverSettings {
  int max_iterations = 200;  ///< Local/global sweeps and Newton steps together.
  double tolerance = 1e-6;   ///< Relative force residual (pd/pd_solver.h, "Stopping rule").
  bool newton = true;        ///< Finish with Newton steps once the sweeps slow down (pd/pd_solver.h, "Iteration").
};

/// What one step did. Plain data.
struct PdStepReport {
  int iterations = 0;         ///< Global solves and Newton steps.
  int newton_iterations = 0;  ///< Of which Newton steps.
  int contacts = 0;           ///< Contacts carrying a force at the end.
  int contact_sweeps = 0;     ///< Gauss–Seidel sweeps of the contact solves, summed over the global steps.
  double residual = 0;        ///< ‖r‖₂ at the returned positions [N].
  double reference = 0;       ///< The residual the tolerance is relative to [N].
  bool converged = false;
};

/// A body's step solver: the model, its term weights and the factorised free block of A.
class PdSolver {
 public:
  /// Builds A and factorises it; `error()` says why when CHOLMOD could not (it cannot fail for a valid model: A is
  /// symmetric positive definite, M/h² > 0 on the free rows and L ⪰ 0).
  explicit PdSolver(PdModel model);
  ~PdSolver();
  PdSolver(const PdSolver&) = delete;
  PdSolver& operator=(const PdSolver&) = delete;

  const PdModel& model() const { return model_; }
  const std::string& error() const { return error_; }
  /// The weight ω of each term (PdModel::terms order).
  const std::vector<double>& weights() const { return weights_; }

  /// New per-tet materials (one per tet); A is refactorised (the pattern is kept). The values must be valid
  /// (MakePdModel's rules); false with `error()` otherwise, the old ones kept.
  bool SetMaterials(const std::vector<double>& youngs_modulus, const std::vector<double>& poisson_ratio);

  /// New obstacles for the coming steps (a rigid body's surface, linearised per vertex at each step's start:
  /// PdHalfSpace::vertex, motion); checked by ObstaclesError. False with `error()` when they are invalid, the old ones
  /// kept. Only the free vertices are held back (pd/pd_contact.h).
  bool SetObstacles(std::vector<PdHalfSpace> obstacles);
  /// A new step h [s] > 0 (A is refactorised when it changes) and gravity [m/s²] (a live edit of the scene's).
  bool SetStepAndGravity(double dt, const Eigen::Vector3d& gravity);

  /// One implicit Euler step from `in` under `controls` into `out` (may not alias `in`). `energies`, when given,
  /// receives Φ at every iterate before its global step (for tests).
  PdStepReport Step(const PdState& in, const PdControls& controls, PdState& out, const PdSolverSettings& settings,
                    std::vector<double>* energies = nullptr) const;

  /// The inertial target s = qⁿ + h vⁿ + h² g (n x 3).
  Eigen::MatrixX3d InertialTarget(const PdState& in) const;
  /// Φ(q) for the step that starts at `in` (file comment).
  double Energy(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const;
  /// r(q) on every row (the pinned rows are computed as if free, and meaningless) [N].
  Eigen::MatrixX3d Residual(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const;
  /// Every term's projection at q.
  std::vector<TermProjection> Projections(const Eigen::MatrixX3d& q, const PdControls& controls) const;

  /// The free rows of x (n x 3), in PdModel::free_vertices order.
  Eigen::MatrixX3d FreeRows(const Eigen::MatrixX3d& x) const;
  /// Writes `free` (a row per free vertex) into x's free rows, or adds it there; x's other rows stay.
  void SetFreeRows(const Eigen::MatrixX3d& free, Eigen::MatrixX3d& x) const;
  void AddFreeRows(const Eigen::MatrixX3d& free, Eigen::MatrixX3d& x) const;
  /// x_f ← A_ff⁻¹ x_f for the free rows of x (n_f x 3, PdModel::free_vertices order).
  Eigen::MatrixX3d SolveFree(const Eigen::MatrixX3d& rhs_free) const;
  /// The same for any number of columns.
  Eigen::MatrixXd SolveFreeColumns(const Eigen::MatrixXd& rhs_free) const;

  /// A = M/h² + L on every row and column (n x n, scalar: the same for x, y and z).
  const Eigen::SparseMatrix<double>& matrix() const { return A_; }
  /// Whether the Jacobi splitting of the global step that Ly et al. 2020 and Qiao et al. 2021 solve contact with
  /// would converge for this model and step: M + h²(2D − L) ≻ 0 over the free vertices (pd/pd_contact.h).
  bool SplittingConverges() const;
  /// The contacts of the last step, with their forces.
  const std::vector<PdContact>& contacts() const { return contacts_.contacts; }
  /// Per vertex the von Mises stress [Pa] of the Cauchy stress σ = P Fᵀ/J of the strain and volume terms, P = Σ (ω/V)
  /// (Y − proj(Y)) per tet (2μ(F − cR) + λ(tr S − 3c)R, the linear corotated stress about the actuators' rest shape;
  /// the muscles' fibre tension is left out), averaged over the tets around it; 0 in an inverted tet.
  std::vector<double> VonMises(const Eigen::MatrixX3d& q, const PdControls& controls) const;
  /// The pattern of the assembled Hessian (pd/pd_hessian.h), built at the first call.
  const HessianPattern& hessian_pattern() const;
  /// How near a half-space a vertex becomes a contact candidate [m] (pd/pd_contact.h, "Candidates").
  double contact_margin() const { return contact_margin_; }

 private:
  void Assemble();
  /// W and the columns of A_ff⁻¹ for the contact vertices, unless the vertices and A are those of the last call.
  void UpdateCompliance() const;
  /// The free vertices' positions of a global step with contact (pd/pd_contact.h); updates the contact forces.
  Eigen::MatrixX3d GlobalStep(const Eigen::MatrixX3d& rhs_free, const Eigen::MatrixX3d& start) const;
  /// The contact forces per vertex (n x 3) [N].
  Eigen::MatrixX3d ContactForces() const;
  /// The touching contacts of the last contact solve, or none when a vertex touches two half-spaces (the Newton
  /// steps then stay off).
  std::vector<VertexConstraint> ActiveConstraints() const;
  /// The contacts' forces for `constraints` at g = A q − b: the normal force g_i asks for and the regularised
  /// Coulomb force for the slip (pd/pd_step_system.h).
  void ConstraintForces(const std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& g,
                        const Eigen::MatrixX3d& start, const Eigen::MatrixX3d& q) const;
  /// ‖r‖ over the free rows at q with the constraints' forces (ConstraintForces, which it sets).
  double ConstrainedResidual(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                             const std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& q) const;
  /// One Newton step on G(q) = 0 with the constraints' modes held (pd/pd_step_system.h), shortened until it lowers
  /// ConstrainedResidual; false when J is singular or no step lowers it.
  bool ContactNewtonStep(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                         const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& g,
                         const std::vector<VertexConstraint>& constraints, Eigen::MatrixX3d& q) const;
  /// Corrects the constraints by the forces g_i and positions q: a vertex pulling on its plane (λ < 0) lets go, a
  /// free candidate inside a plane touches it. True when anything changed.
  bool UpdateConstraints(std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& g,
                         const Eigen::MatrixX3d& q) const;
  /// Bᵀ(A q − b) − τ per joint, B the joint Jacobian's columns at the iterate (g = A q − b on every row); empty
  /// without bones.
  Eigen::VectorXd JointResidual(const Eigen::MatrixX3d& g, const PdControls& controls,
                                const std::vector<Eigen::MatrixX3d>& B) const;
  /// The global step of a body with a skeleton (pd/pd_skeleton.h) from `out`, where the joint Jacobian is B: free
  /// vertices and joint increments, with the contact solve when there are candidates (its sweeps into `report`;
  /// `start` the step's start positions).
  void SkeletonGlobalStep(const Eigen::MatrixX3d& b, const PdControls& controls, const std::vector<Eigen::MatrixX3d>& B,
                          const Eigen::MatrixX3d& start, PdStepReport& report, PdState& out) const;
  /// The residual's norm (free rows with the constraints' forces, and the joints' rows) at `state` (q and z).
  double SkeletonResidual(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                          const std::vector<VertexConstraint>& constraints, const PdState& state) const;
  /// One Newton step over the free vertices and the joint coordinates with the constraints' modes held
  /// (pd_solver_skeleton.cpp), shortened until it lowers SkeletonResidual; false when singular or no step does.
  bool SkeletonNewtonStep(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                          const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& g,
                          const std::vector<VertexConstraint>& constraints, const std::vector<Eigen::MatrixX3d>& B,
                          PdState& out) const;
  struct NewtonPhase;
  /// Leaves the Newton phase for the sweeps, restoring the iterate it started from unless `keep_iterate`.
  void AbandonNewton(NewtonPhase& newton, PdState& out, bool keep_iterate) const;
  /// One global step (with the skeleton's joints, pd/pd_skeleton.h, and the contact solve, pd/pd_contact.h) into
  /// `out`; `b` the right-hand side on every row, `pinned_coupling` A_fp q_p, B the joint Jacobian at `out`.
  void Sweep(const Eigen::MatrixX3d& b, const Eigen::MatrixX3d& pinned_coupling, const PdControls& controls,
             const std::vector<Eigen::MatrixX3d>& B, const PdState& in, PdStepReport& report, NewtonPhase& newton,
             PdState& out) const;
  /// The local/global iteration of a step over the current contact candidates.
  PdStepReport Iterate(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& s, PdState& out,
                       const PdSolverSettings& settings, std::vector<double>* energies) const;
  /// The right-hand side M s/h² + Σ ω S Pᵀ on every row, from the projections.
  Eigen::MatrixX3d RightHandSide(const Eigen::MatrixX3d& s, const std::vector<TermProjection>& projections) const;
  double ReferenceForce() const;
  /// One Newton step with a line search on Φ from q (pd/pd_solver.h, "Iteration"); the step length taken (0 when
  /// none lowered Φ).
  double NewtonStep(const Eigen::MatrixX3d& s, const PdControls& controls,
                    const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& r_free,
                    double relative_residual, Eigen::MatrixX3d& q) const;
  double Phi(const Eigen::MatrixX3d& s, const Eigen::MatrixX3d& q,
             const std::vector<TermProjection>& projections) const;

  PdModel model_;
  std::vector<double> weights_;
  Eigen::SparseMatrix<double> A_;     ///< n x n, both triangles.
  Eigen::SparseMatrix<double> A_ff_;  ///< Free block, lower triangle (CHOLMOD's input).
  struct Factorisation;               ///< CHOLMOD's (pd_solver.cpp), so that this header needs no <cholmod.h>.
  std::unique_ptr<Factorisation> factor_;
  std::string error_;
  long long generation_ = 0;       ///< Counts factorisations of A (the contact compliance is cached per A).
  double contact_margin_ = 0;      ///< [m] (pd/pd_contact.h, "Candidates").
  mutable PdContactSet contacts_;  ///< The last step's contacts and compliance (one thread at a time).
  mutable std::unique_ptr<HessianPattern> hessian_pattern_;  ///< Built at the first assembly (one thread at a time).
};

}  // namespace ductile::pd
