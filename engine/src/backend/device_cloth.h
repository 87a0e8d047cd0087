// Cloth on the device backend (docs/architecture.md, "The device backend" and "Cloth"): the triangles' part of a
// substep that mpm/cloth_transfer.cpp does on the CPU (Jiang, Gast, Teran 2017, Secs. 4, 6 and 7), organised as a
// GPU runs it. A template over the launch-and-memory layer (backend/launch.h), included by backend/device_mpm_impl.h
// only. The vertices are ordinary particles of a kCloth material (they go through the fused G2P2G with everything
// else); the triangles carry d₃ (the State's cloth normals) and, per substep:
//
//   index      after each sort, the storage index of every particle id (the triangles name their vertices by id)
//   advect     after the grid update: each vertex's gather of the grid's velocity gradient C_v, then per triangle
//              d₃ ← (I + Δt C̄) d₃ with C̄ the mean of its vertices' (Sec. 4.2)
//   pins       each group's target for the coming gather (host: PinGroup::Offset), applied in the gather
//              (TransferBlockKernel): a held vertex is put at its rest position plus the offset, at the group's
//              velocity, C = 0; the impulse that takes is kept per particle and summed per group
//   forces     after the scatter: per triangle F = [d₁ d₂ d₃] D⁻¹, the return map, G = P D⁻ᵀ (mpm/constitutive/cloth.h,
//              the CPU's functions), its impulses; per vertex their sum in triangle order; for stiff cloth
//              (a material's implicit_in_plane θ > 0) the in-plane impulses replaced by the linearly implicit step's
//              (mpm/cloth_implicit.cpp: preconditioned CG over the implicit vertices, the product per triangle and
//              per vertex, dot products as device sums); a held vertex's impulse into its pin; each vertex's 27 node
//              terms (mpm::ScatterMomentum) sorted by node and summed per node in vertex order onto the grid
//
// Every sum runs in a fixed order, so the emulated backend stays bitwise the same for any thread count; against
// the CPU the node sums differ in order (round-off).
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/device_contact.h"
#include "backend/device_kernels.h"
#include "backend/launch.h"
#include "ductile/model.h"
#include "mpm/cloth_implicit_kernels.h"
#include "mpm/constitutive/cloth.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/transfer_kernels.h"

