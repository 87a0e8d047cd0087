// SceneDesc -> Model: particle sampling of MPM objects, material constants, colliders and grid layout.
#include <tbb/parallel_for.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/elastic_moduli.h"
#include "ductile/model.h"
#include "geometry/triangle_mesh.h"
#include "model/compile_parts.h"
#include "model/compile_rigid.h"
#include "model/fem_model.h"
#include "model/pd_bodies.h"
#include "scene/desc_eigen.h"
#include "scene/schema.h"

namespace ductile {
namespace {

Mat3f ToMat3f(const Eigen::Matrix3d& R) {
  Mat3f out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out.m[i][j] = static_cast<float>(R(i, j));
  return out;
}

// A deterministic, platform-independent random stream (SplitMix64) for jittered sampling.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  double Uniform() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};

// Inside test and local bounds of an MPM object's shape, in the shape's frame S.
class ShapeSampler {
 public:
  explicit ShapeSampler(const ShapeDesc& shape) : shape_(shape) {
    switch (shape.type) {
      case ShapeType::kBox:
        half_ = ToEigen(shape.size) * 0.5;
        break;
      case ShapeType::kSphere:
        half_ = Eigen::Vector3d::Constant(shape.radius);
        break;
      case ShapeType::kCylinder:
        half_ = Eigen::Vector3d(shape.radius, shape.radius, shape.length * 0.5);
        break;
      case ShapeType::kCapsule:
        half_ = Eigen::Vector3d(shape.radius, shape.radius, shape.length * 0.5 + shape.radius);
        break;
      case ShapeType::kMesh: {
        mesh_ = geometry::LoadObjMesh(shape.mesh_file);
        for (Eigen::Vector3d& v : mesh_.vertices) v *= shape.mesh_scale;
        const geometry::Bounds bounds = geometry::AxisAlignedBounds(mesh_);
        lo_ = bounds.min;
        hi_ = bounds.max;
        return;
      }
      case ShapeType::kPlane:
      case ShapeType::kSheet:  // cloth: SampleCloth
        break;
    }
    lo_ = -half_;
    hi_ = half_;
  }

  const Eigen::Vector3d& lo() const { return lo_; }
  const Eigen::Vector3d& hi() const { return hi_; }

  bool Contains(const Eigen::Vector3d& p_S) const {
    switch (shape_.type) {
      case ShapeType::kBox:
        return (p_S.cwiseAbs().array() <= half_.array()).all();
      case ShapeType::kSphere:
        return p_S.norm() <= shape_.radius;
      case ShapeType::kCylinder:
        return p_S.head<2>().norm() <= shape_.radius && std::abs(p_S.z()) <= 0.5 * shape_.length;
      case ShapeType::kCapsule: {
        const double z = std::clamp(p_S.z(), -0.5 * shape_.length, 0.5 * shape_.length);
        return (p_S - Eigen::Vector3d(0, 0, z)).norm() <= shape_.radius;
      }
      case ShapeType::kMesh:
        return geometry::Contains(mesh_, p_S);
      case ShapeType::kPlane:
      case ShapeType::kSheet:
        return false;
    }
    return false;
  }

