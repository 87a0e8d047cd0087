#include "contact/mpm_contact_solver.h"

#include "contact/exact_line_search.h"

#include <tbb/parallel_for.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>
#include <variant>

namespace ductile::contact {
namespace {

// f(begin, end) over [0, n): in parallel chunks of `grain` when there are several, else serially (small contact
// problems are common and a parallel launch per CG step would cost more than the work).
template <typename F>
void ForRange(int n, int grain, F&& f) {
  if (n <= 2 * grain) {
    f(0, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int>(0, n, grain),
                    [&](const tbb::blocked_range<int>& r) { f(r.begin(), r.end()); });
}

// One contact's cost, either model of GridContact.
class ContactCost {
 public:
  explicit ContactCost(const GridContact& c) : cost_(Make(c)) {}
  double Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
    return std::visit([&](const auto& model) { return model.Calc3(vc, gamma, G); }, cost_);
  }
  // The friction cone's FrictionConeContact::SlidesNearStiction; false for the Hunt-Crossley model.
  bool SlidesNearStiction(const Eigen::Vector3d& vc, double band, Eigen::Matrix3d& G) const {
    const auto* cone = std::get_if<FrictionConeContact>(&cost_);
    return cone && cone->SlidesNearStiction(vc, band, G);
  }

 private:
  static std::variant<HuntCrossleyContact, FrictionConeContact> Make(const GridContact& c) {
    if (!c.near_rigid) return HuntCrossleyContact(c.params);
    FrictionConeParams p;
    p.dt = c.params.dt;
    p.phi0 = c.params.phi0;
    p.friction = c.params.friction;
    p.delassus = c.params.delassus;
    p.sigma = c.params.sigma;
    return FrictionConeContact(p);
  }
  std::variant<HuntCrossleyContact, FrictionConeContact> cost_;
};

// The problem with what the iterations reuse: the contact costs and, per node, the contacts that touch it.
class Solver {
 public:
  Solver(const GridContactProblem& p, const GridContactParams& params) : p_(p), params_(params) {
    band_ = params.stiction_band;
    const int nodes = static_cast<int>(p.mass.size());
    const int contacts = static_cast<int>(p.contacts.size());
    costs_.reserve(contacts);
    for (const GridContact& c : p.contacts) costs_.emplace_back(c);
    // Node -> (contact, weight), in contact order (compressed rows).
    first_.assign(nodes + 1, 0);
    for (const GridContact& c : p.contacts)
      for (int k = 0; k < 27; ++k) ++first_[c.nodes[k] + 1];
    for (int i = 0; i < nodes; ++i) first_[i + 1] += first_[i];
    touches_.resize(first_.back());
    std::vector<int> cursor(first_.begin(), first_.end() - 1);
    for (int ci = 0; ci < contacts; ++ci)
      for (int k = 0; k < 27; ++k) touches_[cursor[p.contacts[ci].nodes[k]]++] = {ci, p.contacts[ci].weights[k]};
    vc_.resize(contacts);
    gamma_.resize(contacts);
    G_.resize(contacts);
    G_W_.resize(contacts);
    gamma_W_.resize(contacts);
    contact_cost_.resize(contacts);
    line_terms_.resize(contacts);
    blocks_.resize(nodes);
  }

  // Contact velocities, impulses (contact frame), Hessians and the total cost at v.
  double Evaluate(const std::vector<Eigen::Vector3d>& v, bool hessians) {
    const int contacts = static_cast<int>(p_.contacts.size());
    ForRange(contacts, 256, [&](int begin, int end) {
      for (int ci = begin; ci != end; ++ci) {
        vc_[ci] = ContactVelocity(ci, v);
        contact_cost_[ci] = costs_[ci].Calc3(vc_[ci], gamma_[ci], hessians ? &G_[ci] : nullptr);
        // The directions' Hessian (never the line search's): a cone contact sliding just past the edge of
        // stiction takes the stiction branch's (GridContactParams::stiction_band).
        if (hessians && band_ > 1) costs_[ci].SlidesNearStiction(vc_[ci], band_, G_[ci]);
        const Eigen::Matrix3d& R = p_.contacts[ci].R_WC;
        gamma_W_[ci] = R * gamma_[ci];
        if (hessians) G_W_[ci] = R * G_[ci] * R.transpose();
      }
    });
    double cost = 0;
    for (std::size_t i = 0; i < v.size(); ++i) cost += 0.5 * p_.mass[i] * (v[i] - p_.v_star[i]).squaredNorm();
    for (double c : contact_cost_) cost += c;
    return cost;
  }

