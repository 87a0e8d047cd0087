// The spatial-hash broad phase of IPC contact (the method: fem/ipc_broad_phase.h).
#include "fem/ipc_broad_phase.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

struct Box {
  Vector3d lo, hi;
  bool Overlaps(const Box& other) const {
    return (lo.array() <= other.hi.array()).all() && (other.lo.array() <= hi.array()).all();
  }
};

template <std::size_t N>
Box PrimitiveBox(const std::array<int, N>& v, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
                 double inflation) {
  Box box{x0[v[0]], x0[v[0]]};
  for (int i : v) {
    box.lo = box.lo.cwiseMin(x0[i]).cwiseMin(x1[i]);
    box.hi = box.hi.cwiseMax(x0[i]).cwiseMax(x1[i]);
  }
  box.lo.array() -= inflation;
  box.hi.array() += inflation;
  return box;
}

// A uniform grid hashed into buckets: each box is listed in every cell it covers.
class SpatialHash {
 public:
  explicit SpatialHash(double cell) : inv_cell_(1.0 / cell) {}

  void Insert(const Box& box, int id) {
    ForCells(box, [&](std::int64_t key) { cells_[key].push_back(id); });
  }
  // Every id listed in a cell `box` covers, each once, sorted.
  void Query(const Box& box, std::vector<int>& ids) const {
    ids.clear();
    ForCells(box, [&](std::int64_t key) {
      const auto it = cells_.find(key);
      if (it != cells_.end()) ids.insert(ids.end(), it->second.begin(), it->second.end());
    });
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  }

 private:
  template <typename F>
  void ForCells(const Box& box, F f) const {
    const Eigen::Vector3i lo = (box.lo * inv_cell_).array().floor().cast<int>();
    const Eigen::Vector3i hi = (box.hi * inv_cell_).array().floor().cast<int>();
    for (int i = lo.x(); i <= hi.x(); ++i)
      for (int j = lo.y(); j <= hi.y(); ++j)
        for (int k = lo.z(); k <= hi.z(); ++k) f(Key(i, j, k));
  }
  static std::int64_t Key(int i, int j, int k) {
    // 21 bits per axis: cells ±10⁶ from the origin, far beyond any scene at the mean edge length.
    constexpr std::int64_t kMask = (std::int64_t{1} << 21) - 1;
    return ((std::int64_t{i} & kMask) << 42) | ((std::int64_t{j} & kMask) << 21) | (std::int64_t{k} & kMask);
  }
  double inv_cell_;
  std::unordered_map<std::int64_t, std::vector<int>> cells_;
};

// Whether the primitives of bodies a and b may form a pair.
bool BodiesMayTouch(const ContactSurface& s, int a, int b) {
  if (a == b) return s.body_self_contact[a];
  return s.body_moves[a] || s.body_moves[b];
}

double CellSize(const ContactSurface& surface, const std::vector<Vector3d>& x, double inflation) {
  double sum = 0;
  for (const auto& e : surface.edges) sum += (x[e[0]] - x[e[1]]).norm();
  const double mean = surface.edges.empty() ? 1.0 : sum / static_cast<double>(surface.edges.size());
  return std::max(mean, 2 * inflation) + 1e-12;
}

}  // namespace

void FindCandidates(const ContactSurface& surface, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
                    double inflation, Candidates& out) {
  out.clear();
  const double cell = CellSize(surface, x0, inflation);
  std::vector<int> ids;
  // Point–triangle: faces in the hash, points queried.
  SpatialHash faces(cell);
  std::vector<Box> face_boxes(surface.faces.size());
  for (std::size_t f = 0; f < surface.faces.size(); ++f) {
    face_boxes[f] = PrimitiveBox(surface.faces[f], x0, x1, inflation);
    faces.Insert(face_boxes[f], static_cast<int>(f));
  }
  for (int v = 0; v < static_cast<int>(surface.vertex_body.size()); ++v) {
    const Box box = PrimitiveBox(std::array<int, 1>{v}, x0, x1, 0.0);
    faces.Query(box, ids);
    for (int f : ids) {
      const auto& t = surface.faces[f];
      if (t[0] == v || t[1] == v || t[2] == v) continue;
      if (!BodiesMayTouch(surface, surface.vertex_body[v], surface.vertex_body[t[0]])) continue;
      if (box.Overlaps(face_boxes[f])) out.point_triangle.push_back({v, f});
    }
  }
  // Edge–edge: edges in the hash, each edge queried against those after it.
  SpatialHash edges(cell);
  std::vector<Box> edge_boxes(surface.edges.size());
  for (std::size_t e = 0; e < surface.edges.size(); ++e) {
    edge_boxes[e] = PrimitiveBox(surface.edges[e], x0, x1, inflation * 0.5);
    edges.Insert(edge_boxes[e], static_cast<int>(e));
  }
  for (int a = 0; a < static_cast<int>(surface.edges.size()); ++a) {
    edges.Query(edge_boxes[a], ids);
    const auto& ea = surface.edges[a];
    for (int b : ids) {
      if (b <= a) continue;
      const auto& eb = surface.edges[b];
      if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) continue;
      if (!BodiesMayTouch(surface, surface.vertex_body[ea[0]], surface.vertex_body[eb[0]])) continue;
      if (edge_boxes[a].Overlaps(edge_boxes[b])) out.edge_edge.push_back({a, b});
    }
  }
}

}  // namespace ductile::fem