namespace ductile::backend {

/// A triangle's three corners (cloth-vertex or implicit-vertex numbers): a plain array for kernels.
struct Corners {
  std::int32_t v[3];
};

/// A pin group's target for one gather (mpm::PinTarget in plain types).
struct DevicePinTarget {
  Vec3f offset{};
  Vec3f velocity{};
  std::int32_t holds = 0;
};

/// What the gather needs to apply the pins: per particle id its group (−1: none), the groups' targets, the rest
/// positions by id; it writes each particle's pin impulse [N·s] (zero where none) by storage index.
struct PinView {
  const std::int32_t* group_of_id = nullptr;  // null: no pins
  const DevicePinTarget* targets = nullptr;
  const Vec3f* x0 = nullptr;
  Vec3f* impulse = nullptr;
};

/// index_of_id[id[i]] = i.
struct IndexByIdKernel {
  const std::int32_t* id;
  std::int32_t* index_of_id;
  SIM_HD void operator()(std::int64_t i) const { index_of_id[id[i]] = static_cast<std::int32_t>(i); }
};

/// Per cloth vertex c: the grid's velocity gradient C_v at its position (a gather from grid A).
struct VertexGradientKernel {
  const std::int32_t* vertex_id;
  const std::int32_t* index_of_id;
  const Vec3f* x;
  ContactGridView grid;
  float h;
  Mat3f* gradient;
  SIM_HD void operator()(std::int64_t c) const {
    mpm::Stencil s;
    mpm::ComputeStencil(x[index_of_id[vertex_id[c]]], grid.origin, grid.inv_h, grid.max_base, s);
    Vec3f v;
    mpm::GatherParticle(
        s, h, grid.inv_h,
        [&](int di, int dj, int dk) {
          const std::int64_t node = grid.NodeIndex(s.base[0] + di, s.base[1] + dj, s.base[2] + dk);
          return node >= 0 ? grid.nodes[node] : ZeroFloat4();
        },
        v, gradient[c]);
  }
};

/// Per triangle: d₃ ← d₃ + (C̄ d₃) Δt, C̄ the mean of its vertices' gradients.
struct AdvectNormalKernel {
  const Corners* corners;
  const Mat3f* gradient;
  float dt;
  Vec3f* normal;
  SIM_HD void operator()(std::int64_t e) const {
    const std::int32_t* corner = corners[e].v;
    const Mat3f C = (gradient[corner[0]] + gradient[corner[1]] + gradient[corner[2]]) * (1.0f / 3.0f);
    Vec3f& d3 = normal[e];
    d3 += (C * d3) * dt;
  }
};

/// Per triangle: F, the return map (d₃ stored back), G = P D⁻ᵀ, as the impulses −Δt V G₁, −Δt V G₂ on vertices 1
/// and 2 and the transverse affine term −Δt V (4/h²) G₃ d₃ᵀ (MpmSolver::ScatterClothForces).
struct TriangleForceKernel {
  const mpm::ClothElement* elements;
  const mpm::MaterialParams* materials;
  const std::int32_t* index_of_id;
  const Vec3f* x;
  float dt;
  float inv_h;
  Vec3f* normal;
  Vec3f* impulse;  // 2 per triangle
  Mat3f* affine;
  Vec3f* rotation;  // 2 per triangle: the in-plane rotation's columns, for triangles of implicit materials
  std::int32_t* diverged;
  SIM_HD void operator()(std::int64_t e) const {
    const mpm::ClothElement& element = elements[e];
    const mpm::MaterialParams& m = materials[element.material];
    const Vec3f& x0 = x[index_of_id[element.vertex[0]]];
    const Vec3f d1 = x[index_of_id[element.vertex[1]]] - x0;
    const Vec3f d2 = x[index_of_id[element.vertex[2]]] - x0;
    // F = [d₁ d₂ d₃] D⁻¹ with D⁻¹ = [[a, b, 0], [0, c, 0], [0, 0, 1]].
    const float a = element.rest_inverse[0], b = element.rest_inverse[1], c = element.rest_inverse[2];
    Mat3f F = Mat3f::FromColumns(d1 * a, d1 * b + d2 * c, normal[e]);
    const mpm::Cloth<float> cloth{m.mu, m.lambda, m.cloth_shear, m.cloth_normal, m.cloth_friction};
    mpm::ClothQr<float> qr = mpm::ClothQrDecompose(F);
    const Mat3f P = cloth.ReturnMapAndFirstPiola(F, qr);
    // The implicit in-plane step's rotation, from the same factors (the return map leaves Q and R̂ as they are).
    if (m.cloth_implicit > 0) mpm::Cloth<float>::InPlaneRotationOfQr(qr, rotation[2 * e], rotation[2 * e + 1]);
    const Vec3f d3 = F.Column(2);
    normal[e] = d3;
    // G = P D⁻ᵀ, D⁻ᵀ = [[a, 0, 0], [b, c, 0], [0, 0, 1]].
    const Vec3f g1 = P.Column(0) * a + P.Column(1) * b;
    const Vec3f g2 = P.Column(1) * c;
    const Vec3f g3 = P.Column(2);
    if (!IsFinite(g1.x + g1.y + g1.z + g2.x + g2.y + g2.z + g3.x + g3.y + g3.z)) AtomicMax(diverged, 1);
    const float scale = dt * element.volume;  // Δt V
    impulse[2 * e] = g1 * -scale;
    impulse[2 * e + 1] = g2 * -scale;
    affine[e] = Mat3f::Outer(g3, d3) * (-scale * 4.0f * inv_h * inv_h);
  }
};

/// Per cloth vertex, in triangle order: the sum of its triangles' in-plane impulses (f₀ = −f₁ − f₂) and a third of
/// their transverse terms.
struct VertexForceKernel {
  const std::int32_t* offsets;
  const std::int32_t* triangles;  // (triangle << 2 | corner)
  const Vec3f* impulse;
  const Mat3f* affine;
  Vec3f* vertex_impulse;
  Mat3f* vertex_affine;
  SIM_HD void operator()(std::int64_t c) const {
    Vec3f q{};
    Mat3f A = Mat3f::Zero();
    for (std::int32_t t = offsets[c]; t < offsets[c + 1]; ++t) {
      const std::int64_t e = triangles[t] >> 2;
      const int k = triangles[t] & 3;
      q += k == 0 ? -(impulse[2 * e] + impulse[2 * e + 1]) : impulse[2 * e + k - 1];
      A += affine[e] * (1.0f / 3.0f);
    }
    vertex_impulse[c] = q;
    vertex_affine[c] = A;
  }
};

/// Per cloth vertex: one its pin holds gives its impulse to the pin (absorbed) instead of the grid
/// (MpmSolver::AbsorbPinnedImpulses).
struct AbsorbPinnedKernel {
  const std::int32_t* vertex_id;
  PinView pins;
  Vec3f* vertex_impulse;
  Vec3f* absorbed;
  SIM_HD void operator()(std::int64_t c) const {
    absorbed[c] = Vec3f{};
    const std::int32_t g = pins.group_of_id[vertex_id[c]];
    if (g < 0 || !pins.targets[g].holds) return;
    absorbed[c] = -vertex_impulse[c];
    vertex_impulse[c] = Vec3f{};
  }
};

// ---- the linearly implicit in-plane step (mpm/cloth_implicit.cpp, whose comment has the equations)

/// Per implicit vertex i: its mass, velocity after the gather, whether a pin holds it, and the preconditioner
/// (M + θ Δt² H's diagonal averaged over the three directions).
struct ImplicitPrepareKernel {
  const std::int32_t* implicit_vertex;  // cloth-vertex position
  const std::int32_t* vertex_id;
  const std::int32_t* index_of_id;
  const float* mass;
  const Vec3f* v;
  const std::int32_t* entry_offsets;
  const std::int32_t* entries;  // (implicit triangle << 2 | corner)
  const std::int32_t* implicit_triangle;
  const mpm::ClothElement* elements;
  const mpm::MaterialParams* materials;
  PinView pins;
  float dt2;
  float* out_mass;
  Vec3f* velocity;
  std::int32_t* held;
  float* diagonal;
  SIM_HD void operator()(std::int64_t i) const {
    const std::int32_t id = vertex_id[implicit_vertex[i]];
    const std::int32_t p = index_of_id[id];
    out_mass[i] = mass[p];
    velocity[i] = v[p];
    held[i] = 0;
    if (pins.group_of_id != nullptr) {
      const std::int32_t g = pins.group_of_id[id];
      held[i] = g >= 0 && pins.targets[g].holds ? 1 : 0;
    }
    float d = out_mass[i];
    for (std::int32_t j = entry_offsets[i]; j < entry_offsets[i + 1]; ++j) {
      const mpm::ClothElement& element = elements[implicit_triangle[entries[j] >> 2]];
      d += mpm::ImplicitDiagonalTerm(element, materials[element.material], entries[j] & 3, dt2);
    }
    diagonal[i] = d;
  }
};

/// Per implicit triangle t: its forces θ V δP̂ β₁, θ V δP̂ β₂ on corners 1 and 2 for the vertex displacements u
/// (the first half of y = H u).
struct ImplicitTriangleKernel {
  const std::int32_t* implicit_triangle;
  const Corners* corners;  // implicit-vertex numbers
  const mpm::ClothElement* elements;
  const mpm::MaterialParams* materials;
  const Vec3f* rotation;
  const Vec3f* u;
  Vec3f* force;  // 2 per implicit triangle
  SIM_HD void operator()(std::int64_t t) const {
    const std::int64_t e = implicit_triangle[t];
    const mpm::ClothElement& element = elements[e];
    const std::int32_t* corner = corners[t].v;
    mpm::ImplicitTriangleForce(element, materials[element.material], rotation[2 * e], rotation[2 * e + 1], u[corner[0]],
                               u[corner[1]], u[corner[2]], force[2 * t], force[2 * t + 1]);
  }
};

/// Per implicit vertex, in triangle order: y = Σ its triangles' forces on it (the second half of y = H u).
struct ImplicitVertexKernel {
  const std::int32_t* entry_offsets;
  const std::int32_t* entries;
  const Vec3f* force;
  Vec3f* y;
  SIM_HD void operator()(std::int64_t i) const {
    Vec3f sum{};
    for (std::int32_t j = entry_offsets[i]; j < entry_offsets[i + 1]; ++j) {
      const int k = entries[j] & 3;
      const std::int64_t t = entries[j] >> 2;
      sum += k == 0 ? -(force[2 * t] + force[2 * t + 1]) : force[2 * t + k - 1];
    }
    y[i] = sum;
  }
};

/// One per-vertex update of the implicit step, by `op` (each the CPU's loop body, cloth_implicit.cpp).
struct ImplicitUpdateKernel {
  enum Op : int {
    kRhs,           // rhs = held ? 0 : vertex_impulse − y Δt²
    kPrecondition,  // z = a / diagonal; dot = a·z
    kWarmResidual,  // dv = held ? 0 : dv; (after y = H dv) res = held ? 0 : rhs − dv m − y Δt²
    kOperator,      // y = held ? 0 : dir m + y Δt²; dot = dir·y
    kStep,          // dv += dir α; res −= y α; z = res / diagonal; dot = res·z
    kDirection,     // dir = z + dir β
    kVelocity,      // a = velocity + dv
    kImpulse,       // vertex_impulse −= y Δt²
  };
  int op;
  float dt2, alpha, beta;
  const std::int32_t* implicit_vertex;
  const std::int32_t* held;
  const float* mass;
  const float* diagonal;
  const Vec3f* velocity;
  const Vec3f* a;
  Vec3f* vertex_impulse;
  Vec3f* rhs;
  Vec3f* dv;
  Vec3f* res;
  Vec3f* z;
  Vec3f* dir;
  Vec3f* y;
  Vec3f* out;
  double* dot;
  SIM_HD static double Dot3(const Vec3f& u, const Vec3f& w) {
    return double(u.x) * w.x + double(u.y) * w.y + double(u.z) * w.z;
  }
  SIM_HD void operator()(std::int64_t i) const {
    switch (op) {
      case kRhs:
        rhs[i] = held[i] ? Vec3f{} : vertex_impulse[implicit_vertex[i]] - y[i] * dt2;
        break;
      case kPrecondition:
        z[i] = a[i] / diagonal[i];
        dot[i] = Dot3(a[i], z[i]);
        break;
      case kWarmResidual:
        res[i] = held[i] ? Vec3f{} : rhs[i] - dv[i] * mass[i] - y[i] * dt2;
        break;
      case kOperator:
        y[i] = held[i] ? Vec3f{} : dir[i] * mass[i] + y[i] * dt2;
        dot[i] = Dot3(dir[i], y[i]);
        break;
      case kStep:
        dv[i] += dir[i] * alpha;
        res[i] -= y[i] * alpha;
        z[i] = res[i] / diagonal[i];
        dot[i] = Dot3(res[i], z[i]);
        break;
      case kDirection:
        dir[i] = z[i] + dir[i] * beta;
        break;
      case kVelocity:
        out[i] = velocity[i] + dv[i];
        break;
      case kImpulse:
        vertex_impulse[implicit_vertex[i]] -= y[i] * dt2;
        break;
      default:
        break;
    }
  }
};

/// v[i] = 0.
struct FillVec3fKernel {
  Vec3f* v;
  SIM_HD void operator()(std::int64_t i) const { v[i] = Vec3f{}; }
};

/// dv[i] = 0 where held[i].
struct ClearHeldKernel {
  const std::int32_t* held;
  Vec3f* dv;
  SIM_HD void operator()(std::int64_t i) const {
    if (held[i]) dv[i] = Vec3f{};
  }
};

/// Per cloth vertex c: its 27 node terms (its impulse with its weights, its share of the transverse terms through
/// the same stencil) as entries 27c + k keyed by grid B's node (`dummy` where the node is not active).
struct VertexEntriesKernel {
  const std::int32_t* vertex_id;
  const std::int32_t* index_of_id;
  const Vec3f* x;
  ContactGridView grid;
  float h;
  const Vec3f* vertex_impulse;
  const Mat3f* vertex_affine;
  std::uint32_t dummy;
  std::uint32_t* keys;
  std::int32_t* values;
  Float4* terms;
  SIM_HD void operator()(std::int64_t c) const {
    mpm::Stencil s;
    mpm::ComputeStencil(x[index_of_id[vertex_id[c]]], grid.origin, grid.inv_h, grid.max_base, s);
    const Vec3f& q = vertex_impulse[c];
    mpm::ScatterMomentum(s, h, MakeFloat4(q.x, q.y, q.z, 0.0f), vertex_affine[c],
                         [&](int di, int dj, int dk, const Float4& dq) {
                           const std::int64_t e = 27 * c + static_cast<std::int64_t>((di * 3 + dj) * 3 + dk);
                           const std::int64_t node = grid.NodeIndex(s.base[0] + di, s.base[1] + dj, s.base[2] + dk);
                           keys[e] = node >= 0 ? static_cast<std::uint32_t>(node) : dummy;
                           values[e] = static_cast<std::int32_t>(e);
                           terms[e] = dq;
                         });
  }
};

/// Per run r of equal node keys (sorted entries first[r] to first[r + 1]): the node += its terms, in entry order.
struct AddRunsKernel {
  const std::int32_t* first;
  const std::uint32_t* keys;
  const std::int32_t* values;
  const Float4* terms;
  Float4* nodes;
  SIM_HD void operator()(std::int64_t r) const {
    Float4 sum = ZeroFloat4();
    for (std::int32_t i = first[r]; i < first[r + 1]; ++i) sum += terms[values[i]];
    nodes[keys[first[r]]] += sum;
  }
};

/// At each run start i: first[scan[i]] = i.
struct RunFirstKernel {
  const std::int32_t* flags;
  const std::int32_t* scan;
  std::int32_t* first;
  SIM_HD void operator()(std::int64_t i) const {
    if (flags[i]) first[scan[i]] = static_cast<std::int32_t>(i);
  }
};

/// One chunk's sum of per-item impulses for one pin group: item i of the chunk counts for group `group_of(i)`.
struct PinPartialKernel {
  const Vec3f* impulse;
  const std::int32_t* group_of_id;
  const std::int32_t* id_of_item;  // the item's particle id
  std::int64_t items;
  int groups;
  int chunk;
  Vec3<double>* out;
  SIM_HD void operator()(std::int64_t i) const {
    const int g = static_cast<int>(i % groups);
    const std::int64_t begin = (i / groups) * chunk;
    const std::int64_t end = begin + chunk < items ? begin + chunk : items;
    Vec3<double> sum(0, 0, 0);
    for (std::int64_t k = begin; k < end; ++k)
      if (group_of_id[id_of_item[k]] == g) sum += Vec3<double>(impulse[k].x, impulse[k].y, impulse[k].z);
    out[i] = sum;
  }
};

/// Where the entries with active nodes end: the first entry keyed `dummy` (sorted last), when there is one.
struct InactiveStartKernel {
  const std::uint32_t* keys;
  std::uint32_t dummy;
  std::int32_t* end;
  SIM_HD void operator()(std::int64_t i) const {
    if (keys[i] >= dummy && (i == 0 || keys[i - 1] < dummy)) *end = static_cast<std::int32_t>(i);
  }
};

template <typename Device>
class DeviceCloth {
  template <typename T>
  using Buffer = typename Device::template Buffer<T>;

