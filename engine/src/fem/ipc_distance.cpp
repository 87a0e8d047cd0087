// Squared distances of IPC's primitive pairs and their derivatives (the formulas: fem/ipc_distance.h).
#include "fem/ipc_distance.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>

namespace ductile::fem {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

// Nearly parallel edges: ‖a×b‖² below this fraction of ‖a‖²‖b‖² (sin² of the angle) use the point–edge cases.
constexpr double kParallelSin2 = 1e-20;

Matrix3d Skew(const Vector3d& v) {
  Matrix3d s;
  s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return s;
}

// A function of K difference vectors y = M x over V points: its gradient and Hessian in y, mapped to x by the
// coefficients C (K x V): y_k = Σ_v C(k, v) x_v.
template <int K>
struct YDerivatives {
  double value = 0;
  Eigen::Matrix<double, 3 * K, 1> gradient = Eigen::Matrix<double, 3 * K, 1>::Zero();
  Eigen::Matrix<double, 3 * K, 3 * K> hessian = Eigen::Matrix<double, 3 * K, 3 * K>::Zero();
};

// φ = g²/h and its derivatives from those of g and h (the chain rule through (g, h)).
template <int K>
YDerivatives<K> QuotientOfSquare(const YDerivatives<K>& g, const YDerivatives<K>& h) {
  const double inv_h = 1.0 / h.value;
  const double phi_g = 2 * g.value * inv_h;
  const double phi_h = -g.value * g.value * inv_h * inv_h;
  const double phi_gg = 2 * inv_h;
  const double phi_gh = -2 * g.value * inv_h * inv_h;
  const double phi_hh = 2 * g.value * g.value * inv_h * inv_h * inv_h;
  YDerivatives<K> out;
  out.value = g.value * g.value * inv_h;
  out.gradient = phi_g * g.gradient + phi_h * h.gradient;
  out.hessian = phi_gg * g.gradient * g.gradient.transpose() +
                phi_gh * (g.gradient * h.gradient.transpose() + h.gradient * g.gradient.transpose()) +
                phi_hh * h.gradient * h.gradient.transpose() + phi_g * g.hessian + phi_h * h.hessian;
  return out;
}

// h = ‖a×b‖² = ‖a‖²‖b‖² − (a·b)² over y = (a, b, ...) (the first two of K blocks).
template <int K>
YDerivatives<K> CrossSquaredNorm(const Vector3d& a, const Vector3d& b) {
  const double aa = a.squaredNorm(), bb = b.squaredNorm(), ab = a.dot(b);
  YDerivatives<K> h;
  h.value = aa * bb - ab * ab;
  h.gradient.template segment<3>(0) = 2 * bb * a - 2 * ab * b;
  h.gradient.template segment<3>(3) = 2 * aa * b - 2 * ab * a;
  const Matrix3d I = Matrix3d::Identity();
  h.hessian.template block<3, 3>(0, 0) = 2 * bb * I - 2 * b * b.transpose();
  h.hessian.template block<3, 3>(3, 3) = 2 * aa * I - 2 * a * a.transpose();
  const Matrix3d ab_block = 4 * a * b.transpose() - 2 * b * a.transpose() - 2 * ab * I;
  h.hessian.template block<3, 3>(0, 3) = ab_block;
  h.hessian.template block<3, 3>(3, 0) = ab_block.transpose();
  return h;
}

// (c·(a×b))² / ‖a×b‖² over y = (a, b, c): the point–plane and line–line distance.
YDerivatives<3> PlaneDistance(const Vector3d& a, const Vector3d& b, const Vector3d& c) {
  YDerivatives<3> g;
  g.value = c.dot(a.cross(b));
  g.gradient << b.cross(c), c.cross(a), a.cross(b);
  g.hessian.block<3, 3>(0, 3) = -Skew(c);
  g.hessian.block<3, 3>(3, 0) = Skew(c);
  g.hessian.block<3, 3>(3, 6) = -Skew(a);
  g.hessian.block<3, 3>(6, 3) = Skew(a);
  g.hessian.block<3, 3>(6, 0) = -Skew(b);
  g.hessian.block<3, 3>(0, 6) = Skew(b);
  return QuotientOfSquare<3>(g, CrossSquaredNorm<3>(a, b));
}

// ‖b‖² − (a·b)²/‖a‖² over y = (a, b): the point–line distance.
YDerivatives<2> LineDistance(const Vector3d& a, const Vector3d& b) {
  YDerivatives<2> s, r;
  s.value = a.dot(b);
  s.gradient << b, a;
  s.hessian.block<3, 3>(0, 3) = Matrix3d::Identity();
  s.hessian.block<3, 3>(3, 0) = Matrix3d::Identity();
  r.value = a.squaredNorm();
  r.gradient << 2 * a, Vector3d::Zero();
  r.hessian.block<3, 3>(0, 0) = 2 * Matrix3d::Identity();
  YDerivatives<2> d = QuotientOfSquare<2>(s, r);
  d.value = b.squaredNorm() - d.value;
  d.gradient = -d.gradient;
  d.gradient.segment<3>(3) += 2 * b;
  d.hessian = -d.hessian;
  d.hessian.block<3, 3>(3, 3) += 2 * Matrix3d::Identity();
  return d;
}

// The value of LineDistance alone (what classification, CCD and the energies read, many times a Newton iteration).
double LineSquaredDistance(const Vector3d& a, const Vector3d& b) {
  const double ab = a.dot(b);
  return b.squaredNorm() - ab * ab / a.squaredNorm();
}

// y-derivatives (y_k = Σ_j C(k, j) x_{slot[j]}) with C spread over the pair's four points.
template <int K, int V>
ReducedDistance Reduce(const YDerivatives<K>& y, const Eigen::Matrix<double, K, V>& C, const std::array<int, V>& slot) {
  ReducedDistance out;
  out.k = K;
  out.d = y.value;
  out.gradient.template head<3 * K>() = y.gradient;
  out.hessian.template topLeftCorner<3 * K, 3 * K>() = y.hessian;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < V; ++j) out.C(k, slot[j]) += C(k, j);
  return out;
}

