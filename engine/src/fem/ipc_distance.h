// Squared distances between the primitives of IPC contact, with their gradients and Hessians (Li, Ferguson,
// Schneider, Langlois, Zorin, Panozzo, Jiang, Kaufman 2020, "Incremental Potential Contact", Sec. 4 and the
// supplement's "distance computation"): a point against a triangle and an edge against an edge. Each pair is first
// classified by where its closest points lie (a vertex, an edge's interior or the face's/both edges' interior); the
// distance is then the smooth function of that case:
//
//   point–point      d = ‖p − q‖²
//   point–line       d = ‖b‖² − (a·b)²/‖a‖²,            a = e₁ − e₀, b = p − e₀
//   point–plane      d = (c·(a×b))² / ‖a×b‖²,            a = t₁ − t₀, b = t₂ − t₀, c = p − t₀
//   line–line        d = (c·(a×b))² / ‖a×b‖²,            a = a₁ − a₀, b = b₁ − b₀, c = b₀ − a₀
//
// All four are functions g(y) of a few difference vectors y = M x, M a constant matrix of ±I blocks, so
// ∇ₓd = Mᵀ∇_y d and ∇²ₓd = Mᵀ ∇²_y d M; a quotient g²/h is differentiated by the chain rule through (g, h).
// The distances are squared throughout (the barrier takes d and d̂² alike: fem/ipc_barrier.h).
//
// Nearly parallel edges (‖a×b‖² < 10⁻²⁰‖a‖²‖b‖²) are classified among their point–edge cases, where the line–line
// formula is singular; the barrier's edge–edge mollifier (fem/ipc_barrier.h) makes the energy smooth across that
// switch (Li et al. 2020, Sec. 4.3).
#pragma once

#include <Eigen/Core>

namespace ductile::fem {

using Vector12d = Eigen::Matrix<double, 12, 1>;
using Matrix12d = Eigen::Matrix<double, 12, 12>;

/// Where a point's closest point on a triangle (t₀, t₁, t₂) lies: a vertex, an edge (E0 = t₀t₁, E1 = t₁t₂,
/// E2 = t₂t₀), or the face's interior.
enum class PointTriangleCase { kT0, kT1, kT2, kE0, kE1, kE2, kFace };

/// Where the closest points of edges (a₀, a₁) and (b₀, b₁) lie: two endpoints (A0B0 ...), an endpoint and the other
/// edge's interior (A0B: a₀ against edge b; AB0: b₀ against edge a), or both interiors.
enum class EdgeEdgeCase { kA0B0, kA0B1, kA1B0, kA1B1, kA0B, kA1B, kAB0, kAB1, kInterior };

/// The case of point p against triangle (t0, t1, t2); a degenerate (zero-area) triangle gets an edge or vertex case.
PointTriangleCase ClassifyPointTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                        const Eigen::Vector3d& t2);
/// The case of edges (a0, a1) and (b0, b1); nearly parallel edges get a point–edge or point–point case.
EdgeEdgeCase ClassifyEdgeEdge(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                              const Eigen::Vector3d& b1);

/// A squared distance [m²] and its derivatives with respect to the pair's 12 coordinates: (p, t₀, t₁, t₂) for a
/// point–triangle pair, (a₀, a₁, b₀, b₁) for an edge–edge pair, each 3 in a row.
struct DistanceDerivatives {
  double d = 0;
  Vector12d gradient = Vector12d::Zero();
  Matrix12d hessian = Matrix12d::Zero();
};

/// The same squared distance as a function of its K ≤ 3 difference vectors y = C x (yₖ = Σⱼ C(k, j) xⱼ over the
/// pair's four points): value, gradient and Hessian in y (the first 3K entries and the leading 3K x 3K block), and
/// C (the first K rows). ∇ₓd = Mᵀ∇_y d and ∇²ₓd = Mᵀ∇²_y d M with M = C ⊗ I₃ (Expand); ∇²_y d has no translation
/// null space, so the barrier projects its Hessian to PSD here, a smaller eigenproblem (fem/ipc_barrier.h).
struct ReducedDistance {
  int k = 0;
  double d = 0;
  Eigen::Matrix<double, 9, 1> gradient = Eigen::Matrix<double, 9, 1>::Zero();
  Eigen::Matrix<double, 9, 9> hessian = Eigen::Matrix<double, 9, 9>::Zero();
  Eigen::Matrix<double, 3, 4> C = Eigen::Matrix<double, 3, 4>::Zero();
};
ReducedDistance PointTriangleReducedDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                             const Eigen::Vector3d& t1, const Eigen::Vector3d& t2, PointTriangleCase c);
ReducedDistance EdgeEdgeReducedDistance(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                        const Eigen::Vector3d& b1, EdgeEdgeCase c);
/// The derivatives over the 12 coordinates of the pair.
DistanceDerivatives Expand(const ReducedDistance& r);

/// The squared distance of point p to triangle (t0, t1, t2) in case `c` (the value only).
double PointTriangleDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                             const Eigen::Vector3d& t2, PointTriangleCase c);
/// The same with gradient and Hessian over (p, t0, t1, t2).
DistanceDerivatives PointTriangleDistanceDerivatives(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                                     const Eigen::Vector3d& t1, const Eigen::Vector3d& t2,
                                                     PointTriangleCase c);
/// The squared distance between edges (a0, a1) and (b0, b1) in case `c` (the value only).
double EdgeEdgeDistance(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                        const Eigen::Vector3d& b1, EdgeEdgeCase c);
/// The same with gradient and Hessian over (a0, a1, b0, b1).
DistanceDerivatives EdgeEdgeDistanceDerivatives(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                                const Eigen::Vector3d& b0, const Eigen::Vector3d& b1, EdgeEdgeCase c);

/// The squared distances of the pair's closest points, whatever the case (classification then evaluation).
double PointTriangleSquaredDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& t0, const Eigen::Vector3d& t1,
                                    const Eigen::Vector3d& t2);
double EdgeEdgeSquaredDistance(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                               const Eigen::Vector3d& b1);

/// The weights w of the closest points: Σᵢ wᵢ xᵢ over the pair's four points is the vector from the second
/// primitive's closest point to the first's (p minus its projection; the point on edge a minus the point on edge b).
/// The friction of a pair acts along this relative motion (fem/ipc_friction.h).
Eigen::Vector4d PointTriangleClosestWeights(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                            const Eigen::Vector3d& t1, const Eigen::Vector3d& t2, PointTriangleCase c);
Eigen::Vector4d EdgeEdgeClosestWeights(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                       const Eigen::Vector3d& b1, EdgeEdgeCase c);

/// ‖(a₁ − a₀) × (b₁ − b₀)‖² with gradient and Hessian over (a0, a1, b0, b1): what the edge–edge mollifier reads.
DistanceDerivatives EdgeCrossSquaredNormDerivatives(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                                    const Eigen::Vector3d& b0, const Eigen::Vector3d& b1);

}  // namespace ductile::fem
