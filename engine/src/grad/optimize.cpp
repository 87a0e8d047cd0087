// L-BFGS-B through LBFGS++ and Adam (grad/optimize.h).
#include "grad/optimize.h"

#include <LBFGSB.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <random>
#include <utility>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ductile::grad {

OptimizeResult MinimizeLbfgsb(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                              const Eigen::VectorXd& upper, const OptimizeOptions& options) {
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = options.max_iterations;
  param.epsilon = options.gradient_tolerance;
  param.epsilon_rel = options.gradient_tolerance;
  param.delta = options.value_tolerance;
  param.past = 1;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  OptimizeResult result;
  result.x = x0.cwiseMax(lower).cwiseMin(upper);
  result.value = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best = result.x;
  // LBFGS++ evaluates at trial points of its line search too; the best evaluation is kept, so a stop by an exception
  // (a line search that found no decrease: the loss is at its noise floor) still returns the best point.
  auto counted = [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    const double value = f(x, gradient);
    ++result.evaluations;
    result.history.push_back(value);
    if (value < result.value) {
      result.value = value;
      best = x;
    }
    return value;
  };
  Eigen::VectorXd x = result.x;
  double fx = 0;
  try {
    result.iterations = solver.minimize(counted, x, fx, lower, upper);
    result.stop = result.iterations >= options.max_iterations ? "the iteration limit" : "converged";
  } catch (const std::exception& e) {
    result.stop = std::string("the line search: ") + e.what();
  }
  result.x = best;
  return result;
}

OptimizeResult MinimizeAdam(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                            const Eigen::VectorXd& upper, const OptimizeOptions& options) {
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
  OptimizeResult result;
  Eigen::VectorXd x = x0.cwiseMax(lower).cwiseMin(upper), gradient(x.size());
  Eigen::VectorXd m = Eigen::VectorXd::Zero(x.size()), v = Eigen::VectorXd::Zero(x.size());
  result.x = x;
  result.value = std::numeric_limits<double>::infinity();
  result.stop = "the iteration limit";
  for (int t = 1; t <= options.max_iterations; ++t) {
    const double value = f(x, gradient);
    ++result.evaluations;
    result.history.push_back(value);
    if (value < result.value) {
      result.value = value;
      result.x = x;
    }
    result.iterations = t;
    if (gradient.lpNorm<Eigen::Infinity>() <= options.gradient_tolerance * std::max(1.0, x.norm())) {
      result.stop = "converged";
      break;
    }
    m = kBeta1 * m + (1 - kBeta1) * gradient;
    v = kBeta2 * v + (1 - kBeta2) * gradient.cwiseProduct(gradient);
    const Eigen::VectorXd m_hat = m / (1 - std::pow(kBeta1, t));
    const Eigen::VectorXd v_hat = v / (1 - std::pow(kBeta2, t));
    x -= options.learning_rate * m_hat.cwiseQuotient((v_hat.cwiseSqrt().array() + kEpsilon).matrix());
    x = x.cwiseMax(lower).cwiseMin(upper);
  }
  return result;
}

namespace {

/// CMA-ES's constants for dimension n and population λ (Hansen 2016, Table 1).
struct CmaesConstants {
  int lambda = 0, mu = 0;
  Eigen::VectorXd weights;
  double mu_eff = 0, c_sigma = 0, d_sigma = 0, c_c = 0, c_1 = 0, c_mu = 0, chi_n = 0;

  CmaesConstants(int n, int population) {
    lambda = population > 0 ? population : 4 + static_cast<int>(std::floor(3 * std::log(n)));
    mu = lambda / 2;
    weights.resize(mu);
    for (int i = 0; i < mu; ++i) weights(i) = std::log((lambda + 1) / 2.0) - std::log(i + 1.0);
    weights /= weights.sum();
    mu_eff = 1.0 / weights.squaredNorm();
    c_sigma = (mu_eff + 2) / (n + mu_eff + 5);
    d_sigma = 1 + 2 * std::max(0.0, std::sqrt((mu_eff - 1) / (n + 1)) - 1) + c_sigma;
    c_c = (4 + mu_eff / n) / (n + 4 + 2 * mu_eff / n);
    c_1 = 2 / ((n + 1.3) * (n + 1.3) + mu_eff);
    c_mu = std::min(1 - c_1, 2 * (mu_eff - 2 + 1 / mu_eff) / ((n + 2) * (n + 2) + mu_eff));
    chi_n = std::sqrt(n) * (1 - 1.0 / (4 * n) + 1.0 / (21.0 * n * n));
  }
};

}  // namespace