 private:
  const ShapeDesc& shape_;
  Eigen::Vector3d half_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d lo_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d hi_ = Eigen::Vector3d::Zero();
  geometry::TriangleMesh mesh_;
};

mpm::BoundaryKind CompileBoundaryKind(BoundaryType t) {
  switch (t) {
    case BoundaryType::kSticky:
      return mpm::BoundaryKind::kSticky;
    case BoundaryType::kSlip:
      return mpm::BoundaryKind::kSlip;
    case BoundaryType::kSeparate:
      return mpm::BoundaryKind::kSeparate;
    case BoundaryType::kFriction:
      return mpm::BoundaryKind::kFriction;
  }
  return mpm::BoundaryKind::kSeparate;
}

// Samples one object's particles into the model.
// World bounds [lo, hi] of the shape's local box placed at (R_WS, p_WS).
void WorldBounds(const ShapeSampler& shape, const Eigen::Matrix3d& R_WS, const Eigen::Vector3d& p_WS,
                 Eigen::Vector3d& lo, Eigen::Vector3d& hi) {
  lo = Eigen::Vector3d::Constant(1e300);
  hi = Eigen::Vector3d::Constant(-1e300);
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3d c_S((corner & 1) ? shape.hi().x() : shape.lo().x(),
                              (corner & 2) ? shape.hi().y() : shape.lo().y(),
                              (corner & 4) ? shape.hi().z() : shape.lo().z());
    const Eigen::Vector3d c_W = R_WS * c_S + p_WS;
    lo = lo.cwiseMin(c_W);
    hi = hi.cwiseMax(c_W);
  }
}

// Where an object's particles go in each grid cell: `ppc` of them, on a per_axis³ lattice when ppc is a cube
// (`lattice`), else uniformly at random.
struct CellSampling {
  Eigen::Vector3d origin;  // the grid's
  double h;
  int ppc;
  int per_axis;
  bool lattice;
  bool jitter;  // a lattice point goes to a uniformly random place in its sub-cell (simulation.seed > 0)
};

// The candidate positions in the slab of cells i, c_lo ≤ (j, k) < c_hi, in a fixed order (the random stream is
// serial).
void SlabCandidates(const CellSampling& cells, int i, const Eigen::Vector3i& c_lo, const Eigen::Vector3i& c_hi,
                    SplitMix64& rng, std::vector<Eigen::Vector3d>& candidates) {
  const int per_axis = cells.per_axis;
  candidates.clear();
  for (int j = c_lo.y(); j < c_hi.y(); ++j)
    for (int k = c_lo.z(); k < c_hi.z(); ++k)
      for (int s = 0; s < cells.ppc; ++s) {
        Eigen::Vector3d f;
        if (cells.lattice) {
          const int a = s / (per_axis * per_axis), b = (s / per_axis) % per_axis, c = s % per_axis;
          const Eigen::Vector3d offset = cells.jitter ? Eigen::Vector3d(rng.Uniform(), rng.Uniform(), rng.Uniform())
                                                      : Eigen::Vector3d::Constant(0.5);
          f = (Eigen::Vector3d(a, b, c) + offset) / per_axis;
        } else {
          f = Eigen::Vector3d(rng.Uniform(), rng.Uniform(), rng.Uniform());
        }
        candidates.emplace_back(cells.origin + (Eigen::Vector3d(i, j, k) + f) * cells.h);
      }
}

void SampleObject(const SceneDesc& scene, const MpmObjectDesc& desc, int object_index, Model& model) {
  const ShapeSampler shape(desc.shape);
  const Eigen::Quaterniond q_WS = ToQuaternion(desc.pose);
  const Eigen::Matrix3d R_WS = q_WS.toRotationMatrix();
  const Eigen::Vector3d p_WS = ToEigen(desc.pose.position);
  Eigen::Vector3d lo, hi;
  WorldBounds(shape, R_WS, p_WS, lo, hi);

  CellSampling cells{ToEigen(scene.grid.domain_min), scene.grid.h, desc.particles_per_cell, 0, false, false};
  cells.per_axis = static_cast<int>(std::lround(std::cbrt(static_cast<double>(cells.ppc))));
  cells.lattice = cells.per_axis * cells.per_axis * cells.per_axis == cells.ppc;
  cells.jitter = cells.lattice && scene.simulation.seed != 0;
  const mpm::MaterialParams& material = model.materials[model.objects[object_index].material];
  const double volume = ParticleVolume(cells.h, cells.ppc);
  const double mass = ParticleMass(volume, material);
  // One stream per object and seed; seed 0 keeps the stream the scenes were first sampled with.
  SplitMix64 rng(0x5EEDull + static_cast<std::uint64_t>(object_index) * 0x9E3779B97F4A7C15ull +
                 static_cast<std::uint64_t>(scene.simulation.seed) * 0xD1B54A32D192ED03ull);

  const Eigen::Vector3i c_lo = ((lo - cells.origin) / cells.h).array().floor().cast<int>();
  const Eigen::Vector3i c_hi = ((hi - cells.origin) / cells.h).array().ceil().cast<int>();
  // Refuse objects that would need more memory than a desktop has (a particle takes about 150 bytes).
  constexpr double kMaxCandidates = 2e8;
  const double max_particles = static_cast<double>(cells.ppc) * (c_hi - c_lo).cast<double>().prod();
  if (max_particles > kMaxCandidates) {
    throw SceneError(desc.where.file, desc.where.line, desc.where.column,
                     "object '" + desc.name + "' would need up to " + std::to_string(std::llround(max_particles)) +
                         " particles, more than the 2e8 supported: raise grid.h or lower particles_per_cell");
  }
  const int first = model.num_particles;
  // One slab of cells (fixed i) at a time: the candidates in a fixed order, the inside tests in parallel (a mesh's
  // winding number costs O(triangles) per point), then the kept ones in order.
  std::vector<Eigen::Vector3d> candidates;
  std::vector<char> inside;
  for (int i = c_lo.x(); i < c_hi.x(); ++i) {
    SlabCandidates(cells, i, c_lo, c_hi, rng, candidates);
    inside.assign(candidates.size(), 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, candidates.size(), 256),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t c = r.begin(); c != r.end(); ++c)
                          inside[c] = shape.Contains(R_WS.transpose() * (candidates[c] - p_WS)) ? 1 : 0;
                      });
    for (std::size_t c = 0; c < candidates.size(); ++c)
      if (inside[c]) AddParticle(scene, desc, object_index, candidates[c], mass, volume, model);
  }
  ObjectInfo& info = model.objects[object_index];
  info.first_particle = first;
  info.num_particles = model.num_particles - first;
  info.mass = info.num_particles * mass;
  if (info.num_particles == 0) {
    throw SceneError(desc.where.file, desc.where.line, desc.where.column,
                     "object '" + desc.name + "' is smaller than a particle spacing: no particles were sampled " +
                         "(make it larger, or lower grid.h or raise particles_per_cell)");
  }
}

}  // namespace