  // Σ_i w_ci v_i: the G2P of the node values v at contact ci, world frame.
  Eigen::Vector3d Interpolate(int ci, const std::vector<Eigen::Vector3d>& v) const {
    const GridContact& c = p_.contacts[ci];
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    for (int k = 0; k < 27; ++k) u += c.weights[k] * v[c.nodes[k]];
    return u;
  }

  // v_c = R_cᵀ(Σ w v − v_r) of contact ci; with rigid = false the rigid velocity is left out (a change of v).
  Eigen::Vector3d ContactVelocity(int ci, const std::vector<Eigen::Vector3d>& v, bool rigid = true) const {
    const GridContact& c = p_.contacts[ci];
    Eigen::Vector3d u = Interpolate(ci, v);
    if (rigid) u -= c.v_rigid;
    return c.R_WC.transpose() * u;
  }

  // The diagonal block of ∇²ℓ at node i: m_i·1 + Σ_c w_ci² R_c G_c R_cᵀ.
  Eigen::Matrix3d NodeHessian(int i) const {
    Eigen::Matrix3d H = p_.mass[i] * Eigen::Matrix3d::Identity();
    for (int t = first_[i]; t < first_[i + 1]; ++t) {
      const auto [ci, w] = touches_[t];
      H += (w * w) * G_W_[ci];
    }
    return H;
  }

  // y = (M + JᵀGJ)x with G of the last Evaluate: one G2P of x at the contacts, one P2G back.
  void HessianProduct(const std::vector<Eigen::Vector3d>& x, std::vector<Eigen::Vector3d>& y,
                      std::vector<Eigen::Vector3d>& scratch) const {
    const int nodes = static_cast<int>(p_.mass.size());
    const int contacts = static_cast<int>(p_.contacts.size());
    scratch.resize(contacts);
    ForRange(contacts, 256, [&](int begin, int end) {
      for (int ci = begin; ci != end; ++ci) {
        scratch[ci] = G_W_[ci] * Interpolate(ci, x);  // world-frame "impulse"
      }
    });
    ForRange(nodes, 512, [&](int begin, int end) {
      for (int i = begin; i != end; ++i) {
        Eigen::Vector3d sum = p_.mass[i] * x[i];
        for (int t = first_[i]; t < first_[i + 1]; ++t) {
          const auto [ci, w] = touches_[t];
          sum += w * scratch[ci];
        }
        y[i] = sum;
      }
    });
  }

  // Preconditioned CG (block-Jacobi preconditioner: the inverted 3x3 diagonal blocks) on H·dv = −grad from dv's
  // current value, for at most cg_iterations steps or until the residual (D-norm) falls by `reduction`.
  void RefineDirection(const std::vector<Eigen::Vector3d>& grad, double reduction, std::vector<Eigen::Vector3d>& dv) {
    const int nodes = static_cast<int>(p_.mass.size());
    std::vector<Eigen::Vector3d>&r = cg_r_, &z = cg_z_, &d = cg_d_, &Hd = cg_Hd_, &scratch = cg_scratch_;
    r.resize(nodes);
    z.resize(nodes);
    d.resize(nodes);
    Hd.resize(nodes);
    HessianProduct(dv, Hd, scratch);
    double r0 = 0;
    for (int i = 0; i < nodes; ++i) {
      r[i] = -grad[i] - Hd[i];
      z[i] = blocks_[i] * r[i];
      d[i] = z[i];
      r0 += grad[i].squaredNorm() / p_.mass[i];
    }
    double rz = 0;
    for (int i = 0; i < nodes; ++i) rz += r[i].dot(z[i]);
    for (int k = 0; k < params_.cg_iterations; ++k) {
      double rr = 0;
      for (int i = 0; i < nodes; ++i) rr += r[i].squaredNorm() / p_.mass[i];
      if (rr <= reduction * reduction * r0) break;
      HessianProduct(d, Hd, scratch);
      double dHd = 0;
      for (int i = 0; i < nodes; ++i) dHd += d[i].dot(Hd[i]);
      if (!(dHd > 0)) break;
      const double step = rz / dHd;
      for (int i = 0; i < nodes; ++i) {
        dv[i] += step * d[i];
        r[i] -= step * Hd[i];
        z[i] = blocks_[i] * r[i];
      }
      double rz_next = 0;
      for (int i = 0; i < nodes; ++i) rz_next += r[i].dot(z[i]);
      const double beta = rz_next / rz;
      rz = rz_next;
      for (int i = 0; i < nodes; ++i) d[i] = z[i] + beta * d[i];
    }
  }

