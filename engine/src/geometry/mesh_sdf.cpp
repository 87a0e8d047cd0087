#include "geometry/mesh_sdf.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace ductile::geometry {

using Eigen::Vector3d;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Largest accepted max_cells_per_axis: (1024 + 1)³ nodes still fit the 32-bit node numbers of the sign pass.
constexpr int kMaxCellsPerAxisLimit = 1024;
// Nodes per edge of the blocks that are tested as a whole for holding no band node.
constexpr int kBlockNodes = 4;
// Triangles per leaf of the hierarchy.
constexpr int kLeafSize = 4;
// Relative slack in the ball-cover test d(a) + d(b) > |a − b|, so that rounding never joins across the surface.
constexpr double kCoverSlack = 1e-6;
// A node number that names no node.
constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();
// Sets of nodes that all lie closer than this many cells to the surface try to join their neighbours.
constexpr double kThinCells = 2;
// Halvings of a segment in the ball-cover test: it certifies segments whose end nodes are at least about
// 0.2·cell / 2^8 from the surface.
constexpr int kCoverDepth = 8;
// Sets of nodes all within this many cells of the surface are left outside (their sign does not matter).
constexpr double kOnSurfaceCells = 1e-6;

// Closest point of segment a–b to p (a itself when a = b).
Vector3d ClosestPointOnSegment(const Vector3d& p, const Vector3d& a, const Vector3d& b) {
  const Vector3d ab = b - a;
  const double length2 = ab.squaredNorm();
  return length2 > 0 ? Vector3d(a + std::clamp((p - a).dot(ab) / length2, 0.0, 1.0) * ab) : a;
}

// Squared distance [m²] from p to the box [lo, hi]; 0 inside.
double BoxDistance2(const Vector3d& p, const Vector3d& lo, const Vector3d& hi) {
  return (lo - p).cwiseMax(p - hi).cwiseMax(0.0).squaredNorm();
}

std::invalid_argument SdfError(const std::string& problem) {
  return std::invalid_argument("MeshSdf: " + problem);
}

void Validate(const TriangleMesh& mesh, double cell, int max_cells_per_axis) {
  if (mesh.triangles.empty()) throw SdfError("the mesh has no triangles");
  if (!std::isfinite(cell) || !(cell > 0))
    throw SdfError("cell must be a finite positive spacing [m], got " + std::to_string(cell));
  if (max_cells_per_axis <= 2 * MeshSdf::kMarginCells || max_cells_per_axis > kMaxCellsPerAxisLimit)
    throw SdfError("max_cells_per_axis must be in (" + std::to_string(2 * MeshSdf::kMarginCells) + ", " +
                   std::to_string(kMaxCellsPerAxisLimit) + "], got " + std::to_string(max_cells_per_axis));
  const int vertex_count = static_cast<int>(mesh.vertices.size());
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    for (const int v : mesh.triangles[f]) {
      if (v < 0 || v >= vertex_count)
        throw SdfError("triangle " + std::to_string(f) + " refers to vertex " + std::to_string(v) + " of " +
                       std::to_string(vertex_count));
      if (!mesh.vertices[v].allFinite()) throw SdfError("vertex " + std::to_string(v) + " is not finite");
    }
  }
}

// Disjoint sets of node numbers; the root of a set is its smallest member, so the sets and their roots do not
// depend on the order of the unions.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t Find(std::uint32_t a) {
    while (parent_[a] != a) a = parent_[a] = parent_[parent_[a]];  // path halving
    return a;
  }
  void Join(std::uint32_t a, std::uint32_t b) {
    a = Find(a);
    b = Find(b);
    if (a < b) parent_[b] = a;
    if (b < a) parent_[a] = b;
  }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace

// Ericson 2005, Real-Time Collision Detection §5.1.5: by the Voronoi region (vertex, edge or face) that contains p.
Vector3d ClosestPointOnTriangle(const Vector3d& p, const Vector3d& a, const Vector3d& b, const Vector3d& c) {
  const Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denominator = 1 / (va + vb + vc);
  return a + ab * (vb * denominator) + ac * (vc * denominator);
}

