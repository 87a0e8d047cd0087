#include "fem/tetrahedralise.h"

#include "geometry/mesh_sdf.h"
#include "geometry/triangle_mesh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

namespace ductile::fem {
namespace {

constexpr double kMaxCells = 2e6;     // largest grid, cells
constexpr double kMinQuality = 0.15;  // TetQuality every tet keeps while boundary vertices snap
constexpr int kSnapPasses = 3;        // passes over the boundary vertices
constexpr int kMaxHalvings = 6;       // a snap is halved this often before it is dropped
constexpr int kProjectionSteps = 10;  // Newton steps onto φ = 0

using Projection = std::function<Eigen::Vector3d(const Eigen::Vector3d&)>;
using InsideTest = std::function<bool(const Eigen::Vector3d&)>;

void RequirePositive(double value, const std::string& what) {
  if (!(value > 0) || !std::isfinite(value))
    throw std::invalid_argument(what + " must be a positive finite number, got " + std::to_string(value));
}

// A regular grid of `cells` cells of size `spacing` [m] from `origin` [m]: node (i, j, k) is vertex
// (i·(ny + 1) + j)·(nz + 1) + k, n = cells.
struct Grid {
  Eigen::Vector3d origin;
  Eigen::Vector3d spacing;
  Eigen::Vector3i cells;
};

// Cells along an axis of length `length` for edge length h: ⌈length / h⌉ (a ratio within 1e-9 of an integer
// counts as that integer), at least 1.
int CellsAlong(double length, double h) {
  return std::max(1, static_cast<int>(std::ceil(length / h * (1 - 1e-9))));
}

// The grid's nodes and all its Kuhn tets (file comment), positive.
TetMesh KuhnGrid(const Grid& grid) {
  const Eigen::Vector3i& n = grid.cells;
  if (static_cast<double>(n.x()) * n.y() * n.z() > kMaxCells)
    throw std::invalid_argument("the grid would have " + std::to_string(n.x()) + " x " + std::to_string(n.y()) + " x " +
                                std::to_string(n.z()) + " cells, more than 2e6: raise h");
  TetMesh mesh;
  const auto node = [&](int i, int j, int k) { return (i * (n.y() + 1) + j) * (n.z() + 1) + k; };
  for (int i = 0; i <= n.x(); ++i)
    for (int j = 0; j <= n.y(); ++j)
      for (int k = 0; k <= n.z(); ++k)
        mesh.vertices.emplace_back(grid.origin + grid.spacing.cwiseProduct(Eigen::Vector3d(i, j, k)));
  // Axis orderings (a, b, c) with their parity.
  constexpr std::array<std::array<int, 3>, 6> kOrders = {
      {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}};
  mesh.tets.reserve(6 * static_cast<std::size_t>(n.x()) * n.y() * n.z());
  for (int i = 0; i < n.x(); ++i)
    for (int j = 0; j < n.y(); ++j)
      for (int k = 0; k < n.z(); ++k)
        for (std::size_t o = 0; o < kOrders.size(); ++o) {
          Eigen::Vector3i corner(i, j, k);
          std::array<int, 4> tet;
          tet[0] = node(i, j, k);
          for (int step = 0; step < 3; ++step) {
            ++corner[kOrders[o][step]];
            tet[step + 1] = node(corner.x(), corner.y(), corner.z());
          }
          if (o >= 3) std::swap(tet[2], tet[3]);  // odd ordering: negative volume
          mesh.tets.push_back(tet);
        }
  return mesh;
}

// The least TetQuality among `tets`.
double WorstQuality(const TetMesh& mesh, const std::vector<int>& tets) {
  double worst = std::numeric_limits<double>::infinity();
  for (const int t : tets) {
    const std::array<int, 4>& c = mesh.tets[t];
    worst =
        std::min(worst, TetQuality(mesh.vertices[c[0]], mesh.vertices[c[1]], mesh.vertices[c[2]], mesh.vertices[c[3]]));
  }
  return worst;
}

// The boundary vertices of `surface` around which it is not a 2-manifold: the triangles at such a vertex v, each
// (v, a, b) counter-clockwise from outside, do not chain their link edges a → b into one cycle (more than two
// triangles on an edge at v, or several fans meeting at v). Ascending.
std::vector<int> NonManifoldVertices(const TetSurface& surface) {
  std::vector<std::array<int, 3>> corners;  // (v, a, b) per triangle corner
  for (const std::array<int, 3>& f : surface.triangles)
    for (int k = 0; k < 3; ++k) corners.push_back({f[k], f[(k + 1) % 3], f[(k + 2) % 3]});
  std::sort(corners.begin(), corners.end());
  std::vector<int> bad;
  for (std::size_t begin = 0, end = 0; begin < corners.size(); begin = end) {
    while (end < corners.size() && corners[end][0] == corners[begin][0]) ++end;
    const auto first = corners.begin() + begin, last = corners.begin() + end;  // sorted by a, then b
    const int v = corners[begin][0], start = corners[begin][1];
    bool manifold = true;  // no two link edges leave the same a
    for (auto c = first + 1; c != last; ++c) manifold = manifold && (*c)[1] != (*(c - 1))[1];
    // Walk the link from `start`; a manifold vertex's walk returns there after using every link edge once.
    std::size_t steps = 0;
    for (int a = start; manifold && steps <= end - begin;) {
      const auto edge = std::lower_bound(first, last, std::array<int, 3>{v, a, -1});
      manifold = edge != last && (*edge)[1] == a;
      a = manifold ? (*edge)[2] : a;
      ++steps;
      if (a == start) break;
    }
    if (!manifold || steps != end - begin) bad.push_back(corners[begin][0]);
  }
  return bad;
}

// The tets of KuhnGrid(grid) that have grid node v.
std::vector<int> TetsAround(const Grid& grid, const TetMesh& full, int v) {
  const Eigen::Vector3i& n = grid.cells;
  const Eigen::Vector3i node(v / ((n.y() + 1) * (n.z() + 1)), v / (n.z() + 1) % (n.y() + 1), v % (n.z() + 1));
  std::vector<int> around;
  for (int i = node.x() - 1; i <= node.x(); ++i)
    for (int j = node.y() - 1; j <= node.y(); ++j)
      for (int k = node.z() - 1; k <= node.z(); ++k) {
        if (i < 0 || j < 0 || k < 0 || i >= n.x() || j >= n.y() || k >= n.z()) continue;
        for (int t = 6 * ((i * n.y() + j) * n.z() + k), last = t + 6; t < last; ++t)
          if (std::find(full.tets[t].begin(), full.tets[t].end(), v) != full.tets[t].end()) around.push_back(t);
      }
  return around;
}

// Adds grid tets to `keep` until the kept tets' boundary is a 2-manifold: all the grid tets around each of its
// non-manifold vertices (NonManifoldVertices). Only adds, so it ends (at worst when the whole grid is kept or nothing
// more can be added at the grid's edge).
void MakeBoundaryManifold(const Grid& grid, const TetMesh& full, std::vector<char>& keep) {
  for (bool added = true; added;) {
    TetMesh kept;  // BuildSurface reads the tets only
    for (std::size_t t = 0; t < full.tets.size(); ++t)
      if (keep[t]) kept.tets.push_back(full.tets[t]);
    added = false;
    for (const int v : NonManifoldVertices(BuildSurface(kept)))
      for (const int t : TetsAround(grid, full, v)) {
        added = added || !keep[t];
        keep[t] = 1;
      }
  }
}

// Moves boundary vertex v from its position towards `target` (file comment): the whole way, or the largest of
// 1/2, 1/4, ... (kMaxHalvings) of it that keeps every tet around v (`star`) at kMinQuality; stays otherwise.
void SnapVertex(TetMesh& mesh, int v, const Eigen::Vector3d& target, const std::vector<int>& star) {
  const Eigen::Vector3d start = mesh.vertices[v];
  if (target == start) return;
  for (int halving = 0; halving <= kMaxHalvings; ++halving) {
    mesh.vertices[v] = start + std::ldexp(1.0, -halving) * (target - start);
    if (WorstQuality(mesh, star) >= kMinQuality) return;
  }
  mesh.vertices[v] = start;
}

// Moves inner vertex v to the mean of its neighbours when that raises the worst quality of its star (file comment).
void SmoothVertex(TetMesh& mesh, int v, const std::vector<int>& star) {
  if (star.empty()) return;
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  int count = 0;
  for (const int t : star)
    for (const int u : mesh.tets[t])
      if (u != v) {
        sum += mesh.vertices[u];
        ++count;
      }
  const Eigen::Vector3d start = mesh.vertices[v];
  const double before = WorstQuality(mesh, star);
  mesh.vertices[v] = sum / count;  // shared neighbours count once per tet: a weighted mean
  if (!(WorstQuality(mesh, star) > before)) mesh.vertices[v] = start;
}

// Snaps the boundary vertices of `mesh` onto `project` of their start positions and smooths the inner ones, in
// alternating passes (file comment); every tet keeps at least kMinQuality.
void SnapBoundary(TetMesh& mesh, const Projection& project) {
  const TetSurface surface = BuildSurface(mesh);
  std::vector<std::vector<int>> star(mesh.vertices.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    for (const int v : mesh.tets[t]) star[v].push_back(static_cast<int>(t));
  std::vector<char> on_boundary(mesh.vertices.size(), 0);
  std::vector<Eigen::Vector3d> target(surface.vertices.size());
  for (std::size_t b = 0; b < surface.vertices.size(); ++b) {
    on_boundary[surface.vertices[b]] = 1;
    target[b] = project(mesh.vertices[surface.vertices[b]]);
  }
  for (int pass = 0; pass < kSnapPasses; ++pass) {
    for (std::size_t b = 0; b < surface.vertices.size(); ++b)
      SnapVertex(mesh, surface.vertices[b], target[b], star[surface.vertices[b]]);
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v)
      if (!on_boundary[v]) SmoothVertex(mesh, static_cast<int>(v), star[v]);
  }
}

// The Kuhn grid of cubic cells of edge h over [low, high] padded by one cell, with the tets whose centroid is
// `inside` and those that make the boundary manifold, its boundary snapped onto `project`. Empty when no tet is
// inside.
TetMesh StuffAndSnap(const InsideTest& inside, const Projection& project, const Eigen::Vector3d& low,
                     const Eigen::Vector3d& high, double h) {
  Grid grid;
  grid.origin = low - Eigen::Vector3d::Constant(h);
  grid.spacing = Eigen::Vector3d::Constant(h);
  for (int axis = 0; axis < 3; ++axis) grid.cells[axis] = CellsAlong(high[axis] - low[axis] + 2 * h, h);
  TetMesh mesh = KuhnGrid(grid);
  std::vector<char> keep(mesh.tets.size(), 0);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const std::array<int, 4>& c = mesh.tets[t];
    keep[t] = inside((mesh.vertices[c[0]] + mesh.vertices[c[1]] + mesh.vertices[c[2]] + mesh.vertices[c[3]]) / 4);
  }
  MakeBoundaryManifold(grid, mesh, keep);
  std::vector<std::array<int, 4>> kept;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    if (keep[t]) kept.push_back(mesh.tets[t]);
  mesh.tets = std::move(kept);
  RemoveUnreferencedVertices(mesh);
  if (!mesh.tets.empty()) SnapBoundary(mesh, project);
  return mesh;
}

// Newton steps from p onto φ = 0: p ← p − φ(p)·∇φ/|∇φ|², ∇φ by central differences of step 1e-4·h.
Eigen::Vector3d ProjectOntoZeroSet(const SignedDistanceFunction& sdf, Eigen::Vector3d p, double h) {
  const double step = 1e-4 * h;
  for (int iteration = 0; iteration < kProjectionSteps; ++iteration) {
    const double phi = sdf(p);
    if (std::abs(phi) <= 1e-9 * h) break;
    Eigen::Vector3d gradient;
    for (int axis = 0; axis < 3; ++axis) {
      const Eigen::Vector3d e = Eigen::Vector3d::Unit(axis) * step;
      gradient[axis] = (sdf(p + e) - sdf(p - e)) / (2 * step);
    }
    const double squared = gradient.squaredNorm();
    if (!(squared > 1e-12)) break;  // a critical point of φ: no direction to move in
    p -= phi * gradient / squared;
  }
  return p;
}

void RequireBox(const Eigen::Vector3d& half_extents) {
  RequirePositive(half_extents.x(), "the box's half extent along x");
  RequirePositive(half_extents.y(), "the box's half extent along y");
  RequirePositive(half_extents.z(), "the box's half extent along z");
}

// ---------------------------------------------------------------------------------------------------------------
// Closed triangle meshes.

}  // namespace

