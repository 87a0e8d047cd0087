#include "ductile/render/snapshot_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "ductile/render/particle_surface.h"
#include "ductile/render/primitives.h"
#include "render_math.h"

namespace ductile::render {
namespace {

/// A pd body's bones: bone white, bright against the flesh and the background.
constexpr Rgba kBoneColor{0.98f, 0.96f, 0.88f, 1.0f};

// Column-major world_from_mesh of a position and a unit quaternion (w, x, y, z).
Mat4 PoseMatrix(const std::array<float, 3>& p, const std::array<float, 4>& q) {
  const float w = q[0], x = q[1], y = q[2], z = q[3];
  Mat4 m = kIdentity4;
  // Columns 0-2: the rotated axes.
  m[0] = 1 - 2 * (y * y + z * z);
  m[1] = 2 * (x * y + w * z);
  m[2] = 2 * (x * z - w * y);
  m[4] = 2 * (x * y - w * z);
  m[5] = 1 - 2 * (x * x + z * z);
  m[6] = 2 * (y * z + w * x);
  m[8] = 2 * (x * z + w * y);
  m[9] = 2 * (y * z - w * x);
  m[10] = 1 - 2 * (x * x + y * y);
  m[12] = p[0];
  m[13] = p[1];
  m[14] = p[2];
  return m;
}

// The world z axis of a shape frame (the normal of a plane).
Vec3 FrameZ(const std::array<float, 4>& q) {
  const Mat4 m = PoseMatrix({0, 0, 0}, q);
  return {m[8], m[9], m[10]};
}

struct Bounds {
  Vec3 min{std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
           std::numeric_limits<float>::infinity()};
  Vec3 max{-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
           -std::numeric_limits<float>::infinity()};
  bool empty() const { return !(min[0] <= max[0]); }
  void Add(const Vec3& p, float r = 0) {
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(p[a])) return;
    }
    for (int a = 0; a < 3; ++a) {
      min[a] = std::min(min[a], p[a] - r);
      max[a] = std::max(max[a], p[a] + r);
    }
  }
};

// What the camera should frame: particles and every shape but planes; the MPM domain when there is neither.
Bounds SceneBounds(const Snapshot& s) {
  Bounds b;
  for (const auto& p : s.particles.position) b.Add(p);
  for (const SnapshotSoftBody& body : s.soft_bodies)
    for (const auto& p : body.vertices) b.Add(p);
  for (const SnapshotShape& shape : s.shapes)
    if (shape.type != ShapeType::kPlane) b.Add(shape.position, ShapeReach(shape));
  if (b.empty()) {
    b.Add(s.domain_min);
    b.Add(s.domain_max);
  }
  if (b.empty()) b.Add({0, 0, 0}, 0.5f);
  return b;
}

// The ground height: the highest upward-facing static plane below the scene, else the domain floor.
float GroundHeight(const Snapshot& s, const Bounds& b) {
  float ground = -std::numeric_limits<float>::infinity();
  for (const SnapshotShape& shape : s.shapes) {
    if (shape.type != ShapeType::kPlane || shape.body >= 0) continue;
    const Vec3 n = FrameZ(shape.quaternion);
    if (n[2] > 0.99f && shape.position[2] <= b.max[2]) ground = std::max(ground, shape.position[2]);
  }
  if (std::isfinite(ground)) return ground;
  if (s.domain_max[2] > s.domain_min[2]) return s.domain_min[2];
  return b.min[2];
}

// A value near the top of a field's distribution: the 99th percentile, so a few outliers do not wash out the map.
float UpperValue(const std::vector<float>& values) {
  if (values.empty()) return 0;
  std::vector<float> copy;
  copy.reserve(values.size());
  for (float v : values)
    if (std::isfinite(v)) copy.push_back(v);
  if (copy.empty()) return 0;
  const std::size_t k = (copy.size() - 1) * 99 / 100;
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
  return copy[k];
}

