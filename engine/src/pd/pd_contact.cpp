// Contact candidates, the regularised friction law and the contact problem's solves: the active set, else projected
// Gauss–Seidel (pd/pd_contact.h).
#include "pd/pd_contact.h"

#include "pd/pd_step_system.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/LU>

namespace ductile::pd {

namespace {

/// Gauss–Seidel stops when no contact's position moved by more than this in a sweep [m] (far below any tolerance
/// of the step: 1e-15 m is round-off for bodies of centimetres to metres).
constexpr double kSweepTolerance = 1e-15;
constexpr int kMaxSweeps = 2000;

}  // namespace

SlipDirection RegularisedSlip(const Eigen::Vector3d& u, double epsilon) {
  const double x = u.norm();
  if (x >= epsilon) {
    const Eigen::Vector3d unit = u / x;
    return {.phi = unit, .derivative = (Eigen::Matrix3d::Identity() - unit * unit.transpose()) / x};
  }
  // φ = c(x) u with c = 2/ε − x/ε²: ∂φ/∂u = c I − (x/ε²) ûûᵀ, smooth through u = 0 (where it is 2/ε I).
  const double c = 2 / epsilon - x / (epsilon * epsilon);
  Eigen::Matrix3d derivative = c * Eigen::Matrix3d::Identity();
  if (x > 0) derivative -= (u * u.transpose()) / (x * epsilon * epsilon);
  return {.phi = c * u, .derivative = derivative};
}

std::vector<PdContact> FindContactCandidates(const PdModel& model, const Eigen::MatrixX3d& start,
                                             const Eigen::MatrixX3d& target, double margin) {
  std::vector<PdContact> contacts;
  ForEachFreeVertexAndObstacle(model, [&](int f, int i, int o, const PdHalfSpace& h) {
    const double gap =
        std::min(h.normal.dot(start.row(i).transpose()), h.normal.dot(target.row(i).transpose())) - h.offset;
    if (gap < margin) contacts.push_back({.vertex = i, .free_row = f, .obstacle = o});
    return true;
  });
  return contacts;
}

std::vector<PdContact> FindPenetrations(const PdModel& model, const Eigen::MatrixX3d& q, const PdContactSet& set,
                                        double tolerance) {
  std::vector<PdContact> missing;
  ForEachFreeVertexAndObstacle(model, [&](int f, int i, int o, const PdHalfSpace& h) {
    if (h.normal.dot(q.row(i).transpose()) - h.offset >= -tolerance) return true;
    const bool known = std::any_of(set.contacts.begin(), set.contacts.end(),
                                   [&](const PdContact& c) { return c.vertex == i && c.obstacle == o; });
    if (!known) missing.push_back({.vertex = i, .free_row = f, .obstacle = o});
    return true;
  });
  return missing;
}

namespace {

constexpr int kActiveSetRounds = 50;
/// Newton iterations for one guess of the contacts' states (quadratic convergence: a handful).
constexpr int kModeNewtonIterations = 30;

/// φ(u) of the final slip u = u_free − k φ(u) of a contact whose slip without its friction is u_free and whose
/// friction stiffness is k = w μλ [m]: u is parallel to u_free, and its length x solves x + k f₁(x) = ‖u_free‖,
/// increasing in x, by bisection to round-off (a few dozen halvings).
Eigen::Vector3d LocalSlip(const Eigen::Vector3d& u_free, double k, double epsilon) {
  const double target = u_free.norm();
  if (!(target > 0)) return Eigen::Vector3d::Zero();
  auto f1 = [&](double x) { return x < epsilon ? 2 * x / epsilon - x * x / (epsilon * epsilon) : 1.0; };
  double low = 0, high = target;
  for (int i = 0; i < 200 && high - low > 1e-16 * target; ++i) {
    const double mid = 0.5 * (low + high);
    (mid + k * f1(mid) > target ? high : low) = mid;
  }
  return f1(0.5 * (low + high)) * u_free / target;
}

/// The contact vertices' positions q_a = q0 + Σ_b W_ab f_b, one per contact.
std::vector<Eigen::Vector3d> ContactPositions(const Eigen::MatrixX3d& q0, const PdContactSet& set) {
  std::vector<Eigen::Vector3d> q(set.contacts.size());
  for (std::size_t a = 0; a < set.contacts.size(); ++a) {
    q[a] = q0.row(set.slot[a]).transpose();
    for (std::size_t b = 0; b < set.contacts.size(); ++b)
      q[a] += Compliance(set, set.slot[a], set.slot[b]) * set.contacts[b].force;
  }
  return q;
}

/// Residual R and Jacobian J = ∂R/∂f of the contacts' conditions for their current states: apart f = 0; touching
/// n·q = o and t_kᵀ(T f + μλ φ(u)) = 0 (the regularised law, file comment).
void ModeSystem(const PdModel& model, const Eigen::MatrixX3d& q0, const Eigen::MatrixX3d& start,
                const PdContactSet& set, Eigen::VectorXd& R, Eigen::MatrixXd& J) {
  const auto count = static_cast<Eigen::Index>(set.contacts.size());
  const std::vector<Eigen::Vector3d> q = ContactPositions(q0, set);
  const double epsilon = SlipRegularisation(model);
  J = Eigen::MatrixXd::Zero(3 * count, 3 * count);
  R.resize(3 * count);
  for (Eigen::Index a = 0; a < count; ++a) {
    const PdContact& c = set.contacts[static_cast<std::size_t>(a)];
    if (c.mode == ContactMode::kApart) {
      J.block<3, 3>(3 * a, 3 * a).setIdentity();
      R.segment<3>(3 * a) = c.force;
      continue;
    }
    const PdHalfSpace& h = model.obstacles[static_cast<std::size_t>(c.obstacle)];
    const Eigen::Vector3d& n = h.normal;
    const Eigen::Matrix3d T = Eigen::Matrix3d::Identity() - n * n.transpose();
    auto w = [&](Eigen::Index b) {
      return Compliance(set, set.slot[static_cast<std::size_t>(a)], set.slot[static_cast<std::size_t>(b)]);
    };
    const Eigen::Vector3d& qa = q[static_cast<std::size_t>(a)];
    for (Eigen::Index b = 0; b < count; ++b) J.block<1, 3>(3 * a, 3 * b) = n.transpose() * w(b);
    R(3 * a) = n.dot(qa) - h.offset;
    const SlipDirection slip = RegularisedSlip(TangentialSlip(h, qa, start.row(c.vertex).transpose()), epsilon);
    const double lambda = n.dot(c.force);
    const auto [t1, t2] = TangentBasis(n);
    int row = 1;
    for (const Eigen::Vector3d& t : {t1, t2}) {
      R(3 * a + row) = t.dot(T * c.force + h.friction * lambda * slip.phi);
      J.block<1, 3>(3 * a + row, 3 * a) += t.transpose() + h.friction * t.dot(slip.phi) * n.transpose();
      const Eigen::RowVector3d through_slip = h.friction * lambda * t.transpose() * slip.derivative * T;
      for (Eigen::Index b = 0; b < count; ++b) J.block<1, 3>(3 * a + row, 3 * b) += through_slip * w(b);
      ++row;
    }
  }
}

/// The forces for the contacts' current states by Newton's method on ModeSystem (linear but for the friction
/// rows), or false when J is singular or Newton does not settle.
bool SolveModes(const PdModel& model, const Eigen::MatrixX3d& q0, const Eigen::MatrixX3d& start, PdContactSet& set) {
  // The merit ½‖R‖² with a touching contact's gap row in force units (divided by its own compliance w_aa): a
  // backtracking line search on it keeps Newton from swinging where a slip is near ε and its direction changes fast
  // with the forces.
  const auto count = static_cast<Eigen::Index>(set.contacts.size());
  Eigen::VectorXd scale(3 * count);
  for (Eigen::Index a = 0; a < count; ++a) {
    const PdContact& c = set.contacts[static_cast<std::size_t>(a)];
    const Eigen::Index k = set.slot[static_cast<std::size_t>(a)];
    const Eigen::Vector3d& n = model.obstacles[static_cast<std::size_t>(c.obstacle)].normal;
    const double w = n.dot(Compliance(set, k, k) * n);
    scale.segment<3>(3 * a) = Eigen::Vector3d(c.mode == ContactMode::kApart ? 1.0 : 1.0 / w, 1.0, 1.0);
  }
  auto merit = [&](const Eigen::VectorXd& R) { return R.cwiseProduct(scale).squaredNorm(); };
  Eigen::VectorXd R;
  Eigen::MatrixXd J;
  ModeSystem(model, q0, start, set, R, J);
  for (int iteration = 0; iteration < kModeNewtonIterations; ++iteration) {
    const Eigen::VectorXd step = Eigen::PartialPivLU<Eigen::MatrixXd>(J).solve(R);
    if (!step.allFinite()) return false;
    const std::vector<PdContact> before = set.contacts;
    const double merit_before = merit(R);
    double alpha = 1.0;
    for (; alpha > 1e-6; alpha *= 0.5) {
      for (Eigen::Index a = 0; a < count; ++a)
        set.contacts[static_cast<std::size_t>(a)].force =
            before[static_cast<std::size_t>(a)].force - alpha * step.segment<3>(3 * a);
      ModeSystem(model, q0, start, set, R, J);
      if (merit(R) <= (1 - 1e-4 * alpha) * merit_before) break;
    }
    double largest = 0;
    for (const PdContact& c : set.contacts) largest = std::max(largest, c.force.norm());
    // Quadratic convergence: once a full step is this small the next is at round-off (W is ill-conditioned for a
    // stiff body, so round-off steps stay ~1e-16 cond(W) relative, above any tighter bound).
    if (alpha == 1.0 && step.norm() <= 1e-9 * largest) return true;
    if (alpha <= 1e-6) return false;
  }
  return false;
}

/// Releases touching contacts that pull (λ < 0) and lets apart ones below their plane touch; true when none changed.
bool UpdateModes(const PdModel& model, const Eigen::MatrixX3d& q0, PdContactSet& set) {
  const std::vector<Eigen::Vector3d> positions = ContactPositions(q0, set);
  bool settled = true;
  for (std::size_t a = 0; a < set.contacts.size(); ++a) {
    PdContact& c = set.contacts[a];
    const PdHalfSpace& h = model.obstacles[static_cast<std::size_t>(c.obstacle)];
    const ContactMode mode =
        c.mode == ContactMode::kApart
            ? (h.normal.dot(positions[a]) - h.offset < -1e-13 ? ContactMode::kTouching : ContactMode::kApart)
            : (h.normal.dot(c.force) < 0 ? ContactMode::kApart : ContactMode::kTouching);
    if (mode != c.mode) settled = false;
    c.mode = mode;
    if (mode == ContactMode::kApart) c.force.setZero();
  }
  return settled;
}

}  // namespace

int SolveContacts(const PdModel& model, const Eigen::MatrixX3d& q_free_C, const Eigen::MatrixX3d& start,
                  PdContactSet& set) {
  for (int round = 0; round < kActiveSetRounds; ++round) {
    if (!SolveModes(model, q_free_C, start, set)) break;
    if (UpdateModes(model, q_free_C, set)) {
      set.sweeps = 0;
      return 0;
    }
  }
  return SolveByGaussSeidel(model, q_free_C, start, set);
}

int SolveByGaussSeidel(const PdModel& model, const Eigen::MatrixX3d& q_free_C, const Eigen::MatrixX3d& start,
                       PdContactSet& set) {
  const double epsilon = SlipRegularisation(model);
  // q_C = q_C⁰ + W F_C with the warm-started forces.
  const auto slots = static_cast<Eigen::Index>(set.vertices.size());
  // q_C += the compliance's column block of slot k times a force change at it.
  auto add_force = [&](Eigen::MatrixX3d& q, Eigen::Index k, const Eigen::Vector3d& force) {
    q += set.W.col(k) * force.transpose();
    if (set.joint_compliance.size() == 0) return;
    for (Eigen::Index m = 0; m < slots; ++m)
      q.row(m) += (set.joint_compliance.block<3, 3>(3 * m, 3 * k) * force).transpose();
  };
  // w̄ per slot: its own block's largest eigenvalue (pd/pd_contact.h), W_kk without a skeleton.
  std::vector<double> bound(static_cast<std::size_t>(slots));
  for (Eigen::Index k = 0; k < slots; ++k)
    bound[static_cast<std::size_t>(k)] =
        set.joint_compliance.size() == 0
            ? set.W(k, k)
            : Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(Compliance(set, k, k), Eigen::EigenvaluesOnly)
                  .eigenvalues()(2);
  Eigen::MatrixX3d q = q_free_C;
  for (std::size_t a = 0; a < set.contacts.size(); ++a) add_force(q, set.slot[a], set.contacts[a].force);
  int sweep = 0;
  for (; sweep < kMaxSweeps; ++sweep) {
    double largest_move = 0;
    for (std::size_t a = 0; a < set.contacts.size(); ++a) {
      PdContact& c = set.contacts[a];
      const auto k = static_cast<Eigen::Index>(set.slot[a]);
      const PdHalfSpace& h = model.obstacles[static_cast<std::size_t>(c.obstacle)];
      const double w = bound[static_cast<std::size_t>(k)];
      // The vertex's position with this contact's own force removed (as if its block were w I₃), then the local
      // problem in closed form.
      const Eigen::Vector3d q_star = q.row(k).transpose() - w * c.force;
      Eigen::Vector3d force = Eigen::Vector3d::Zero();
      const double lambda = (h.offset - h.normal.dot(q_star)) / w;
      if (lambda > 0) {
        const Eigen::Vector3d u_free = TangentialSlip(h, q_star, start.row(c.vertex).transpose());
        force = lambda * h.normal - h.friction * lambda * LocalSlip(u_free, w * h.friction * lambda, epsilon);
      }
      const Eigen::Vector3d change = force - c.force;
      c.force = force;
      if (change.squaredNorm() == 0) continue;
      add_force(q, k, change);
      largest_move = std::max(largest_move, w * change.norm());
    }
    if (largest_move <= kSweepTolerance) break;
  }
  set.sweeps = sweep + 1;
  for (PdContact& c : set.contacts)  // the states the active set starts from next time
    c.mode = model.obstacles[static_cast<std::size_t>(c.obstacle)].normal.dot(c.force) > 0 ? ContactMode::kTouching
                                                                                           : ContactMode::kApart;
  return set.sweeps;
}

}  // namespace ductile::pd