 public:
  /// The model's triangles, their vertices and the pin groups (once per model: the triangles do not change).
  void Configure(const Model& model) {
    model_ = &model;
    const std::vector<mpm::ClothElement>& elements = model.cloth_elements;
    num_triangles_ = static_cast<std::int64_t>(elements.size());
    // The node sums index 27 entries per vertex as int32, as the launch layer's sorts and scans count.
    if (num_triangles_ * 3 * 27 > INT32_MAX)
      throw std::runtime_error("the cloth has more triangles than the device backend can index (" +
                               std::to_string(num_triangles_) + ")");
    elements_.Upload(elements.data(), elements.size());
    // The vertices (ids, ascending), each triangle's corners among them, each vertex's triangles in triangle order.
    std::vector<std::int32_t> vertices;
    for (const mpm::ClothElement& e : elements) vertices.insert(vertices.end(), e.vertex, e.vertex + 3);
    std::sort(vertices.begin(), vertices.end());
    vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
    num_vertices_ = static_cast<std::int64_t>(vertices.size());
    std::vector<Corners> corners(elements.size());
    for (std::size_t e = 0; e < elements.size(); ++e)
      for (int k = 0; k < 3; ++k)
        corners[e].v[k] = static_cast<std::int32_t>(
            std::lower_bound(vertices.begin(), vertices.end(), elements[e].vertex[k]) - vertices.begin());
    std::vector<std::int32_t> offsets(vertices.size() + 1, 0);
    for (const auto& corner : corners)
      for (int k = 0; k < 3; ++k) ++offsets[corner.v[k] + 1];
    for (std::size_t c = 0; c < vertices.size(); ++c) offsets[c + 1] += offsets[c];
    std::vector<std::int32_t> triangles(offsets.back());
    std::vector<std::int32_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t e = 0; e < elements.size(); ++e)
      for (int k = 0; k < 3; ++k) triangles[fill[corners[e].v[k]]++] = static_cast<std::int32_t>(e << 2) | k;
    vertex_id_.Upload(vertices.data(), vertices.size());
    corners_.Upload(corners.data(), corners.size());
    offsets_.Upload(offsets.data(), offsets.size());
    triangles_.Upload(triangles.data(), triangles.size());
    // Pins: each particle id's group.
    num_groups_ = static_cast<int>(model.pin_groups.size());
    if (num_groups_ > 0) {
      std::vector<std::int32_t> group_of_id(model.num_particles, -1);
      for (int g = 0; g < num_groups_; ++g)
        for (std::int32_t id : model.pin_groups[g].particles) group_of_id[id] = g;
      group_of_id_.Upload(group_of_id.data(), group_of_id.size());
    }
    pin_sums_.assign(num_groups_, {0, 0, 0});
    pending_absorbed_.assign(num_groups_, {0, 0, 0});
    index_of_id_.Resize(model.num_particles);
    ConfigureImplicit(model, corners, offsets, triangles);
  }