// Marks the particles that other particles hide from every direction: those whose cell and all 26 neighbouring
// cells of a grid with the particle spacing (twice the drawn radius) hold a particle. They are most of a solid
// block's particles (at rest 3,136 of a 30x30x6 slab's 5,400) and on a CPU device they cost as much to reject by
// the depth test as to draw. Through the gaps between the outer spheres one then sees the far side of the block or
// what lies behind it instead of a sphere one layer down, both in the block's shadow. The grid spans the particles'
// bounds; beyond kMaxCells cells (a few far-flung particles) nothing is culled.
std::vector<bool> HiddenParticles(const std::vector<std::array<float, 3>>& positions, float radius) {
  constexpr std::size_t kMaxCells = std::size_t{1} << 24;
  std::vector<bool> hidden(positions.size(), false);
  if (positions.size() < 27 || !(radius > 0)) return hidden;
  Bounds bounds;
  for (const auto& p : positions) bounds.Add(p);
  if (bounds.empty()) return hidden;
  const float cell = 2 * radius;
  std::array<std::int64_t, 3> dims{};
  for (int a = 0; a < 3; ++a) {
    const float cells = std::floor((bounds.max[a] - bounds.min[a]) / cell + 0.5f) + 1;
    if (!(cells < 1e6f)) return hidden;
    dims[a] = static_cast<std::int64_t>(cells) + 2;  // one empty cell on each side
  }
  if (static_cast<double>(dims[0]) * static_cast<double>(dims[1]) * static_cast<double>(dims[2]) >
      static_cast<double>(kMaxCells)) {
    return hidden;
  }
  std::vector<std::uint8_t> occupied(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]), 0);
  std::vector<std::int64_t> cell_of(positions.size(), -1);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const auto& p = positions[i];
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    std::array<std::int64_t, 3> c{};
    // Cells centred on the lattice from the lowest particle, so that particles sampled on a lattice of that spacing
    // (as MPM objects are) fall one to a cell despite rounding.
    for (int a = 0; a < 3; ++a) c[a] = static_cast<std::int64_t>(std::floor((p[a] - bounds.min[a]) / cell + 0.5f)) + 1;
    cell_of[i] = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
    occupied[static_cast<std::size_t>(cell_of[i])] = 1;
  }
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (cell_of[i] < 0) continue;
    bool surrounded = true;
    for (std::int64_t dz = -1; dz <= 1 && surrounded; ++dz) {
      for (std::int64_t dy = -1; dy <= 1 && surrounded; ++dy) {
        for (std::int64_t dx = -1; dx <= 1 && surrounded; ++dx) {
          surrounded = occupied[static_cast<std::size_t>(cell_of[i] + (dz * dims[1] + dy) * dims[0] + dx)] != 0;
        }
      }
    }
    hidden[i] = surrounded;
  }
  return hidden;
}

}  // namespace

float ShapeReach(const SnapshotShape& s) {
  switch (s.type) {
    case ShapeType::kBox:
      return Length(s.half_extents);
    case ShapeType::kSphere:
      return s.radius;
    case ShapeType::kCylinder:  // a rim point of an end face
      return Length({s.radius, 0, 0.5f * s.length});
    case ShapeType::kCapsule:  // an end of its axis plus the cap
      return 0.5f * s.length + s.radius;
    case ShapeType::kMesh: {
      float r = 0;
      if (s.mesh)
        for (const auto& v : s.mesh->vertices) r = std::max(r, Length(v));
      return r;
    }
    case ShapeType::kPlane:
    case ShapeType::kSheet:  // cloth, never a rigid shape
      return 0;
  }
  return 0;
}

bool ParseColorMode(const std::string& name, ColorMode& mode) {
  if (name == "material")
    mode = ColorMode::kMaterial;
  else if (name == "speed")
    mode = ColorMode::kSpeed;
  else if (name == "stress")
    mode = ColorMode::kVonMises;
  else if (name == "plastic")
    mode = ColorMode::kPlasticStrain;
  else
    return false;
  return true;
}

