// The mesh signed distance field against references: the analytic distance of a box and of a sphere, and a
// brute-force exact distance (every triangle, sign by winding number) for a concave prism; the sign for either
// orientation and for nested shells; the extension outside the grid box; invalid arguments; thread-count
// independence; and the build time of a 20k-triangle sphere.
#include "geometry/mesh_sdf.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/global_control.h>

namespace ductile::geometry {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr double kFloatRounding = 1e-6;  // float samples of |φ| ≤ 1 m round by less than 1e-7 m

// An axis-aligned box of half extents `half` around `center`: 12 triangles, counter-clockwise from outside.
TriangleMesh Box(const Vector3d& half, const Vector3d& center) {
  TriangleMesh mesh;
  for (int corner = 0; corner < 8; ++corner)
    mesh.vertices.push_back(center + Vector3d(corner & 1 ? half.x() : -half.x(), corner & 2 ? half.y() : -half.y(),
                                              corner & 4 ? half.z() : -half.z()));
  mesh.triangles = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                    {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  return mesh;
}

// The same surface with every triangle turned over (oriented inward).
TriangleMesh Reversed(TriangleMesh mesh) {
  for (std::array<int, 3>& t : mesh.triangles) std::swap(t[1], t[2]);
  return mesh;
}

// Both meshes as one (the triangles of `b` renumbered after the vertices of `a`).
TriangleMesh Union(TriangleMesh a, const TriangleMesh& b) {
  const int offset = static_cast<int>(a.vertices.size());
  a.vertices.insert(a.vertices.end(), b.vertices.begin(), b.vertices.end());
  for (const std::array<int, 3>& t : b.triangles) a.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
  return a;
}

// An icosahedron whose faces are split in four `subdivisions` times, vertices projected on the sphere of `radius`
// around the origin: 20·4^subdivisions triangles, oriented outward.
TriangleMesh Icosphere(double radius, int subdivisions) {
  const double g = (1 + std::sqrt(5.0)) / 2;
  TriangleMesh mesh;
  mesh.vertices = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                   {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  mesh.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                    {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                    {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (Vector3d& v : mesh.vertices) v.normalize();
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<int, int>, int> midpoints;
    const auto midpoint = [&](int a, int b) {
      const auto [it, added] = midpoints.try_emplace(std::minmax(a, b), static_cast<int>(mesh.vertices.size()));
      if (added) mesh.vertices.push_back((mesh.vertices[a] + mesh.vertices[b]).normalized());
      return it->second;
    };
    std::vector<std::array<int, 3>> finer;
    for (const auto& [a, b, c] : mesh.triangles) {
      const int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      finer.insert(finer.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
    }
    mesh.triangles = std::move(finer);
  }
  for (Vector3d& v : mesh.vertices) v *= radius;
  return mesh;
}

// How far the faceted sphere falls inside the true one [m]: the largest gap between a face's plane and the sphere.
double Sagitta(const TriangleMesh& sphere, double radius) {
  double sagitta = 0;
  for (const std::array<int, 3>& t : sphere.triangles) {
    const Vector3d& a = sphere.vertices[t[0]];
    const Vector3d n = (sphere.vertices[t[1]] - a).cross(sphere.vertices[t[2]] - a).normalized();
    sagitta = std::max(sagitta, radius - n.dot(a));
  }
  return sagitta;
}

// The largest angle [rad] between a face's normal and the radial direction at its corners.
double FaceTilt(const TriangleMesh& sphere) {
  double tilt = 0;
  for (const std::array<int, 3>& t : sphere.triangles) {
    const Vector3d& a = sphere.vertices[t[0]];
    const Vector3d n = (sphere.vertices[t[1]] - a).cross(sphere.vertices[t[2]] - a).normalized();
    for (const int v : t) tilt = std::max(tilt, std::acos(std::min(1.0, n.dot(sphere.vertices[v].normalized()))));
  }
  return tilt;
}

// A concave prism: the L-shaped polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) times `scale`, from z = 0 to z = scale.
TriangleMesh LPrism(double scale) {
  const std::array<Eigen::Vector2d, 6> polygon{{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}};
  TriangleMesh mesh;
  for (const double z : {0.0, 1.0})
    for (const Eigen::Vector2d& p : polygon) mesh.vertices.push_back(scale * Vector3d(p.x(), p.y(), z));
  for (int k = 0; k < 6; ++k) {  // sides: bottom k, k+1 and top 6+k, 6+k+1
    const int next = (k + 1) % 6;
    mesh.triangles.push_back({k, next, 6 + next});
    mesh.triangles.push_back({k, 6 + next, 6 + k});
  }
  for (int k = 1; k < 5; ++k) {  // caps: a fan from corner 0, which sees the whole L
    mesh.triangles.push_back({0, k + 1, k});
    mesh.triangles.push_back({6, 6 + k, 6 + k + 1});
  }
  return mesh;
}

// Distance from p to segment a–b [m].
double SegmentDistance(const Vector3d& p, const Vector3d& a, const Vector3d& b) {
  const double t = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return (p - (a + t * (b - a))).norm();
}

// Distance from p to triangle a, b, c [m], independent of the library's closest-point code: the distance to the
// plane when the projection falls inside the triangle, otherwise to the nearest edge.
double TriangleDistance(const Vector3d& p, const Vector3d& a, const Vector3d& b, const Vector3d& c) {
  const Vector3d n = (b - a).cross(c - a).normalized();
  const Vector3d q = p - n.dot(p - a) * n;
  if (n.dot((b - a).cross(q - a)) >= 0 && n.dot((c - b).cross(q - b)) >= 0 && n.dot((a - c).cross(q - c)) >= 0)
    return std::abs(n.dot(p - a));
  return std::min({SegmentDistance(p, a, b), SegmentDistance(p, b, c), SegmentDistance(p, c, a)});
}

// The exact signed distance of a closed mesh, by brute force [m].
double BruteForceDistance(const TriangleMesh& mesh, const Vector3d& p) {
  double d = std::numeric_limits<double>::infinity();
  for (const std::array<int, 3>& t : mesh.triangles)
    d = std::min(d, TriangleDistance(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]));
  return Contains(mesh, p) ? -d : d;
}

// The analytic signed distance of the box of Box(half, center).
double AnalyticBoxDistance(const Vector3d& p, const Vector3d& half, const Vector3d& center) {
  const Vector3d q = (p - center).cwiseAbs() - half;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

// Whether every corner of the grid cell that holds p lies where the box distance is one linear function: the
// closed region of one face (outside: in that face's slab; inside: that face nearest). Regions are convex, so
// then the whole cell is.
bool CellInOneFaceRegion(const MeshSdf& sdf, const Vector3d& p, const Vector3d& half, const Vector3d& center) {
  const Vector3d cell_index = ((p - sdf.bounds().min) / sdf.cell()).array().floor();
  for (int axis = 0; axis < 3; ++axis) {
    for (const double side : {-1.0, 1.0}) {
      bool all = true;
      for (int corner = 0; corner < 8 && all; ++corner) {
        const Vector3d x =
            sdf.bounds().min + sdf.cell() * (cell_index + Vector3d(corner & 1, corner >> 1 & 1, corner >> 2 & 1));
        const Vector3d q = (x - center).cwiseAbs() - half;  // per-axis gaps, > 0 outside that slab
        const double own = side * (x - center)[axis] - half[axis];
        for (int other = 0; other < 3 && all; ++other) {
          if (other == axis) continue;
          all = own >= 0 ? q[other] <= 0 : own >= q[other];  // outside: within the slab; inside: nearest face
        }
        all = all && side * (x - center)[axis] >= 0;
      }
      if (all) return true;
    }
  }
  return false;
}

// Σ w_i |x_i − p| over the corners x_i of p's cell with their trilinear weights [m]: the largest interpolation
// error of any 1-Lipschitz function (φ(x_i) − φ(p) ≤ |x_i − p|, and the weights sum to one).
double LipschitzInterpolationBound(const MeshSdf& sdf, const Vector3d& p) {
  const Vector3d s = (p - sdf.bounds().min) / sdf.cell();
  const Vector3d i = s.array().floor();
  const Vector3d t = s - i;
  double bound = 0;
  for (int corner = 0; corner < 8; ++corner) {
    const Vector3d o(corner & 1, corner >> 1 & 1, corner >> 2 & 1);
    const double w = (o.x() ? t.x() : 1 - t.x()) * (o.y() ? t.y() : 1 - t.y()) * (o.z() ? t.z() : 1 - t.z());
    bound += w * (sdf.bounds().min + sdf.cell() * (i + o) - p).norm();
  }
  return bound;
}

// A uniformly random point of the grid box.
Vector3d PointInGrid(const MeshSdf& sdf, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const Vector3d size = sdf.bounds().max - sdf.bounds().min;
  return sdf.bounds().min + Vector3d(u(rng), u(rng), u(rng)).cwiseProduct(size);
}

Vector3d GridNode(const MeshSdf& sdf, const Eigen::Vector3i& ijk) {
  return sdf.bounds().min + sdf.cell() * ijk.cast<double>();
}

double AngleDegrees(const Vector3d& a, const Vector3d& b) {
  return std::acos(std::clamp(a.normalized().dot(b.normalized()), -1.0, 1.0)) * 180 / kPi;
}

TEST(MeshSdf, NodesAreExactWithinTheBandAndBoundedBeyond) {
  // A concave prism and a faceted sphere, every node against the brute-force distance. Within the band the
  // samples are the exact distance (float rounding). Beyond it they are propagated: the distance to a real
  // surface point, so |φ| is never below the exact value; allow 0.2 cell above it (0.07 cell measured, near the
  // sphere's centre, where nearest points diverge the most; the prism is exact).
  for (const auto& [name, mesh] : {std::pair{"prism", LPrism(0.2)}, std::pair{"sphere", Icosphere(0.3, 2)}}) {
    ASSERT_FALSE(FindOpenEdge(mesh).has_value());
    const MeshSdf sdf(mesh, 0.02);
    const double band = MeshSdf::kExactBandCells * sdf.cell();
    int in_band = 0, beyond = 0;
    double worst_beyond = 0;  // [cells]
    const Eigen::Vector3i n = sdf.cell_counts();
    for (int i = 0; i <= n.x(); ++i) {
      for (int j = 0; j <= n.y(); ++j) {
        for (int k = 0; k <= n.z(); ++k) {
          const Vector3d x = GridNode(sdf, {i, j, k});
          const double exact = BruteForceDistance(mesh, x), phi = sdf.Distance(x);
          if (std::abs(exact) > kFloatRounding) {  // nodes on a face (the prism's lie on grid planes): either sign
            ASSERT_EQ(phi < 0, exact < 0) << "sign at " << x.transpose() << ": φ " << phi << ", exact " << exact;
          }
          if (std::abs(exact) < band - kFloatRounding) {
            ASSERT_NEAR(phi, exact, kFloatRounding) << "band node " << x.transpose();
            ++in_band;
          } else {
            ASSERT_GE(std::abs(phi), std::abs(exact) - kFloatRounding) << "node " << x.transpose();
            ASSERT_LE(std::abs(phi), std::abs(exact) + 0.2 * sdf.cell()) << "node " << x.transpose();
            worst_beyond = std::max(worst_beyond, (std::abs(phi) - std::abs(exact)) / sdf.cell());
            ++beyond;
          }
        }
      }
    }
    RecordProperty(std::string("worst_propagated_excess_cells_") + name, std::to_string(worst_beyond));
    EXPECT_GT(in_band, 1000);
    EXPECT_GT(beyond, 100);
  }
}

TEST(MeshSdf, MatchesTheBoxDistance) {
  // Where all corners of a point's cell lie in one face's region, φ is linear over the cell, which trilinear
  // interpolation reproduces: φ and the normal are exact up to float rounding. Elsewhere (cells across an edge,
  // corner or inner crease) the error is at most the 1-Lipschitz bound Σ w_i |x_i − p|.
  const Vector3d half(0.3, 0.2, 0.25), center(0.1, -0.2, 0.05);
  const TriangleMesh box = Box(half, center);
  ASSERT_FALSE(FindOpenEdge(box).has_value());
  const MeshSdf sdf(box, 0.025);
  std::mt19937 rng(1);
  int linear_cells = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const Vector3d p = PointInGrid(sdf, rng);
    Vector3d n;
    const double phi = sdf.Distance(p, &n), exact = AnalyticBoxDistance(p, half, center);
    if (CellInOneFaceRegion(sdf, p, half, center)) {
      ++linear_cells;
      ASSERT_NEAR(phi, exact, kFloatRounding) << "at " << p.transpose();
      const Vector3d q = (p - center).cwiseAbs() - half;
      int axis = 0;
      q.maxCoeff(&axis);
      Vector3d face_normal = Vector3d::Zero();
      face_normal[axis] = (p - center)[axis] < 0 ? -1 : 1;
      ASSERT_LT((n - face_normal).norm(), 1e-5) << "at " << p.transpose() << ": n " << n.transpose();
    } else {
      ASSERT_NEAR(phi, exact, LipschitzInterpolationBound(sdf, p) + kFloatRounding) << "at " << p.transpose();
    }
    ASSERT_NEAR(n.norm(), 1, 1e-12);
  }
  EXPECT_GT(linear_cells, 1500);
}

TEST(MeshSdf, MatchesTheSphereDistance) {
  // φ of a faceted sphere (1280 triangles) against |p| − R. Three errors add up: the facets lie up to the
  // sagitta s inside the sphere (so the exact mesh distance is within s of |p| − R), the samples beyond the band
  // are propagated (≤ 0.2 cell, see above; zero when every corner of the cell is in the band), and trilinear
  // interpolation of |x| − R errs by at most h²/8·(|∂xx| + |∂yy| + |∂zz|) = h²/(4·r_min), r_min = |p| − √3·h.
  const double radius = 0.5;
  const TriangleMesh sphere = Icosphere(radius, 3);
  const MeshSdf sdf(sphere, 0.02);
  const double h = sdf.cell(), sagitta = Sagitta(sphere, radius);
  const double exact_reach = (MeshSdf::kExactBandCells - std::sqrt(3.0)) * h - sagitta;
  std::mt19937 rng(2);
  double worst_near = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Vector3d p = PointInGrid(sdf, rng);
    const double r = p.norm(), analytic = r - radius;
    if (r < 4 * h) continue;  // the cone tip at the centre: not differentiable, checked for sign only below
    const double propagated = std::abs(analytic) < exact_reach ? 0 : 0.2 * h;
    const double tolerance = sagitta + propagated + h * h / (4 * (r - std::sqrt(3.0) * h)) + kFloatRounding;
    const double phi = sdf.Distance(p);
    ASSERT_NEAR(phi, analytic, tolerance) << "at " << p.transpose();
    if (propagated == 0) worst_near = std::max(worst_near, std::abs(phi - analytic));
  }
  EXPECT_LT(sdf.Distance(Vector3d::Zero()), -radius + sagitta + h);
  RecordProperty("worst_error_near_surface_m", std::to_string(worst_near));
}

TEST(MeshSdf, NormalsFollowTheSphereNearItsSurface) {
  // Within a cell of the surface the exact gradient of the faceted sphere is tilted from the radial direction by
  // at most the face tilt α (face normal vs. radial at its corners, 2.7° here: 5120 triangles), and across a cell
  // the radial direction turns by √3·h/r (2.1° at h = 1 cm). Each component of the interpolant's gradient is a
  // weighted mean of difference quotients along cell edges, i.e. of that component of exact gradients in the
  // cell, so (to first order in these small angles) the normal is within α + √3·h/r of the radial direction.
  const double radius = 0.5;
  const TriangleMesh sphere = Icosphere(radius, 4);
  const MeshSdf sdf(sphere, 0.01);
  const double h = sdf.cell();
  const double tolerance = (FaceTilt(sphere) + std::sqrt(3.0) * h / (radius - 2 * h)) * 180 / kPi;
  EXPECT_LT(tolerance, 5.0);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const Vector3d direction = Vector3d(u(rng), u(rng), u(rng)).normalized();
    const Vector3d p = (radius + h * u(rng)) * direction;
    Vector3d n;
    sdf.Distance(p, &n);
    ASSERT_NEAR(n.norm(), 1, 1e-12);
    worst = std::max(worst, AngleDegrees(n, direction));
  }
  EXPECT_LT(worst, tolerance);
  RecordProperty("worst_normal_angle_deg", std::to_string(worst));
}

TEST(MeshSdf, SignIsRightWellInsideAndOutside) {
  // Points more than two cells from the surface (where the interpolation error, under a cell, cannot flip it).
  for (const TriangleMesh& mesh : {LPrism(0.2), Icosphere(0.3, 3)}) {
    const MeshSdf sdf(mesh, 0.015);
    std::mt19937 rng(4);
    int inside = 0, outside = 0;
    for (int trial = 0; trial < 400; ++trial) {
      const Vector3d p = PointInGrid(sdf, rng);
      const double exact = BruteForceDistance(mesh, p);
      if (std::abs(exact) < 2 * sdf.cell()) continue;
      EXPECT_EQ(sdf.Distance(p) < 0, exact < 0) << "at " << p.transpose();
      ++(exact < 0 ? inside : outside);
    }
    EXPECT_GT(inside, 20);
    EXPECT_GT(outside, 20);
  }
}

TEST(MeshSdf, OutsideTheGridGrowsWithDistance) {
  // Along rays from the centre beyond the grid box: φ is positive, grows, meets the value on the box without a
  // jump, never falls below the true distance (it is an upper bound) and its normal tends to the radial direction.
  const double radius = 0.3;
  const TriangleMesh sphere = Icosphere(radius, 3);
  const MeshSdf sdf(sphere, 0.02);
  const double slack = Sagitta(sphere, radius) + sdf.cell();  // faceting plus interpolation on the box
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int ray = 0; ray < 50; ++ray) {
    const Vector3d direction = Vector3d(u(rng), u(rng), u(rng)).normalized();
    // Where the ray leaves the box (the box is centred on the sphere).
    const Vector3d half = 0.5 * (sdf.bounds().max - sdf.bounds().min);
    const double exit = (half.array() / direction.array().abs()).minCoeff();
    EXPECT_NEAR(sdf.Distance((exit + 1e-9) * direction), sdf.Distance((exit - 1e-9) * direction), 1e-8);
    double previous = sdf.Distance(exit * direction);
    for (int step = 1; step <= 60; ++step) {
      const double t = exit + 0.05 * step;
      const Vector3d p = t * direction;
      Vector3d n;
      const double phi = sdf.Distance(p, &n);
      ASSERT_GT(phi, previous) << "at " << p.transpose();
      ASSERT_GE(phi, t - radius - slack) << "at " << p.transpose();
      ASSERT_NEAR(n.norm(), 1, 1e-12);
      // The normal points from the estimated nearest surface point, within the sphere's radius of the centre.
      ASSERT_LT(AngleDegrees(n, direction), std::asin(std::min(1.0, (radius + slack) / t)) * 180 / kPi + 1)
          << "at " << p.transpose();
      previous = phi;
    }
  }
}

TEST(MeshSdf, InwardOrientationGivesTheSameField) {
  // The sign comes from the winding number's magnitude, so turning every triangle over changes nothing.
  for (const TriangleMesh& mesh : {Box(Vector3d(0.3, 0.2, 0.25), Vector3d(0.1, -0.2, 0.05)), LPrism(0.2)}) {
    const MeshSdf outward(mesh, 0.02), inward(Reversed(mesh), 0.02);
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int trial = 0; trial < 2000; ++trial) {
      const Vector3d p(u(rng), u(rng), u(rng));
      Vector3d n_out, n_in;
      ASSERT_NEAR(outward.Distance(p, &n_out), inward.Distance(p, &n_in), kFloatRounding) << p.transpose();
      ASSERT_LT((n_out - n_in).norm(), 1e-4) << p.transpose();
    }
  }
}

