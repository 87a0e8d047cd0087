// The IPC barrier of a point–triangle or edge–edge pair (Li et al. 2020, "Incremental Potential Contact",
// Eq. 6 and Sec. 4.3), on squared distances s = d² and ŝ = d̂² as the paper's reference implementation does:
//
//   b(s) = −(s − ŝ)² ln(s/ŝ)   for 0 < s < ŝ,   0 for s ≥ ŝ           (C² at ŝ, → ∞ as s → 0)
//   b′(s) = −2(s − ŝ) ln(s/ŝ) − (s − ŝ)²/s,     b″(s) = −2 ln(s/ŝ) − 4(s − ŝ)/s + (s − ŝ)²/s²
//
// The pair's energy is κ·b(s(x)) with ∇ = κ b′∇s and ∇² = κ(b″∇s∇sᵀ + b′∇²s). Nearly parallel edges are
// mollified (Li et al. 2020, Eq. 23): with c = ‖(a₁ − a₀) × (b₁ − b₀)‖² and ε× = 10⁻³‖ā₁ − ā₀‖²‖b̄₁ − b̄₀‖² at rest,
//
//   m(c) = (2 − c/ε×) c/ε×   for c < ε×,   1 otherwise,
//
// and the edge–edge energy is κ·m(c(x))·b(s(x)), differentiated by the product rule. The contact force magnitude
// a pair carries (what the lagged friction reads, Li et al. 2020 Sec. 5) is λ = −κ ∂b/∂d = −2κ√s b′(s).
#pragma once

#include <Eigen/Core>

#include "fem/ipc_distance.h"

namespace ductile::fem {

/// A scalar function's value and first two derivatives.
struct ScalarDerivatives {
  double value = 0;
  double first = 0;
  double second = 0;
};

/// b(s) and its derivatives for squared distance s > 0 and squared activation distance s_hat > 0 [m²].
ScalarDerivatives Barrier(double s, double s_hat);
/// The edge–edge mollifier m(c) for c = ‖a×b‖² ≥ 0 and threshold eps_x > 0 [m⁴].
ScalarDerivatives EdgeEdgeMollifier(double c, double eps_x);
/// ε× of two edges from their rest positions (Li et al. 2020, Sec. 4.3: 10⁻³ of the product of squared lengths).
double EdgeEdgeMollifierThreshold(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                  const Eigen::Vector3d& b1);

/// A pair's energy [J per unit κ] with gradient and (unprojected) Hessian over its 12 coordinates.
struct PairEnergy {
  double energy = 0;
  Vector12d gradient = Vector12d::Zero();
  Matrix12d hessian = Matrix12d::Zero();
};

/// b(s) of point p against triangle (t0, t1, t2) in case c; zero beyond s_hat.
PairEnergy PointTriangleBarrier(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                const Eigen::Vector3d& t2, PointTriangleCase c, double s_hat);
/// m(c)·b(s) of edges (a0, a1) and (b0, b1) in case c, with mollifier threshold eps_x.
PairEnergy EdgeEdgeBarrier(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                           const Eigen::Vector3d& b1, EdgeEdgeCase c, double s_hat, double eps_x);

/// The same with the Hessian projected to PSD for projected Newton. The projection acts on the Hessian over the
/// distance's difference vectors y (fem/ipc_distance.h, ReducedDistance: at most 9 x 9, no translation null space)
/// before it is mapped to the 12 coordinates, which keeps it PSD (yᵀMᵀHMy = (My)ᵀH(My)), leaves an already PSD
/// Hessian unchanged (M has full row rank), and costs a 9x9 eigenproblem at most instead of the 12x12 one. A mollified
/// edge–edge pair (the mollifier reads other difference vectors) is projected over its 12 coordinates.
PairEnergy ProjectedPointTriangleBarrier(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                         const Eigen::Vector3d& t2, PointTriangleCase c, double s_hat);
PairEnergy ProjectedEdgeEdgeBarrier(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                    const Eigen::Vector3d& b1, EdgeEdgeCase c, double s_hat, double eps_x);

/// The contact force magnitude λ = −2κ√s b′(s) [N] of a pair at squared distance s (zero beyond s_hat).
double BarrierForceMagnitude(double s, double s_hat, double kappa);

}  // namespace ductile::fem