const char* ColorModeName(ColorMode mode) {
  switch (mode) {
    case ColorMode::kMaterial:
      return "material";
    case ColorMode::kSpeed:
      return "speed";
    case ColorMode::kVonMises:
      return "stress";
    case ColorMode::kPlasticStrain:
      return "plastic";
  }
  return "material";
}

bool ParseParticleStyle(const std::string& name, ParticleStyle& style) {
  if (name == "surface")
    style = ParticleStyle::kSurface;
  else if (name == "beads")
    style = ParticleStyle::kBeads;
  else
    return false;
  return true;
}

const char* ParticleStyleName(ParticleStyle style) {
  return style == ParticleStyle::kBeads ? "beads" : "surface";
}

Rgba ColorMap(float t) {
  t = std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) : 0.0f;
  // Stops of a perceptually ordered rainbow (dark blue, cyan, green, yellow, red), linear in between.
  static constexpr std::array<std::array<float, 3>, 5> kStops = {{{0.05f, 0.10f, 0.45f},
                                                                  {0.05f, 0.55f, 0.80f},
                                                                  {0.20f, 0.72f, 0.30f},
                                                                  {0.95f, 0.85f, 0.15f},
                                                                  {0.85f, 0.12f, 0.08f}}};
  const float x = t * static_cast<float>(kStops.size() - 1);
  const int i = std::min(static_cast<int>(x), static_cast<int>(kStops.size()) - 2);
  const float f = x - static_cast<float>(i);
  Rgba c{0, 0, 0, 1};
  for (int a = 0; a < 3; ++a) c[a] = kStops[i][a] + f * (kStops[i + 1][a] - kStops[i][a]);
  return c;
}

Camera CameraOf(const CameraDesc& preset) {
  Camera camera;
  for (int a = 0; a < 3; ++a) {
    camera.eye[a] = static_cast<float>(preset.eye[a]);
    camera.target[a] = static_cast<float>(preset.target[a]);
  }
  camera.fov_y_degrees = static_cast<float>(preset.fov_deg);
  return camera;
}

Camera FrameSnapshot(const Snapshot& snapshot, float aspect) {
  const Bounds b = SceneBounds(snapshot);
  Camera camera;
  Vec3 centre{}, half{};
  for (int a = 0; a < 3; ++a) {
    centre[a] = 0.5f * (b.min[a] + b.max[a]);
    half[a] = 0.5f * (b.max[a] - b.min[a]);
  }
  const float radius = std::max(0.05f, Length(half));
  // From the front (−y), a little to the right and above, like a person standing at a table.
  Vec3 dir{0.45f, -1.0f, 0.55f};

  const float half_fov = 0.5f * camera.fov_y_degrees * std::numbers::pi_v<float> / 180.0f;
  // The sphere around the bounds fits the narrower of the two fields of view.
  const float fit = std::min(std::tan(half_fov), std::tan(half_fov) * std::max(aspect, 1e-3f));
  const float distance = 1.05f * radius / std::sin(std::atan(fit));
  camera.target = centre;
  camera.eye = Add(centre, Scale(Normalize(dir, {0, 0, 1}), distance));
  camera.near_plane = std::max(1e-3f, 0.02f * distance);
  camera.far_plane = 50 * distance + 10;
  return camera;
}

