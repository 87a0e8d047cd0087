// The spatial-hash broad phase of IPC contact (the method: fem/ipc_broad_phase.h).
#include "fem/ipc_broad_phase.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

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

// A uniform grid as one sorted array of (cell key, id) entries: each box is listed in every cell it covers; a query
// gathers the ids of the cells its box covers by binary search, each id once (stamped per query).
class SpatialHash {
 public:
  SpatialHash(double cell, std::size_t ids) : inv_cell_(1.0 / cell), stamp_(ids, -1) {}

  void Insert(const Box& box, int id) {
    ForCells(box, [&](std::int64_t key) { entries_.push_back({key, id}); });
  }
  void Build() { std::sort(entries_.begin(), entries_.end()); }
  // Every id listed in a cell that `box` covers, each once, ascending.
  void Query(const Box& box, std::vector<int>& ids) {
    ids.clear();
    ++query_;
    ForCells(box, [&](std::int64_t key) {
      auto it = std::lower_bound(entries_.begin(), entries_.end(), Entry{key, INT32_MIN});
      for (; it != entries_.end() && it->key == key; ++it)
        if (stamp_[it->id] != query_) stamp_[it->id] = query_, ids.push_back(it->id);
    });
    std::sort(ids.begin(), ids.end());
  }

 private:
  struct Entry {
    std::int64_t key;
    int id;
    bool operator<(const Entry& other) const { return key != other.key ? key < other.key : id < other.id; }
  };
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
  std::vector<Entry> entries_;
  std::vector<int> stamp_;
  int query_ = 0;
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

// Per body, the box of its swept vertices inflated by `inflation`: a primitive can only pair with another body's
// when its box meets that body's box, so the hash holds and queries only those (and every primitive of a body that
// may touch itself). Most of a large rigid mesh is far from everything else and is skipped at once.
class BodyFilter {
 public:
  BodyFilter(const ContactSurface& s, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
             double inflation)
      : surface_(s) {
    const std::size_t bodies = s.body_moves.size();
    boxes_.assign(bodies, Box{Vector3d::Constant(1e300), Vector3d::Constant(-1e300)});
    for (std::size_t v = 0; v < s.vertex_body.size(); ++v) {
      Box& b = boxes_[s.vertex_body[v]];
      b.lo = b.lo.cwiseMin(x0[v]).cwiseMin(x1[v]);
      b.hi = b.hi.cwiseMax(x0[v]).cwiseMax(x1[v]);
    }
    for (Box& b : boxes_) b.lo.array() -= inflation, b.hi.array() += inflation;
  }
  // Whether a primitive of `body` with box `box` may pair with anything.
  bool Relevant(int body, const Box& box) const {
    if (surface_.body_self_contact[body]) return true;
    for (std::size_t other = 0; other < boxes_.size(); ++other)
      if (static_cast<int>(other) != body && BodiesMayTouch(surface_, body, static_cast<int>(other)) &&
          box.Overlaps(boxes_[other]))
        return true;
    return false;
  }

 private:
  const ContactSurface& surface_;
  std::vector<Box> boxes_;
};

void FindPointTriangle(const ContactSurface& surface, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
                       double inflation, double cell, const BodyFilter& filter, Candidates& out) {
  SpatialHash faces(cell, surface.faces.size());
  std::vector<Box> face_boxes(surface.faces.size());
  for (std::size_t f = 0; f < surface.faces.size(); ++f) {
    face_boxes[f] = PrimitiveBox(surface.faces[f], x0, x1, inflation);
    if (filter.Relevant(surface.vertex_body[surface.faces[f][0]], face_boxes[f]))
      faces.Insert(face_boxes[f], static_cast<int>(f));
  }
  faces.Build();
  std::vector<int> ids;
  for (int v = 0; v < static_cast<int>(surface.vertex_body.size()); ++v) {
    const Box box = PrimitiveBox(std::array<int, 1>{v}, x0, x1, 0.0);
    Box inflated = box;
    inflated.lo.array() -= inflation, inflated.hi.array() += inflation;
    if (!filter.Relevant(surface.vertex_body[v], inflated)) continue;
    faces.Query(box, ids);
    for (int f : ids) {
      const auto& t = surface.faces[f];
      if (t[0] == v || t[1] == v || t[2] == v) continue;
      if (!BodiesMayTouch(surface, surface.vertex_body[v], surface.vertex_body[t[0]])) continue;
      if (box.Overlaps(face_boxes[f])) out.point_triangle.push_back({v, f});
    }
  }
}

void FindEdgeEdge(const ContactSurface& surface, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
                  double inflation, double cell, const BodyFilter& filter, Candidates& out) {
  SpatialHash edges(cell, surface.edges.size());
  std::vector<Box> edge_boxes(surface.edges.size());
  std::vector<char> relevant(surface.edges.size(), 0);
  for (std::size_t e = 0; e < surface.edges.size(); ++e) {
    edge_boxes[e] = PrimitiveBox(surface.edges[e], x0, x1, inflation * 0.5);
    Box inflated = edge_boxes[e];
    inflated.lo.array() -= 0.5 * inflation, inflated.hi.array() += 0.5 * inflation;
    relevant[e] = filter.Relevant(surface.vertex_body[surface.edges[e][0]], inflated);
    if (relevant[e]) edges.Insert(edge_boxes[e], static_cast<int>(e));
  }
  edges.Build();
  std::vector<int> ids;
  for (int a = 0; a < static_cast<int>(surface.edges.size()); ++a) {
    if (!relevant[a]) continue;
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

}  // namespace

void FindCandidates(const ContactSurface& surface, const std::vector<Vector3d>& x0, const std::vector<Vector3d>& x1,
                    double inflation, Candidates& out) {
  out.clear();
  const double cell = CellSize(surface, x0, inflation);
  const BodyFilter filter(surface, x0, x1, inflation);
  FindPointTriangle(surface, x0, x1, inflation, cell, filter, out);
  FindEdgeEdge(surface, x0, x1, inflation, cell, filter, out);
}

}  // namespace ductile::fem