ReducedDistance PointPoint(const std::array<Vector3d, 4>& x, int i, int j) {
  YDerivatives<1> y;
  const Vector3d r = x[i] - x[j];
  y.value = r.squaredNorm();
  y.gradient = 2 * r;
  y.hessian = 2 * Matrix3d::Identity();
  return Reduce<1, 2>(y, Eigen::Matrix<double, 1, 2>(1, -1), {i, j});
}

// Point x[p] against the line through x[e0], x[e1].
ReducedDistance PointLine(const std::array<Vector3d, 4>& x, int p, int e0, int e1) {
  const YDerivatives<2> y = LineDistance(x[e1] - x[e0], x[p] - x[e0]);
  Eigen::Matrix<double, 2, 3> C;
  C << 0, -1, 1,  // a = e1 − e0
      1, -1, 0;   // b = p − e0
  return Reduce<2, 3>(y, C, {p, e0, e1});
}

// Segment parameter of the closest point to p on e0 + s (e1 − e0), clamped to [0, 1].
double SegmentParameter(const Vector3d& p, const Vector3d& e0, const Vector3d& e1) {
  const Vector3d e = e1 - e0;
  const double ee = e.squaredNorm();
  if (ee <= 0) return 0;
  return std::clamp((p - e0).dot(e) / ee, 0.0, 1.0);
}

double SegmentSquaredDistance(const Vector3d& p, const Vector3d& e0, const Vector3d& e1) {
  const double s = SegmentParameter(p, e0, e1);
  return (p - (e0 + s * (e1 - e0))).squaredNorm();
}

// Barycentric (β₁, β₂) of p's projection onto the plane of t: p ≈ t₀ + β₁(t₁ − t₀) + β₂(t₂ − t₀); false if the
// triangle is degenerate.
bool PlaneBarycentric(const Vector3d& p, const Vector3d& t0, const Vector3d& t1, const Vector3d& t2, double& b1,
                      double& b2) {
  const Vector3d a = t1 - t0, b = t2 - t0, c = p - t0;
  const double aa = a.squaredNorm(), bb = b.squaredNorm(), ab = a.dot(b);
  const double det = aa * bb - ab * ab;
  if (!(det > kParallelSin2 * aa * bb)) return false;
  b1 = (bb * a.dot(c) - ab * b.dot(c)) / det;
  b2 = (aa * b.dot(c) - ab * a.dot(c)) / det;
  return true;
}

// Closest-point parameters (s on a, t on b) of two non-parallel segments, clamped to the segments.
void SegmentSegmentParameters(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1, double& s,
                              double& t) {
  const Vector3d da = a1 - a0, db = b1 - b0, r = a0 - b0;
  const double aa = da.squaredNorm(), bb = db.squaredNorm(), ab = da.dot(db);
  const double ar = da.dot(r), br = db.dot(r);
  const double denom = aa * bb - ab * ab;
  s = denom > 0 ? std::clamp((ab * br - ar * bb) / denom, 0.0, 1.0) : 0.0;
  t = (ab * s + br) / bb;
  if (t < 0) {
    t = 0;
    s = std::clamp(-ar / aa, 0.0, 1.0);
  } else if (t > 1) {
    t = 1;
    s = std::clamp((ab - ar) / aa, 0.0, 1.0);
  }
}

}  // namespace

