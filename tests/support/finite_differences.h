// Central differences over 12 coordinates (a pair's four points, an affine body's q), for the FEM–IPC derivative
// tests: step h, truncation error O(h²), round-off ~ ε/h of the function's scale.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <functional>

namespace ductile::testing {

using Vector12 = Eigen::Matrix<double, 12, 1>;
using Matrix12 = Eigen::Matrix<double, 12, 12>;

/// The gradient of f at x.
inline Vector12 FdGradient(const std::function<double(const Vector12&)>& f, const Vector12& x, double h) {
  Vector12 g;
  for (int i = 0; i < 12; ++i) {
    Vector12 xp = x, xm = x;
    xp[i] += h, xm[i] -= h;
    g[i] = (f(xp) - f(xm)) / (2 * h);
  }
  return g;
}

/// The Jacobian of the gradient g at x (the Hessian of its potential).
inline Matrix12 FdHessian(const std::function<Vector12(const Vector12&)>& g, const Vector12& x, double h) {
  Matrix12 H;
  for (int i = 0; i < 12; ++i) {
    Vector12 xp = x, xm = x;
    xp[i] += h, xm[i] -= h;
    H.col(i) = (g(xp) - g(xm)) / (2 * h);
  }
  return H;
}

/// Relative error of a against b, with a floor of `scale` for values near zero.
inline double RelativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double scale) {
  return (a - b).norm() / std::max(b.norm(), scale);
}

}  // namespace ductile::testing