// A bounding volume hierarchy over the triangles for exact nearest-triangle queries: binary, split at the median
// centroid along the longest axis of the centroids' bounds, so its depth is about log2(triangles / kLeafSize).
class MeshSdf::TriangleTree {
 public:
  /// The nearest triangle to a point: squared distance [m²], triangle (tree order, −1 for none), closest point.
  struct Nearest {
    double distance2 = kInfinity;
    int triangle = -1;
    Vector3d point = Vector3d::Zero();
  };

  explicit TriangleTree(const TriangleMesh& mesh) {
    const int n = static_cast<int>(mesh.triangles.size());
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::vector<Vector3d> centroids(n);
    for (int f = 0; f < n; ++f) {
      const std::array<int, 3>& t = mesh.triangles[f];
      centroids[f] = (mesh.vertices[t[0]] + mesh.vertices[t[1]] + mesh.vertices[t[2]]) / 3;
    }
    nodes_.reserve(2 * static_cast<std::size_t>(n / kLeafSize + 1));
    Build(mesh, centroids, order, 0, n);
    corners_.reserve(n);
    for (const int f : order) {
      const std::array<int, 3>& t = mesh.triangles[f];
      corners_.push_back({mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]});
      const Vector3d normal =
          (mesh.vertices[t[1]] - mesh.vertices[t[0]]).cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
      unit_normals_.push_back(normal.norm() > 0 ? Vector3d(normal.normalized()) : Vector3d::Zero());
    }
  }

  /// The nearest triangle to p among those closer than `max_distance` [m] (none: triangle −1, distance2 +∞).
  /// `seed`, a triangle (tree order) or −1, only tightens the search: the distance found is the exact minimum
  /// whatever the seed. Ties between triangles go to the first one visited.
  Nearest Closest(const Vector3d& p, int seed, double max_distance) const {
    Nearest best;
    best.distance2 = max_distance * max_distance;
    if (seed >= 0) Visit(p, seed, best);
    struct Pending {
      int node;
      double distance2;
    };
    std::array<Pending, 128> stack;  // depth ≤ log2(2³¹) + 1 with median splits; one entry per level at most
    int top = 0;
    stack[top++] = {0, BoxDistance2(p, nodes_[0].lo, nodes_[0].hi)};
    while (top > 0) {
      const Pending pending = stack[--top];
      if (pending.distance2 >= best.distance2) continue;  // the best improved since this box was pushed
      const Node& node = nodes_[pending.node];
      if (node.count > 0) {
        for (int f = node.first; f < node.first + node.count; ++f) Visit(p, f, best);
        continue;
      }
      // Push the farther child first so that the nearer one is searched first and tightens the bound.
      const int left = pending.node + 1;
      Pending near{left, BoxDistance2(p, nodes_[left].lo, nodes_[left].hi)};
      Pending far{node.right, BoxDistance2(p, nodes_[node.right].lo, nodes_[node.right].hi)};
      if (far.distance2 < near.distance2) std::swap(near, far);
      if (far.distance2 < best.distance2) stack[top++] = far;
      if (near.distance2 < best.distance2) stack[top++] = near;
    }
    if (best.triangle < 0) best.distance2 = kInfinity;
    return best;
  }

  /// The normal (b − a) × (c − a) of a triangle (tree order), not normalised [m²].
  Vector3d AreaNormal(int triangle) const {
    const std::array<Vector3d, 3>& t = corners_[triangle];
    return (t[1] - t[0]).cross(t[2] - t[0]);
  }

 private:
  // A box over triangles: a leaf when count > 0 (triangles first .. first + count − 1 in tree order), otherwise
  // an inner node whose children are the next node and node `right`.
  struct Node {
    Vector3d lo, hi;
    int first = 0, count = 0, right = 0;
  };

  void Visit(const Vector3d& p, int f, Nearest& best) const {
    const std::array<Vector3d, 3>& t = corners_[f];
    const double plane = unit_normals_[f].dot(p - t[0]);  // distance to the plane: a lower bound (0 if degenerate)
    if (plane * plane >= best.distance2) return;
    const Vector3d q =
        unit_normals_[f].isZero() ? ClosestPointOnEdges(p, t) : ClosestPointOnTriangle(p, t[0], t[1], t[2]);
    const double d2 = (p - q).squaredNorm();
    if (d2 < best.distance2) best = {d2, f, q};
  }

  // A triangle of zero area is the union of its edges.
  static Vector3d ClosestPointOnEdges(const Vector3d& p, const std::array<Vector3d, 3>& t) {
    Vector3d nearest = t[0];
    for (int k = 0; k < 3; ++k) {
      const Vector3d q = ClosestPointOnSegment(p, t[k], t[(k + 1) % 3]);
      if ((p - q).squaredNorm() < (p - nearest).squaredNorm()) nearest = q;
    }
    return nearest;
  }

  // Builds the subtree over order[begin, end) and returns its node index.
  int Build(const TriangleMesh& mesh, const std::vector<Vector3d>& centroids, std::vector<int>& order, int begin,
            int end) {
    const int index = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    Vector3d lo = Vector3d::Constant(kInfinity), hi = -lo;
    Vector3d centroid_lo = lo, centroid_hi = hi;
    for (int i = begin; i < end; ++i) {
      for (const int v : mesh.triangles[order[i]]) {
        lo = lo.cwiseMin(mesh.vertices[v]);
        hi = hi.cwiseMax(mesh.vertices[v]);
      }
      centroid_lo = centroid_lo.cwiseMin(centroids[order[i]]);
      centroid_hi = centroid_hi.cwiseMax(centroids[order[i]]);
    }
    nodes_[index].lo = lo;
    nodes_[index].hi = hi;
    if (end - begin <= kLeafSize) {
      nodes_[index].first = begin;
      nodes_[index].count = end - begin;
      return index;
    }
    int axis = 0;
    (centroid_hi - centroid_lo).maxCoeff(&axis);
    const int middle = begin + (end - begin) / 2;
    // Ties broken by triangle number, so the tree does not depend on the standard library's selection order.
    std::nth_element(order.begin() + begin, order.begin() + middle, order.begin() + end, [&](int a, int b) {
      return centroids[a][axis] < centroids[b][axis] || (centroids[a][axis] == centroids[b][axis] && a < b);
    });
    Build(mesh, centroids, order, begin, middle);
    nodes_[index].right = Build(mesh, centroids, order, middle, end);
    return index;
  }

  std::vector<Node> nodes_;                       // root first; a node's left child follows it
  std::vector<std::array<Vector3d, 3>> corners_;  // triangle corners [m] in tree order
  std::vector<Vector3d> unit_normals_;            // unit normals in tree order; zero for zero-area triangles
};