namespace {

// The particles' colours, into `set.colors` (one per particle of the snapshot): by material, or by the field
// `options` names, mapped through ColorMap from 0 to its colour range (or the field's UpperValue).
void ColorParticles(const Snapshot& snapshot, const ViewOptions& options, ParticleSet& set) {
  const SnapshotParticles& sp = snapshot.particles;
  const std::vector<float>* field = nullptr;
  switch (options.color_mode) {
    case ColorMode::kMaterial:
      break;
    case ColorMode::kSpeed:
      field = &sp.speed;
      break;
    case ColorMode::kVonMises:
      field = &sp.von_mises;
      break;
    case ColorMode::kPlasticStrain:
      field = &sp.plastic_strain;
      break;
  }
  if (!field || field->size() != sp.position.size()) {
    for (std::size_t i = 0; i < sp.position.size(); ++i) {
      const int m = i < sp.material.size() ? sp.material[i] : 0;
      set.colors[i] = m >= 0 && m < static_cast<int>(snapshot.material_rgba.size()) ? snapshot.material_rgba[m]
                                                                                    : Rgba{0.8f, 0.3f, 0.25f, 1};
    }
  } else {
    float top = options.color_range > 0 ? options.color_range : UpperValue(*field);
    if (!(top > 0)) top = 1;
    for (std::size_t i = 0; i < field->size(); ++i) set.colors[i] = ColorMap((*field)[i] / top);
  }
}

// Leaves out the particles that `hidden` marks.
void DropParticles(const std::vector<bool>& hidden, ParticleSet& set) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    if (hidden[i]) continue;
    set.positions[kept] = set.positions[i];
    set.colors[kept] = set.colors[i];
    ++kept;
  }
  set.positions.resize(kept);
  set.colors.resize(kept);
}

// How a material's surface looks: fluids translucent (an absorption of kWaterAbsorption per spacing: a tenth of the
// light passes 23 spacings of water), with a wider kernel that fills the voids MPM leaves between fluid particles
// near walls, and smoothed more; sand (Drucker-Prager) with most of its grid's bumps and a grain of 20% in
// brightness; other solids (dough, clay, rubber) smoothed and opaque. Chosen by looking at scenes/dam_break.yaml,
// sand_column.yaml and dough_drop.yaml.
SurfaceParams SurfaceLook(MaterialModelDesc model, float spacing, const Vec3& eye) {
  constexpr float kWaterAbsorption = 0.1f;  // [1/spacing].
  SurfaceParams params;
  params.spacing = spacing;
  params.eye = eye;
  switch (model) {
    case MaterialModelDesc::kFluid:
      params.absorption = kWaterAbsorption / spacing;
      params.kernel_radius = 2.5f;
      params.smoothing_passes = 3;
      break;
    case MaterialModelDesc::kDruckerPrager:
      params.smoothing_passes = 1;
      params.grain = 0.2f;
      break;
    case MaterialModelDesc::kFixedCorotated:
    case MaterialModelDesc::kLinearCorotated:
    case MaterialModelDesc::kStvkHencky:
    case MaterialModelDesc::kCloth:
      break;
  }
  return params;
}