  // The exact Newton direction dv = −H⁻¹∇ℓ, H = M + JᵀGJ, in contact space by the Woodbury identity:
  //   H⁻¹ = M⁻¹ − M⁻¹Jᵀ (I + G W)⁻¹ G J M⁻¹,   W = J M⁻¹ Jᵀ (the Delassus operator),
  // which needs no inverse of G (a separated contact's G is zero, a sliding one's singular). M is a scalar mass
  // per node and J interpolates with scalar weights, so W's 3x3 blocks are W_ab I with W_ab = Σ_i w_ai w_bi / m_i.
  // One dense LU of the 3C x 3C matrix I + G W (nonsingular: it is similar to I + G^½ W G^½, symmetric positive
  // definite). False, and dv untouched, above dense_contacts contacts.
  bool ExactDirection(const std::vector<Eigen::Vector3d>& grad, std::vector<Eigen::Vector3d>& dv) {
    const int nodes = static_cast<int>(p_.mass.size());
    const int contacts = static_cast<int>(p_.contacts.size());
    if (contacts > params_.dense_contacts) return false;
    std::vector<Eigen::Vector3d>& y = cg_r_;
    y.resize(nodes);
    for (int i = 0; i < nodes; ++i) y[i] = grad[i] / p_.mass[i];
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(contacts, contacts);
    for (int i = 0; i < nodes; ++i)
      for (int s = first_[i]; s < first_[i + 1]; ++s)
        for (int t = first_[i]; t < first_[i + 1]; ++t)
          W(touches_[s].first, touches_[t].first) += touches_[s].second * touches_[t].second / p_.mass[i];
    const auto row = [](int contact) { return Eigen::Index{3} * contact; };  // a contact's first row in K
    Eigen::MatrixXd K = Eigen::MatrixXd::Identity(row(contacts), row(contacts));
    Eigen::VectorXd rhs(row(contacts));
    for (int a = 0; a < contacts; ++a) {
      for (int b = 0; b < contacts; ++b) K.block<3, 3>(row(a), row(b)) += W(a, b) * G_W_[a];
      rhs.segment<3>(row(a)) = G_W_[a] * Interpolate(a, y);
    }
    const Eigen::VectorXd z = K.partialPivLu().solve(rhs);
    for (int i = 0; i < nodes; ++i)
      dv[i] = -(y[i] - SumAtNode(i, [&](int c) { return Eigen::Vector3d(z.segment<3>(row(c))); }) / p_.mass[i]);
    return true;
  }

  // The exact Newton direction at v (GridContactNewtonDirection).
  std::vector<Eigen::Vector3d> NewtonDirection(const std::vector<Eigen::Vector3d>& v) {
    const int nodes = static_cast<int>(p_.mass.size());
    std::vector<Eigen::Vector3d> jc(nodes), grad(nodes), dv(nodes);
    Evaluate(v, true);
    BlockNewtonDirection(v, jc, grad, dv);
    ExactDirection(grad, dv);
    return dv;
  }