void AddParticle(const SceneDesc& scene, const MpmObjectDesc& desc, int object_index, const Eigen::Vector3d& x_W,
                 double mass, double volume, Model& model) {
  for (int a = 0; a < 3; ++a) {
    if (x_W[a] < scene.grid.domain_min[a] || x_W[a] > scene.grid.domain_max[a]) {
      throw SceneError(desc.where.file, desc.where.line, desc.where.column,
                       "object '" + desc.name + "' extends outside the grid domain");
    }
  }
  model.x0.push_back({static_cast<float>(x_W.x()), static_cast<float>(x_W.y()), static_cast<float>(x_W.z())});
  model.v0.push_back({static_cast<float>(desc.velocity[0]), static_cast<float>(desc.velocity[1]),
                      static_cast<float>(desc.velocity[2])});
  model.mass.push_back(static_cast<float>(mass));
  model.volume.push_back(static_cast<float>(volume));
  model.material.push_back(model.objects[object_index].material);
  model.object.push_back(object_index);
  ++model.num_particles;
}

mpm::MaterialParams CompileMaterial(const MaterialDesc& m) {
  mpm::MaterialParams p;
  const LameParameters lame = LameFromYoungPoisson(m.youngs_modulus, m.poisson_ratio);
  p.mu = static_cast<float>(lame.mu);
  p.lambda = static_cast<float>(lame.lambda);
  const double E = m.youngs_modulus;
  p.density = static_cast<float>(m.density);
  switch (m.model) {
    case MaterialModelDesc::kFixedCorotated:
      p.model = mpm::MaterialModel::kFixedCorotated;
      break;
    case MaterialModelDesc::kLinearCorotated:
      p.model = mpm::MaterialModel::kLinearCorotated;
      p.yield_stress = static_cast<float>(m.yield_stress);
      break;
    case MaterialModelDesc::kStvkHencky:
      p.model = mpm::MaterialModel::kStvkHencky;
      p.yield_stress = static_cast<float>(m.yield_stress);
      break;
    case MaterialModelDesc::kDruckerPrager: {
      p.model = mpm::MaterialModel::kDruckerPrager;
      const double s = std::sin(m.friction_angle_deg * M_PI / 180.0);
      p.friction_alpha = static_cast<float>(std::sqrt(2.0 / 3.0) * 2.0 * s / (3.0 - s));
      p.cohesion = static_cast<float>(m.cohesion);
      break;
    }
    case MaterialModelDesc::kCloth:
      p.model = mpm::MaterialModel::kCloth;
      p.cloth_normal = static_cast<float>(m.normal_stiffness < 0 ? E : m.normal_stiffness);
      p.cloth_shear = static_cast<float>(m.shear_stiffness < 0 ? E : m.shear_stiffness);
      p.cloth_implicit = static_cast<float>(m.implicit_in_plane);
      p.cloth_friction = static_cast<float>(m.layer_friction);
      break;
    case MaterialModelDesc::kFluid:
      p.model = mpm::MaterialModel::kFluid;
      p.mu = 0;
      p.lambda = 0;
      p.bulk_modulus = static_cast<float>(m.bulk_modulus);
      p.gamma = static_cast<float>(m.gamma);
      p.viscosity = static_cast<float>(m.viscosity);
      break;
  }
  return p;
}