// One surface per MPM object (ReconstructSurface) from the particles of `beads` (all of the snapshot's, coloured)
// that are not cloth vertices, with its material's look (SurfaceLook), for a camera at `eye`. Particles spaced twice
// the beads' radius.
void AddSurfaces(const Snapshot& snapshot, const ParticleSet& beads, const std::vector<bool>& cloth_vertex,
                 const Vec3& eye, RenderScene& scene) {
  const SnapshotParticles& sp = snapshot.particles;
  std::vector<std::vector<std::uint32_t>> members;  // Particle indices per object.
  for (std::size_t i = 0; i < sp.position.size(); ++i) {
    if (cloth_vertex[i]) continue;
    const auto object = static_cast<std::size_t>(std::max(0, i < sp.object.size() ? sp.object[i] : 0));
    if (object >= members.size()) members.resize(object + 1);
    members[object].push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<Vec3> positions;
  std::vector<Rgba> colors;
  for (const std::vector<std::uint32_t>& object : members) {
    if (object.empty()) continue;
    positions.clear();
    colors.clear();
    for (std::uint32_t i : object) {
      positions.push_back(beads.positions[i]);
      colors.push_back(beads.colors[i]);
    }
    const int material = object.front() < sp.material.size() ? sp.material[object.front()] : -1;
    const MaterialModelDesc model = material >= 0 && static_cast<std::size_t>(material) < snapshot.materials.size()
                                        ? snapshot.materials[material].model
                                        : MaterialModelDesc::kFixedCorotated;
    SurfaceMesh surface = ReconstructSurface(positions, colors, SurfaceLook(model, 2 * beads.radius, eye));
    if (!surface.indices.empty()) scene.surfaces.push_back(std::move(surface));
  }
}

// Per vertex, the area-weighted mean of the adjacent triangles' normals (unit; +z where a vertex has none).
std::vector<Vec3> VertexNormals(const std::vector<Vec3>& positions,
                                const std::vector<std::array<std::uint32_t, 3>>& triangles) {
  std::vector<Vec3> normals(positions.size(), Vec3{0, 0, 0});
  for (const std::array<std::uint32_t, 3>& t : triangles) {
    const Vec3 face = Cross(Subtract(positions[t[1]], positions[t[0]]),
                            Subtract(positions[t[2]], positions[t[0]]));  // twice the area along the normal
    for (std::uint32_t v : t)
      for (int a = 0; a < 3; ++a) normals[v][a] += face[a];
  }
  for (Vec3& normal : normals) normal = Normalize(normal, Vec3{0, 0, 1});
  return normals;
}

// Each cloth as a lit, two-sided mesh through its vertex particles: every triangle twice, with opposite windings,
// the back copy with the vertex normals reversed, the two copies apart by a fifth of a cell. Vertex normals are the
// area-weighted means of the adjacent triangles' normals. In the material colour mode a mesh instance in the
// material's colour; in the other modes (speed, stress, plastic strain) a surface mesh coloured per vertex by its
// particle's colour (`particle_colors`, per snapshot particle).
void AddCloths(const Snapshot& snapshot, const std::vector<Rgba>& particle_colors, bool per_vertex,
               RenderScene& scene) {
  const SnapshotParticles& sp = snapshot.particles;
  for (const SnapshotCloth& cloth : snapshot.cloths) {
    const auto n = static_cast<std::size_t>(cloth.num_vertices);
    if (n == 0 || static_cast<std::size_t>(cloth.first_particle) + n > sp.position.size()) continue;
    const bool indices_valid = std::all_of(cloth.triangles.begin(), cloth.triangles.end(),
                                           [n](const auto& t) { return t[0] < n && t[1] < n && t[2] < n; });
    if (!indices_valid) continue;  // an inconsistent snapshot: draw nothing rather than read past the vertices
    MeshData mesh;
    mesh.positions.assign(sp.position.begin() + cloth.first_particle, sp.position.begin() + cloth.first_particle + n);
    const std::vector<Vec3> normals = VertexNormals(mesh.positions, cloth.triangles);
    mesh.normals = normals;
    // Each side a tenth of a grid cell out along its normal: a cloth lying on a curved body (whose contact holds
    // the vertices at its surface, the flat triangles between them dipping into it) hides the body.
    const float offset = 0.1f * snapshot.grid_spacing;
    for (std::size_t v = 0; v < n; ++v) {  // the back side
      mesh.positions.push_back(Subtract(mesh.positions[v], Scale(normals[v], offset)));
      mesh.normals.push_back({-normals[v][0], -normals[v][1], -normals[v][2]});
      mesh.positions[v] = Add(mesh.positions[v], Scale(normals[v], offset));
    }
    const auto back = static_cast<std::uint32_t>(n);
    for (const std::array<std::uint32_t, 3>& t : cloth.triangles) {
      mesh.indices.insert(mesh.indices.end(), {t[0], t[1], t[2]});
      mesh.indices.insert(mesh.indices.end(), {back + t[0], back + t[2], back + t[1]});
    }
    if (per_vertex && particle_colors.size() == sp.position.size()) {
      SurfaceMesh surface;
      surface.positions = std::move(mesh.positions);
      surface.normals = std::move(mesh.normals);
      surface.indices = std::move(mesh.indices);
      const auto first = particle_colors.begin() + cloth.first_particle;
      surface.colors.assign(first, first + static_cast<std::ptrdiff_t>(n));                        // the front side
      surface.colors.insert(surface.colors.end(), first, first + static_cast<std::ptrdiff_t>(n));  // the back
      scene.surfaces.push_back(std::move(surface));
      continue;
    }
    MeshInstance instance;
    instance.mesh = static_cast<int>(scene.meshes.size());
    const auto first = static_cast<std::size_t>(cloth.first_particle);
    const std::int32_t material = first < sp.material.size() ? sp.material[first] : 0;
    if (material >= 0 && static_cast<std::size_t>(material) < snapshot.material_rgba.size())
      instance.color = snapshot.material_rgba[material];
    scene.meshes.push_back(std::move(mesh));
    scene.instances.push_back(instance);
  }
}

// An affine (rigid) body's surface with flat faces: a vertex per corner with its face's normal.
MeshData FlatMesh(const SnapshotSoftBody& body) {
  MeshData mesh;
  for (const std::array<std::uint32_t, 3>& t : *body.triangles) {
    const Vec3 face = Normalize(
        Cross(Subtract(body.vertices[t[1]], body.vertices[t[0]]), Subtract(body.vertices[t[2]], body.vertices[t[0]])),
        Vec3{0, 0, 1});
    for (std::uint32_t v : t) {
      mesh.indices.push_back(static_cast<std::uint32_t>(mesh.positions.size()));
      mesh.positions.push_back(body.vertices[v]);
      mesh.normals.push_back(face);
    }
  }
  return mesh;
}

// The soft and affine bodies of the FEM–IPC domain as lit surfaces: an affine (rigid) body flat-shaded, a soft body
// with vertex normals the area-weighted means of the adjacent faces'; in the stress colour mode a soft body coloured
// per vertex by its von Mises stress (through ColorMap up to the colour range, or the largest over the soft bodies),
// otherwise each body in its colour. A body whose colour's alpha is below 1 is drawn translucent (blended, writing no
// depth), and a pd body's bones as lines, which show through it.
void AddSoftBodies(const Snapshot& snapshot, const ViewOptions& options, RenderScene& scene) {
  const bool stress = options.color_mode == ColorMode::kVonMises;
  float top = options.color_range;
  if (stress && !(top > 0)) {
    std::vector<float> all;
    for (const SnapshotSoftBody& body : snapshot.soft_bodies)
      all.insert(all.end(), body.von_mises.begin(), body.von_mises.end());
    top = all.empty() ? 1.0f : UpperValue(all);
    if (!(top > 0)) top = 1;
  }
  for (const SnapshotSoftBody& body : snapshot.soft_bodies) {
    const std::size_t n = body.vertices.size();
    if (n == 0 || !body.triangles) continue;
    const bool indices_valid = std::all_of(body.triangles->begin(), body.triangles->end(),
                                           [n](const auto& t) { return t[0] < n && t[1] < n && t[2] < n; });
    if (!indices_valid) continue;  // an inconsistent snapshot: draw nothing rather than read past the vertices
    MeshData mesh;
    if (body.affine) {
      mesh = FlatMesh(body);
    } else {
      mesh.positions.assign(body.vertices.begin(), body.vertices.end());
      mesh.normals = VertexNormals(mesh.positions, *body.triangles);
      for (const std::array<std::uint32_t, 3>& t : *body.triangles)
        mesh.indices.insert(mesh.indices.end(), {t[0], t[1], t[2]});
    }
    for (const std::array<std::array<float, 3>, 2>& bone : body.bones)
      scene.lines.push_back({bone[0], bone[1], kBoneColor});
    const bool by_stress = stress && !body.affine && body.von_mises.size() == n;
    if (by_stress || body.rgba[3] < 1) {
      SurfaceMesh surface;
      surface.translucent = body.rgba[3] < 1;
      for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
        Rgba color = by_stress ? ColorMap(body.von_mises[v] / top) : body.rgba;
        color[3] = body.rgba[3];
        surface.colors.push_back(color);
      }
      surface.positions = std::move(mesh.positions);
      surface.normals = std::move(mesh.normals);
      surface.indices = std::move(mesh.indices);
      scene.surfaces.push_back(std::move(surface));
      continue;
    }
    MeshInstance instance;
    instance.mesh = static_cast<int>(scene.meshes.size());
    instance.color = body.rgba;
    scene.meshes.push_back(std::move(mesh));
    scene.instances.push_back(instance);
  }
}