  // Σ_c w_ci x_c at node i for a per-contact world vector x_c = value(c) (a P2G of x), summed in contact order.
  template <typename Value>
  Eigen::Vector3d SumAtNode(int i, Value&& value) const {
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (int t = first_[i]; t < first_[i + 1]; ++t) sum += touches_[t].second * value(touches_[t].first);
    return sum;
  }

  // Jᵀγ at node i: Σ_c w_ci R_c γ_c.
  Eigen::Vector3d NodeImpulse(int i) const {
    return SumAtNode(i, [&](int c) -> const Eigen::Vector3d& { return gamma_W_[c]; });
  }

  GridContactResult Solve() {
    const int nodes = static_cast<int>(p_.mass.size());
    const int contacts = static_cast<int>(p_.contacts.size());
    GridContactResult result;
    result.v = p_.v_star;
    std::vector<Eigen::Vector3d>& v = result.v;
    std::vector<Eigen::Vector3d> grad(nodes), jc(nodes), dv(nodes);
    std::vector<Eigen::Vector3d> dvc(contacts);
    // The start: v*, or a guess that costs less. An impulse guess of all zeros (a step's first substep) is v* itself.
    const bool impulses_guessed =
        p_.gamma_guess.size() == p_.contacts.size() &&
        std::any_of(p_.gamma_guess.begin(), p_.gamma_guess.end(), [](const Eigen::Vector3d& g) { return !g.isZero(); });
    const bool velocities_guessed = p_.v_guess.size() == static_cast<std::size_t>(nodes);
    double cost = Evaluate(v, !impulses_guessed && !velocities_guessed);
    bool from_guess = false;
    if (impulses_guessed) {
      std::vector<Eigen::Vector3d> guess(nodes);
      for (int i = 0; i < nodes; ++i)
        guess[i] = p_.v_star[i] +
                   SumAtNode(i, [&](int c) -> const Eigen::Vector3d& { return p_.gamma_guess[c]; }) / p_.mass[i];
      const double guess_cost = Evaluate(guess, false);
      if (guess_cost < cost) {
        v.swap(guess);
        cost = guess_cost;
        from_guess = true;
      }
    }
    if (velocities_guessed) {
      const double guess_cost = Evaluate(p_.v_guess, false);
      if (guess_cost < cost) {
        v = p_.v_guess;
        cost = guess_cost;
        from_guess = true;
      }
    }
    if (impulses_guessed || velocities_guessed) cost = Evaluate(v, true);  // the start's impulses and Hessians
    // The previous line search's step. From a guess, the first direction is solved roughly, as after a cut step
    // (CgReduction): which contacts stick, slide or separate there is the last substep's answer, and the first
    // line search of a resting cloth sheet's solve cut its step to 3-6% in 9 of 10 substeps.
    double last_alpha = from_guess ? 0 : 1;
    result.cost_history.push_back(cost);
    for (int it = 0;; ++it) {
      BlockNewtonDirection(v, jc, grad, dv);
      MeasureResidual(v, grad, jc, result);
      result.iterations = it;
      if (result.residual < result.residual_bound) {
        result.converged = true;
        break;
      }
      if (it == params_.max_iterations) break;
      if (!ExactDirection(grad, dv) && params_.cg_iterations > 0)
        RefineDirection(grad, CgReduction(result, last_alpha), dv);
      double alpha = 0;
      if (!SearchLine(v, grad, dv, dvc, alpha)) {
        result.converged = result.residual < 1e3 * result.residual_bound;
        break;
      }
      for (int i = 0; i < nodes; ++i) v[i] += alpha * dv[i];
      last_alpha = alpha;
      if (it + 1 == params_.stiction_band_iterations) band_ = 1;  // the exact Hessian from here on
      cost = Evaluate(v, true);
      result.cost_history.push_back(cost);
    }
    // The returned velocities take exactly the momentum the impulses give: v = v* + M⁻¹Jᵀγ(v), a step of −M⁻¹∇ℓ
    // from the last iterate. The material's momentum change then equals the rigid bodies' −Σγ to round-off
    // (Newton's third law per substep, whatever ε_r), and the step's kinetic energy, ½‖D∇ℓ‖², is below half the
    // square of the stopping bound.
    result.v_iterate = v;
    for (int i = 0; i < nodes; ++i) v[i] = p_.v_star[i] + jc[i] / p_.mass[i];
    result.gamma_W = gamma_W_;
    return result;
  }