// Node numbering of a grid of n[0] × n[1] × n[2] nodes: (i·n[1] + j)·n[2] + k, rows along z contiguous.
struct MeshSdf::NodeGrid {
  Vector3d origin;         // position of node (0, 0, 0) [m]
  double cell = 0;         // spacing [m]
  std::array<int, 3> n{};  // nodes per axis
  std::size_t Count() const { return static_cast<std::size_t>(n[0]) * n[1] * n[2]; }
  std::size_t Stride(int axis) const {
    return axis == 0 ? static_cast<std::size_t>(n[1]) * n[2] : axis == 1 ? static_cast<std::size_t>(n[2]) : 1;
  }
  std::array<int, 3> Index(std::size_t a) const {
    return {static_cast<int>(a / Stride(0)), static_cast<int>(a / n[2] % n[1]), static_cast<int>(a % n[2])};
  }
  Vector3d Position(const std::array<int, 3>& ijk) const { return origin + cell * Vector3d(ijk[0], ijk[1], ijk[2]); }
};

namespace {

// Whether the segment x–y certainly does not cross the surface, given exact distances dx, dy [m] of its ends:
// the open balls of radius d(x) around x and d(y) around y hold no surface, and they cover the segment when
// d(x) + d(y) > |x − y|. Otherwise the segment is halved (up to `depth` times) and the halves are tested.
template <typename DistanceFn>
bool BallsCover(const Vector3d& x, double dx, const Vector3d& y, double dy, int depth, const DistanceFn& distance) {
  const double length = (y - x).norm();
  if (dx + dy > length * (1 + kCoverSlack)) return true;
  if (depth == 0) return false;
  const Vector3d m = 0.5 * (x + y);
  const double dm = distance(m, 0.5 * length);
  if (dm == 0) return false;
  return BallsCover(x, dx, m, dm, depth - 1, distance) && BallsCover(m, dm, y, dy, depth - 1, distance);
}

}  // namespace