PointTriangleCase ClassifyPointTriangle(const Vector3d& p, const Vector3d& t0, const Vector3d& t1, const Vector3d& t2) {
  double b1 = 0, b2 = 0;
  if (PlaneBarycentric(p, t0, t1, t2, b1, b2) && b1 >= 0 && b2 >= 0 && b1 + b2 <= 1) return PointTriangleCase::kFace;
  // The closest point is on the boundary: the nearest of the three edges, then its vertex or interior.
  const std::array<std::array<const Vector3d*, 2>, 3> edges = {{{&t0, &t1}, {&t1, &t2}, {&t2, &t0}}};
  int best = 0;
  double best_d = SegmentSquaredDistance(p, t0, t1);
  for (int e = 1; e < 3; ++e) {
    const double d = SegmentSquaredDistance(p, *edges[e][0], *edges[e][1]);
    if (d < best_d) best_d = d, best = e;
  }
  const double s = SegmentParameter(p, *edges[best][0], *edges[best][1]);
  static constexpr PointTriangleCase kEdge[3] = {PointTriangleCase::kE0, PointTriangleCase::kE1,
                                                 PointTriangleCase::kE2};
  static constexpr PointTriangleCase kStart[3] = {PointTriangleCase::kT0, PointTriangleCase::kT1,
                                                  PointTriangleCase::kT2};
  if (s <= 0) return kStart[best];
  if (s >= 1) return kStart[(best + 1) % 3];
  return kEdge[best];
}

EdgeEdgeCase ClassifyEdgeEdge(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1) {
  const Vector3d da = a1 - a0, db = b1 - b0;
  const double aa = da.squaredNorm(), bb = db.squaredNorm();
  if (da.cross(db).squaredNorm() < kParallelSin2 * aa * bb || aa <= 0 || bb <= 0) {
    // Parallel: the nearest of the four endpoint–edge pairs.
    const std::array<double, 4> d = {SegmentSquaredDistance(a0, b0, b1), SegmentSquaredDistance(a1, b0, b1),
                                     SegmentSquaredDistance(b0, a0, a1), SegmentSquaredDistance(b1, a0, a1)};
    const int k = static_cast<int>(std::min_element(d.begin(), d.end()) - d.begin());
    if (k < 2) {
      const double t = SegmentParameter(k == 0 ? a0 : a1, b0, b1);
      if (t <= 0) return k == 0 ? EdgeEdgeCase::kA0B0 : EdgeEdgeCase::kA1B0;
      if (t >= 1) return k == 0 ? EdgeEdgeCase::kA0B1 : EdgeEdgeCase::kA1B1;
      return k == 0 ? EdgeEdgeCase::kA0B : EdgeEdgeCase::kA1B;
    }
    const double s = SegmentParameter(k == 2 ? b0 : b1, a0, a1);
    if (s <= 0) return k == 2 ? EdgeEdgeCase::kA0B0 : EdgeEdgeCase::kA0B1;
    if (s >= 1) return k == 2 ? EdgeEdgeCase::kA1B0 : EdgeEdgeCase::kA1B1;
    return k == 2 ? EdgeEdgeCase::kAB0 : EdgeEdgeCase::kAB1;
  }
  double s = 0, t = 0;
  SegmentSegmentParameters(a0, a1, b0, b1, s, t);
  const bool s_in = s > 0 && s<1, t_in = t> 0 && t < 1;
  if (s_in && t_in) return EdgeEdgeCase::kInterior;
  if (!s_in && !t_in) {
    if (s <= 0) return t <= 0 ? EdgeEdgeCase::kA0B0 : EdgeEdgeCase::kA0B1;
    return t <= 0 ? EdgeEdgeCase::kA1B0 : EdgeEdgeCase::kA1B1;
  }
  if (!s_in) return s <= 0 ? EdgeEdgeCase::kA0B : EdgeEdgeCase::kA1B;
  return t <= 0 ? EdgeEdgeCase::kAB0 : EdgeEdgeCase::kAB1;
}