  bool active() const { return num_triangles_ > 0; }
  bool pinned() const { return num_groups_ > 0; }

  void UploadNormals(const std::vector<Vec3f>& normals) { normal_.Upload(normals.data(), normals.size()); }
  void DownloadNormals(std::vector<Vec3f>& normals) const {
    normals.resize(static_cast<std::size_t>(num_triangles_));
    normal_.Download(normals.data(), normals.size());
  }

  /// After the particles were sorted (or uploaded): where each id is.
  void Index(Device& device, const std::int32_t* id, std::int64_t n) {
    device.ForEach(n, IndexByIdKernel{id, index_of_id_.data()});
  }

  /// After the grid update of grid A: d₃ advected with the grid.
  void Advect(Device& device, const Vec3f* x, const ContactGridView& grid, float h, float dt) {
    gradient_.Resize(num_vertices_);
    device.ForEach(num_vertices_,
                   VertexGradientKernel{vertex_id_.data(), index_of_id_.data(), x, grid, h, gradient_.data()});
    device.ForEach(num_triangles_, AdvectNormalKernel{corners_.data(), gradient_.data(), dt, normal_.data()});
  }

  /// The pins for the gather that ends at time t [s] (null views when the model has none); `n` particles.
  PinView Pins(const Vec3f* x0, double t, std::int64_t n) {
    if (!pinned()) return {};
    std::vector<DevicePinTarget> targets(num_groups_);
    for (int g = 0; g < num_groups_; ++g) {
      std::array<double, 3> offset{}, velocity{};
      model_->pin_groups[g].Offset(t, offset, velocity);
      for (int a = 0; a < 3; ++a) {
        targets[g].offset[a] = static_cast<float>(offset[a]);
        targets[g].velocity[a] = static_cast<float>(velocity[a]);
      }
      targets[g].holds = model_->pin_groups[g].Holds(t) ? 1 : 0;
    }
    targets_.Upload(targets.data(), targets.size());
    pin_impulse_.Resize(n);
    return {group_of_id_.data(), targets_.data(), x0, pin_impulse_.data()};
  }