// The mesh of a rigid shape in its frame: empty for a mesh shape without a mesh, and for a horizontal static plane at
// `ground_height`; any other plane is a square of half side `size` (at least 1 m).
MeshData ShapeMesh(const SnapshotShape& shape, float ground_height, float size) {
  MeshData mesh;
  switch (shape.type) {
    case ShapeType::kBox:
      mesh = MakeBox(shape.half_extents);
      break;
    case ShapeType::kSphere:
      mesh = MakeSphere(shape.radius);
      break;
    case ShapeType::kCylinder:
      mesh = MakeCylinder(shape.radius, shape.length);
      break;
    case ShapeType::kCapsule:
      mesh = MakeCapsule(shape.radius, shape.length);
      break;
    case ShapeType::kMesh:
      if (shape.mesh) mesh = MakeFlatMesh(shape.mesh->vertices, shape.mesh->triangles);
      break;
    case ShapeType::kPlane: {
      // A horizontal static plane is the ground the grid already shows; any other plane is drawn as a square.
      const Vec3 n = FrameZ(shape.quaternion);
      if (shape.body < 0 && n[2] > 0.99f && std::abs(shape.position[2] - ground_height) < 1e-6f) return {};
      mesh = MakeSquare(std::max(1.0f, size));
      break;
    }
    case ShapeType::kSheet:  // cloth, never a rigid shape
      break;
  }
  return mesh;
}