ReducedDistance PointTriangleReducedDistance(const Vector3d& p, const Vector3d& t0, const Vector3d& t1,
                                             const Vector3d& t2, PointTriangleCase c) {
  const std::array<Vector3d, 4> x = {p, t0, t1, t2};
  switch (c) {
    case PointTriangleCase::kT0:
      return PointPoint(x, 0, 1);
    case PointTriangleCase::kT1:
      return PointPoint(x, 0, 2);
    case PointTriangleCase::kT2:
      return PointPoint(x, 0, 3);
    case PointTriangleCase::kE0:
      return PointLine(x, 0, 1, 2);
    case PointTriangleCase::kE1:
      return PointLine(x, 0, 2, 3);
    case PointTriangleCase::kE2:
      return PointLine(x, 0, 3, 1);
    case PointTriangleCase::kFace:
      break;
  }
  const YDerivatives<3> y = PlaneDistance(t1 - t0, t2 - t0, p - t0);
  Eigen::Matrix<double, 3, 4> C;
  C << 0, -1, 1, 0,  // a = t1 − t0
      0, -1, 0, 1,   // b = t2 − t0
      1, -1, 0, 0;   // c = p − t0
  return Reduce<3, 4>(y, C, {0, 1, 2, 3});
}

ReducedDistance EdgeEdgeReducedDistance(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1,
                                        EdgeEdgeCase c) {
  const std::array<Vector3d, 4> x = {a0, a1, b0, b1};
  switch (c) {
    case EdgeEdgeCase::kA0B0:
      return PointPoint(x, 0, 2);
    case EdgeEdgeCase::kA0B1:
      return PointPoint(x, 0, 3);
    case EdgeEdgeCase::kA1B0:
      return PointPoint(x, 1, 2);
    case EdgeEdgeCase::kA1B1:
      return PointPoint(x, 1, 3);
    case EdgeEdgeCase::kA0B:
      return PointLine(x, 0, 2, 3);
    case EdgeEdgeCase::kA1B:
      return PointLine(x, 1, 2, 3);
    case EdgeEdgeCase::kAB0:
      return PointLine(x, 2, 0, 1);
    case EdgeEdgeCase::kAB1:
      return PointLine(x, 3, 0, 1);
    case EdgeEdgeCase::kInterior:
      break;
  }
  const YDerivatives<3> y = PlaneDistance(a1 - a0, b1 - b0, b0 - a0);
  Eigen::Matrix<double, 3, 4> C;
  C << -1, 1, 0, 0,  // a = a1 − a0
      0, 0, -1, 1,   // b = b1 − b0
      -1, 0, 1, 0;   // c = b0 − a0
  return Reduce<3, 4>(y, C, {0, 1, 2, 3});
}

DistanceDerivatives Expand(const ReducedDistance& r) {
  Eigen::Matrix<double, 9, 12> M = Eigen::Matrix<double, 9, 12>::Zero();
  for (Eigen::Index k = 0; k < r.k; ++k)
    for (Eigen::Index j = 0; j < 4; ++j) M.block<3, 3>(3 * k, 3 * j) = r.C(k, j) * Matrix3d::Identity();
  DistanceDerivatives out;
  out.d = r.d;
  out.gradient = M.transpose() * r.gradient;
  out.hessian = M.transpose() * r.hessian * M;
  return out;
}

DistanceDerivatives PointTriangleDistanceDerivatives(const Vector3d& p, const Vector3d& t0, const Vector3d& t1,
                                                     const Vector3d& t2, PointTriangleCase c) {
  return Expand(PointTriangleReducedDistance(p, t0, t1, t2, c));
}

DistanceDerivatives EdgeEdgeDistanceDerivatives(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0,
                                                const Vector3d& b1, EdgeEdgeCase c) {
  return Expand(EdgeEdgeReducedDistance(a0, a1, b0, b1, c));
}

double PointTriangleDistance(const Vector3d& p, const Vector3d& t0, const Vector3d& t1, const Vector3d& t2,
                             PointTriangleCase c) {
  switch (c) {
    case PointTriangleCase::kT0:
      return (p - t0).squaredNorm();
    case PointTriangleCase::kT1:
      return (p - t1).squaredNorm();
    case PointTriangleCase::kT2:
      return (p - t2).squaredNorm();
    case PointTriangleCase::kE0:
      return LineSquaredDistance(t1 - t0, p - t0);
    case PointTriangleCase::kE1:
      return LineSquaredDistance(t2 - t1, p - t1);
    case PointTriangleCase::kE2:
      return LineSquaredDistance(t0 - t2, p - t2);
    case PointTriangleCase::kFace:
      break;
  }
  const Vector3d n = (t1 - t0).cross(t2 - t0);
  const double g = (p - t0).dot(n);
  return g * g / n.squaredNorm();
}

