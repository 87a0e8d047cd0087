// Exact intersection test of two closed triangles in 3-D, for checking that a cloth never passes through itself.
//
// Reduction: two closed triangles T₁, T₂ meet iff an edge of one meets the other (closed) triangle. Not coplanar:
// T₁ ∩ T₂ = S₁ ∩ S₂ with S₁ = T₁ ∩ plane(T₂) and S₂ = T₂ ∩ plane(T₁) segments (or points) on the planes' common
// line, each with its ends on its triangle's edges; a non-empty S₁ ∩ S₂ holds an end of S₁ or of S₂, a point of an
// edge of one triangle inside the other. Coplanar: either one triangle lies inside the other (its edges meet it) or
// a path inside one from a common point to a point outside the other crosses the other's edges.
//
// Segment ab against triangle pqr: with o = orient3d, a and b on the same strict side of pqr's plane miss it; both
// in the plane is the coplanar case, decided in the coordinate plane onto which pqr projects without degenerating
// (orient2d: an end inside the triangle, or the segment meeting one of its edges); otherwise the segment reaches
// the plane at one point, which lies in the closed triangle iff o(a, b, p, q), o(a, b, q, r), o(a, b, r, p) do not
// have strictly opposite signs (the line ab passes on the same side of the three directed edges).
//
// The predicates are exact: each determinant is first evaluated in double with the forward error bound of
// Shewchuk 1997 ("Adaptive precision floating-point arithmetic and fast robust geometric predicates", Sec. 4.3,
// errbound A), and when its magnitude is within that bound, again in exact floating-point expansion arithmetic
// (the same paper, Secs. 2.3 to 2.8: Two-Sum, Two-Product, Grow-Expansion, Scale-Expansion). The decision is thus
// the one exact real arithmetic on the given coordinates would make, for any doubles whose products neither
// overflow nor underflow (cloth coordinates are floats of metres). The error bounds assume every product and sum
// rounds on its own: the build compiles with -ffp-contract=off (no fused multiply-adds the compiler chose; the
// one in Two-Product is explicit). Touching counts as meeting. fcl's
// Intersect::intersect_Triangle is not used because it decides with an absolute tolerance of 1e-5 m, so it calls
// triangles 1e-12 m apart intersecting and cannot be exact.
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace ductile::testing {

using Point3 = std::array<double, 3>;

namespace exact {

/// A floating-point expansion: non-overlapping components in increasing magnitude, no zeros; its value is their
/// exact sum and its sign that of the last component (Shewchuk 1997, Sec. 2.2).
using Expansion = std::vector<double>;

// x + y = a + b exactly, x = fl(a + b) (Two-Sum, Sec. 2.3).
inline void TwoSum(double a, double b, double& x, double& y) {
  x = a + b;
  const double b_virtual = x - a;
  const double a_virtual = x - b_virtual;
  y = (a - a_virtual) + (b - b_virtual);
}

// x + y = a b exactly, x = fl(a b): the fused multiply-add rounds once, so it returns the product's rounding error.
inline void TwoProduct(double a, double b, double& x, double& y) {
  x = a * b;
  y = std::fma(a, b, -x);
}

// e + b (Grow-Expansion, Sec. 2.4, with zero elimination).
inline Expansion Grow(const Expansion& e, double b) {
  Expansion h;
  h.reserve(e.size() + 1);
  double q = b;
  for (const double component : e) {
    double sum = 0, error = 0;
    TwoSum(q, component, sum, error);
    if (error != 0) h.push_back(error);
    q = sum;
  }
  if (q != 0) h.push_back(q);
  return h;
}

// e + f, by growing e by each component of f in turn.
inline Expansion Add(Expansion e, const Expansion& f) {
  for (const double component : f) e = Grow(e, component);
  return e;
}

inline Expansion Negate(Expansion e) {
  for (double& component : e) component = -component;
  return e;
}

// e b (Scale-Expansion, Sec. 2.5, with zero elimination).
inline Expansion Scale(const Expansion& e, double b) {
  Expansion h;
  if (e.empty() || b == 0) return h;
  h.reserve(2 * e.size());
  double q = 0, low = 0;
  TwoProduct(e[0], b, q, low);
  if (low != 0) h.push_back(low);
  for (std::size_t i = 1; i < e.size(); ++i) {
    double product = 0, product_error = 0, sum = 0, sum_error = 0, next = 0, next_error = 0;
    TwoProduct(e[i], b, product, product_error);
    TwoSum(q, product_error, sum, sum_error);
    if (sum_error != 0) h.push_back(sum_error);
    TwoSum(product, sum, next, next_error);
    if (next_error != 0) h.push_back(next_error);
    q = next;
  }
  if (q != 0) h.push_back(q);
  return h;
}

// e f: the sum of e scaled by each component of f.
inline Expansion Multiply(const Expansion& e, const Expansion& f) {
  Expansion product;
  for (const double component : f) product = Add(product, Scale(e, component));
  return product;
}

// a − b exactly, as an expansion of at most two components.
inline Expansion Difference(double a, double b) {
  double x = 0, y = 0;
  TwoSum(a, -b, x, y);
  Expansion e;
  if (y != 0) e.push_back(y);
  if (x != 0) e.push_back(x);
  return e;
}

inline int Sign(const Expansion& e) {
  return e.empty() ? 0 : (e.back() > 0 ? 1 : -1);
}

// m₀₀ m₁₁ − m₀₁ m₁₀ exactly.
inline Expansion Determinant2(const Expansion& m00, const Expansion& m01, const Expansion& m10, const Expansion& m11) {
  return Add(Multiply(m00, m11), Negate(Multiply(m01, m10)));
}

}  // namespace exact

/// Sign of det[a − d; b − d; c − d] (rows): +1 when d lies on the side of the plane abc opposite to the normal
/// (b − a) × (c − a), −1 on the normal's side, 0 when the four points are coplanar. Exact; thread-safe.
inline int Orient3d(const Point3& a, const Point3& b, const Point3& c, const Point3& d) {
  const double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
  const double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
  const double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
  const double bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
  const double det = adz * bc + bdz * ca + cdz * ab;
  const double permanent = (std::abs(bdx * cdy) + std::abs(cdx * bdy)) * std::abs(adz) +
                           (std::abs(cdx * ady) + std::abs(adx * cdy)) * std::abs(bdz) +
                           (std::abs(adx * bdy) + std::abs(bdx * ady)) * std::abs(cdz);
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon() / 2;  // Shewchuk's ε = 2⁻⁵³
  constexpr double kBound = (7.0 + 56.0 * kEpsilon) * kEpsilon;            // errbound A of orient3d
  if (det > kBound * permanent) return 1;
  if (-det > kBound * permanent) return -1;
  using exact::Difference;
  const exact::Expansion ex = Difference(a[0], d[0]), ey = Difference(a[1], d[1]), ez = Difference(a[2], d[2]);
  const exact::Expansion fx = Difference(b[0], d[0]), fy = Difference(b[1], d[1]), fz = Difference(b[2], d[2]);
  const exact::Expansion gx = Difference(c[0], d[0]), gy = Difference(c[1], d[1]), gz = Difference(c[2], d[2]);
  const exact::Expansion exact_det = exact::Add(exact::Add(exact::Multiply(ez, exact::Determinant2(fx, fy, gx, gy)),
                                                           exact::Multiply(fz, exact::Determinant2(gx, gy, ex, ey))),
                                                exact::Multiply(gz, exact::Determinant2(ex, ey, fx, fy)));
  return exact::Sign(exact_det);
}

/// Sign of det[a − c; b − c] of the points' coordinates u, v (the other one dropped): +1 when a, b, c run
/// counter-clockwise in the (u, v) plane, 0 when collinear. Exact; thread-safe.
inline int Orient2d(const Point3& a, const Point3& b, const Point3& c, int u, int v) {
  const double left = (a[u] - c[u]) * (b[v] - c[v]);
  const double right = (a[v] - c[v]) * (b[u] - c[u]);
  const double det = left - right;
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon() / 2;
  constexpr double kBound = (3.0 + 16.0 * kEpsilon) * kEpsilon;  // errbound A of orient2d
  const double bound = kBound * (std::abs(left) + std::abs(right));
  if (det > bound) return 1;
  if (-det > bound) return -1;
  using exact::Difference;
  return exact::Sign(exact::Determinant2(Difference(a[u], c[u]), Difference(a[v], c[v]), Difference(b[u], c[u]),
                                         Difference(b[v], c[v])));
}

/// Whether the three points are collinear (the triangle has no area): exact; thread-safe.
inline bool IsDegenerate(const Point3& p, const Point3& q, const Point3& r) {
  return Orient2d(p, q, r, 1, 2) == 0 && Orient2d(p, q, r, 2, 0) == 0 && Orient2d(p, q, r, 0, 1) == 0;
}

namespace detail {

// Signs s₁, s₂, s₃ none strictly opposite to another.
inline bool SameSideOrZero(int s1, int s2, int s3) {
  return !((s1 > 0 || s2 > 0 || s3 > 0) && (s1 < 0 || s2 < 0 || s3 < 0));
}

// Whether x lies on the closed segment ab, given that the three are collinear: within its bounding box.
inline bool WithinBox(const Point3& a, const Point3& b, const Point3& x, int u, int v) {
  return std::min(a[u], b[u]) <= x[u] && x[u] <= std::max(a[u], b[u]) && std::min(a[v], b[v]) <= x[v] &&
         x[v] <= std::max(a[v], b[v]);
}

// Closed segments ab and cd in the (u, v) plane.
inline bool SegmentsMeet2d(const Point3& a, const Point3& b, const Point3& c, const Point3& d, int u, int v) {
  const int d1 = Orient2d(c, d, a, u, v), d2 = Orient2d(c, d, b, u, v);
  const int d3 = Orient2d(a, b, c, u, v), d4 = Orient2d(a, b, d, u, v);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && WithinBox(c, d, a, u, v)) || (d2 == 0 && WithinBox(c, d, b, u, v)) ||
         (d3 == 0 && WithinBox(a, b, c, u, v)) || (d4 == 0 && WithinBox(a, b, d, u, v));
}

// Closed segment ab and closed triangle pqr, all five points in one plane; the triangle projects without
// degenerating onto the plane of the coordinates u, v.
inline bool CoplanarSegmentMeetsTriangle(const Point3& a, const Point3& b, const Point3& p, const Point3& q,
                                         const Point3& r, int u, int v) {
  const auto inside = [&](const Point3& x) {
    return SameSideOrZero(Orient2d(p, q, x, u, v), Orient2d(q, r, x, u, v), Orient2d(r, p, x, u, v));
  };
  return inside(a) || inside(b) || SegmentsMeet2d(a, b, p, q, u, v) || SegmentsMeet2d(a, b, q, r, u, v) ||
         SegmentsMeet2d(a, b, r, p, u, v);
}

// Closed segment ab and closed, non-degenerate triangle pqr, given sa = Orient3d(p, q, r, a), sb likewise for b.
inline bool SegmentMeetsTriangle(const Point3& a, const Point3& b, int sa, int sb, const Point3& p, const Point3& q,
                                 const Point3& r) {
  if (sa * sb > 0) return false;
  if (sa == 0 && sb == 0) {
    for (int drop = 0; drop < 3; ++drop) {  // a coordinate plane onto which pqr keeps its area
      const int u = (drop + 1) % 3, v = (drop + 2) % 3;
      if (Orient2d(p, q, r, u, v) != 0) return CoplanarSegmentMeetsTriangle(a, b, p, q, r, u, v);
    }
    return true;  // pqr is degenerate, against the precondition: no separation can be certified
  }
  return SameSideOrZero(Orient3d(a, b, p, q), Orient3d(a, b, q, r), Orient3d(a, b, r, p));
}

}  // namespace detail

/// Whether the closed triangles P and Q share a point (touching counts), decided exactly. Both must be
/// non-degenerate (IsDegenerate false); a degenerate one makes the answer true. Thread-safe.
inline bool TrianglesIntersect(const std::array<Point3, 3>& P, const std::array<Point3, 3>& Q) {
  int sp[3], sq[3];  // each vertex's side of the other triangle's plane
  for (int k = 0; k < 3; ++k) sq[k] = Orient3d(P[0], P[1], P[2], Q[k]);
  if (sq[0] == sq[1] && sq[1] == sq[2] && sq[0] != 0) return false;
  for (int k = 0; k < 3; ++k) sp[k] = Orient3d(Q[0], Q[1], Q[2], P[k]);
  if (sp[0] == sp[1] && sp[1] == sp[2] && sp[0] != 0) return false;
  for (int k = 0; k < 3; ++k) {
    const int l = (k + 1) % 3;
    if (detail::SegmentMeetsTriangle(P[k], P[l], sp[k], sp[l], Q[0], Q[1], Q[2])) return true;
    if (detail::SegmentMeetsTriangle(Q[k], Q[l], sq[k], sq[l], P[0], P[1], P[2])) return true;
  }
  return false;
}

}  // namespace ductile::testing
