// Indexed triangle meshes: loading from Wavefront OBJ, the closedness check that a solid needs, and the
// inside test used to fill a mesh with MPM particles.
//
// Inside test: the generalized winding number (Jacobson, Kavan, Sorkine-Hornung 2013, Eq. 5-6),
//   w(p) = 1/(4π) Σ_f Ω_f(p),
// with Ω_f the signed solid angle of triangle f seen from p (Van Oosterom and Strackee 1983):
//   tan(Ω/2) = a·(b × c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|),  a, b, c the corners minus p.
// w is 1 inside and 0 outside a closed, consistently oriented mesh (−1 inside when it is oriented inward) and
// degrades gracefully near small holes, which makes the test robust where ray casting is not.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ductile::geometry {

/// An indexed triangle mesh in its own frame. Plain data; not synchronised (share it read-only).
struct TriangleMesh {
  std::vector<Eigen::Vector3d> vertices;      ///< Vertex positions [m].
  std::vector<std::array<int, 3>> triangles;  ///< Corner indices into `vertices`, counter-clockwise seen from
                                              ///< outside for an outward-oriented mesh.
};

/// An axis-aligned box [m].
struct Bounds {
  Eigen::Vector3d min = Eigen::Vector3d::Zero();
  Eigen::Vector3d max = Eigen::Vector3d::Zero();
};

/// Loads the faces of a Wavefront OBJ file; polygons are triangulated, vertices at identical positions are
/// merged (the triangles refer to the first of them, so indices keep the file's numbering), and unused vertices
/// are kept. Throws std::runtime_error naming the file when it is missing, unreadable or malformed, when a face
/// refers to a vertex that does not exist, or when it has no triangles.
TriangleMesh LoadObjMesh(const std::filesystem::path& file);

/// Checks that `mesh` is closed: every undirected edge is used by exactly two triangles, once in each direction
/// (consistent orientation), and no triangle repeats a vertex. Returns nullopt when closed, otherwise a message
/// naming the first offending edge or triangle, with vertex numbers counted from 1 as in OBJ files, e.g.
/// "edge (3, 7) is used by 1 face(s)".
std::optional<std::string> FindOpenEdge(const TriangleMesh& mesh);

/// Drops the vertices that no triangle uses and numbers the others from 0 in their order: after LoadObjMesh, the
/// file's vertices at distinct positions that some face uses, in the order of their first `v` line.
void RemoveUnusedVertices(TriangleMesh& mesh);

/// The same for any cells of N corners (triangles, tetrahedra) indexing `vertices`: unused vertices dropped, the
/// others renumbered from 0 in their order.
template <std::size_t N>
void RemoveUnusedVertices(std::vector<Eigen::Vector3d>& vertices, std::vector<std::array<int, N>>& cells) {
  std::vector<int> renumbered(vertices.size(), -1);
  for (const std::array<int, N>& cell : cells)
    for (const int v : cell) renumbered[v] = 0;
  int next = 0;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    if (renumbered[v] < 0) continue;
    renumbered[v] = next;
    vertices[next++] = vertices[v];
  }
  vertices.resize(next);
  for (std::array<int, N>& cell : cells)
    for (int& v : cell) v = renumbered[v];
}

/// Checks that `mesh` can be a cloth, an open or closed surface of triangles: no triangle repeats a vertex or has
/// zero area (twice its area at most 1e-12 times its longest edge squared: collinear corners up to round-off), no
/// two triangles have the same corners, and no edge borders more than two triangles. Returns nullopt when it can,
/// otherwise a message naming the first offending triangle, counted from 1 in the file's order (polygons split into
/// triangles), with its vertex numbers counted from 1 as in the OBJ file, e.g.
/// "triangle 7 (3, 4, 5) has zero area".
std::optional<std::string> FindClothDefect(const TriangleMesh& mesh);

/// Generalized winding number of `mesh` at `p` [-]: about ±1 inside a closed mesh, 0 outside. O(triangles).
double WindingNumber(const TriangleMesh& mesh, const Eigen::Vector3d& p);

/// Whether `p` [m] is inside `mesh`: |WindingNumber| > 1/2. Works for either orientation. O(triangles).
bool Contains(const TriangleMesh& mesh, const Eigen::Vector3d& p);

/// Maps every vertex v to rotation·(scale·v) + translation: the mesh in its frame S placed by X_WS in W.
/// scale [-] > 0; translation [m].
void Transform(TriangleMesh& mesh, double scale, const Eigen::Quaterniond& rotation,
               const Eigen::Vector3d& translation);

/// The bounds of the vertices that some triangle uses [m]; a zero box at the origin when there are none.
Bounds AxisAlignedBounds(const TriangleMesh& mesh);

}  // namespace ductile::geometry