double EdgeEdgeDistance(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1,
                        EdgeEdgeCase c) {
  switch (c) {
    case EdgeEdgeCase::kA0B0:
      return (a0 - b0).squaredNorm();
    case EdgeEdgeCase::kA0B1:
      return (a0 - b1).squaredNorm();
    case EdgeEdgeCase::kA1B0:
      return (a1 - b0).squaredNorm();
    case EdgeEdgeCase::kA1B1:
      return (a1 - b1).squaredNorm();
    case EdgeEdgeCase::kA0B:
      return LineSquaredDistance(b1 - b0, a0 - b0);
    case EdgeEdgeCase::kA1B:
      return LineSquaredDistance(b1 - b0, a1 - b0);
    case EdgeEdgeCase::kAB0:
      return LineSquaredDistance(a1 - a0, b0 - a0);
    case EdgeEdgeCase::kAB1:
      return LineSquaredDistance(a1 - a0, b1 - a0);
    case EdgeEdgeCase::kInterior:
      break;
  }
  const Vector3d n = (a1 - a0).cross(b1 - b0);
  const double g = (b0 - a0).dot(n);
  return g * g / n.squaredNorm();
}

double PointTriangleSquaredDistance(const Vector3d& p, const Vector3d& t0, const Vector3d& t1, const Vector3d& t2) {
  return PointTriangleDistance(p, t0, t1, t2, ClassifyPointTriangle(p, t0, t1, t2));
}

double EdgeEdgeSquaredDistance(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1) {
  return EdgeEdgeDistance(a0, a1, b0, b1, ClassifyEdgeEdge(a0, a1, b0, b1));
}

Eigen::Vector4d PointTriangleClosestWeights(const Vector3d& p, const Vector3d& t0, const Vector3d& t1,
                                            const Vector3d& t2, PointTriangleCase c) {
  switch (c) {
    case PointTriangleCase::kT0:
      return {1, -1, 0, 0};
    case PointTriangleCase::kT1:
      return {1, 0, -1, 0};
    case PointTriangleCase::kT2:
      return {1, 0, 0, -1};
    case PointTriangleCase::kE0: {
      const double s = SegmentParameter(p, t0, t1);
      return {1, -(1 - s), -s, 0};
    }
    case PointTriangleCase::kE1: {
      const double s = SegmentParameter(p, t1, t2);
      return {1, 0, -(1 - s), -s};
    }
    case PointTriangleCase::kE2: {
      const double s = SegmentParameter(p, t2, t0);
      return {1, -s, 0, -(1 - s)};
    }
    case PointTriangleCase::kFace:
      break;
  }
  double b1 = 0, b2 = 0;
  PlaneBarycentric(p, t0, t1, t2, b1, b2);
  return {1, -(1 - b1 - b2), -b1, -b2};
}

Eigen::Vector4d EdgeEdgeClosestWeights(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1,
                                       EdgeEdgeCase c) {
  double s = 0, t = 0;
  switch (c) {
    case EdgeEdgeCase::kA0B0:
      break;
    case EdgeEdgeCase::kA0B1:
      t = 1;
      break;
    case EdgeEdgeCase::kA1B0:
      s = 1;
      break;
    case EdgeEdgeCase::kA1B1:
      s = t = 1;
      break;
    case EdgeEdgeCase::kA0B:
      t = SegmentParameter(a0, b0, b1);
      break;
    case EdgeEdgeCase::kA1B:
      s = 1, t = SegmentParameter(a1, b0, b1);
      break;
    case EdgeEdgeCase::kAB0:
      s = SegmentParameter(b0, a0, a1);
      break;
    case EdgeEdgeCase::kAB1:
      s = SegmentParameter(b1, a0, a1), t = 1;
      break;
    case EdgeEdgeCase::kInterior:
      SegmentSegmentParameters(a0, a1, b0, b1, s, t);
      break;
  }
  return {1 - s, s, -(1 - t), -t};
}

DistanceDerivatives EdgeCrossSquaredNormDerivatives(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0,
                                                    const Vector3d& b1) {
  const YDerivatives<2> y = CrossSquaredNorm<2>(a1 - a0, b1 - b0);
  Eigen::Matrix<double, 2, 4> C;
  C << -1, 1, 0, 0,  // a = a1 − a0
      0, 0, -1, 1;   // b = b1 − b0
  return Expand(Reduce<2, 4>(y, C, {0, 1, 2, 3}));
}

}  // namespace ductile::fem