mpm::Collider CompileCollider(const ColliderDesc& c) {
  mpm::Collider out;
  out.kind = CompileBoundaryKind(c.boundary.type);
  out.friction = static_cast<float>(c.boundary.friction);
  out.R_WC = ToMat3f(ToQuaternion(c.pose).toRotationMatrix());
  out.p_WC = {static_cast<float>(c.pose.position[0]), static_cast<float>(c.pose.position[1]),
              static_cast<float>(c.pose.position[2])};
  switch (c.shape.type) {
    case ShapeType::kPlane: {
      out.shape = mpm::ColliderShape::kPlane;
      const Eigen::Vector3d n = ToEigen(c.shape.normal).normalized();
      out.normal_C = {static_cast<float>(n.x()), static_cast<float>(n.y()), static_cast<float>(n.z())};
      break;
    }
    case ShapeType::kBox:
      out.shape = mpm::ColliderShape::kBox;
      out.half_extents = {static_cast<float>(c.shape.size[0] / 2), static_cast<float>(c.shape.size[1] / 2),
                          static_cast<float>(c.shape.size[2] / 2)};
      break;
    case ShapeType::kSphere:
      out.shape = mpm::ColliderShape::kSphere;
      out.radius = static_cast<float>(c.shape.radius);
      break;
    case ShapeType::kCylinder:
      out.shape = mpm::ColliderShape::kCylinder;
      out.radius = static_cast<float>(c.shape.radius);
      out.half_length = static_cast<float>(c.shape.length / 2);
      break;
    case ShapeType::kMesh:
    case ShapeType::kCapsule:
    case ShapeType::kSheet:
      throw SceneError(c.where.file, c.where.line, c.where.column,
                       "collider '" + c.name + "': " + scene::NameOf(c.shape.type) +
                           " colliders are not supported; use plane, box, sphere or cylinder");
  }
  return out;
}

mpm::WallParams CompileWalls(const BoundaryDesc& walls) {
  return {CompileBoundaryKind(walls.type), static_cast<float>(walls.friction)};
}

void CompileSimulation(const SimulationDesc& sim, Model& model) {
  model.dt = sim.dt;
  model.substeps = sim.substeps;
  model.duration = sim.duration;
  model.output_rate = sim.output_rate;
  model.gravity = {static_cast<float>(sim.gravity[0]), static_cast<float>(sim.gravity[1]),
                   static_cast<float>(sim.gravity[2])};
  model.cfl = sim.cfl;
  model.threads = sim.threads;
  model.coupling = sim.coupling;
  model.backend = sim.backend;
  model.strong_tolerance = sim.strong_tolerance;
  model.strong_dense_limit = sim.strong_dense_limit;
  model.implicit_tolerance = sim.implicit_tolerance;
}

double ParticleVolume(double h, int particles_per_cell) {
  return h * h * h / particles_per_cell;
}

double ParticleMass(double volume, const mpm::MaterialParams& material) {
  return volume * material.density;
}

void CompileObjectMasses(const SceneDesc& scene, int object, Model& model) {
  ObjectInfo& info = model.objects[object];
  const mpm::MaterialParams& material = model.materials[info.material];
  if (material.model == mpm::MaterialModel::kCloth) {  // each vertex its own share of the triangles' volume
    info.mass = 0;
    for (int i = info.first_particle; i < info.first_particle + info.num_particles; ++i) {
      model.mass[i] = static_cast<float>(ParticleMass(model.volume[i], material));
      info.mass += model.mass[i];
    }
    return;
  }
  const double volume = ParticleVolume(scene.grid.h, scene.objects[object].particles_per_cell);
  const double mass = ParticleMass(volume, model.materials[info.material]);
  for (int i = info.first_particle; i < info.first_particle + info.num_particles; ++i)
    model.mass[i] = static_cast<float>(mass);
  info.mass = info.num_particles * mass;
}

void PinGroup::Offset(double t, std::array<double, 3>& offset, std::array<double, 3>& velocity) const {
  offset = {0, 0, 0};
  velocity = {0, 0, 0};
  double t0 = 0;
  std::array<double, 3> from{0, 0, 0};
  for (std::size_t k = 0; k < key_times.size(); ++k) {
    const double t1 = key_times[k];
    const std::array<double, 3>& to = key_offsets[k];
    if (t < t1) {
      const double s = (t - t0) / (t1 - t0);
      for (int a = 0; a < 3; ++a) {
        offset[a] = from[a] + s * (to[a] - from[a]);
        velocity[a] = (to[a] - from[a]) / (t1 - t0);
      }
      return;
    }
    t0 = t1;
    from = to;
  }
  offset = from;  // after the last keyframe (or with none): held
}

