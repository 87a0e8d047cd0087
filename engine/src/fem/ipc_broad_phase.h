// The broad phase of IPC contact: which point–triangle and edge–edge pairs of the contact surface may come within
// the activation distance d̂ (for the barrier and friction) or may meet over a step's motion (for CCD). Every
// primitive's axis-aligned box, swept over the motion and inflated by the distance asked for, goes into a uniform
// spatial hash (Teschner et al. 2003, "Optimized spatial hashing for collision detection of deformable objects")
// whose cell is the surface's mean edge length; pairs whose boxes overlap are candidates.
//
// Our own code rather than FCL's BVHs: the surface deforms at every Newton iterate, the queries are swept boxes of
// points, edges and triangles addressed by index, and a hash rebuilt in O(n) serves that directly.
//
// Pairs are skipped where both primitives belong to one body that cannot touch itself (a rigid or kinematic body:
// `self_contact` false), where they share a vertex, and where neither has a degree of freedom.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

namespace ductile::fem {

/// The contact surface: vertex positions with a body index each, edges and triangles by vertex index.
struct ContactSurface {
  std::vector<std::array<int, 2>> edges;
  std::vector<std::array<int, 3>> faces;
  std::vector<int> vertex_body;         ///< The body of each vertex.
  std::vector<bool> body_self_contact;  ///< Per body: whether its primitives may touch each other (soft bodies).
  std::vector<bool> body_moves;         ///< Per body: whether it has degrees of freedom (false: kinematic, fixed).
};

/// A candidate point–triangle pair (surface vertex, face) and edge–edge pair (edge, edge; first < second).
struct PointTriangleCandidate {
  int vertex;
  int face;
};
struct EdgeEdgeCandidate {
  int edge_a;
  int edge_b;
};

/// The candidates of one query, sorted (deterministic whatever the thread count).
struct Candidates {
  std::vector<PointTriangleCandidate> point_triangle;
  std::vector<EdgeEdgeCandidate> edge_edge;
  void clear() {
    point_triangle.clear();
    edge_edge.clear();
  }
};

/// The pairs of `surface` whose boxes over the motion from x0 to x1 (x1 = x0 for a static query), inflated by
/// `inflation` [m], overlap. Thread-safe for distinct outputs.
void FindCandidates(const ContactSurface& surface, const std::vector<Eigen::Vector3d>& x0,
                    const std::vector<Eigen::Vector3d>& x1, double inflation, Candidates& out);

}  // namespace ductile::fem