  /// After a gather with pins: its impulses per group (with those the last scatter's pins absorbed) into the sums.
  void SumGatherPins(Device& device, const std::int32_t* id, std::int64_t n) {
    if (!pinned()) return;
    for (int g = 0; g < num_groups_; ++g)
      for (int a = 0; a < 3; ++a) pin_sums_[g][a] += pending_absorbed_[g][a];
    pending_absorbed_.assign(num_groups_, {0, 0, 0});
    AddPartials(device, pin_impulse_.data(), id, n, pin_sums_);
  }

  /// After the scatter into grid B (`grid`): the triangles' forces onto it. `pins` as the last gather applied them.
  void Scatter(Device& device, const ParticleView& p, const mpm::MaterialParams* materials, const ContactGridView& grid,
               float h, float dt, const PinView& pins, std::int32_t* diverged) {
    const Vec3f* x = p.x;
    impulse_.Resize(2 * num_triangles_), affine_.Resize(num_triangles_), rotation_.Resize(2 * num_triangles_);
    device.ForEach(num_triangles_,
                   TriangleForceKernel{elements_.data(), materials, index_of_id_.data(), x, dt, grid.inv_h,
                                       normal_.data(), impulse_.data(), affine_.data(), rotation_.data(), diverged});
    vertex_impulse_.Resize(num_vertices_), vertex_affine_.Resize(num_vertices_), absorbed_.Resize(num_vertices_);
    device.ForEach(num_vertices_, VertexForceKernel{offsets_.data(), triangles_.data(), impulse_.data(), affine_.data(),
                                                    vertex_impulse_.data(), vertex_affine_.data()});
    if (num_implicit_vertices_ > 0) ImplicitInPlaneImpulses(device, p, materials, pins, dt);
    if (pins.group_of_id != nullptr)
      device.ForEach(num_vertices_,
                     AbsorbPinnedKernel{vertex_id_.data(), pins, vertex_impulse_.data(), absorbed_.data()});
    // Counted with the gather that takes this scatter's momenta (MpmSolver::AbsorbPinnedImpulses).
    if (pinned()) {
      pending_absorbed_.assign(num_groups_, {0, 0, 0});
      AddPartials(device, absorbed_.data(), vertex_id_.data(), num_vertices_, pending_absorbed_);
    }
    // Onto the grid: each vertex's 27 terms, sorted by node, summed per node in vertex order.
    const std::int64_t E = 27 * num_vertices_;
    keys_.Resize(E), values_.Resize(E), terms_.Resize(E), flags_.Resize(E), scan_.Resize(E);
    const auto dummy = static_cast<std::uint32_t>(grid.num_nodes);
    device.ForEach(num_vertices_,
                   VertexEntriesKernel{vertex_id_.data(), index_of_id_.data(), x, grid, h, vertex_impulse_.data(),
                                       vertex_affine_.data(), dummy, keys_.data(), values_.data(), terms_.data()});
    int key_bits = 1;
    while ((std::uint64_t{1} << key_bits) <= dummy) ++key_bits;
    device.SortPairs(keys_, values_, E, key_bits);
    device.ForEach(E, RunStartKernel{keys_.data(), dummy, flags_.data()});
    const std::int64_t runs = device.ExclusiveScan(flags_, scan_, E);
    first_.Resize(runs + 1);
    device.ForEach(E, RunFirstKernel{flags_.data(), scan_.data(), first_.data()});
    // The runs end where the next begins; the last where the inactive nodes' entries (sorted last) begin, or at E.
    device.ForEach(1, SetKernel{first_.data() + runs, static_cast<std::int32_t>(E)});
    device.ForEach(E, InactiveStartKernel{keys_.data(), dummy, first_.data() + runs});
    device.ForEach(runs, AddRunsKernel{first_.data(), keys_.data(), values_.data(), terms_.data(), grid.nodes});
  }