TEST(MeshSdf, SignOfSeparateAndNestedShells) {
  // Two separate boxes, one of them oriented inward: both are solid. A box inside a larger one with its faces
  // turned inward is a cavity (winding number 1 − 1 = 0): the wall is solid, the cavity is not.
  // Points away from the medial planes, where interpolation across the kink would blur φ by up to half a cell.
  const double tolerance = 1e-3;  // a tenth of a cell
  const Vector3d half = Vector3d::Constant(0.1);
  const TriangleMesh pair = Union(Box(half, Vector3d(-0.2, 0, 0)), Reversed(Box(half, Vector3d(0.2, 0, 0))));
  const MeshSdf pair_sdf(pair, 0.01);
  EXPECT_NEAR(pair_sdf.Distance(Vector3d(-0.2, 0, 0.06)), -0.04, tolerance);
  EXPECT_NEAR(pair_sdf.Distance(Vector3d(0.2, 0.03, 0)), -0.07, tolerance);
  EXPECT_NEAR(pair_sdf.Distance(Vector3d(0.05, 0, 0)), 0.05, tolerance);

  const TriangleMesh shell =
      Union(Box(Vector3d::Constant(0.2), Vector3d::Zero()), Reversed(Box(half, Vector3d::Zero())));
  const MeshSdf shell_sdf(shell, 0.01);
  EXPECT_NEAR(shell_sdf.Distance(Vector3d(0.03, 0, 0)), 0.07, tolerance);   // in the cavity
  EXPECT_NEAR(shell_sdf.Distance(Vector3d(0.13, 0, 0)), -0.03, tolerance);  // in the wall
  EXPECT_NEAR(shell_sdf.Distance(Vector3d(0.25, 0, 0)), 0.05, tolerance);   // outside
}

