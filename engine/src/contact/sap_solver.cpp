#include "contact/sap_solver.h"

#include "contact/exact_line_search.h"
#include "contact/sparse_newton.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

// LAPACK's Cholesky factorisation and solve (Debian's OpenBLAS provides them, blocked and threaded), for the strong
// coupling's dense Hessians of thousands of dofs: with it dough rolling under that scheme went from 7.3 to 4.8 s a
// step (`ductile-cli bench scenes/dough_rolling.yaml --duration 0.03 --set simulation.coupling=strong --set
// simulation.substeps=1`, the builds before and after).
extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, double* b,
             const int* ldb, int* info);
}

namespace ductile::contact {
namespace {

// Below this size Eigen's LLT (no call overhead) is as fast.
constexpr Eigen::Index kLapackFrom = 256;

// Solves H x = r for H symmetric positive definite, overwriting H with its factor.
Eigen::VectorXd SolveSpd(Eigen::MatrixXd& H, const Eigen::VectorXd& r) {
  if (H.rows() < kLapackFrom) return H.llt().solve(r);
  const int n = static_cast<int>(H.rows()), one = 1;
  int info = 0;
  dpotrf_("L", &n, H.data(), &n, &info);
  if (info != 0) throw std::runtime_error("SAP: the Newton Hessian is not positive definite (LAPACK dpotrf)");
  Eigen::VectorXd x = r;
  dpotrs_("L", &n, &one, H.data(), &n, x.data(), &n, &info);
  return x;
}

bool IsSparse(const SapProblem& p) {
  return p.A_sparse.rows() > 0;
}

// A x.
Eigen::VectorXd MulA(const SapProblem& p, const Eigen::VectorXd& x) {
  return IsSparse(p) ? Eigen::VectorXd(p.A_sparse * x) : Eigen::VectorXd(p.A * x);
}

// J v for a constraint on the dofs `cols` (all when empty).
Eigen::VectorXd Apply(const SapProblem::Entry& c, const Eigen::VectorXd& v) {
  if (c.cols.empty()) return c.J * v;
  Eigen::VectorXd local(static_cast<Eigen::Index>(c.cols.size()));
  for (std::size_t k = 0; k < c.cols.size(); ++k) local[static_cast<Eigen::Index>(k)] = v[c.cols[k]];
  return c.J * local;
}

// out += Jᵀ γ.
void AddTransposed(const SapProblem::Entry& c, const Eigen::VectorXd& gamma, Eigen::VectorXd& out) {
  if (c.cols.empty()) {
    out.noalias() += c.J.transpose() * gamma;
    return;
  }
  const Eigen::VectorXd local = c.J.transpose() * gamma;
  for (std::size_t k = 0; k < c.cols.size(); ++k) out[c.cols[k]] += local[static_cast<Eigen::Index>(k)];
}

// H += Jᵀ G J.
void AddHessian(const SapProblem::Entry& c, const Eigen::MatrixXd& G, Eigen::MatrixXd& H) {
  if (c.cols.empty()) {
    H.noalias() += c.J.transpose() * G * c.J;
    return;
  }
  const Eigen::MatrixXd local = c.J.transpose() * G * c.J;
  for (std::size_t a = 0; a < c.cols.size(); ++a)
    for (std::size_t b = 0; b < c.cols.size(); ++b)
      H(c.cols[a], c.cols[b]) += local(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
}

// Constraint velocities, impulses, Hessians and the cost at v.
struct Evaluation {
  std::vector<Eigen::VectorXd> vc;
  std::vector<Eigen::VectorXd> gamma;
  std::vector<Eigen::MatrixXd> G;
  double cost = 0;
};

void Evaluate(const SapProblem& problem, const Eigen::VectorXd& v, bool hessians, Evaluation& e) {
  const std::size_t n = problem.constraints.size();
  e.vc.resize(n);
  e.gamma.resize(n);
  e.G.resize(n);
  const Eigen::VectorXd dv = v - problem.v_star;
  e.cost = 0.5 * dv.dot(MulA(problem, dv));
  for (std::size_t i = 0; i < n; ++i) {
    const SapProblem::Entry& c = problem.constraints[i];
    e.vc[i] = Apply(c, v) + c.b;
    e.cost += c.constraint->Calc(e.vc[i], e.gamma[i], hessians ? &e.G[i] : nullptr);
  }
}

// dℓ/dα and d²ℓ/dα² along dv at v + α·dv, and ℓ there.
struct LineSearchProbe {
  const SapProblem& problem;
  const Eigen::VectorXd& v;
  const Eigen::VectorXd& dv;
  std::vector<Eigen::VectorXd> vc0, dvc;  // constraint velocities at v and their change per unit α
  double a_v_minus_vstar_dot_dv = 0;      // dvᵀA(v − v*)
  double dv_a_dv = 0;                     // dvᵀA dv
  double v_cost = 0;                      // ½(v − v*)ᵀA(v − v*)

  LineSearchProbe(const SapProblem& p, const Eigen::VectorXd& v_in, const Eigen::VectorXd& dv_in,
                  const Evaluation& at_v)
      : problem(p), v(v_in), dv(dv_in) {
    const Eigen::VectorXd Adv = MulA(p, dv);
    const Eigen::VectorXd r = v - p.v_star;
    a_v_minus_vstar_dot_dv = Adv.dot(r);
    dv_a_dv = Adv.dot(dv);
    v_cost = 0.5 * r.dot(MulA(p, r));
    vc0 = at_v.vc;
    dvc.resize(p.constraints.size());
    for (std::size_t i = 0; i < p.constraints.size(); ++i) dvc[i] = Apply(p.constraints[i], dv);
  }

  double Calc(double alpha, double& d1, double& d2) const {
    double cost = v_cost + alpha * a_v_minus_vstar_dot_dv + 0.5 * alpha * alpha * dv_a_dv;
    d1 = a_v_minus_vstar_dot_dv + alpha * dv_a_dv;
    d2 = dv_a_dv;
    Eigen::VectorXd gamma;
    Eigen::MatrixXd G;
    for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
      const Eigen::VectorXd vc = vc0[i] + alpha * dvc[i];
      cost += problem.constraints[i].constraint->Calc(vc, gamma, &G);
      d1 -= dvc[i].dot(gamma);
      d2 += dvc[i].dot(G * dvc[i]);
    }
    return cost;
  }
};

}  // namespace

void SapProblem::Add(std::unique_ptr<SapConstraint> c, Eigen::MatrixXd J, Eigen::VectorXd b, std::vector<int> cols) {
  if (b.size() == 0) b = Eigen::VectorXd::Zero(J.rows());
  constraints.push_back({std::move(c), std::move(J), std::move(b), std::move(cols)});
}

double EvaluateSapCost(const SapProblem& problem, const Eigen::VectorXd& v, Eigen::VectorXd* gradient) {
  Evaluation e;
  Evaluate(problem, v, false, e);
  if (gradient) {
    *gradient = MulA(problem, v - problem.v_star);
    for (std::size_t i = 0; i < problem.constraints.size(); ++i)
      AddTransposed(problem.constraints[i], -e.gamma[i], *gradient);
  }
  return e.cost;
}

SapResult SolveSap(const SapProblem& problem, const SapSolverParams& params, const Eigen::VectorXd& v0,
                   SparseNewtonSystem* newton) {
  SapResult result;
  const int nv = static_cast<int>(problem.v_star.size());
  result.v = v0.size() == nv ? v0 : problem.v_star;
  const Eigen::VectorXd D =
      (IsSparse(problem) ? Eigen::VectorXd(problem.A_sparse.diagonal()) : Eigen::VectorXd(problem.A.diagonal()))
          .cwiseInverse()
          .cwiseSqrt();
  const Eigen::VectorXd A_v_star = MulA(problem, problem.v_star);
  std::unique_ptr<SparseNewtonSystem> own;
  SparseNewtonSystem* sparse = newton;
  if (IsSparse(problem) && !sparse) {
    own = std::make_unique<SparseNewtonSystem>(problem);
    sparse = own.get();
  }
  Evaluation e;
  Evaluate(problem, result.v, true, e);
  result.cost_history.push_back(e.cost);
  Eigen::MatrixXd H;
  for (int it = 0;; ++it) {
    // Gradient and the optimality condition.
    Eigen::VectorXd jc = Eigen::VectorXd::Zero(nv);
    for (std::size_t i = 0; i < problem.constraints.size(); ++i) AddTransposed(problem.constraints[i], e.gamma[i], jc);
    const Eigen::VectorXd p = MulA(problem, result.v);
    const Eigen::VectorXd grad = p - A_v_star - jc;
    result.residual = D.cwiseProduct(grad).norm();
    result.residual_bound =
        params.abs_tolerance + params.rel_tolerance * std::max(D.cwiseProduct(p).norm(), D.cwiseProduct(jc).norm());
    result.iterations = it;
    if (result.residual < result.residual_bound) {
      result.converged = true;
      break;
    }
    if (it == params.max_iterations) break;
    // Newton direction from H = A + JᵀGJ.
    Eigen::VectorXd dv;
    if (sparse) {
      dv = -sparse->Solve(e.G, grad);
    } else {
      H = problem.A;  // the storage is reused from iteration to iteration
      for (std::size_t i = 0; i < problem.constraints.size(); ++i) AddHessian(problem.constraints[i], e.G[i], H);
      dv = -SolveSpd(H, grad);
    }
    const LineSearchProbe probe(problem, result.v, dv, e);
    double d1, d2;
    probe.Calc(0, d1, d2);
    if (!(d1 < 0)) {
      // No descent left at round-off level: the iterate is as good as this arithmetic can make it.
      result.converged = result.residual < 1e3 * result.residual_bound;
      break;
    }
    LineSearchParams search;
    search.alpha_max = params.alpha_max;
    search.slope_tolerance = params.line_search_tolerance;
    search.max_iterations = params.max_line_search_iterations;
    const LineSearchResult line =
        ExactLineSearch([&probe](double alpha, double& a1, double& a2) { probe.Calc(alpha, a1, a2); }, d1, search);
    result.line_search_iterations += line.evaluations;
    const double alpha = line.alpha;
    result.v += alpha * dv;
    const double previous = e.cost;
    Evaluate(problem, result.v, true, e);
    result.cost_history.push_back(e.cost);
    if (alpha > 0.5 && std::abs(previous - e.cost) < params.cost_tolerance * std::abs(e.cost)) {
      result.iterations = it + 1;
      result.converged = true;
      break;
    }
  }
  result.gamma = e.gamma;
  return result;
}

}  // namespace ductile::contact