  /// A new State (an upload): no pin impulses pending or summed from before it.
  void ClearPins() {
    pin_sums_.assign(num_groups_, {0, 0, 0});
    pending_absorbed_.assign(num_groups_, {0, 0, 0});
  }

  /// At an Advance's start: the implicit step's CG starts from zero (a step depends on the State alone).
  void BeginAdvance() { implicit_warm_ = false; }

  /// The pins' impulses per group since the last call [N·s].
  std::vector<std::array<double, 3>> TakePinImpulses() {
    std::vector<std::array<double, 3>> sums(num_groups_, {0, 0, 0});
    sums.swap(pin_sums_);
    return sums;
  }

  std::size_t memory_bytes() const {
    return static_cast<std::size_t>(num_triangles_) * (sizeof(mpm::ClothElement) + 3 * sizeof(Vec3f) + sizeof(Mat3f)) +
           static_cast<std::size_t>(num_vertices_) * (27 * (sizeof(Float4) + 16) + 2 * sizeof(Mat3f));
  }

 private:
  // The triangles of implicit materials and the vertices they touch (in cloth-vertex order), each vertex's implicit
  // triangles in triangle order, and their corners among those vertices (MpmSolver::IndexImplicitCloth).
  void ConfigureImplicit(const Model& model, const std::vector<Corners>& corners,
                         const std::vector<std::int32_t>& offsets, const std::vector<std::int32_t>& triangles) {
    const std::vector<mpm::ClothElement>& elements = model.cloth_elements;
    std::vector<std::int32_t> implicit_triangles;
    for (std::size_t e = 0; e < elements.size(); ++e)
      if (model.materials[elements[e].material].cloth_implicit > 0)
        implicit_triangles.push_back(static_cast<std::int32_t>(e));
    num_implicit_triangles_ = static_cast<std::int64_t>(implicit_triangles.size());
    num_implicit_vertices_ = 0;
    if (implicit_triangles.empty()) return;
    std::vector<std::int32_t> local_of_vertex(static_cast<std::size_t>(num_vertices_), -1);
    for (const std::int32_t e : implicit_triangles)
      for (int k = 0; k < 3; ++k) local_of_vertex[corners[e].v[k]] = 0;
    std::vector<std::int32_t> implicit_vertices;
    for (std::size_t c = 0; c < local_of_vertex.size(); ++c)
      if (local_of_vertex[c] == 0) {
        local_of_vertex[c] = static_cast<std::int32_t>(implicit_vertices.size());
        implicit_vertices.push_back(static_cast<std::int32_t>(c));
      }
    num_implicit_vertices_ = static_cast<std::int64_t>(implicit_vertices.size());
    std::vector<std::int32_t> local_of_triangle(elements.size(), -1);
    for (std::size_t t = 0; t < implicit_triangles.size(); ++t)
      local_of_triangle[implicit_triangles[t]] = static_cast<std::int32_t>(t);
    std::vector<std::int32_t> entry_offsets(implicit_vertices.size() + 1, 0), entries;
    for (std::size_t i = 0; i < implicit_vertices.size(); ++i) {
      const std::int32_t c = implicit_vertices[i];
      for (std::int32_t j = offsets[c]; j < offsets[c + 1]; ++j) {
        const std::int32_t t = local_of_triangle[triangles[j] >> 2];
        if (t >= 0) entries.push_back(t << 2 | (triangles[j] & 3));
      }
      entry_offsets[i + 1] = static_cast<std::int32_t>(entries.size());
    }
    std::vector<Corners> implicit_corners(implicit_triangles.size());
    for (std::size_t t = 0; t < implicit_triangles.size(); ++t)
      for (int k = 0; k < 3; ++k) implicit_corners[t].v[k] = local_of_vertex[corners[implicit_triangles[t]].v[k]];
    implicit_triangle_.Upload(implicit_triangles.data(), implicit_triangles.size());
    implicit_vertex_.Upload(implicit_vertices.data(), implicit_vertices.size());
    implicit_offsets_.Upload(entry_offsets.data(), entry_offsets.size());
    implicit_entries_.Upload(entries.data(), entries.size());
    implicit_corners_.Upload(implicit_corners.data(), implicit_corners.size());
  }