TEST(MeshSdf, ZeroAreaTrianglesCountAsSegments) {
  // A box with a wire: the triangle (corner, corner, tip) has no area and no solid angle, so it adds the segment
  // from the corner to the tip to the surface and leaves the inside as it was.
  TriangleMesh mesh = Box(Vector3d::Constant(0.1), Vector3d::Zero());
  mesh.vertices.push_back(Vector3d(0.3, -0.1, -0.1));  // tip, 0.2 m along +x from corner 0 (−0.1, −0.1, −0.1)
  mesh.triangles.push_back({0, 0, 8});
  const MeshSdf sdf(mesh, 0.01);
  EXPECT_NEAR(sdf.Distance(Vector3d(0.2, -0.1, -0.13)), 0.03, 1e-6);  // beside the wire: 3 cm from it
  EXPECT_NEAR(sdf.Distance(Vector3d(0.2, -0.1, -0.1)), 0.0, 1e-6);    // on it
  EXPECT_NEAR(sdf.Distance(Vector3d(0, 0, 0.05)), -0.05, 1e-6);       // the box is still solid
}

TEST(MeshSdf, NormalOnTheMedialAxisComesFromTheNearestSurface) {
  // A cube centred in a grid of 13 cells: its centre is the centre of a cell whose 8 corners are equally far from
  // the surface, so the interpolant's gradient vanishes there. The normal is then the direction to the nearest
  // face: a unit axis vector.
  const MeshSdf sdf(Box(Vector3d::Constant(0.5), Vector3d::Zero()), 1 / 8.5);
  ASSERT_EQ(sdf.cell_counts(), Eigen::Vector3i(13, 13, 13));
  Vector3d n;
  EXPECT_NEAR(sdf.Distance(Vector3d::Zero(), &n), -0.5 + 0.5 * sdf.cell(), 1e-6);
  EXPECT_NEAR(n.norm(), 1, 1e-12);
  EXPECT_NEAR(n.cwiseAbs().maxCoeff(), 1, 1e-12) << n.transpose();
}

