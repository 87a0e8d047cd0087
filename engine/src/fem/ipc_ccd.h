// Continuous collision detection for IPC's line search: additive CCD (Li, Kaufman, Jiang 2021, "Codimensional
// Incremental Potential Contact", Sec. 5 and Algorithm 1). A pair's points move linearly, xᵢ(t) = xᵢ + t Δxᵢ. With
// the mean displacement removed (it does not change the distance), the distance d between the two primitives
// shrinks at most at rate l = max over the first primitive's ‖Δxᵢ‖ + max over the second's. Starting from d₀, the
// motion is advanced by conservative steps
//
//   t ← t + τ,   τ = (1 − s) d₀ / l at first, then 0.9 d / l at the current distance d,
//
// each of which cannot close the gap, until d falls below the target gap s·d₀ (a possible contact: the time reached
// so far is returned, at which d ≥ s·d₀ > 0) or t passes t_max (no contact within the step). The returned time of
// impact is conservative: every configuration before it keeps the pair apart, so a line search that never steps
// past the smallest over all pairs never creates an intersection. s = 0.1 (the gap kept is 10% of the initial one).
#pragma once

#include <Eigen/Core>

namespace ductile::fem {

/// The settings of additive CCD.
struct CcdSettings {
  double gap_fraction = 0.1;   ///< s: the fraction of the initial distance kept at the returned time, in (0, 1).
  int max_iterations = 10000;  ///< A bound on the advancing steps; reaching it returns the (safe) time reached.
};

/// The time of impact t ∈ [0, t_max] of point p (moving by dp) against triangle (t0, t1, t2) (moving by dt0, dt1,
/// dt2): t_max when they stay apart over [0, t_max], otherwise a conservative time before contact. 0 if they
/// already touch.
double PointTriangleTimeOfImpact(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                 const Eigen::Vector3d& t2, const Eigen::Vector3d& dp, const Eigen::Vector3d& dt0,
                                 const Eigen::Vector3d& dt1, const Eigen::Vector3d& dt2, double t_max,
                                 const CcdSettings& settings = {});
/// The same for edges (a0, a1) and (b0, b1) moving by (da0, da1) and (db0, db1).
double EdgeEdgeTimeOfImpact(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                            const Eigen::Vector3d& b1, const Eigen::Vector3d& da0, const Eigen::Vector3d& da1,
                            const Eigen::Vector3d& db0, const Eigen::Vector3d& db1, double t_max,
                            const CcdSettings& settings = {});
/// The same for point p (moving by dp) against the fixed half-space boundary n·x = offset (n unit): exact, then
/// shortened to keep the gap fraction.
double PointPlaneTimeOfImpact(const Eigen::Vector3d& p, const Eigen::Vector3d& dp, const Eigen::Vector3d& n,
                              double offset, double t_max, const CcdSettings& settings = {});

}  // namespace ductile::fem