// Adds an arrow for the contact force on each moving body, from its origin, `options.force_scale` long per newton
// (or the largest a quarter of `size`) and no longer than the scene is wide (`size`).
void AddContactForceArrows(const Snapshot& snapshot, const ViewOptions& options, float size, RenderScene& scene) {
  float scale = options.force_scale;
  if (!(scale > 0)) {
    float largest = 0;
    for (const SnapshotBody& body : snapshot.bodies) {
      const auto& f = body.contact_force;
      largest = std::max(largest, Length(f));
    }
    scale = largest > 0 ? 0.25f * size / largest : 0.0f;
  }
  for (const SnapshotBody& body : snapshot.bodies) {
    Vec3 v = Scale(body.contact_force, scale);
    const float length = Length(v);
    if (!(length > 1e-4f * size)) continue;
    if (length > size) {
      for (float& c : v) c *= size / length;
    }
    Arrow arrow;
    arrow.origin = body.position;
    arrow.vector = v;
    arrow.shaft_radius = 0.006f * size;
    scene.arrows.push_back(arrow);
  }
}

// The mouse spring's arrow, magenta, from the grabbed point to where it is pulled; its shaft's radius a fraction of
// the scene's size.
Arrow MouseSpringArrow(const Snapshot& snapshot, float size) {
  Arrow spring;
  spring.origin = snapshot.perturb_anchor;
  for (int a = 0; a < 3; ++a) spring.vector[a] = snapshot.perturb_target[a] - snapshot.perturb_anchor[a];
  spring.color = {0.95f, 0.2f, 0.85f, 1};
  spring.shaft_radius = 0.004f * size;
  return spring;
}

// Adds the twelve edges of the MPM domain's box as lines, when the domain is not empty.
void AddDomainBox(const Snapshot& snapshot, RenderScene& scene) {
  const Vec3 &lo = snapshot.domain_min, &hi = snapshot.domain_max;
  if (lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]) {
    const Rgba color{0.45f, 0.50f, 0.58f, 1};
    const auto corner = [&](int i) {
      return Vec3{i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]};
    };
    for (int i = 0; i < 8; ++i)
      for (int bit : {1, 2, 4})
        if (!(i & bit)) scene.lines.push_back({corner(i), corner(i | bit), color});
  }
}

}  // namespace