TEST(MeshSdf, GridCoversTheMeshWithAMarginAndRespectsTheCellLimit) {
  const TriangleMesh box = Box(Vector3d(0.5, 0.25, 0.125), Vector3d(0.1, 0.2, 0.3));
  const Bounds mesh_bounds = AxisAlignedBounds(box);
  const MeshSdf fine(box, 0.0625);  // 1 m × 0.5 m × 0.25 m: 16 × 8 × 4 cells plus the margins
  EXPECT_EQ(fine.cell(), 0.0625);
  EXPECT_EQ(fine.cell_counts(), Eigen::Vector3i(16, 8, 4) + Eigen::Vector3i::Constant(2 * MeshSdf::kMarginCells));
  const MeshSdf capped(box, 1e-4, 32);
  EXPECT_EQ(capped.cell_counts().maxCoeff(), 32);
  EXPECT_GT(capped.cell(), 1e-4);
  for (const MeshSdf* sdf : {&fine, &capped}) {
    const double margin = MeshSdf::kMarginCells * sdf->cell() - 1e-12;
    EXPECT_TRUE((sdf->bounds().min.array() <= mesh_bounds.min.array() - margin).all());
    EXPECT_TRUE((sdf->bounds().max.array() >= mesh_bounds.max.array() + margin).all());
    EXPECT_TRUE(
        ((sdf->bounds().max - sdf->bounds().min - sdf->cell() * sdf->cell_counts().cast<double>()).cwiseAbs().array() <
         1e-12)
            .all());
  }
}