MeshSdf::MeshSdf(const TriangleMesh& mesh, double cell, int max_cells_per_axis) {
  Validate(mesh, cell, max_cells_per_axis);

  // Grid: the mesh bounds, centred, plus kMarginCells on every side; coarser if the longest axis needs more
  // cells than allowed.
  const Bounds mesh_bounds = AxisAlignedBounds(mesh);
  const Vector3d extent = mesh_bounds.max - mesh_bounds.min;
  const int inner_cells_limit = max_cells_per_axis - 2 * kMarginCells;
  if (std::ceil(extent.maxCoeff() / cell) > inner_cells_limit) cell = extent.maxCoeff() / inner_cells_limit;
  cell_ = cell;
  for (int a = 0; a < 3; ++a) {
    // min(): extent / cell may round to just above the limit after the spacing was grown to meet it.
    const int inner = std::min(static_cast<int>(std::ceil(extent[a] / cell)), inner_cells_limit);
    cells_[a] = inner + 2 * kMarginCells;
  }
  const Vector3d center = 0.5 * (mesh_bounds.min + mesh_bounds.max);
  bounds_.min = center - 0.5 * cell * cells_.cast<double>();
  bounds_.max = bounds_.min + cell * cells_.cast<double>();

  double volume6 = 0;  // six times the signed volume: positive for an outward-oriented closed mesh
  for (const std::array<int, 3>& t : mesh.triangles)
    volume6 += mesh.vertices[t[0]].dot(mesh.vertices[t[1]].cross(mesh.vertices[t[2]]));
  orientation_ = volume6 < 0 ? -1 : 1;
  tree_ = std::make_shared<const TriangleTree>(mesh);

  const NodeGrid grid{bounds_.min, cell, {cells_.x() + 1, cells_.y() + 1, cells_.z() + 1}};
  std::vector<double> distance(grid.Count());  // unsigned distance d [m] per node
  {
    std::vector<Eigen::Vector3f> to_surface(grid.Count());  // a surface point at distance d minus the node [m]
    ExactDistanceInBand(grid, distance, to_surface);
    PropagateDistance(grid, distance, to_surface);
  }
  const std::vector<char> inside = InsideNodes(mesh, grid, distance);
  phi_.resize(grid.Count());
  for (std::size_t a = 0; a < grid.Count(); ++a) phi_[a] = static_cast<float>(inside[a] ? -distance[a] : distance[a]);
}