RenderScene BuildRenderScene(const Snapshot& snapshot, const ViewOptions& options, const Camera& camera) {
  RenderScene scene;
  scene.camera = camera;
  const Bounds bounds = SceneBounds(snapshot);
  float size = 0;
  for (int a = 0; a < 3; ++a) size = std::max(size, bounds.max[a] - bounds.min[a]);
  size = std::max(size, 0.05f);

  // Ground grid: spacing a power of ten, about five to fifty lines across the scene.
  scene.grid.height = GroundHeight(snapshot, bounds);
  scene.grid.spacing = std::pow(10.0f, std::floor(std::log10(size / 5)));
  // Its extent a power of two, so that it stays the same while the scene's size changes a little from frame to frame
  // (the renderer keeps an unchanged ground in its ground cache).
  scene.grid.extent = std::exp2(std::ceil(std::log2(std::max(2.0f, 5 * size))));

  // Particles: each continuum's surface, or beads; cloth vertices as beads only on request (AddCloths draws the
  // cloth's mesh).
  const SnapshotParticles& sp = snapshot.particles;
  if (!sp.position.empty()) {
    ParticleSet set;
    set.positions.assign(sp.position.begin(), sp.position.end());
    set.radius = sp.radius > 0 ? sp.radius : 0.5f * snapshot.grid_spacing;
    set.colors.assign(sp.position.size(), Rgba{0, 0, 0, 1});
    ColorParticles(snapshot, options, set);
    std::vector<bool> cloth_vertex(sp.position.size(), false);
    for (const SnapshotCloth& cloth : snapshot.cloths) {
      for (int v = 0; v < cloth.num_vertices; ++v) {
        const auto i = static_cast<std::size_t>(cloth.first_particle) + static_cast<std::size_t>(v);
        if (i < cloth_vertex.size()) cloth_vertex[i] = true;
      }
    }
    const bool surfaces = options.particle_style == ParticleStyle::kSurface;
    if (surfaces) AddSurfaces(snapshot, set, cloth_vertex, camera.eye, scene);
    // The cloths read the colours per snapshot particle, before DropParticles thins them.
    AddCloths(snapshot, set.colors, options.color_mode != ColorMode::kMaterial, scene);
    std::vector<bool> hidden = options.cull_hidden_particles && !surfaces ? HiddenParticles(sp.position, set.radius)
                                                                          : std::vector<bool>(sp.position.size());
    for (std::size_t i = 0; i < hidden.size(); ++i) {
      if (cloth_vertex[i] ? !options.cloth_as_particles : surfaces) hidden[i] = true;
    }
    DropParticles(hidden, set);
    if (!set.positions.empty()) scene.particles.push_back(std::move(set));
  }

  AddSoftBodies(snapshot, options, scene);

  // Rigid shapes.
  for (const SnapshotShape& shape : snapshot.shapes) {
    MeshData mesh = ShapeMesh(shape, scene.grid.height, size);
    if (mesh.indices.empty()) continue;
    MeshInstance instance;
    instance.mesh = static_cast<int>(scene.meshes.size());
    instance.world_from_mesh = PoseMatrix(shape.position, shape.quaternion);
    instance.color = shape.rgba;
    instance.selected = shape.body >= 0 && shape.body == options.selected_body;
    scene.meshes.push_back(std::move(mesh));
    scene.instances.push_back(instance);
  }

  // Contact forces on the moving bodies, from their origins; no longer than the scene is wide.
  if (options.show_contact_forces) AddContactForceArrows(snapshot, options, size, scene);

  // The mouse spring: a magenta arrow from the grabbed point to where it is pulled.
  if (snapshot.perturbing) scene.arrows.push_back(MouseSpringArrow(snapshot, size));
  // The MPM domain's box.
  if (options.show_domain && !sp.position.empty()) AddDomainBox(snapshot, scene);
  return scene;
}

}  // namespace ductile::render