TEST(MeshSdf, RejectsInvalidArguments) {
  const TriangleMesh box = Box(Vector3d::Constant(0.1), Vector3d::Zero());
  const auto message = [](const auto& build) -> std::string {
    try {
      build();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message([] { MeshSdf{TriangleMesh{}, 0.01}; }), "MeshSdf: the mesh has no triangles");
  for (const double cell : {0.0, -0.01, std::nan(""), std::numeric_limits<double>::infinity()})
    EXPECT_NE(message([&] {
                MeshSdf{box, cell};
              }).find("cell must be a finite positive spacing"),
              std::string::npos)
        << cell;
  EXPECT_NE(message([&] {
              MeshSdf{box, 0.01, 4};
            }).find("max_cells_per_axis must be in (4, 1024], got 4"),
            std::string::npos);
  TriangleMesh dangling = box;
  dangling.triangles[3][1] = 8;
  EXPECT_EQ(message([&] { MeshSdf{dangling, 0.01}; }), "MeshSdf: triangle 3 refers to vertex 8 of 8");
  TriangleMesh not_finite = box;
  not_finite.vertices[2].x() = std::nan("");
  EXPECT_EQ(message([&] { MeshSdf{not_finite, 0.01}; }), "MeshSdf: vertex 2 is not finite");
}

TEST(MeshSdf, SamplesDoNotDependOnTheThreadCount) {
  TriangleMesh cavity = Reversed(Icosphere(0.05, 3));
  Transform(cavity, 1, Eigen::Quaterniond::Identity(), Vector3d(0.1, 0.1, 0.1));
  const TriangleMesh mesh = Union(LPrism(0.2), cavity);  // a prism with a spherical cavity
  const auto build = [&](int threads) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    return MeshSdf(mesh, 0.01);
  };
  const MeshSdf one = build(1), many = build(8);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5000; ++trial) {
    const Vector3d p = PointInGrid(one, rng);
    Vector3d n_one, n_many;
    ASSERT_EQ(one.Distance(p, &n_one), many.Distance(p, &n_many)) << p.transpose();
    ASSERT_EQ(n_one, n_many) << p.transpose();
  }
}

