// The projective-dynamics step: assembly of A, the local/global iteration and its stopping rule (pd/pd_solver.h).
#include "pd/pd_solver.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/SparseCholesky>
#include "contact/cholmod_support.h"
#include "pd/pd_hessian.h"
#include "pd/pd_skeleton.h"
#include "pd/pd_step_system.h"

namespace ductile::pd {

namespace {

/// Conjugate-gradient iterations per Newton step; a direction from fewer is still a descent direction.
constexpr int kNewtonCgIterations = 100;
/// Rounds of a step that add the vertices found inside a half-space (pd/pd_contact.h, "Candidates").
constexpr int kContactRounds = 4;
/// Depth below which a vertex counts as inside a half-space [m] (the contact solve leaves gaps of ~1e-15 m).
constexpr double kPenetrationTolerance = 1e-9;
/// Corrections of the contact modes the Newton steps of one step may make before the sweeps take over.
constexpr int kModeChanges = 8;
/// Times Newton on the residual (with contacts or a skeleton) may start over in one step after raising the residual.
constexpr int kNewtonEntries = 4;
/// A residual below this fraction of the reference is at round-off: Newton stops there.
constexpr double kRoundOff = 1e-11;
/// Global steps in a row without a change of contact mode before Newton takes over.
constexpr int kStableModes = 3;
/// The shortest step of the line search of Newton with contacts (a fraction of the Newton step).
constexpr double kMinContactStep = 1.0 / 1024;

}  // namespace

Eigen::MatrixX3d PdSolver::FreeRows(const Eigen::MatrixX3d& x) const {
  Eigen::MatrixX3d free(static_cast<Eigen::Index>(model_.free_vertices.size()), 3);
  for (std::size_t f = 0; f < model_.free_vertices.size(); ++f)
    free.row(static_cast<Eigen::Index>(f)) = x.row(model_.free_vertices[f]);
  return free;
}

void PdSolver::SetFreeRows(const Eigen::MatrixX3d& free, Eigen::MatrixX3d& x) const {
  for (std::size_t f = 0; f < model_.free_vertices.size(); ++f)
    x.row(model_.free_vertices[f]) = free.row(static_cast<Eigen::Index>(f));
}

void PdSolver::AddFreeRows(const Eigen::MatrixX3d& free, Eigen::MatrixX3d& x) const {
  for (std::size_t f = 0; f < model_.free_vertices.size(); ++f)
    x.row(model_.free_vertices[f]) += free.row(static_cast<Eigen::Index>(f));
}

struct PdSolver::Factorisation {
  contact::CholmodWorkspace cholmod;
};

PdSolver::PdSolver(PdModel model) : model_(std::move(model)) {
  contact::UseSingleThreadedBlas();
  // Contact candidates within a quarter of the mean edge length (pd/pd_contact.h).
  double edges = 0;
  for (const auto& tet : model_.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        edges += (model_.rest[static_cast<std::size_t>(tet[static_cast<std::size_t>(a)])] -
                  model_.rest[static_cast<std::size_t>(tet[static_cast<std::size_t>(b)])])
                     .norm();
  contact_margin_ = 0.25 * edges / std::max<double>(1.0, 6.0 * static_cast<double>(model_.tets.size()));
  Assemble();
}

PdSolver::~PdSolver() = default;

void PdSolver::Assemble() {
  const int n = model_.vertex_count();
  const double h = model_.dt;
  weights_.clear();
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(static_cast<std::size_t>(n) + 16 * model_.terms.size());
  for (int i = 0; i < n; ++i) triplets.emplace_back(i, i, model_.masses[static_cast<std::size_t>(i)] / (h * h));
  for (const Term& term : model_.terms) {
    const double w = TermWeight(model_, term);
    weights_.push_back(w);
    // L += ω S Sᵀ over the tet's corners.
    Eigen::Matrix4d block;
    if (term.kind == TermKind::kMuscle) {
      block = w * term.fibre * term.fibre.transpose();
    } else {
      const ShapeGradients& g = model_.gradients[static_cast<std::size_t>(term.tet)];
      block = w * g * g.transpose();
    }
    const auto& tet = model_.tets[static_cast<std::size_t>(term.tet)];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        triplets.emplace_back(tet[static_cast<std::size_t>(a)], tet[static_cast<std::size_t>(b)], block(a, b));
  }
  A_.resize(n, n);
  A_.setFromTriplets(triplets.begin(), triplets.end());
  // The free block's lower triangle; the held vertices' columns (pinned, bones) move to the right-hand side as
  // A q_held (Iterate, SkeletonGlobalStep).
  const auto free_count = static_cast<int>(model_.free_vertices.size());
  std::vector<Eigen::Triplet<double>> ff;
  for (int col = 0; col < n; ++col) {
    const int col_free = model_.free_index[static_cast<std::size_t>(col)];
    if (col_free < 0) continue;
    for (Eigen::SparseMatrix<double>::InnerIterator it(A_, col); it; ++it) {
      const int row_free = model_.free_index[static_cast<std::size_t>(it.row())];
      if (row_free >= col_free) ff.emplace_back(row_free, col_free, it.value());
    }
  }
  A_ff_.resize(free_count, free_count);
  A_ff_.setFromTriplets(ff.begin(), ff.end());
  A_ff_.makeCompressed();
  cholmod_sparse view =
      contact::LowerTriangleView(static_cast<std::size_t>(free_count), static_cast<std::size_t>(A_ff_.nonZeros()),
                                 A_ff_.outerIndexPtr(), A_ff_.innerIndexPtr(), A_ff_.valuePtr());
  if (free_count == 0) {  // every vertex pinned or in a bone: nothing to factorise
    error_.clear();
    ++generation_;
    return;
  }
  if (!factor_) {
    // The pattern of A depends only on the mesh and the pinned set: analysed once (CHOLMOD's default ordering),
    // refactorised numerically when the materials change.
    factor_ = std::make_unique<Factorisation>();
    factor_->cholmod.common.supernodal = CHOLMOD_SUPERNODAL;
    factor_->cholmod.factor = cholmod_analyze(&view, &factor_->cholmod.common);
  }
  cholmod_common& cm = factor_->cholmod.common;
  const bool ok = factor_->cholmod.factor && cholmod_factorize(&view, factor_->cholmod.factor, &cm) &&
                  cm.status != CHOLMOD_NOT_POSDEF;
  error_ = ok ? "" : "the global matrix could not be factorised";
  ++generation_;
}

bool PdSolver::SetMaterials(const std::vector<double>& youngs_modulus, const std::vector<double>& poisson_ratio) {
  const auto tets = static_cast<std::size_t>(model_.tet_count());
  if (youngs_modulus.size() != tets || poisson_ratio.size() != tets) {
    error_ = "materials: one Young's modulus and one Poisson's ratio per tet";
    return false;
  }
  if (std::string error = MaterialsError(youngs_modulus, poisson_ratio); !error.empty()) {
    error_ = "materials: " + error;
    return false;
  }
  model_.youngs_modulus = youngs_modulus;
  model_.poisson_ratio = poisson_ratio;
  Assemble();
  return error_.empty();
}

const HessianPattern& PdSolver::hessian_pattern() const {
  if (!hessian_pattern_) hessian_pattern_ = std::make_unique<HessianPattern>(HessianPattern::Of(model_));
  return *hessian_pattern_;
}

bool PdSolver::SetObstacles(std::vector<PdHalfSpace> obstacles) {
  if (std::string error = ObstaclesError(obstacles, model_.vertex_count()); !error.empty()) {
    error_ = "obstacles: " + error;
    return false;
  }
  pd::SetObstacles(model_, std::move(obstacles));
  contacts_.contacts.clear();  // their obstacle indices named the old ones
  return true;
}

bool PdSolver::SetStepAndGravity(double dt, const Eigen::Vector3d& gravity) {
  if (!(dt > 0 && std::isfinite(dt)) || !gravity.allFinite()) {
    error_ = "time step and gravity: h must be positive and both finite";
    return false;
  }
  model_.gravity = gravity;
  if (dt == model_.dt) return true;
  model_.dt = dt;
  Assemble();
  return error_.empty();
}

Eigen::MatrixX3d PdSolver::InertialTarget(const PdState& in) const {
  const double h = model_.dt;
  Eigen::MatrixX3d s = in.q + h * in.v;
  s.rowwise() += (h * h) * model_.gravity.transpose();
  return s;
}

std::vector<TermProjection> PdSolver::Projections(const Eigen::MatrixX3d& q, const PdControls& controls) const {
  std::vector<TermProjection> projections(model_.terms.size());
  tbb::parallel_for(std::size_t{0}, projections.size(), [&](std::size_t i) {
    const Term& term = model_.terms[i];
    projections[i] = Project(term.kind, TermY(model_, term, q), TermTarget(model_, term, controls));
  });
  return projections;
}

Eigen::MatrixX3d PdSolver::RightHandSide(const Eigen::MatrixX3d& s,
                                         const std::vector<TermProjection>& projections) const {
  const double h = model_.dt;
  Eigen::MatrixX3d b(s.rows(), 3);
  for (Eigen::Index i = 0; i < s.rows(); ++i)
    b.row(i) = (model_.masses[static_cast<std::size_t>(i)] / (h * h)) * s.row(i);
  for (std::size_t i = 0; i < projections.size(); ++i) {
    const Term& term = model_.terms[i];
    const Eigen::Matrix<double, 4, 3> forces = weights_[i] * StencilTranspose(model_, term, projections[i].P);
    const auto& tet = model_.tets[static_cast<std::size_t>(term.tet)];
    for (int c = 0; c < 4; ++c) b.row(tet[static_cast<std::size_t>(c)]) += forces.row(c);
  }
  return b;
}

double PdSolver::ReferenceForce() const {
  return TotalMass(model_) * 1.0;  // m g₀, g₀ = 1 m/s² (header)
}

double PdSolver::Phi(const Eigen::MatrixX3d& s, const Eigen::MatrixX3d& q,
                     const std::vector<TermProjection>& projections) const {
  const double h = model_.dt;
  double energy = 0;
  for (const int i : model_.free_vertices)
    energy += model_.masses[static_cast<std::size_t>(i)] / (2 * h * h) * (q.row(i) - s.row(i)).squaredNorm();
  for (std::size_t i = 0; i < projections.size(); ++i)
    energy += 0.5 * weights_[i] * (projections[i].Y - projections[i].P).squaredNorm();
  return energy;
}

double PdSolver::Energy(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const {
  return Phi(InertialTarget(in), q, Projections(q, controls));
}

Eigen::MatrixX3d PdSolver::Residual(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const {
  return A_ * q - RightHandSide(InertialTarget(in), Projections(q, controls));
}

Eigen::MatrixX3d PdSolver::SolveFree(const Eigen::MatrixX3d& rhs_free) const {
  return SolveFreeColumns(rhs_free);
}

Eigen::MatrixXd PdSolver::SolveFreeColumns(const Eigen::MatrixXd& rhs_free) const {
  if (rhs_free.cols() == 0 || rhs_free.rows() == 0) return Eigen::MatrixXd::Zero(rhs_free.rows(), rhs_free.cols());
  const auto rows = static_cast<std::size_t>(rhs_free.rows());
  const auto cols = static_cast<std::size_t>(rhs_free.cols());
  cholmod_dense rhs{.nrow = rows,
                    .ncol = cols,
                    .nzmax = cols * rows,
                    .d = rows,
                    .x = const_cast<double*>(rhs_free.data()),  // CHOLMOD only reads a right-hand side
                    .z = nullptr,
                    .xtype = CHOLMOD_REAL,
                    .dtype = CHOLMOD_DOUBLE};
  cholmod_common& cm = factor_->cholmod.common;
  cholmod_dense* solution = cholmod_solve(CHOLMOD_A, factor_->cholmod.factor, &rhs, &cm);
  Eigen::MatrixXd x =
      Eigen::Map<const Eigen::MatrixXd>(static_cast<const double*>(solution->x), rhs_free.rows(), rhs_free.cols());
  cholmod_free_dense(&solution, &cm);
  return x;
}

double PdSolver::NewtonStep(const Eigen::MatrixX3d& s, const PdControls& controls,
                            const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& r_free,
                            double relative_residual, Eigen::MatrixX3d& q) const {
  // An inexact Newton direction (Eisenstat, Walker 1996, "Choosing the forcing terms in an inexact Newton method":
  // η = min(0.1, √‖r‖_rel) gives superlinear convergence); on negative curvature at once, the local/global step's
  // direction −A⁻¹r, a descent direction since A is positive definite.
  const PdHessian hessian(*this, projections);
  Eigen::MatrixX3d direction;
  const double eta = std::min(0.1, std::sqrt(relative_residual));
  hessian.Solve(-r_free, direction, eta, kNewtonCgIterations);
  if (!(direction.squaredNorm() > 0)) direction = -SolveFree(r_free);
  // Backtracking on Φ (Armijo's condition, Nocedal, Wright 2006, Algorithm 3.1), so Φ never rises.
  const double phi = Phi(s, q, projections);
  const double slope = r_free.cwiseProduct(direction).sum();
  for (double alpha = 1.0; alpha > 1e-10; alpha *= 0.5) {
    Eigen::MatrixX3d trial = q;
    AddFreeRows(alpha * direction, trial);
    const std::vector<TermProjection> trial_projections = Projections(trial, controls);
    const double phi_trial = Phi(s, trial, trial_projections);
    // Near the solution Φ's decrease (~ ‖r‖²/‖H‖) falls below Φ's round-off (each ‖Y − P‖² loses the digits that
    // Y and P share) before the residual reaches the tolerance. A full step that raises Φ by no more than 10⁻¹² of
    // itself and lowers the residual is then taken.
    const bool accept = phi_trial <= phi + 1e-4 * alpha * slope ||
                        (alpha == 1.0 && phi_trial <= phi + 1e-12 * std::abs(phi) &&
                         FreeRows(A_ * trial - RightHandSide(s, trial_projections)).norm() < r_free.norm());
    if (accept) {
      q = trial;
      return alpha;
    }
  }
  return 0.0;  // no decrease found: the residual is at round-off level
}

void PdSolver::UpdateCompliance() const {
  PdContactSet& set = contacts_;
  std::vector<int> vertices;
  for (const PdContact& c : set.contacts) vertices.push_back(c.free_row);
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  set.slot.clear();
  for (const PdContact& c : set.contacts)
    set.slot.push_back(
        static_cast<int>(std::lower_bound(vertices.begin(), vertices.end(), c.free_row) - vertices.begin()));
  if (vertices == set.vertices && set.matrix_generation == generation_) return;
  set.vertices = std::move(vertices);
  set.matrix_generation = generation_;
  const auto free_count = static_cast<Eigen::Index>(model_.free_vertices.size());
  const auto count = static_cast<Eigen::Index>(set.vertices.size());
  Eigen::MatrixXd units = Eigen::MatrixXd::Zero(free_count, count);
  for (Eigen::Index k = 0; k < count; ++k) units(set.vertices[static_cast<std::size_t>(k)], k) = 1.0;
  set.columns = SolveFreeColumns(units);
  set.W.resize(count, count);
  for (Eigen::Index k = 0; k < count; ++k) set.W.row(k) = set.columns.row(set.vertices[static_cast<std::size_t>(k)]);
}

Eigen::MatrixX3d PdSolver::GlobalStep(const Eigen::MatrixX3d& rhs_free, const Eigen::MatrixX3d& start) const {
  Eigen::MatrixX3d q_free = SolveFree(rhs_free);
  PdContactSet& set = contacts_;
  if (set.contacts.empty()) return q_free;
  Eigen::MatrixX3d q_contacts(static_cast<Eigen::Index>(set.vertices.size()), 3);
  for (std::size_t k = 0; k < set.vertices.size(); ++k)
    q_contacts.row(static_cast<Eigen::Index>(k)) = q_free.row(set.vertices[k]);
  SolveContacts(model_, q_contacts, start, set);
  Eigen::MatrixX3d forces = Eigen::MatrixX3d::Zero(static_cast<Eigen::Index>(set.vertices.size()), 3);
  for (std::size_t a = 0; a < set.contacts.size(); ++a) forces.row(set.slot[a]) += set.contacts[a].force.transpose();
  return q_free + set.columns * forces;
}

Eigen::MatrixX3d PdSolver::ContactForces() const {
  Eigen::MatrixX3d forces = Eigen::MatrixX3d::Zero(model_.vertex_count(), 3);
  for (const PdContact& c : contacts_.contacts) forces.row(c.vertex) += c.force.transpose();
  return forces;
}

std::vector<VertexConstraint> PdSolver::ActiveConstraints() const {
  std::vector<VertexConstraint> constraints;
  std::vector<int> seen;
  for (const PdContact& c : contacts_.contacts) {
    if (c.mode == ContactMode::kApart) continue;
    if (std::find(seen.begin(), seen.end(), c.vertex) != seen.end()) return {};  // two planes at one vertex
    seen.push_back(c.vertex);
    constraints.push_back({.vertex = c.vertex, .free_row = c.free_row, .obstacle = c.obstacle});
  }
  return constraints;
}

void PdSolver::ConstraintForces(const std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& g,
                                const Eigen::MatrixX3d& start, const Eigen::MatrixX3d& q) const {
  for (PdContact& c : contacts_.contacts) c.force.setZero();
  for (const VertexConstraint& k : constraints) {
    auto it = std::find_if(contacts_.contacts.begin(), contacts_.contacts.end(),
                           [&](const PdContact& c) { return c.vertex == k.vertex && c.obstacle == k.obstacle; });
    const PdHalfSpace& h = model_.obstacles[static_cast<std::size_t>(k.obstacle)];
    const Eigen::Vector3d gi = g.row(k.vertex).transpose();
    // The normal force g_i asks for, and the regularised Coulomb force for the slip (pd/pd_contact.h): its difference
    // from g_i's tangential part is the residual's.
    const double lambda = h.normal.dot(gi);
    const Eigen::Vector3d u = TangentialSlip(h, q.row(k.vertex).transpose(), start.row(k.vertex).transpose());
    it->force = lambda * h.normal - h.friction * lambda * RegularisedSlip(u, SlipRegularisation(model_)).phi;
  }
}

double PdSolver::ConstrainedResidual(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                                     const std::vector<VertexConstraint>& constraints,
                                     const Eigen::MatrixX3d& q) const {
  const Eigen::MatrixX3d g = A_ * q - RightHandSide(s, Projections(q, controls));
  ConstraintForces(constraints, g, in.q, q);
  return FreeRows(g - ContactForces()).norm();
}

bool PdSolver::ContactNewtonStep(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                                 const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& g,
                                 const std::vector<VertexConstraint>& constraints, Eigen::MatrixX3d& q) const {
  const PdHessian hessian(*this, projections);
  const StepSystem system = AssembleStepSystem(hessian, constraints, in.q, q, g);
  Eigen::MatrixX3d step;
  if (!SolveSparse(system.J, -system.G, step)) return false;
  // Backtracking on the residual's norm, for which the Newton direction descends (J δ = −G). The full step overshot
  // where friction's regularisation is sharp (ε = ε_v h = 1e-7 m of slip at the defaults): it raised the residual,
  // Newton was abandoned, and the sweeps took 200 iterations to 1e-5 (a ball resting on a few vertices).
  const double start = ConstrainedResidual(in, s, controls, constraints, q);
  for (double alpha = 1; alpha >= kMinContactStep; alpha *= 0.5) {
    Eigen::MatrixX3d trial = q;
    AddFreeRows(alpha * step, trial);
    if (ConstrainedResidual(in, s, controls, constraints, trial) <= (1 - 1e-4 * alpha) * start) {
      q = std::move(trial);
      return true;
    }
  }
  return false;
}

bool PdSolver::UpdateConstraints(std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& g,
                                 const Eigen::MatrixX3d& q) const {
  bool changed = false;
  std::vector<VertexConstraint> kept;
  for (const VertexConstraint& k : constraints) {
    const PdHalfSpace& h = model_.obstacles[static_cast<std::size_t>(k.obstacle)];
    if (h.normal.dot(g.row(k.vertex).transpose()) < 0) {  // pulling on the plane: let go
      changed = true;
      continue;
    }
    kept.push_back(k);
  }
  // A free vertex without a constraint that went into a half-space sticks to it (the next Newton step puts it back).
  for (const PdContact& c : contacts_.contacts) {
    const PdHalfSpace& h = model_.obstacles[static_cast<std::size_t>(c.obstacle)];
    const bool held =
        std::any_of(kept.begin(), kept.end(), [&](const VertexConstraint& k) { return k.vertex == c.vertex; });
    if (held || h.normal.dot(q.row(c.vertex).transpose()) - h.offset >= -kPenetrationTolerance) continue;
    kept.push_back({.vertex = c.vertex, .free_row = c.free_row, .obstacle = c.obstacle});
    changed = true;
  }
  constraints = std::move(kept);
  return changed;
}

/// What the Newton phase of one step's iteration keeps (pd/pd_solver.h, "Iteration").
struct PdSolver::NewtonPhase {
  bool on = false;
  bool with_contacts = true;  ///< Off for the rest of the step once Newton on the residual gave up too often.
  int entries = 0;            ///< Times Newton on the residual was abandoned.
  int set_changes = 0;        ///< Changes of its contact set.
  int stable_steps = 0;       ///< Global steps in a row that kept every contact's state.
  std::vector<VertexConstraint> constraints;
  Eigen::MatrixX3d q_before;
  Eigen::VectorXd z_before;
  std::vector<PdContact> contacts_before;
  double residual_before = 0;
};

void PdSolver::AbandonNewton(NewtonPhase& newton, PdState& out, bool keep_iterate) const {
  newton.on = false;
  newton.with_contacts = ++newton.entries < kNewtonEntries;
  if (!keep_iterate) {
    out.q = newton.q_before;
    out.z = newton.z_before;
    contacts_.contacts = newton.contacts_before;
  }
  newton.stable_steps = 0;
}

void PdSolver::Sweep(const Eigen::MatrixX3d& b, const Eigen::MatrixX3d& pinned_coupling, const PdControls& controls,
                     const std::vector<Eigen::MatrixX3d>& B, const PdState& in, PdStepReport& report,
                     NewtonPhase& newton, PdState& out) const {
  std::vector<ContactMode> before;
  for (const PdContact& c : contacts_.contacts) before.push_back(c.mode);
  if (!model_.bones.empty()) {
    SkeletonGlobalStep(b, controls, B, in.q, report, out);
  } else {
    SetFreeRows(GlobalStep(FreeRows(b) - pinned_coupling, in.q), out.q);
    report.contact_sweeps += contacts_.contacts.empty() ? 0 : contacts_.sweeps;
  }
  bool same = true;
  for (std::size_t k = 0; k < contacts_.contacts.size(); ++k) same = same && contacts_.contacts[k].mode == before[k];
  newton.stable_steps = same ? newton.stable_steps + 1 : 0;
}

PdStepReport PdSolver::Iterate(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& s, PdState& out,
                               const PdSolverSettings& settings, std::vector<double>* energies) const {
  out.q = s;
  for (std::size_t k = 0; k < model_.pinned.size(); ++k)
    out.q.row(model_.pinned[k]) = controls.pinned_targets[k].transpose();
  out.z = in.z;
  if (!model_.bones.empty()) PlaceBoneVertices(model_, out.z, out.q);
  // A_fp q_p, the pinned vertices' pull on the free ones (without a skeleton the held vertices are the pinned ones,
  // fixed over the step).
  Eigen::MatrixX3d held = out.q;
  for (const int i : model_.free_vertices) held.row(i).setZero();
  const Eigen::MatrixX3d pinned_coupling = FreeRows(A_ * held);
  const bool contacts = !contacts_.contacts.empty();
  // Newton on the step's equations with a line search on the residual (contact rows, joint rows), else on Φ.
  const bool by_residual = contacts || !model_.bones.empty();
  PdStepReport report;
  NewtonPhase newton;
  double previous = 0;
  for (int iteration = 0;; ++iteration) {
    const std::vector<TermProjection> projections = Projections(out.q, controls);
    const Eigen::MatrixX3d b = RightHandSide(s, projections);
    const Eigen::MatrixX3d g = A_ * out.q - b;
    // In Newton with contacts, the contact set follows the forces at every iterate (a vertex pulling on its plane
    // lets go, one gone into a plane touches it), and the forces are those its constraints carry.
    const bool set_changed = newton.on && contacts && UpdateConstraints(newton.constraints, g, out.q);
    if (newton.on && contacts) ConstraintForces(newton.constraints, g, in.q, out.q);
    const Eigen::MatrixX3d r_free = FreeRows(g - ContactForces());
    const std::vector<Eigen::MatrixX3d> B = JointJacobian(model_, out.z, out.q);  // none without a skeleton
    report.residual = std::sqrt(r_free.squaredNorm() + JointResidual(g, controls, B).squaredNorm());
    if (iteration == 0) report.reference = std::max(report.residual, ReferenceForce());
    if (energies) energies->push_back(Phi(s, out.q, projections));
    // With contact candidates the starting guess s has not met the contact conditions yet: a global step first.
    report.converged =
        report.residual <= settings.tolerance * report.reference && (iteration > 0 || !contacts) && !set_changed;
    if (report.converged || iteration >= settings.max_iterations) break;
    if (newton.on && by_residual &&
        ((set_changed && ++newton.set_changes > kModeChanges) || (!set_changed && report.residual > previous))) {
      // Round-off: Newton has taken the residual to its floor (~1e-13 of the reference) and cannot lower it.
      if (!set_changed && report.residual < kRoundOff * report.reference) break;
      // Back to the sweeps, from where Newton started unless it got further.
      AbandonNewton(newton, out, report.residual < newton.residual_before);
      continue;
    }
    if (!newton.on && settings.newton && iteration > 1 && report.residual > 0.5 * previous &&
        (!by_residual || newton.with_contacts) && (!contacts || newton.stable_steps >= kStableModes)) {
      newton.constraints = ActiveConstraints();
      // With candidates but none touching, Newton runs without contact rows (a vertex that goes into a plane joins
      // the constraints at the next iterate); before, the sweeps alone were left to finish such a step, linearly (a
      // ball about to land: 200 sweeps to 6e-6 of the reference).
      newton.on = true;
      newton.q_before = out.q;
      newton.z_before = out.z;
      newton.contacts_before = contacts_.contacts;
      newton.residual_before = report.residual;
    }
    previous = report.residual;
    report.iterations = iteration + 1;
    if (newton.on) {
      ++report.newton_iterations;
      if (!by_residual) {
        if (NewtonStep(s, controls, projections, r_free, report.residual / report.reference, out.q) == 0.0) break;
        continue;
      }
      const bool stepped = model_.bones.empty()
                               ? ContactNewtonStep(in, s, controls, projections, g, newton.constraints, out.q)
                               : SkeletonNewtonStep(in, s, controls, projections, g, newton.constraints, B, out);
      if (!stepped) AbandonNewton(newton, out, false);
      continue;
    }
    Sweep(b, pinned_coupling, controls, B, in, report, newton, out);
  }
  return report;
}

PdStepReport PdSolver::Step(const PdState& in, const PdControls& controls, PdState& out,
                            const PdSolverSettings& settings, std::vector<double>* energies) const {
  const Eigen::MatrixX3d s = InertialTarget(in);
  contacts_.contacts = FindContactCandidates(model_, in.q, s, contact_margin_);
  PdStepReport report;
  // A vertex that was no candidate but ends inside a half-space joins the candidates and the step is redone
  // (pd/pd_contact.h); a few rounds at most, since each adds every vertex found.
  for (int round = 0; round < kContactRounds; ++round) {
    UpdateCompliance();
    if (energies) energies->clear();
    report = Iterate(in, controls, s, out, settings, energies);
    const std::vector<PdContact> missing = FindPenetrations(model_, out.q, contacts_, kPenetrationTolerance);
    if (missing.empty()) break;
    for (PdContact& c : contacts_.contacts) c.force.setZero();
    contacts_.contacts.insert(contacts_.contacts.end(), missing.begin(), missing.end());
  }
  report.contacts = 0;
  for (const PdContact& c : contacts_.contacts) report.contacts += c.force.squaredNorm() > 0 ? 1 : 0;
  out.v = (out.q - in.q) / model_.dt;
  return report;
}

std::vector<double> PdSolver::VonMises(const Eigen::MatrixX3d& q, const PdControls& controls) const {
  const std::vector<TermProjection> projections = Projections(q, controls);
  const auto tets = static_cast<std::size_t>(model_.tet_count());
  std::vector<Eigen::Matrix3d> piola(tets, Eigen::Matrix3d::Zero()), F(tets, Eigen::Matrix3d::Zero());
  for (std::size_t k = 0; k < model_.terms.size(); ++k) {
    const Term& term = model_.terms[k];
    if (term.kind == TermKind::kMuscle) continue;
    const auto t = static_cast<std::size_t>(term.tet);
    piola[t] += weights_[k] / model_.volumes[t] * (projections[k].Y - projections[k].P);
    F[t] = projections[k].Y;  // Y = F for the strain and volume terms
  }
  std::vector<double> sum(static_cast<std::size_t>(model_.vertex_count()), 0.0);
  std::vector<int> count(sum.size(), 0);
  for (std::size_t t = 0; t < tets; ++t) {
    const double J = F[t].determinant();
    double von_mises = 0;
    if (J > 0) {
      const Eigen::Matrix3d sigma = piola[t] * F[t].transpose() / J;
      const Eigen::Matrix3d dev = sigma - sigma.trace() / 3 * Eigen::Matrix3d::Identity();
      von_mises = std::sqrt(1.5 * dev.squaredNorm());
    }
    for (const int c : model_.tets[t]) {
      sum[static_cast<std::size_t>(c)] += von_mises;
      ++count[static_cast<std::size_t>(c)];
    }
  }
  for (std::size_t v = 0; v < sum.size(); ++v)
    if (count[v] > 0) sum[v] /= count[v];
  return sum;
}

bool PdSolver::SplittingConverges() const {
  // N + P = 2N − A = 2 diag(A) − A over the free rows (pd/pd_contact.h).
  Eigen::SparseMatrix<double> test = -A_ff_;
  for (int k = 0; k < test.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(test, k); it; ++it)
      if (it.row() == it.col()) it.valueRef() = -it.value();
  const Eigen::SimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower> llt(test);
  return llt.info() == Eigen::Success;
}

}  // namespace ductile::pd