void MeshSdf::ExactDistanceInBand(const NodeGrid& grid, std::vector<double>& distance,
                                  std::vector<Eigen::Vector3f>& to_surface) const {
  const double band = kExactBandCells * grid.cell;
  // Blocks of kBlockNodes³ nodes with no triangle within band + (half the block diagonal) of their centre hold
  // no band node: their nodes skip the search.
  std::array<int, 3> blocks{};
  for (int axis = 0; axis < 3; ++axis) blocks[axis] = (grid.n[axis] + kBlockNodes - 1) / kBlockNodes;
  const double half_diagonal = 0.5 * (kBlockNodes - 1) * std::sqrt(3.0) * grid.cell;
  std::vector<char> block_near(static_cast<std::size_t>(blocks[0]) * blocks[1] * blocks[2]);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, block_near.size(), 16), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t b = r.begin(); b < r.end(); ++b) {
          const int bi = static_cast<int>(b / (static_cast<std::size_t>(blocks[1]) * blocks[2]));
          const int bj = static_cast<int>(b / blocks[2] % blocks[1]), bk = static_cast<int>(b % blocks[2]);
          const Vector3d center = grid.origin + grid.cell * (kBlockNodes * Vector3d(bi, bj, bk) +
                                                             Vector3d::Constant(0.5 * (kBlockNodes - 1)));
          block_near[b] = tree_->Closest(center, -1, band + half_diagonal).triangle >= 0;
        }
      });

  tbb::parallel_for(tbb::blocked_range<int>(0, grid.n[0] * grid.n[1], 16), [&](const tbb::blocked_range<int>& rows) {
    for (int row = rows.begin(); row < rows.end(); ++row) {
      const int i = row / grid.n[1], j = row % grid.n[1];
      const std::size_t block_row =
          (static_cast<std::size_t>(i / kBlockNodes) * blocks[1] + j / kBlockNodes) * blocks[2];
      int seed = -1;  // the previous node's nearest triangle: it tightens the search, the result stays exact
      for (int k = 0; k < grid.n[2]; ++k) {
        const std::size_t a = static_cast<std::size_t>(row) * grid.n[2] + k;
        distance[a] = kInfinity;
        if (!block_near[block_row + k / kBlockNodes]) continue;
        const Vector3d x = grid.Position({i, j, k});
        const TriangleTree::Nearest nearest = tree_->Closest(x, seed, band);
        if (nearest.triangle < 0) continue;
        distance[a] = std::sqrt(nearest.distance2);
        to_surface[a] = (nearest.point - x).cast<float>();
        seed = nearest.triangle;
      }
    }
  });
}

void MeshSdf::PropagateDistance(const NodeGrid& grid, std::vector<double>& distance,
                                std::vector<Eigen::Vector3f>& to_surface) {
  const double band = kExactBandCells * grid.cell;
  for (int sweep = 0; sweep < 8; ++sweep) {
    const std::array<int, 3> s{sweep & 4 ? -1 : 1, sweep & 2 ? -1 : 1, sweep & 1 ? -1 : 1};  // sweep direction
    // The upwind neighbours b = a − s⊙m, m ∈ {0, 1}³ \ {0} (bits: x, y, z): node offset and x_a − x_b [m].
    std::array<std::ptrdiff_t, 8> offset{};
    std::array<Eigen::Vector3f, 8> shift{};
    for (int m = 1; m < 8; ++m) {
      const std::array<int, 3> o{m >> 2 & 1, m >> 1 & 1, m & 1};
      shift[m] = Eigen::Vector3f::Zero();
      for (int axis = 0; axis < 3; ++axis) {
        offset[m] -= static_cast<std::ptrdiff_t>(grid.Stride(axis)) * s[axis] * o[axis];
        shift[m][axis] = static_cast<float>(s[axis] * o[axis] * grid.cell);
      }
    }
    std::array<int, 3> ijk{};
    for (int ii = 0; ii < grid.n[0]; ++ii) {
      ijk[0] = s[0] > 0 ? ii : grid.n[0] - 1 - ii;
      for (int jj = 0; jj < grid.n[1]; ++jj) {
        ijk[1] = s[1] > 0 ? jj : grid.n[1] - 1 - jj;
        const int missing_ij = (ii > 0 ? 0 : 4) | (jj > 0 ? 0 : 2);  // bits of m whose axis has no upwind node
        for (int kk = 0; kk < grid.n[2]; ++kk) {
          ijk[2] = s[2] > 0 ? kk : grid.n[2] - 1 - kk;
          const std::size_t a = (static_cast<std::size_t>(ijk[0]) * grid.n[1] + ijk[1]) * grid.n[2] + ijk[2];
          if (distance[a] < band) continue;  // exact already
          const int missing = missing_ij | (kk > 0 ? 0 : 1);
          for (int m = 1; m < 8; ++m) {
            if (m & missing) continue;
            const auto b = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(a) + offset[m]);
            if (!std::isfinite(distance[b])) continue;
            const Eigen::Vector3f candidate = to_surface[b] - shift[m];
            const double d = candidate.cast<double>().norm();
            if (d < distance[a]) {
              distance[a] = d;
              to_surface[a] = candidate;
            }
          }
        }
      }
    }
  }
}

