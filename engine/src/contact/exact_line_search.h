// The exact line search of both convex contact solvers, SAP (Castro et al. 2022, Sec. VI-B) and the MPM grid
// contact solve (Yu et al. 2025, Algorithm 1): α* = argmin ℓ(v + αΔv) on [0, α_max] for a convex ℓ along a descent
// direction (ℓ'(0) < 0). Newton's method on ℓ'(α) = 0 from the full step α = 1 (the natural length of a Newton
// direction), kept inside a bracket [lo, hi] that holds the minimiser and falling back to bisection when a Newton
// step leaves it (a safeguarded Newton, as rtsafe in Press et al., "Numerical Recipes", Sec. 9.4). When ℓ is still
// descending at α = 1, α_max is tried next; a cost still descending there takes α_max. It stops when
// |ℓ'(α)| ≤ slope_tolerance·|ℓ'(0)| (the minimiser to a relative slope), when the bracket is narrower than 1e-12,
// or after max_iterations evaluations.
#pragma once

#include <algorithm>
#include <cmath>

namespace ductile::contact {

struct LineSearchParams {
  double alpha_max = 1.5;         ///< Largest step, > 0.
  double slope_tolerance = 1e-3;  ///< Relative slope |ℓ'(α)|/|ℓ'(0)| accepted as the minimiser, > 0.
  int max_iterations = 100;       ///< Evaluations of ℓ' after the first ones.
};

struct LineSearchResult {
  double alpha = 0;     ///< The step taken.
  int evaluations = 0;  ///< Evaluations of ℓ' and ℓ''.
};

/// `derivatives(α, d1, d2)` sets d1 = ℓ'(α) and d2 = ℓ''(α) ≥ 0; `d1_0` = ℓ'(0) < 0.
template <typename Derivatives>
LineSearchResult ExactLineSearch(const Derivatives& derivatives, double d1_0, const LineSearchParams& params) {
  LineSearchResult r;
  double lo = 0, hi = params.alpha_max, alpha = std::min(1.0, params.alpha_max);
  double d1 = 0, d2 = 0;
  derivatives(alpha, d1, d2);
  ++r.evaluations;
  if (d1 < 0 && alpha < hi) {  // the minimiser is beyond the full step: is it beyond α_max?
    lo = alpha;
    alpha = hi;
    derivatives(alpha, d1, d2);
    ++r.evaluations;
  }
  const double slope_bound = params.slope_tolerance * std::abs(d1_0);
  for (int k = 0; k < params.max_iterations && std::abs(d1) > slope_bound; ++k) {
    if (d1 < 0 && alpha == hi) break;  // still descending at α_max
    (d1 < 0 ? lo : hi) = alpha;
    if (hi - lo < 1e-12) break;
    double next = d2 > 0 ? alpha - d1 / d2 : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    alpha = next;
    derivatives(alpha, d1, d2);
    ++r.evaluations;
  }
  r.alpha = alpha;
  return r;
}

}  // namespace ductile::contact
