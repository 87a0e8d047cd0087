#include "geometry/triangle_mesh.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <tiny_obj_loader.h>

namespace ductile::geometry {

namespace {

std::runtime_error MeshError(const std::filesystem::path& file, const std::string& problem) {
  return std::runtime_error("mesh file '" + file.string() + "' " + problem);
}

// Reads the whole file; the OBJ parser gets text, so it never looks for material libraries on disk.
std::string ReadText(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw MeshError(file, "not found");
  if (!std::filesystem::is_regular_file(file, ec)) throw MeshError(file, "is not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw MeshError(file, "cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw MeshError(file, "cannot be read");
  return text.str();
}

}  // namespace

TriangleMesh LoadObjMesh(const std::filesystem::path& file) {
  const std::string text = ReadText(file);
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(text, "", config)) {
    std::string why = reader.Error();
    while (!why.empty() && (why.back() == '\n' || why.back() == '.')) why.pop_back();
    throw MeshError(file, "cannot be parsed: " + why);
  }

  TriangleMesh mesh;
  const std::vector<tinyobj::real_t>& v = reader.GetAttrib().vertices;
  const int vertex_count = static_cast<int>(v.size() / 3);
  mesh.vertices.reserve(vertex_count);
  // Merge vertices at identical positions onto the first of them (OBJ files exported per face repeat them).
  std::vector<int> representative(vertex_count);
  std::map<std::array<double, 3>, int> first_at;
  for (int i = 0; i < vertex_count; ++i) {
    const std::size_t at = 3 * static_cast<std::size_t>(i);
    const std::array<double, 3> x{v[at], v[at + 1], v[at + 2]};
    mesh.vertices.emplace_back(x[0], x[1], x[2]);
    representative[i] = first_at.emplace(x, i).first->second;
  }

  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    const std::vector<tinyobj::index_t>& indices = shape.mesh.indices;
    std::size_t offset = 0;
    for (const unsigned char corners : shape.mesh.num_face_vertices) {
      if (corners != 3) throw MeshError(file, "has a face with " + std::to_string(corners) + " corners");
      std::array<int, 3> triangle{};
      for (int k = 0; k < 3; ++k) {
        const int index = indices[offset + k].vertex_index;
        if (index < 0 || index >= vertex_count)
          throw MeshError(file, "has a face that refers to vertex " + std::to_string(index + 1) + " of " +
                                    std::to_string(vertex_count));
        if (!mesh.vertices[index].allFinite())
          throw MeshError(file, "has a non-finite vertex " + std::to_string(index + 1));
        triangle[k] = representative[index];
      }
      mesh.triangles.push_back(triangle);
      offset += 3;
    }
  }
  if (mesh.triangles.empty()) throw MeshError(file, "has no triangles");
  return mesh;
}

std::optional<std::string> FindOpenEdge(const TriangleMesh& mesh) {
  // Directed edge (a, b) -> number of triangles that traverse it from a to b.
  std::map<std::pair<int, int>, int> directed;
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const std::array<int, 3>& t = mesh.triangles[f];
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
      return "face " + std::to_string(f + 1) + " (" + std::to_string(t[0] + 1) + ", " + std::to_string(t[1] + 1) +
             ", " + std::to_string(t[2] + 1) + ") repeats a vertex";
    for (int k = 0; k < 3; ++k) ++directed[{t[k], t[(k + 1) % 3]}];
  }
  for (const auto& [edge, forward] : directed) {
    const auto [a, b] = edge;
    const auto reverse = directed.find({b, a});
    const int backward = reverse == directed.end() ? 0 : reverse->second;
    const std::string name =
        "edge (" + std::to_string(std::min(a, b) + 1) + ", " + std::to_string(std::max(a, b) + 1) + ")";
    if (forward + backward != 2) return name + " is used by " + std::to_string(forward + backward) + " face(s)";
    if (forward != 1)
      return name + " is traversed twice in the same direction: the faces are not consistently oriented";
  }
  return std::nullopt;
}