std::vector<char> MeshSdf::InsideNodes(const TriangleMesh& mesh, const NodeGrid& grid,
                                       const std::vector<double>& distance) const {
  const std::size_t count = grid.Count();
  DisjointSets sets(count);
  // 1. Join neighbours whose distance balls cover the segment between them (so it does not cross the surface).
  const double cover = grid.cell * (1 + kCoverSlack);
  for (std::size_t a = 0; a < count; ++a) {
    const std::array<int, 3> ijk = grid.Index(a);
    for (int axis = 0; axis < 3; ++axis) {
      const std::size_t b = a + grid.Stride(axis);
      if (ijk[axis] + 1 < grid.n[axis] && distance[a] + distance[b] > cover)
        sets.Join(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
    }
  }
  // 2. Each node of a set that stays within kThinCells of the surface joins a neighbour of another set on its side.
  // All choices are made on the sets of step 1, so the result does not depend on the order of the tests.
  std::vector<std::uint32_t> root(count);
  for (std::size_t a = 0; a < count; ++a) root[a] = sets.Find(static_cast<std::uint32_t>(a));
  for (const auto& [a, b] : ThinSetJoins(grid, distance, root)) sets.Join(a, b);
  // 3. The sign of each set.
  for (std::size_t a = 0; a < count; ++a) root[a] = sets.Find(static_cast<std::uint32_t>(a));
  return InsideBySet(mesh, grid, distance, root);
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> MeshSdf::ThinSetJoins(
    const NodeGrid& grid, const std::vector<double>& distance, const std::vector<std::uint32_t>& root) const {
  const std::size_t count = grid.Count();
  std::vector<float> reach(count, 0);  // per root: the largest distance of its nodes [m]
  for (std::size_t a = 0; a < count; ++a) reach[root[a]] = std::max(reach[root[a]], static_cast<float>(distance[a]));
  std::vector<std::uint32_t> thin;
  for (std::size_t a = 0; a < count; ++a)
    if (reach[root[a]] < kThinCells * grid.cell) thin.push_back(static_cast<std::uint32_t>(a));
  std::vector<std::uint32_t> partner(thin.size(), kNoNode);  // per thin node: the neighbour it joins
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, thin.size(), 8), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t t = r.begin(); t < r.end(); ++t) partner[t] = SameSideNeighbour(grid, distance, root, thin[t]);
  });
  std::vector<std::pair<std::uint32_t, std::uint32_t>> joins;
  for (std::size_t t = 0; t < thin.size(); ++t)
    if (partner[t] != kNoNode) joins.emplace_back(thin[t], partner[t]);
  return joins;
}

std::uint32_t MeshSdf::SameSideNeighbour(const NodeGrid& grid, const std::vector<double>& distance,
                                         const std::vector<std::uint32_t>& root, std::size_t a) const {
  const auto lower_bound_distance = [&](const Vector3d& x, double cap) {
    const TriangleTree::Nearest nearest = tree_->Closest(x, -1, cap);
    return nearest.triangle >= 0 ? std::sqrt(nearest.distance2) : cap;
  };
  const std::array<int, 3> ijk = grid.Index(a);
  // Neighbours in other sets, farthest from the surface first (the likeliest to be on the same side).
  std::array<std::pair<double, int>, 6> candidates{};
  int candidate_count = 0;
  for (int direction = 0; direction < 6; ++direction) {
    const int axis = direction / 2, step = direction % 2 ? 1 : -1;
    if (ijk[axis] + step < 0 || ijk[axis] + step >= grid.n[axis]) continue;
    const std::size_t b = step > 0 ? a + grid.Stride(axis) : a - grid.Stride(axis);
    if (root[b] != root[a]) candidates[candidate_count++] = {-distance[b], direction};
  }
  std::sort(candidates.begin(), candidates.begin() + candidate_count);
  for (int c = 0; c < candidate_count; ++c) {
    const int axis = candidates[c].second / 2, step = candidates[c].second % 2 ? 1 : -1;
    std::array<int, 3> neighbour = ijk;
    neighbour[axis] += step;
    const std::size_t b = step > 0 ? a + grid.Stride(axis) : a - grid.Stride(axis);
    if (BallsCover(grid.Position(ijk), distance[a], grid.Position(neighbour), distance[b], kCoverDepth,
                   lower_bound_distance))
      return static_cast<std::uint32_t>(b);
  }
  return kNoNode;
}