  // y = H u over the implicit vertices.
  void ApplyImplicitStiffness(Device& device, const mpm::MaterialParams* materials, const Vec3f* u, Vec3f* y) {
    device.ForEach(num_implicit_triangles_,
                   ImplicitTriangleKernel{implicit_triangle_.data(), implicit_corners_.data(), elements_.data(),
                                          materials, rotation_.data(), u, implicit_force_.data()});
    device.ForEach(num_implicit_vertices_,
                   ImplicitVertexKernel{implicit_offsets_.data(), implicit_entries_.data(), implicit_force_.data(), y});
  }

  // One per-vertex update (ImplicitUpdateKernel::Op) over the implicit vertices; returns Σ dot when it has one.
  double Update(Device& device, int op, float dt2, const Vec3f* a = nullptr, Vec3f* out = nullptr, float alpha = 0,
                float beta = 0) {
    ImplicitUpdateKernel k{op,
                           dt2,
                           alpha,
                           beta,
                           implicit_vertex_.data(),
                           held_.data(),
                           implicit_mass_.data(),
                           diagonal_.data(),
                           implicit_velocity_.data(),
                           a,
                           vertex_impulse_.data(),
                           rhs_.data(),
                           dv_.data(),
                           res_.data(),
                           z_.data(),
                           dir_.data(),
                           q_.data(),
                           out,
                           dot_.data()};
    device.ForEach(num_implicit_vertices_, k);
    const bool sums = op == ImplicitUpdateKernel::kPrecondition || op == ImplicitUpdateKernel::kOperator ||
                      op == ImplicitUpdateKernel::kStep;
    return sums ? device.Sum(dot_, num_implicit_vertices_) : 0.0;
  }

  // The linearly implicit in-plane step: each implicit vertex's in-plane impulse replaced by J = Δt f − θ Δt² H
  // (v + Δv), Δv by preconditioned CG from the last substep's (mpm/cloth_implicit.cpp, step for step).
  void ImplicitInPlaneImpulses(Device& device, const ParticleView& p, const mpm::MaterialParams* materials,
                               const PinView& pins, float dt) {
    using Op = ImplicitUpdateKernel;
    const std::int64_t n = num_implicit_vertices_;
    const float dt2 = dt * dt;
    implicit_mass_.Resize(n), diagonal_.Resize(n), implicit_velocity_.Resize(n), held_.Resize(n);
    implicit_force_.Resize(2 * num_implicit_triangles_);
    for (Buffer<Vec3f>* b : {&rhs_, &res_, &z_, &dir_, &q_, &w_}) b->Resize(n);
    dot_.Resize(n);
    device.ForEach(n,
                   ImplicitPrepareKernel{implicit_vertex_.data(), vertex_id_.data(), index_of_id_.data(), p.mass, p.v,
                                         implicit_offsets_.data(), implicit_entries_.data(), implicit_triangle_.data(),
                                         elements_.data(), materials, pins, dt2, implicit_mass_.data(),
                                         implicit_velocity_.data(), held_.data(), diagonal_.data()});
    // The right-hand side Δt f − θ Δt² H v (Δt f: the explicit impulse already summed per vertex).
    ApplyImplicitStiffness(device, materials, implicit_velocity_.data(), q_.data());
    Update(device, Op::kRhs, dt2);
    SolveImplicitVelocity(device, materials, dt2);
    // J = Δt f − θ Δt² H (v + Δv) in place of each vertex's explicit in-plane impulse.
    Update(device, Op::kVelocity, dt2, nullptr, w_.data());
    ApplyImplicitStiffness(device, materials, w_.data(), q_.data());
    Update(device, Op::kImpulse, dt2);
  }