void RemoveUnusedVertices(TriangleMesh& mesh) {
  RemoveUnusedVertices(mesh.vertices, mesh.triangles);
}

std::optional<std::string> FindClothDefect(const TriangleMesh& mesh) {
  // Undirected edge (a < b) -> the triangles on it; sorted corners -> the first triangle with them.
  std::map<std::pair<int, int>, std::vector<std::size_t>> on_edge;
  std::map<std::array<int, 3>, std::size_t> with_corners;
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const std::array<int, 3>& t = mesh.triangles[f];
    const std::string name = "triangle " + std::to_string(f + 1) + " (" + std::to_string(t[0] + 1) + ", " +
                             std::to_string(t[1] + 1) + ", " + std::to_string(t[2] + 1) + ")";
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) return name + " repeats a vertex";
    const Eigen::Vector3d& a = mesh.vertices[t[0]];
    const Eigen::Vector3d& b = mesh.vertices[t[1]];
    const Eigen::Vector3d& c = mesh.vertices[t[2]];
    const double longest = std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    if (!((b - a).cross(c - a).norm() > 1e-12 * longest)) return name + " has zero area";
    std::array<int, 3> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    const auto [first, added] = with_corners.try_emplace(sorted, f);
    if (!added) return name + " repeats the corners of triangle " + std::to_string(first->second + 1);
    for (int k = 0; k < 3; ++k) {
      const int u = t[k], v = t[(k + 1) % 3];
      std::vector<std::size_t>& faces = on_edge[{std::min(u, v), std::max(u, v)}];
      if (faces.size() == 2)
        return name + " is the third triangle on edge (" + std::to_string(std::min(u, v) + 1) + ", " +
               std::to_string(std::max(u, v) + 1) + "), after triangles " + std::to_string(faces[0] + 1) + " and " +
               std::to_string(faces[1] + 1) + ": a cloth's edge borders at most two triangles";
      faces.push_back(f);
    }
  }
  return std::nullopt;
}

double WindingNumber(const TriangleMesh& mesh, const Eigen::Vector3d& p) {
  constexpr double kFourPi = 4.0 * 3.14159265358979323846;
  double solid_angle_sum = 0;
  for (const std::array<int, 3>& t : mesh.triangles) {
    const Eigen::Vector3d a = mesh.vertices[t[0]] - p;
    const Eigen::Vector3d b = mesh.vertices[t[1]] - p;
    const Eigen::Vector3d c = mesh.vertices[t[2]] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double numerator = a.dot(b.cross(c));
    const double denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    solid_angle_sum += 2.0 * std::atan2(numerator, denominator);
  }
  return solid_angle_sum / kFourPi;
}

bool Contains(const TriangleMesh& mesh, const Eigen::Vector3d& p) {
  const Bounds bounds = AxisAlignedBounds(mesh);
  if ((p.array() < bounds.min.array()).any() || (p.array() > bounds.max.array()).any()) return false;
  return std::abs(WindingNumber(mesh, p)) > 0.5;
}

void Transform(TriangleMesh& mesh, double scale, const Eigen::Quaterniond& rotation,
               const Eigen::Vector3d& translation) {
  const Eigen::Matrix3d R = rotation.normalized().toRotationMatrix();
  for (Eigen::Vector3d& x : mesh.vertices) x = R * (scale * x) + translation;
}

Bounds AxisAlignedBounds(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) return {};
  Bounds bounds{mesh.vertices[mesh.triangles[0][0]], mesh.vertices[mesh.triangles[0][0]]};
  for (const std::array<int, 3>& t : mesh.triangles) {
    for (const int i : t) {
      bounds.min = bounds.min.cwiseMin(mesh.vertices[i]);
      bounds.max = bounds.max.cwiseMax(mesh.vertices[i]);
    }
  }
  return bounds;
}

}  // namespace ductile::geometry
