// The IPC log barrier and the edge–edge mollifier (the formulas: fem/ipc_barrier.h).
#include "fem/ipc_barrier.h"

#include <Eigen/Geometry>
#include <cmath>

#include "fem/elasticity.h"

namespace ductile::fem {

ScalarDerivatives Barrier(double s, double s_hat) {
  if (s >= s_hat) return {};
  const double r = s - s_hat;
  const double log_ratio = std::log(s / s_hat);
  return {-r * r * log_ratio, -2 * r * log_ratio - r * r / s, -2 * log_ratio - 4 * r / s + r * r / (s * s)};
}

ScalarDerivatives EdgeEdgeMollifier(double c, double eps_x) {
  if (c >= eps_x) return {1, 0, 0};
  const double u = c / eps_x;
  return {(2 - u) * u, (2 - 2 * u) / eps_x, -2 / (eps_x * eps_x)};
}

double EdgeEdgeMollifierThreshold(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                  const Eigen::Vector3d& b1) {
  return 1e-3 * (a1 - a0).squaredNorm() * (b1 - b0).squaredNorm();
}

namespace {

PairEnergy ComposeBarrier(const DistanceDerivatives& d, double s_hat) {
  PairEnergy out;
  if (d.d >= s_hat) return out;
  const ScalarDerivatives b = Barrier(d.d, s_hat);
  out.energy = b.value;
  out.gradient = b.first * d.gradient;
  out.hessian = b.second * d.gradient * d.gradient.transpose() + b.first * d.hessian;
  return out;
}

}  // namespace

namespace {

template <int N>
void ProjectLeadingBlock(Eigen::Matrix<double, 9, 9>& H) {
  Eigen::Matrix<double, N, N> block = H.topLeftCorner<N, N>();
  ProjectToPsd<N>(block);
  H.topLeftCorner<N, N>() = block;
}

// b(d(y)) with its Hessian b″∇d∇dᵀ + b′∇²d projected to PSD over y (3k x 3k), then mapped to the 12 coordinates.
PairEnergy ComposeProjectedBarrier(const ReducedDistance& r, double s_hat) {
  PairEnergy out;
  if (r.d >= s_hat) return out;
  const ScalarDerivatives b = Barrier(r.d, s_hat);
  ReducedDistance composed = r;
  composed.gradient = b.first * r.gradient;
  composed.hessian = b.second * r.gradient * r.gradient.transpose() + b.first * r.hessian;
  if (r.k == 1) ProjectLeadingBlock<3>(composed.hessian);
  if (r.k == 2) ProjectLeadingBlock<6>(composed.hessian);
  if (r.k == 3) ProjectToPsd<9>(composed.hessian);
  const DistanceDerivatives mapped = Expand(composed);
  out.energy = b.value;
  out.gradient = mapped.gradient;
  out.hessian = mapped.hessian;
  return out;
}

}  // namespace

PairEnergy ProjectedPointTriangleBarrier(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                         const Eigen::Vector3d& t2, PointTriangleCase c, double s_hat) {
  return ComposeProjectedBarrier(PointTriangleReducedDistance(p, t0, t1, t2, c), s_hat);
}

PairEnergy ProjectedEdgeEdgeBarrier(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                    const Eigen::Vector3d& b1, EdgeEdgeCase c, double s_hat, double eps_x) {
  if ((a1 - a0).cross(b1 - b0).squaredNorm() >= eps_x)  // the mollifier is 1
    return ComposeProjectedBarrier(EdgeEdgeReducedDistance(a0, a1, b0, b1, c), s_hat);
  PairEnergy e = EdgeEdgeBarrier(a0, a1, b0, b1, c, s_hat, eps_x);  // m(c(x)) b(d(x)): its own y, so over x
  ProjectToPsd<12>(e.hessian);
  return e;
}

PairEnergy PointTriangleBarrier(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                const Eigen::Vector3d& t2, PointTriangleCase c, double s_hat) {
  return ComposeBarrier(PointTriangleDistanceDerivatives(p, t0, t1, t2, c), s_hat);
}

PairEnergy EdgeEdgeBarrier(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                           const Eigen::Vector3d& b1, EdgeEdgeCase c, double s_hat, double eps_x) {
  PairEnergy b = ComposeBarrier(EdgeEdgeDistanceDerivatives(a0, a1, b0, b1, c), s_hat);
  if (b.energy == 0 || (a1 - a0).cross(b1 - b0).squaredNorm() >= eps_x) return b;  // the mollifier is 1
  const DistanceDerivatives cross = EdgeCrossSquaredNormDerivatives(a0, a1, b0, b1);
  const ScalarDerivatives m = EdgeEdgeMollifier(cross.d, eps_x);
  const Vector12d grad_m = m.first * cross.gradient;
  PairEnergy out;
  out.energy = m.value * b.energy;
  out.gradient = m.value * b.gradient + b.energy * grad_m;
  out.hessian = m.value * b.hessian +
                b.energy * (m.second * cross.gradient * cross.gradient.transpose() + m.first * cross.hessian) +
                grad_m * b.gradient.transpose() + b.gradient * grad_m.transpose();
  return out;
}

double BarrierForceMagnitude(double s, double s_hat, double kappa) {
  if (s >= s_hat || s <= 0) return 0;
  return -2 * kappa * std::sqrt(s) * Barrier(s, s_hat).first;
}

}  // namespace ductile::fem