OptimizeResult MinimizeCmaes(const Loss& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                             const Eigen::VectorXd& upper, const CmaesOptions& options) {
  const auto n = static_cast<int>(x0.size());
  const CmaesConstants k(n, options.population);
  std::mt19937 random(options.seed);
  std::normal_distribution<double> normal;
  Eigen::VectorXd mean = x0.cwiseMax(lower).cwiseMin(upper);
  Eigen::VectorXd p_sigma = Eigen::VectorXd::Zero(n), p_c = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(n, n), B = C;
  Eigen::VectorXd D = Eigen::VectorXd::Ones(n);
  double sigma = options.sigma;
  OptimizeResult result;
  result.value = std::numeric_limits<double>::infinity();
  result.x = mean;
  result.stop = "the evaluation limit";
  std::vector<std::pair<double, Eigen::VectorXd>> samples(static_cast<std::size_t>(k.lambda));
  while (result.evaluations + k.lambda <= options.max_evaluations) {
    for (auto& [value, x] : samples) {  // x = m + σ B D z, projected into the box
      Eigen::VectorXd z(n);
      for (int i = 0; i < n; ++i) z(i) = normal(random);
      x = (mean + sigma * (B * D.asDiagonal() * z)).cwiseMax(lower).cwiseMin(upper);
      value = f(x);
      ++result.evaluations;
      result.history.push_back(value);
      if (value < result.value) {
        result.value = value;
        result.x = x;
      }
    }
    ++result.iterations;
    if (result.value <= options.value_tolerance) {
      result.stop = "converged";
      break;
    }
    std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const Eigen::VectorXd old_mean = mean;
    mean.setZero();
    for (int i = 0; i < k.mu; ++i) mean += k.weights(i) * samples[static_cast<std::size_t>(i)].second;
    // Evolution paths (C^{-1/2} = B D⁻¹ Bᵀ), step size, covariance (rank one and rank μ).
    const Eigen::VectorXd step = (mean - old_mean) / sigma;
    const Eigen::MatrixXd inverse_root = B * D.cwiseInverse().asDiagonal() * B.transpose();
    p_sigma = (1 - k.c_sigma) * p_sigma + std::sqrt(k.c_sigma * (2 - k.c_sigma) * k.mu_eff) * (inverse_root * step);
    const double generations = result.iterations;
    const bool h_sigma =
        p_sigma.norm() / std::sqrt(1 - std::pow(1 - k.c_sigma, 2 * generations)) < (1.4 + 2.0 / (n + 1)) * k.chi_n;
    p_c = (1 - k.c_c) * p_c + (h_sigma ? std::sqrt(k.c_c * (2 - k.c_c) * k.mu_eff) : 0.0) * step;
    Eigen::MatrixXd rank_mu = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < k.mu; ++i) {
      const Eigen::VectorXd y = (samples[static_cast<std::size_t>(i)].second - old_mean) / sigma;
      rank_mu += k.weights(i) * y * y.transpose();
    }
    const double lost = h_sigma ? 0.0 : k.c_c * (2 - k.c_c);
    C = (1 - k.c_1 - k.c_mu) * C + k.c_1 * (p_c * p_c.transpose() + lost * C) + k.c_mu * rank_mu;
    sigma *= std::exp((k.c_sigma / k.d_sigma) * (p_sigma.norm() / k.chi_n - 1));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(0.5 * (C + C.transpose()));
    B = eigen.eigenvectors();
    D = eigen.eigenvalues().cwiseMax(1e-300).cwiseSqrt();
    if (!(sigma * D.maxCoeff() > 1e-14 * std::max(1.0, mean.norm()))) {
      result.stop = "the step size collapsed";
      break;
    }
  }
  return result;
}

}  // namespace ductile::grad