TetMesh TetrahedraliseBox(const Eigen::Vector3d& half_extents, double h) {
  RequireBox(half_extents);
  RequirePositive(h, "h");
  Grid grid;
  grid.origin = -half_extents;
  for (int axis = 0; axis < 3; ++axis) {
    grid.cells[axis] = CellsAlong(2 * half_extents[axis], h);
    grid.spacing[axis] = 2 * half_extents[axis] / grid.cells[axis];
  }
  return KuhnGrid(grid);
}

TetMesh TetrahedraliseSheet(double size_x, double size_y, double thickness, double h) {
  RequirePositive(size_x, "the sheet's size along x");
  RequirePositive(size_y, "the sheet's size along y");
  RequirePositive(thickness, "the sheet's thickness");
  RequirePositive(h, "h");
  const Eigen::Vector3d size(size_x, size_y, thickness);
  Grid grid;
  grid.origin = -size / 2;
  grid.cells = Eigen::Vector3i(CellsAlong(size_x, h), CellsAlong(size_y, h), 1);
  grid.spacing = size.cwiseQuotient(grid.cells.cast<double>());
  return KuhnGrid(grid);
}

TetMesh TetrahedraliseSdf(const SignedDistanceFunction& sdf, const Eigen::Vector3d& box_min,
                          const Eigen::Vector3d& box_max, double h) {
  RequirePositive(h, "h");
  if (!box_min.allFinite() || !box_max.allFinite() || !(box_min.array() < box_max.array()).all())
    throw std::invalid_argument("the bounding box must be finite with box_min < box_max on every axis");
  TetMesh mesh =
      StuffAndSnap([&](const Eigen::Vector3d& p) { return sdf(p) < 0; },
                   [&](const Eigen::Vector3d& p) { return ProjectOntoZeroSet(sdf, p, h); }, box_min, box_max, h);
  if (mesh.tets.empty())
    throw std::invalid_argument(
        "no grid tet has its centroid inside the solid: h is too coarse for it, or the box misses it");
  return mesh;
}