  // At v (of the last Evaluate), node by node: the impulses jc = Jᵀγ, the gradient ∇ℓ = M (v − v*) − jc, and the
  // block-diagonal Newton direction dv = −H_i⁻¹ ∇ℓ_i.
  void BlockNewtonDirection(const std::vector<Eigen::Vector3d>& v, std::vector<Eigen::Vector3d>& jc,
                            std::vector<Eigen::Vector3d>& grad, std::vector<Eigen::Vector3d>& dv) {
    ForRange(static_cast<int>(p_.mass.size()), 512, [&](int begin, int end) {
      for (int i = begin; i != end; ++i) {
        jc[i] = NodeImpulse(i);
        grad[i] = p_.mass[i] * (v[i] - p_.v_star[i]) - jc[i];
        // H_i⁻¹ by Eigen's closed-form 3x3 inverse (an LLT solve against the identity went through its general
        // triangular solver: 20% of a sliding cloth's contact solve), kept for the CG preconditioner.
        blocks_[i] = NodeHessian(i).inverse();
        dv[i] = -(blocks_[i] * grad[i]);
      }
    });
  }

  // The stopping rule's residual ‖D∇ℓ‖ and its bound ε_a + ε_r max(‖√M v‖, ‖D jc‖), D = M^−½.
  void MeasureResidual(const std::vector<Eigen::Vector3d>& v, const std::vector<Eigen::Vector3d>& grad,
                       const std::vector<Eigen::Vector3d>& jc, GridContactResult& result) const {
    double g2 = 0, p2 = 0, j2 = 0;
    for (std::size_t i = 0; i < p_.mass.size(); ++i) {
      g2 += grad[i].squaredNorm() / p_.mass[i];
      p2 += p_.mass[i] * v[i].squaredNorm();
      j2 += jc[i].squaredNorm() / p_.mass[i];
    }
    result.residual = std::sqrt(g2);
    result.residual_bound = params_.abs_tolerance + params_.rel_tolerance * std::max(std::sqrt(p2), std::sqrt(j2));
  }

  // How far CG refines the block-diagonal direction toward the full Newton step on (M + JᵀGJ)·dv = −∇ℓ, started
  // from the block step (every CG iterate is a descent direction). Inexact Newton (Eisenstat and Walker's idea):
  // solve only as far as the stopping rule needs, i.e. until the linear model's residual is below half the bound,
  // but at least by 2x and at most by cg_reduction. When the last line search cut its step below one half, the
  // quadratic model is poor this far from the solution (contacts switch between sticking, sliding and separating
  // along the step) and an accurate solve of it is wasted: solve it to 0.2 only (about 20% less solver time in
  // scenes/panel_squeeze.yaml and scenes/dough_rolling.yaml for the same Newton iterations).
  double CgReduction(const GridContactResult& result, double last_alpha) const {
    double reduction = std::clamp(0.5 * result.residual_bound / result.residual, params_.cg_reduction, 0.5);
    if (last_alpha < 0.5) reduction = std::max(reduction, 0.2);
    return reduction;
  }