std::vector<char> MeshSdf::InsideBySet(const TriangleMesh& mesh, const NodeGrid& grid,
                                       const std::vector<double>& distance, const std::vector<std::uint32_t>& root) {
  // One generalized winding number per set, at its node farthest from the surface (the first on ties).
  const std::size_t count = grid.Count();
  std::vector<std::uint32_t> farthest(count, kNoNode);  // per root
  std::vector<std::uint32_t> roots;
  for (std::size_t a = 0; a < count; ++a) {
    std::uint32_t& f = farthest[root[a]];
    if (f == kNoNode) roots.push_back(root[a]);
    if (f == kNoNode || distance[a] > distance[f]) f = static_cast<std::uint32_t>(a);
  }
  // Sets that touch the surface (a node on a face that lies on a grid plane) keep φ = +d: a sign error of at
  // most kOnSurfaceCells·cell there, for a winding number saved per node.
  std::erase_if(roots, [&](std::uint32_t r) { return distance[farthest[r]] <= kOnSurfaceCells * grid.cell; });
  std::vector<char> root_inside(count, false);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, roots.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) {
      const Vector3d x = grid.Position(grid.Index(farthest[roots[i]]));
      root_inside[roots[i]] = std::abs(WindingNumber(mesh, x)) > 0.5;
    }
  });
  std::vector<char> inside(count);
  for (std::size_t a = 0; a < count; ++a) inside[a] = root_inside[root[a]];
  return inside;
}

SampledDistanceField MeshSdf::field() const {
  SampledDistanceField f;
  f.phi = phi_.data();
  for (int a = 0; a < 3; ++a) f.cells[a] = cells_[a];
  f.min = {bounds_.min.x(), bounds_.min.y(), bounds_.min.z()};
  f.max = {bounds_.max.x(), bounds_.max.y(), bounds_.max.z()};
  f.cell = cell_;
  return f;
}

double MeshSdf::Distance(const Vector3d& p, Vector3d* normal) const {
  const SampledDistanceField f = field();
  bool medial = false;
  Vec3<double> n;
  const double phi = f.Distance({p.x(), p.y(), p.z()}, normal ? &n : nullptr, medial);
  if (normal && medial) n = MedialNormal(p);
  if (normal) *normal = {n.x, n.y, n.z};
  return phi;
}

Vec3<double> MeshSdf::MedialNormal(const Vector3d& p) const {
  // On the medial axis: away from (inside: towards) the nearest surface point of p's nearest grid point c.
  const Vector3d c = p.cwiseMax(bounds_.min).cwiseMin(bounds_.max);
  const SampledDistanceField f = field();
  const double phi_c = f.Interpolate({c.x(), c.y(), c.z()}, nullptr);
  const TriangleTree::Nearest nearest = tree_->Closest(c, -1, kInfinity);
  const Vector3d away = c - nearest.point;
  const Vector3d n = away.norm() > 0 ? Vector3d((phi_c < 0 ? -away : away).normalized())
                                     : Vector3d(orientation_ * tree_->AreaNormal(nearest.triangle).normalized());
  const Vector3d outside = p - c;
  return SampledDistanceField::OutsideNormal({outside.x(), outside.y(), outside.z()}, phi_c, {n.x(), n.y(), n.z()});
}

}  // namespace ductile::geometry