TetMesh TetrahedraliseSphere(double radius, double h) {
  RequirePositive(radius, "the sphere's radius");
  const Eigen::Vector3d r = Eigen::Vector3d::Constant(radius);
  return TetrahedraliseSdf([radius](const Eigen::Vector3d& p) { return p.norm() - radius; }, -r, r, h);
}

TetMesh TetrahedraliseCylinder(double radius, double half_length, double h) {
  RequirePositive(radius, "the cylinder's radius");
  RequirePositive(half_length, "the cylinder's half length");
  // Exact distance: d = (ρ − r, |z| − L), φ = min(max(d₀, d₁), 0) + |max(d, 0)|.
  const auto sdf = [radius, half_length](const Eigen::Vector3d& p) {
    const Eigen::Vector2d d(p.head<2>().norm() - radius, std::abs(p.z()) - half_length);
    return std::min(d.maxCoeff(), 0.0) + d.cwiseMax(0.0).norm();
  };
  const Eigen::Vector3d extent(radius, radius, half_length);
  return TetrahedraliseSdf(sdf, -extent, extent, h);
}

TetMesh TetrahedraliseCapsule(double radius, double half_length, double h) {
  RequirePositive(radius, "the capsule's radius");
  if (!(half_length >= 0) || !std::isfinite(half_length))
    throw std::invalid_argument("the capsule's half length must be a finite number >= 0, got " +
                                std::to_string(half_length));
  const auto sdf = [radius, half_length](const Eigen::Vector3d& p) {
    const Eigen::Vector3d on_axis(0, 0, std::clamp(p.z(), -half_length, half_length));
    return (p - on_axis).norm() - radius;
  };
  const Eigen::Vector3d extent(radius, radius, half_length + radius);
  return TetrahedraliseSdf(sdf, -extent, extent, h);
}

