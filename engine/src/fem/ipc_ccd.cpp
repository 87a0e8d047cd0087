// Additive CCD (the method: fem/ipc_ccd.h).
#include "fem/ipc_ccd.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "fem/ipc_distance.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

// The advancing loop over four points whose first `split` belong to the first primitive; `distance` gives the
// (unsquared) distance of a configuration.
template <typename Distance>
double AdditiveCcd(std::array<Vector3d, 4> x, std::array<Vector3d, 4> dx, int split, double t_max,
                   const CcdSettings& settings, Distance distance) {
  const Vector3d mean = (dx[0] + dx[1] + dx[2] + dx[3]) / 4;
  double first = 0, second = 0;
  for (int i = 0; i < 4; ++i) {
    dx[i] -= mean;
    (i < split ? first : second) = std::max(i < split ? first : second, dx[i].norm());
  }
  const double l = first + second;
  if (l <= 0) return t_max;  // a rigid translation of the pair never changes its distance
  double d = distance(x);
  if (d <= 0) return 0;
  const double gap = settings.gap_fraction * d;
  double t = 0;
  double step = (1 - settings.gap_fraction) * d / l;
  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    for (int i = 0; i < 4; ++i) x[i] += step * dx[i];
    d = distance(x);
    if (t > 0 && d < gap) return t;
    t += step;
    if (t > t_max) return t_max;
    step = 0.9 * d / l;
  }
  return t;
}

}  // namespace

double PointTriangleTimeOfImpact(const Vector3d& p, const Vector3d& t0, const Vector3d& t1, const Vector3d& t2,
                                 const Vector3d& dp, const Vector3d& dt0, const Vector3d& dt1, const Vector3d& dt2,
                                 double t_max, const CcdSettings& settings) {
  return AdditiveCcd({p, t0, t1, t2}, {dp, dt0, dt1, dt2}, 1, t_max, settings, [](const std::array<Vector3d, 4>& x) {
    return std::sqrt(PointTriangleSquaredDistance(x[0], x[1], x[2], x[3]));
  });
}

double EdgeEdgeTimeOfImpact(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1,
                            const Vector3d& da0, const Vector3d& da1, const Vector3d& db0, const Vector3d& db1,
                            double t_max, const CcdSettings& settings) {
  return AdditiveCcd({a0, a1, b0, b1}, {da0, da1, db0, db1}, 2, t_max, settings, [](const std::array<Vector3d, 4>& x) {
    return std::sqrt(EdgeEdgeSquaredDistance(x[0], x[1], x[2], x[3]));
  });
}

double PointPlaneTimeOfImpact(const Vector3d& p, const Vector3d& dp, const Vector3d& n, double offset, double t_max,
                              const CcdSettings& settings) {
  const double d = n.dot(p) - offset;
  if (d <= 0) return 0;
  const double approach = -n.dot(dp);
  if (approach <= 0) return t_max;
  // The distance is linear in t: d(t) = d − t·approach; keep s·d of it.
  return std::min(t_max, (1 - settings.gap_fraction) * d / approach);
}

}  // namespace ductile::fem