  void SolveImplicitVelocity(Device& device, const mpm::MaterialParams* materials, float dt2) {
    using Op = ImplicitUpdateKernel;
    const std::int64_t n = num_implicit_vertices_;
    const double stop = Update(device, Op::kPrecondition, dt2, rhs_.data()) * mpm::kImplicitClothTolerance *
                        mpm::kImplicitClothTolerance;
    const bool warm = implicit_warm_ && static_cast<std::int64_t>(dv_.size()) == n;
    if (!warm) {
      dv_.Resize(n);
      device.ForEach(n, FillVec3fKernel{dv_.data()});
    }
    if (!(stop > 0)) {  // nothing to solve for (at rest, or every vertex held): Δv = 0
      device.ForEach(n, FillVec3fKernel{dv_.data()});
      return;
    }
    if (warm) {  // from the last substep's Δv (this Advance solved for the same vertices)
      device.ForEach(n, ClearHeldKernel{held_.data(), dv_.data()});
      ApplyImplicitStiffness(device, materials, dv_.data(), q_.data());
      Update(device, Op::kWarmResidual, dt2);
    } else {
      device.ForEach(n, CopyKernel<Vec3f>{rhs_.data(), res_.data()});
    }
    double rz = Update(device, Op::kPrecondition, dt2, res_.data());
    device.ForEach(n, CopyKernel<Vec3f>{z_.data(), dir_.data()});
    int iterations = 0;
    while (rz > stop && rz > 0 && iterations < mpm::kImplicitClothMaxIterations) {
      ApplyImplicitStiffness(device, materials, dir_.data(), q_.data());
      const double dq = Update(device, Op::kOperator, dt2);
      if (!(dq > 0)) break;
      const double rz_next = Update(device, Op::kStep, dt2, nullptr, nullptr, static_cast<float>(rz / dq));
      const auto beta = static_cast<float>(rz_next / rz);
      rz = rz_next;
      Update(device, Op::kDirection, dt2, nullptr, nullptr, 0, beta);
      ++iterations;
    }
    implicit_warm_ = true;
  }

  // into += per group Σ impulse[i] over items i whose particle id id_of_item[i] is in the group, in chunks of
  // 1,024 items summed on the host in order.
  void AddPartials(Device& device, const Vec3f* impulse, const std::int32_t* id_of_item, std::int64_t items,
                   std::vector<std::array<double, 3>>& into) {
    constexpr int kChunk = 1024;
    const std::int64_t chunks = (items + kChunk - 1) / kChunk;
    if (chunks == 0) return;
    partials_.Resize(chunks * num_groups_);
    device.ForEach(chunks * num_groups_, PinPartialKernel{impulse, group_of_id_.data(), id_of_item, items, num_groups_,
                                                          kChunk, partials_.data()});
    std::vector<Vec3<double>> partials(chunks * num_groups_);
    partials_.Download(partials.data(), partials.size());
    for (std::int64_t k = 0; k < chunks; ++k)
      for (int g = 0; g < num_groups_; ++g)
        for (int a = 0; a < 3; ++a) into[g][a] += partials[k * num_groups_ + g][a];
  }

  const Model* model_ = nullptr;
  std::int64_t num_triangles_ = 0, num_vertices_ = 0;
  int num_groups_ = 0;
  Buffer<mpm::ClothElement> elements_;
  Buffer<std::int32_t> vertex_id_, offsets_, triangles_, index_of_id_, group_of_id_;
  Buffer<Corners> corners_;
  Buffer<Vec3f> normal_, impulse_, vertex_impulse_, absorbed_, pin_impulse_;
  Buffer<Mat3f> gradient_, affine_, vertex_affine_;
  Buffer<DevicePinTarget> targets_;
  Buffer<std::uint32_t> keys_;
  Buffer<std::int32_t> values_, flags_, scan_, first_;
  Buffer<Float4> terms_;
  Buffer<Vec3<double>> partials_;
  // The implicit in-plane step: tables (ConfigureImplicit), per implicit triangle its forces, per implicit vertex
  // the solver's vectors; its CG starts from the last Δv within an Advance.
  std::int64_t num_implicit_triangles_ = 0, num_implicit_vertices_ = 0;
  Buffer<std::int32_t> implicit_triangle_, implicit_vertex_, implicit_offsets_, implicit_entries_, held_;
  Buffer<Corners> implicit_corners_;
  Buffer<Vec3f> rotation_, implicit_force_, implicit_velocity_, rhs_, dv_, res_, z_, dir_, q_, w_;
  Buffer<float> implicit_mass_, diagonal_;
  Buffer<double> dot_;
  bool implicit_warm_ = false;
  std::vector<std::array<double, 3>> pin_sums_;          // per group, since the last TakePinImpulses
  std::vector<std::array<double, 3>> pending_absorbed_;  // per group: what the last scatter's pins absorbed
};

}  // namespace ductile::backend