Model::Model() = default;
Model::Model(const Model&) = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(const Model&) = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

double Model::MaxWaveSpeed() const {
  double c = 0;
  for (const mpm::MaterialParams& m : materials) c = std::max(c, ExplicitWaveSpeed(m));
  return c;
}

double ExplicitWaveSpeed(const mpm::MaterialParams& m) {
  // A cloth with θ ≥ 1/2 takes its in-plane force implicitly (mpm/cloth_implicit.cpp), stable at any substep; its
  // transverse terms are not counted: they vanish at rest (the normal term is cubic, the shear capped by it).
  if (m.model == mpm::MaterialModel::kCloth && m.cloth_implicit >= 0.5f) return 0;
  const double stiffness =
      m.model == mpm::MaterialModel::kFluid ? double(m.bulk_modulus) * m.gamma : double(m.lambda) + 2.0 * m.mu;
  return std::sqrt(stiffness / m.density);
}

std::string ImplicitClothHint(const Model& model) {
  std::string names;
  for (std::size_t i = 0; i < model.materials.size(); ++i) {
    const mpm::MaterialParams& m = model.materials[i];
    if (m.model != mpm::MaterialModel::kCloth || m.cloth_implicit >= 0.5f) continue;
    if (model.SubstepsFor(ExplicitWaveSpeed(m)) <= model.substeps) continue;
    names += (names.empty() ? "" : ", ") + ("materials." + model.material_names[i] + ".implicit_in_plane: 1");
  }
  return names.empty() ? "" : "or set " + names + " (stable at fewer substeps)";
}

int Model::RigidDofs() const {
  return rigid ? rigid->tree.nv() : 0;
}

int Model::RigidOutputBodies() const {
  return rigid ? static_cast<int>(rigid->output_bodies.size()) : 0;
}

int Model::RecommendedSubsteps() const {
  return SubstepsFor(MaxWaveSpeed());
}

int Model::SubstepsFor(double wave_speed) const {
  if (wave_speed <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(dt * wave_speed / (cfl * h))));
}

Model CompileModel(const SceneDesc& scene) {
  Model model;
  CompileSimulation(scene.simulation, model);

  const GridDesc& grid = scene.grid;
  model.h = static_cast<float>(grid.h);
  for (int a = 0; a < 3; ++a) {
    model.domain_min[a] = static_cast<float>(grid.domain_min[a]);
    model.domain_max[a] = static_cast<float>(grid.domain_max[a]);
    model.grid_origin[a] = static_cast<float>(grid.domain_min[a] - kGridPadding * grid.h);
    model.grid_nodes[a] =
        static_cast<int>(std::ceil((grid.domain_max[a] - grid.domain_min[a]) / grid.h)) + 1 + 2 * kGridPadding;
  }
  model.walls = CompileWalls(scene.walls);

  for (const MaterialDesc& m : scene.materials) {
    model.materials.push_back(CompileMaterial(m));
    model.material_names.push_back(m.name);
    model.material_friction.push_back(m.friction);
  }
  for (const ColliderDesc& c : scene.colliders) {
    model.colliders.push_back(CompileCollider(c));
    model.collider_names.push_back(c.name);
  }
  for (const MpmObjectDesc& o : scene.objects) {
    ObjectInfo info;
    info.name = o.name;
    const auto it = std::find(model.material_names.begin(), model.material_names.end(), o.material);
    if (it == model.material_names.end()) {
      throw SceneError(o.where.file, o.where.line, o.where.column, "undefined material '" + o.material + "'");
    }
    info.material = static_cast<int>(it - model.material_names.begin());
    model.objects.push_back(info);
  }
  for (std::size_t o = 0; o < scene.objects.size(); ++o) {
    if (model.materials[model.objects[o].material].model == mpm::MaterialModel::kCloth) {
      CompileCloth(scene, scene.objects[o], static_cast<int>(o), model);
    } else {
      SampleObject(scene, scene.objects[o], static_cast<int>(o), model);
    }
  }
  for (const ProbeDesc& p : scene.probes) {
    ProbeInfo info;
    info.name = p.name;
    info.quantity = p.quantity;
    for (std::size_t o = 0; o < model.objects.size(); ++o)
      if (model.objects[o].name == p.object) info.object = static_cast<int>(o);
    model.probes.push_back(info);
  }
  model.rigid = std::make_shared<const RigidModel>(CompileRigid(scene));
  CompileFem(scene, model);
  CompilePd(scene, model);
  model.scene = std::make_shared<const SceneDesc>(scene);
  return model;
}

}  // namespace ductile