TetMeshResult TetrahedraliseTriangleMesh(const geometry::TriangleMesh& mesh, double h) {
  RequirePositive(h, "h");
  TetMeshResult result;
  if (mesh.triangles.empty()) {
    result.error = "the triangle mesh has no triangles";
    return result;
  }
  if (const auto defect = geometry::FindOpenEdge(mesh)) {
    result.error = *defect + " (a solid needs a closed, consistently oriented mesh)";
    return result;
  }
  const geometry::Bounds bounds = geometry::AxisAlignedBounds(mesh);
  const Eigen::Vector3d low = bounds.min, high = bounds.max;
  const auto inside = [&](const Eigen::Vector3d& p) {
    if ((p.array() < low.array()).any() || (p.array() > high.array()).any()) return false;
    return geometry::Contains(mesh, p);
  };
  const auto project = [&](const Eigen::Vector3d& p) {
    Eigen::Vector3d closest = mesh.vertices[mesh.triangles[0][0]];
    for (const std::array<int, 3>& t : mesh.triangles) {
      const Eigen::Vector3d q =
          geometry::ClosestPointOnTriangle(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]);
      if ((q - p).squaredNorm() < (closest - p).squaredNorm()) closest = q;
    }
    return closest;
  };
  result.mesh = StuffAndSnap(inside, project, low, high, h);
  if (result.mesh.tets.empty())
    result.error = "no grid tet has its centroid inside the triangle mesh: h is too coarse for it";
  return result;
}

}  // namespace ductile::fem
