// A cloth object -> its vertex particles, its triangles and its pinned vertex groups (Jiang, Gast, Teran 2017,
// Sec. 4: the mesh's vertices are MPM particles, its faces carry the deformation). A sheet is a width × length
// rectangle in its frame's x-y plane, vertices on a regular lattice, each square cut along the same diagonal. A
// mesh comes from an OBJ file: its vertices at distinct positions that some triangle uses (LoadObjMesh welds
// identical positions onto the first of them), in the order of their first `v` line, scaled about its origin.
// Either way each triangle's rest shape D̂ comes from its rest edges in its own plane, so a curved or folded mesh
// is at rest as it is given.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "ductile/model.h"
#include "ductile/model_checks.h"
#include "geometry/triangle_mesh.h"
#include "model/compile_parts.h"
#include "scene/desc_eigen.h"

namespace ductile {
[[noreturn]] void Fail(const SourceLocation& where, const std::string& message) {
  throw SceneError(where.file, where.line, where.column, message);
}

void FileMesh(const ShapeDesc& shape, std::vector<Eigen::Vector3d>& vertices, std::vector<std::array<int, 3>>& faces) {
  geometry::TriangleMesh mesh = geometry::LoadObjMesh(shape.mesh_file);
  geometry::RemoveUnusedVertices(mesh);
  vertices = std::move(mesh.vertices);
  for (Eigen::Vector3d& v : vertices) v *= shape.mesh_scale;
  faces = std::move(mesh.triangles);
}

namespace {

// The sheet's vertices (in its frame S) and triangles, counter-clockwise seen from +z (normals along +z).
void SheetMesh(const ShapeDesc& shape, std::vector<Eigen::Vector3d>& vertices, std::vector<std::array<int, 3>>& faces,
               int& nx, int& ny) {
  nx = shape.vertices;
  ny = std::max(2, static_cast<int>(std::lround((nx - 1) * shape.length / shape.width)) + 1);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      vertices.emplace_back(shape.width * (static_cast<double>(i) / (nx - 1) - 0.5),
                            shape.length * (static_cast<double>(j) / (ny - 1) - 0.5), 0.0);
  for (int j = 0; j + 1 < ny; ++j)
    for (int i = 0; i + 1 < nx; ++i) {
      const int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
      faces.push_back({a, b, d});
      faces.push_back({a, d, c});
    }
}

// The object's pin groups: vertex indices from each group's selection, and its keyframes.
void CompilePins(const MpmObjectDesc& object, int object_index, int first, int nx, int ny,
                 const std::vector<Eigen::Vector3d>& world, Model& model) {
  const int n = static_cast<int>(world.size());
  for (const PinGroupDesc& desc : object.pins) {
    const std::string what = "pin group '" + desc.name + "' of object '" + object.name + "'";
    PinGroup group;
    group.name = object.name + "/" + desc.name;
    group.object = object_index;
    std::vector<int> local;
    if (desc.corners) {
      local = {0, nx - 1, (ny - 1) * nx, ny * nx - 1};
    } else if (desc.has_box) {
      for (int v = 0; v < n; ++v)
        if ((world[v].array() >= ToEigen(desc.box_min).array()).all() &&
            (world[v].array() <= ToEigen(desc.box_max).array()).all())
          local.push_back(v);
      if (local.empty()) Fail(desc.where, what + ": no vertex lies inside its box");
    } else {
      local = desc.vertices;
      for (int v : local)
        if (v >= n)
          Fail(desc.where, what + ": vertex " + std::to_string(v) + " does not exist (the cloth has " +
                               std::to_string(n) + ", numbered from 0)");
    }
    for (int v : local) group.particles.push_back(first + v);
    group.key_times = desc.key_times;
    for (const Vector3& offset : desc.key_offsets) group.key_offsets.push_back({offset[0], offset[1], offset[2]});
    group.release_time = desc.release_time;
    model.pin_groups.push_back(std::move(group));
  }
}

}  // namespace

void CompileCloth(const SceneDesc& scene, const MpmObjectDesc& object, int object_index, Model& model) {
  const MaterialDesc& material = *scene.FindMaterial(object.material);
  std::vector<Eigen::Vector3d> local;
  std::vector<std::array<int, 3>> faces;
  int nx = 0, ny = 0;  // a sheet's vertices along x and y, for its corners
  if (object.shape.type == ShapeType::kSheet)
    SheetMesh(object.shape, local, faces, nx, ny);
  else
    FileMesh(object.shape, local, faces);
  const Eigen::Matrix3d R_WS = ToQuaternion(object.pose).toRotationMatrix();
  const Eigen::Vector3d p_WS = ToEigen(object.pose.position);
  std::vector<Eigen::Vector3d> world(local.size());
  for (std::size_t i = 0; i < local.size(); ++i) world[i] = R_WS * local[i] + p_WS;
  // Each vertex's volume: a third of each adjacent triangle's area times the thickness.
  std::vector<double> volume(world.size(), 0.0);
  const int first = model.num_particles;
  for (std::size_t t = 0; t < faces.size(); ++t) {
    const std::array<int, 3>& f = faces[t];
    const Eigen::Vector3d e1 = world[f[1]] - world[f[0]], e2 = world[f[2]] - world[f[0]];
    const double area2 = e1.cross(e2).norm();  // twice the area
    if (!(area2 > 0))
      Fail(object.where, "object '" + object.name + "': triangle " + std::to_string(t + 1) + " has zero area");
    mpm::ClothElement element;
    for (int k = 0; k < 3; ++k) element.vertex[k] = first + f[k];
    element.material = model.objects[object_index].material;
    // D̂ = [[‖E₁‖, E₁·E₂/‖E₁‖], [0, ‖E₁ × E₂‖/‖E₁‖]] (upper triangular), its inverse [[1/d₁₁, −d₁₂/(d₁₁d₂₂)], [0,
    // 1/d₂₂]].
    const double d11 = e1.norm(), d12 = e1.dot(e2) / d11, d22 = area2 / d11;
    element.rest_inverse[0] = static_cast<float>(1.0 / d11);
    element.rest_inverse[1] = static_cast<float>(-d12 / (d11 * d22));
    element.rest_inverse[2] = static_cast<float>(1.0 / d22);
    const double v = 0.5 * area2 * material.thickness;
    element.volume = static_cast<float>(v);
    for (int k = 0; k < 3; ++k) volume[f[k]] += v / 3.0;
    model.cloth_elements.push_back(element);
  }
  for (std::size_t i = 0; i < world.size(); ++i)
    AddParticle(scene, object, object_index, world[i], 0.0, volume[i], model);
  ObjectInfo& info = model.objects[object_index];
  info.first_particle = first;
  info.num_particles = static_cast<int>(world.size());
  CompileObjectMasses(scene, object_index, model);  // each vertex ρ × its stored volume, as a live edit does
  CompilePins(object, object_index, first, nx, ny, world, model);
}

std::vector<std::string> ClothSpacingWarnings(const Model& model) {
  // Each cloth's triangle edges at rest [m] (an inner edge twice, once per triangle).
  std::vector<std::vector<double>> edges(model.objects.size());
  for (const mpm::ClothElement& e : model.cloth_elements)
    for (int k = 0; k < 3; ++k) {
      const std::array<float, 3>& a = model.x0[e.vertex[k]];
      const std::array<float, 3>& b = model.x0[e.vertex[(k + 1) % 3]];
      edges[model.object[e.vertex[0]]].push_back(
          std::hypot(double(a[0]) - b[0], double(a[1]) - b[1], double(a[2]) - b[2]));
    }
  std::vector<std::string> warnings;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    std::vector<double>& lengths = edges[o];
    if (lengths.empty()) continue;
    const auto median = lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2);
    std::nth_element(lengths.begin(), median, lengths.end());
    if (*median <= model.h) continue;
    std::ostringstream text;
    text.precision(3);
    text << "cloth object '" << model.objects[o].name << "' has a median edge length of " << *median
         << " m, more than the grid spacing h = " << model.h
         << " m: vertices more than a cell apart hold together badly and may diverge on impact (use a finer mesh "
            "or a larger h)";
    warnings.push_back(text.str());
  }
  return warnings;
}

}  // namespace ductile