TEST(MeshSdf, BuildsATwentyThousandTriangleSphereAtSixtyFourCells) {
  // Build-time sanity check: the time is recorded, not asserted (it depends on the machine).
  const double radius = 0.5;
  const TriangleMesh sphere = Icosphere(radius, 5);
  ASSERT_EQ(sphere.triangles.size(), 20480u);
  const auto start = std::chrono::steady_clock::now();
  const MeshSdf sdf(sphere, 1e-3, 64);
  const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("triangles", static_cast<int>(sphere.triangles.size()));
  RecordProperty("build_ms", std::to_string(build_ms));
  EXPECT_EQ(sdf.cell_counts(), Eigen::Vector3i(64, 64, 64));
  std::mt19937 rng(8);
  for (int trial = 0; trial < 1000; ++trial) {
    const Vector3d p = PointInGrid(sdf, rng);
    if (p.norm() < 0.1) continue;
    // Sagitta plus propagation (0.2 cell) plus interpolation of the sphere distance (h²/(4·r_min), r_min > 0.05).
    ASSERT_NEAR(sdf.Distance(p), p.norm() - radius,
                Sagitta(sphere, radius) + 0.2 * sdf.cell() + sdf.cell() * sdf.cell() / 0.2)
        << p.transpose();
  }
}

}  // namespace
}  // namespace ductile::geometry