  // Exact line search on [0, α_max] from v (of the last Evaluate) along dv, to a relative slope of 1e-3: the step α.
  // dvc is scratch for dv at the contacts. False, and no step, when dv is no descent direction.
  bool SearchLine(const std::vector<Eigen::Vector3d>& v, const std::vector<Eigen::Vector3d>& grad,
                  const std::vector<Eigen::Vector3d>& dv, std::vector<Eigen::Vector3d>& dvc, double& step) {
    const int nodes = static_cast<int>(p_.mass.size());
    const int contacts = static_cast<int>(p_.contacts.size());
    ForRange(contacts, 256, [&](int begin, int end) {
      for (int ci = begin; ci != end; ++ci) dvc[ci] = ContactVelocity(ci, dv, false);
    });
    double a = 0, b = 0;
    for (int i = 0; i < nodes; ++i) {
      a += p_.mass[i] * dv[i].dot(v[i] - p_.v_star[i]);
      b += p_.mass[i] * dv[i].squaredNorm();
    }
    const std::vector<Eigen::Vector3d>& vc0 = vc_;  // unchanged until the next Evaluate
    // ℓ'(α) and ℓ''(α): per-contact terms in parallel, summed in contact order (thread-count independent).
    const auto derivatives = [&](double alpha, double& d1, double& d2) {
      ForRange(contacts, 256, [&](int begin, int end) {
        Eigen::Vector3d gamma;
        Eigen::Matrix3d G;
        for (int ci = begin; ci != end; ++ci) {
          costs_[ci].Calc3(vc0[ci] + alpha * dvc[ci], gamma, &G);
          line_terms_[ci] = {dvc[ci].dot(gamma), dvc[ci].dot(G * dvc[ci])};
        }
      });
      d1 = a + alpha * b;
      d2 = b;
      for (int ci = 0; ci < contacts; ++ci) {
        d1 -= line_terms_[ci][0];
        d2 += line_terms_[ci][1];
      }
    };
    double d1_0 = 0;  // ℓ'(0) = ∇ℓ·Δv
    for (int i = 0; i < nodes; ++i) d1_0 += grad[i].dot(dv[i]);
    if (!(d1_0 < 0)) return false;
    LineSearchParams search;
    search.alpha_max = params_.alpha_max;
    search.slope_tolerance = 1e-3;
    step = ExactLineSearch(derivatives, d1_0, search).alpha;
    return true;
  }

 private:
  const GridContactProblem& p_;
  GridContactParams params_;
  std::vector<ContactCost> costs_;
  double band_ = 1;
  std::vector<int> first_;
  std::vector<std::pair<int, double>> touches_;        // per node (rows first_): its contacts and their weights w_ci
  std::vector<Eigen::Vector3d> vc_, gamma_, gamma_W_;  // per contact: v_c, γ (contact frame), R γ (world)
  std::vector<Eigen::Matrix3d> G_, G_W_;  // contact Hessians ∂γ/∂v_c in the contact frame and R G Rᵀ (world)
  std::vector<double> contact_cost_;
  std::vector<Eigen::Vector3d> cg_r_, cg_z_, cg_d_, cg_Hd_, cg_scratch_;  // RefineDirection's vectors, reused
  std::vector<std::array<double, 2>> line_terms_;  // per contact: its terms of ℓ'(α) and ℓ''(α)
  std::vector<Eigen::Matrix3d> blocks_;            // per node: the inverse of its 3x3 Hessian block
};

}  // namespace

std::vector<Eigen::Vector3d> GridContactNewtonDirection(const GridContactProblem& problem,
                                                        const std::vector<Eigen::Vector3d>& v) {
  GridContactParams params;
  params.dense_contacts = static_cast<int>(problem.contacts.size());
  params.stiction_band = 1;  // the exact Hessian
  return Solver(problem, params).NewtonDirection(v);
}

GridContactResult SolveGridContact(const GridContactProblem& problem, const GridContactParams& params) {
  return Solver(problem, params).Solve();
}

double EvaluateGridContactCost(const GridContactProblem& problem, const std::vector<Eigen::Vector3d>& v,
                               std::vector<Eigen::Vector3d>* gradient, std::vector<Eigen::Matrix3d>* hessian_blocks) {
  GridContactParams params;
  params.stiction_band = 1;  // the exact Hessian blocks
  Solver solver(problem, params);
  const double cost = solver.Evaluate(v, true);
  if (hessian_blocks) {
    hessian_blocks->resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) (*hessian_blocks)[i] = solver.NodeHessian(static_cast<int>(i));
  }
  if (gradient) {
    gradient->resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      (*gradient)[i] = problem.mass[i] * (v[i] - problem.v_star[i]) - solver.NodeImpulse(static_cast<int>(i));
  }
  return cost;
}

}  // namespace ductile::contact
