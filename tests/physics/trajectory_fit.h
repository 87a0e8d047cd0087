// Least-squares fits of sampled trajectories for the physics tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ductile::testing {

/// The index of the first sample at or after time t (times ascending).
inline std::size_t FirstSampleAt(const std::vector<double>& times, double t) {
  return static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t - 1e-9) - times.begin());
}

/// Least-squares fit of s(t) = c₀ + c₁ τ + c₂ τ², τ = t − t0, over the samples with t in [t0, t1]: returns the
/// acceleration 2 c₂ (normal equations, c₂ by Cramer's rule).
inline double FitQuadraticAcceleration(const std::vector<double>& times, const std::vector<double>& s, double t0,
                                       double t1) {
  double S[5] = {0, 0, 0, 0, 0}, T[3] = {0, 0, 0};  // Σ τᵏ and Σ τᵏ s
  for (std::size_t i = FirstSampleAt(times, t0); i < times.size() && times[i] <= t1 + 1e-9; ++i) {
    const double tau = times[i] - t0;
    double power = 1;
    for (int k = 0; k < 5; ++k, power *= tau) {
      S[k] += power;
      if (k < 3) T[k] += power * s[i];
    }
  }
  const auto det3 = [](double a, double b, double c, double d, double e, double f, double g, double h, double i) {
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  };
  const double D = det3(S[0], S[1], S[2], S[1], S[2], S[3], S[2], S[3], S[4]);
  return 2 * det3(S[0], S[1], T[0], S[1], S[2], T[1], S[2], S[3], T[2]) / D;
}

}  // namespace ductile::testing
