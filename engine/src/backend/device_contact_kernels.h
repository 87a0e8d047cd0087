// The kernels of the weak coupling's contact solve on the device (backend/device_contact.h, whose comment has the
// steps): registration, the contacts and their node set, the quasi-Newton iterations per contact and per node, and
// the results onto the grid and the bodies. Functors over plain pointers (SIM_HD), as backend/launch.h asks.
#pragma once

#include <cstdint>

#include "backend/device_mpm.h"
#include "backend/launch.h"
#include "contact/point_contact_kernels.h"
#include "coupling/surface_kernels.h"
#include "geometry/distance_kernels.h"
#include "mpm/transfer_block.h"
#include "mpm/transfer_kernels.h"

namespace ductile::backend {

using Vec3d = Vec3<double>;
using Mat3d = Mat3<double>;

/// A registered contact on the device (contact::GridContact without its nodes, which live in the entry arrays).
struct DeviceContact {
  Mat3d R_WC;
  Vec3d v_rigid;
  Vec3d point;  // where it acts (the particle) [m]
  contact::HuntCrossleyParams params;
  std::int32_t near_rigid;
  std::int32_t geometry;
  std::int32_t body;
  std::int32_t id;  // the particle's id
};

/// One chunk's sums for one rigid body: −Σγ, its moment about the body origin, and the contacts.
struct BodyPartial {
  Vec3d linear, angular;
  std::int32_t contacts;
};

/// Where particles are on the grid (the stencil of a position) and grid A's storage.
struct ContactGridView {
  Vec3f origin;
  float inv_h;
  int max_base[3];
  int block_dims[3];
  const std::int32_t* table;  // block -> slot, or −1
  Float4* nodes;              // velocity [m/s], mass [kg]; 64 per slot
  std::int64_t num_nodes;

  // Storage index of node (i, j, k), or −1 where its block is not active.
  SIM_HD std::int64_t NodeIndex(int i, int j, int k) const {
    const int bx = i / mpm::kBlockEdge, by = j / mpm::kBlockEdge, bz = k / mpm::kBlockEdge;
    if (i < 0 || j < 0 || k < 0 || bx >= block_dims[0] || by >= block_dims[1] || bz >= block_dims[2]) return -1;
    const std::int32_t slot = table[(bx * block_dims[1] + by) * block_dims[2] + bz];
    if (slot < 0) return -1;
    return static_cast<std::int64_t>(slot) * mpm::kBlockNodes +
           mpm::NodeInBlock(i % mpm::kBlockEdge, j % mpm::kBlockEdge, k % mpm::kBlockEdge);
  }
};

// ---- registration

/// Per particle p: inside[p] the geometry it is deepest inside of (−1: none), depth[p] its φ there, normal[p] the
/// world normal; flags[p] whether it is a contact; medial[p] whether its normal is left to the host.
struct RegisterKernel {
  const Vec3f* x;
  const std::int32_t* object;
  const float* volume;
  const coupling::SurfaceShape* surfaces;  // per object, or null when none carries a surface
  int num_objects;
  double resting_margin;  // [m] near-rigid contacts' registration margin (MpmContactSettings::resting_margin)
  const DeviceGeometry* geometries;
  int num_geometries;
  const DeviceField* fields;
  const float* samples;
  std::int32_t* inside;
  double* depth;
  Vec3d* normal;
  std::int32_t* flags;
  std::int32_t* medial;
  SIM_HD void operator()(std::int64_t p) const {
    const Vec3f xf = x[p];
    const Vec3d xw(xf.x, xf.y, xf.z);
    // A particle of an object that carries a surface registers from 5 r_p away, any other from the resting margin
    // (MpmRigidContact::OntoSurfaces).
    double margin = resting_margin;
    if (surfaces != nullptr && object[p] >= 0 && object[p] < num_objects &&
        surfaces[object[p]].kind != coupling::SurfaceShape::kNone)
      margin = 2.5 * std::cbrt(static_cast<double>(volume[p]));
    const auto reach = static_cast<float>(margin);
    int best = -1;
    double best_phi = margin;
    Vec3d best_normal(0, 0, 1);
    bool best_medial = false;
    for (int g = 0; g < num_geometries; ++g) {
      const DeviceGeometry& G = geometries[g];
      if (xf.x < G.box_min.x - reach || xf.y < G.box_min.y - reach || xf.z < G.box_min.z - reach ||
          xf.x > G.box_max.x + reach || xf.y > G.box_max.y + reach || xf.z > G.box_max.z + reach)
        continue;
      if (Norm(xw - G.p_WG) > G.radius + reach) continue;
      const Vec3d x_G = G.R_GW * xw + G.p_GW;
      Vec3d n_G;
      bool on_medial = false;
      double phi = 0;
      if (G.shape.type == ShapeType::kMesh) {
        const DeviceField& f = fields[G.field];
        geometry::SampledDistanceField field;
        field.phi = samples + f.offset;
        for (int a = 0; a < 3; ++a) field.cells[a] = f.cells[a];
        field.min = f.min;
        field.max = f.max;
        field.cell = f.cell;
        phi = field.Distance(x_G, &n_G, on_medial);
      } else {
        phi = geometry::PrimitiveDistance(G.shape, x_G, n_G);
      }
      if (phi < best_phi) {
        best = g;
        best_phi = phi;
        best_normal = G.R_WG * n_G;
        best_medial = on_medial;
      }
    }
    inside[p] = best;
    depth[p] = best_phi;
    normal[p] = best_normal;
    flags[p] = best >= 0 ? 1 : 0;
    medial[p] = best >= 0 && best_medial ? 1 : 0;
  }
};

/// Per registered particle of an object that carries a surface: its contact moved onto that surface
/// (SurfaceShape::ContactPoint), kept where the surface point is inside the geometry; a particle only near the
/// geometry, not in it, is no contact (MpmRigidContact::OntoSurfaces).
struct SurfaceKernel {
  const Vec3f* x;
  const Mat3f* F;
  const float* volume;
  const std::int32_t* object;
  const std::int32_t* id;
  const Vec3f* rest;  // positions at t = 0 by id
  const coupling::SurfaceShape* surfaces;
  int num_objects;
  std::int32_t* inside;
  double* depth;
  const Vec3d* normal;
  std::int32_t* surface;
  Vec3d* point;
  SIM_HD void operator()(std::int64_t p) const {
    surface[p] = 0;
    const int o = object[p];
    if (inside[p] < 0 || o < 0 || o >= num_objects || surfaces[o].kind == coupling::SurfaceShape::kNone) return;
    Mat3d F_p;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) F_p.m[i][k] = F[p].m[i][k];
    const Vec3d x_p(x[p].x, x[p].y, x[p].z);
    const Vec3f& X = rest[id[p]];
    const double spread = 2 * std::cbrt(static_cast<double>(volume[p]));  // 4 r_p
    Vec3d at;
    double d = 0;
    if (surfaces[o].ContactPoint(Vec3d(X.x, X.y, X.z), F_p, x_p, normal[p], spread, at, d) && depth[p] - d < 0) {
      depth[p] -= d;
      surface[p] = 1;
      point[p] = at;
    } else if (!(depth[p] < 0)) {
      inside[p] = -1;  // near, not in: no contact
    }
  }
};

/// flags[p] = whether particle p is a contact (and, with `surface`, one on its object's surface).
struct ContactFlagsKernel {
  const std::int32_t* inside;
  const std::int32_t* surface;
  std::int32_t* flags;
  SIM_HD void operator()(std::int64_t p) const {
    flags[p] = inside[p] >= 0 && (surface == nullptr || surface[p] != 0) ? 1 : 0;
  }
};

/// to[i] = from[list[i]].
template <typename T>
struct GatherKernel {
  const T* from;
  const std::int32_t* list;
  T* to;
  SIM_HD void operator()(std::int64_t i) const { to[i] = from[list[i]]; }
};

/// to[list[i]] = value.
struct SetAtKernel {
  const std::int32_t* list;
  std::int32_t* to;
  std::int32_t value;
  SIM_HD void operator()(std::int64_t i) const { to[list[i]] = value; }
};

/// Contact c of particle list[c]: its DeviceContact, and its 27 entries e = 27c + k: the node's grid storage index
/// as a sort key (`dummy` where the node is not active), the entry as the value, the weight.
struct BuildContactsKernel {
  const std::int32_t* list;
  const Vec3f* x;
  const Vec3f* v;
  const Mat3f* C;
  const float* mass;
  const std::int32_t* material;
  const std::int32_t* id;
  const std::int32_t* inside;
  const double* depth;
  const Vec3d* normal;
  const std::int32_t* surface;  // per particle: whether its contact acts on its object's surface (null: none do)
  const Vec3d* point;           // there
  double h;                     // grid spacing [m]
  const DeviceGeometry* geometries;
  int num_geometries;
  const double* friction;             // [material · geometries + g]
  const std::int32_t* warm_geometry;  // by particle id, below num_ids
  const Vec3d* warm_gamma;
  std::int64_t num_ids;
  ContactGridView grid;
  std::uint32_t dummy;
  contact::HuntCrossleyParams base;  // dt, stiffness, dissipation, stiction speed, σ
  int near_rigid;
  DeviceContact* contacts;
  Vec3d* gamma_guess;
  std::uint32_t* keys;
  std::int32_t* values;
  double* weights;
  SIM_HD void operator()(std::int64_t c) const {
    const std::int32_t p = list[c];
    const int g = inside[p];
    const DeviceGeometry& G = geometries[g];
    mpm::Stencil s;
    mpm::ComputeStencil(x[p], grid.origin, grid.inv_h, grid.max_base, s);
    // Where it acts: the particle, or the point of its object's surface, with the weights there to first order,
    // w_ip + ∇w_ip·offset (exact for an affine grid field), and the particle's affine velocity there.
    const Vec3d x_p(x[p].x, x[p].y, x[p].z);
    const bool on_surface = surface != nullptr && surface[p] != 0;
    const Vec3d at = on_surface ? point[p] : x_p;
    const Vec3d offset = at - x_p;
    const bool moved = offset.x != 0 || offset.y != 0 || offset.z != 0;
    double dw[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (moved)
      for (int a = 0; a < 3; ++a) {
        double w_unused[3];
        mpm::QuadraticBSpline(static_cast<double>(s.fx[a]), w_unused, dw[a]);
        for (double& d : dw[a]) d /= h;
      }
    double delassus = 0;
    int slot = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k, ++slot) {
          const std::int64_t e = 27 * c + slot;
          const std::int64_t node = grid.NodeIndex(s.base[0] + i, s.base[1] + j, s.base[2] + k);
          const double w = static_cast<double>(s.w[0][i]) * s.w[1][j] * s.w[2][k];
          keys[e] = node >= 0 ? static_cast<std::uint32_t>(node) : dummy;
          values[e] = static_cast<std::int32_t>(e);
          weights[e] = w;
          if (moved)
            weights[e] += Dot(offset, Vec3d(dw[0][i] * s.w[1][j] * s.w[2][k], s.w[0][i] * dw[1][j] * s.w[2][k],
                                            s.w[0][i] * s.w[1][j] * dw[2][k]));
          const double m = node >= 0 ? grid.nodes[node][3] : 0.0;
          if (m > 0) delassus += w * w / m;
        }
    DeviceContact out;
    out.point = at;
    out.R_WC = contact::ContactFrameOf(normal[p]);
    out.v_rigid = G.body >= 0 ? G.linear + Cross(G.angular, at) : Vec3d(0, 0, 0);
    Vec3d v_p(v[p].x, v[p].y, v[p].z);
    if (on_surface)
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) v_p[r] += C[p].m[r][k] * (at[k] - x_p[k]);
    if (delassus <= 0) delassus = 1 / static_cast<double>(mass[p]);
    out.params = base;
    out.params.phi0 = depth[p];
    out.params.friction = friction[material[p] * num_geometries + g];
    out.params.vn0 = Dot(out.R_WC.Column(2), v_p - out.v_rigid);
    out.params.delassus = delassus;
    out.near_rigid = near_rigid;
    out.geometry = g;
    out.body = G.body;
    out.id = id[p];
    contacts[c] = out;
    gamma_guess[c] = out.id < num_ids && warm_geometry[out.id] == g ? warm_gamma[out.id] : Vec3d(0, 0, 0);
  }
};

/// Per sorted entry i (the node set): its node local = scan[i] + flags[i] − 1, node_of[entry] = local, the
/// node's contacts in CSR order; at a run start the node's first entry and grid storage index.
struct NodeSetKernel {
  const std::uint32_t* keys;
  const std::int32_t* values;
  const std::int32_t* flags;
  const std::int32_t* scan;
  const double* weights;
  std::int32_t* node_of;
  std::int32_t* touch_contact;
  double* touch_weight;
  std::int32_t* first;
  std::uint32_t* global;
  SIM_HD void operator()(std::int64_t i) const {
    const std::int32_t local = scan[i] + flags[i] - 1;
    const std::int32_t e = values[i];
    node_of[e] = local;
    touch_contact[i] = e / 27;
    touch_weight[i] = weights[e];
    if (flags[i]) {
      first[local] = static_cast<std::int32_t>(i);
      global[local] = keys[i];
    }
  }
};

/// Node i's mass (at least 1e-12 kg, so that its Hessian block stays positive) and free-motion velocity.
struct NodeInitKernel {
  const std::uint32_t* global;
  ContactGridView grid;
  double* mass;
  Vec3d* v_star;
  Vec3d* v;
  SIM_HD void operator()(std::int64_t i) const {
    double m = 0;
    Vec3d u(0, 0, 0);
    if (global[i] < grid.num_nodes) {
      const Float4& node = grid.nodes[global[i]];
      m = node[3];
      u = Vec3d(node[0], node[1], node[2]);
    }
    mass[i] = m > 1e-12 ? m : 1e-12;
    v_star[i] = u;
    v[i] = u;
  }
};

// ---- the solve's kernels (contact/mpm_contact_solver.cpp's Solver, per contact and per node)

/// Σ_k w_ck x[node_ck]: the G2P of node values x at contact c.
SIM_HD Vec3d InterpolateAt(const std::int32_t* node_of, const double* weights, const Vec3d* x, std::int64_t c) {
  Vec3d u(0, 0, 0);
  for (int k = 0; k < 27; ++k) u += x[node_of[27 * c + k]] * weights[27 * c + k];
  return u;
}

/// At velocities v: per contact v_c, γ (world), G (world) and its cost.
struct EvaluateKernel {
  const DeviceContact* contacts;
  const std::int32_t* node_of;
  const double* weights;
  const Vec3d* v;
  Vec3d* vc;
  Vec3d* gamma_W;
  Mat3d* G_W;
  double* cost;
  SIM_HD void operator()(std::int64_t c) const {
    const DeviceContact& k = contacts[c];
    const contact::GridContactCost model = contact::GridContactCost::Make(k.params, k.near_rigid != 0);
    const Vec3d u = InterpolateAt(node_of, weights, v, c) - k.v_rigid;
    const Mat3d Rt = k.R_WC.Transposed();
    vc[c] = Rt * u;
    Vec3d gamma;
    Mat3d G;
    cost[c] = model.Calc3(vc[c], gamma, &G);
    gamma_W[c] = k.R_WC * gamma;
    G_W[c] = k.R_WC * G * Rt;
  }
};

/// Per node: ½ m ‖v − v*‖² (the cost's inertial term).
struct InertiaKernel {
  const double* mass;
  const Vec3d* v;
  const Vec3d* v_star;
  double* out;
  SIM_HD void operator()(std::int64_t i) const { out[i] = 0.5 * mass[i] * SquaredNorm(v[i] - v_star[i]); }
};

/// Per node: v = v* + M⁻¹ Σ_c w_ci x_c (x: per-contact world vectors, e.g. the impulse guesses).
struct AddImpulsesKernel {
  const std::int32_t* first;
  const std::int32_t* touch_contact;
  const double* touch_weight;
  const double* mass;
  const Vec3d* v_star;
  const Vec3d* x;
  Vec3d* v;
  SIM_HD void operator()(std::int64_t i) const {
    Vec3d sum(0, 0, 0);
    for (int t = first[i]; t < first[i + 1]; ++t) sum += x[touch_contact[t]] * touch_weight[t];
    v[i] = v_star[i] + sum / mass[i];
  }
};

/// Per node at v (of the last evaluation): jc = Jᵀγ, ∇ℓ = M(v − v*) − jc, the inverse of the Hessian block
/// m·1 + Σ w² G_W, the block-diagonal direction dv = −H_i⁻¹∇ℓ_i, and the stopping rule's terms.
struct BlockNewtonKernel {
  const std::int32_t* first;
  const std::int32_t* touch_contact;
  const double* touch_weight;
  const double* mass;
  const Vec3d* v;
  const Vec3d* v_star;
  const Vec3d* gamma_W;
  const Mat3d* G_W;
  Vec3d* jc;
  Vec3d* grad;
  Mat3d* blocks;
  Vec3d* dv;
  double* g2;  // ‖∇ℓ_i‖²/m
  double* p2;  // m ‖v_i‖²
  double* j2;  // ‖jc_i‖²/m
  SIM_HD void operator()(std::int64_t i) const {
    const double m = mass[i];
    Vec3d impulse(0, 0, 0);
    Mat3d H = Mat3d::Identity() * m;
    for (int t = first[i]; t < first[i + 1]; ++t) {
      const int c = touch_contact[t];
      const double w = touch_weight[t];
      impulse += gamma_W[c] * w;
      H += G_W[c] * (w * w);
    }
    jc[i] = impulse;
    const Vec3d g = (v[i] - v_star[i]) * m - impulse;
    grad[i] = g;
    blocks[i] = H.Inverse();  // symmetric positive definite: m > 0, G ⪰ 0
    dv[i] = -(blocks[i] * g);
    g2[i] = SquaredNorm(g) / m;
    p2[i] = m * SquaredNorm(v[i]);
    j2[i] = SquaredNorm(impulse) / m;
  }
};

/// Per contact: scratch_c = G_W,c Σ w x (the first half of (M + JᵀGJ) x).
struct ContactProductKernel {
  const std::int32_t* node_of;
  const double* weights;
  const Mat3d* G_W;
  const Vec3d* x;
  Vec3d* scratch;
  SIM_HD void operator()(std::int64_t c) const { scratch[c] = G_W[c] * InterpolateAt(node_of, weights, x, c); }
};

/// Per node: y = m x + Σ_c w scratch_c.
struct NodeProductKernel {
  const std::int32_t* first;
  const std::int32_t* touch_contact;
  const double* touch_weight;
  const double* mass;
  const Vec3d* x;
  const Vec3d* scratch;
  Vec3d* y;
  SIM_HD void operator()(std::int64_t i) const {
    Vec3d sum = x[i] * mass[i];
    for (int t = first[i]; t < first[i + 1]; ++t) sum += scratch[touch_contact[t]] * touch_weight[t];
    y[i] = sum;
  }
};

/// CG's start per node: r = −∇ℓ − H dv, z = B r, d = z; terms ‖∇ℓ‖²/m, r·z, ‖r‖²/m.
struct CgStartKernel {
  const double* mass;
  const Vec3d* grad;
  const Vec3d* Hdv;
  const Mat3d* blocks;
  Vec3d* r;
  Vec3d* z;
  Vec3d* d;
  double* r0;
  double* rz;
  double* rr;
  SIM_HD void operator()(std::int64_t i) const {
    r[i] = -grad[i] - Hdv[i];
    z[i] = blocks[i] * r[i];
    d[i] = z[i];
    r0[i] = SquaredNorm(grad[i]) / mass[i];
    rz[i] = Dot(r[i], z[i]);
    rr[i] = SquaredNorm(r[i]) / mass[i];
  }
};

/// Per node: d·Hd.
struct DotKernel {
  const Vec3d* a;
  const Vec3d* b;
  double* out;
  SIM_HD void operator()(std::int64_t i) const { out[i] = Dot(a[i], b[i]); }
};

/// A CG step per node: dv += s d, r −= s Hd, z = B r; terms r·z and ‖r‖²/m.
struct CgStepKernel {
  double step;
  const double* mass;
  const Vec3d* d;
  const Vec3d* Hd;
  const Mat3d* blocks;
  Vec3d* dv;
  Vec3d* r;
  Vec3d* z;
  double* rz;
  double* rr;
  SIM_HD void operator()(std::int64_t i) const {
    dv[i] += d[i] * step;
    r[i] -= Hd[i] * step;
    z[i] = blocks[i] * r[i];
    rz[i] = Dot(r[i], z[i]);
    rr[i] = SquaredNorm(r[i]) / mass[i];
  }
};

/// Per node: d = z + β d.
struct CgDirectionKernel {
  double beta;
  const Vec3d* z;
  Vec3d* d;
  SIM_HD void operator()(std::int64_t i) const { d[i] = z[i] + d[i] * beta; }
};

/// Per contact: Δv_c = R_cᵀ Σ w Δv (the line's direction at the contact).
struct ContactDirectionKernel {
  const DeviceContact* contacts;
  const std::int32_t* node_of;
  const double* weights;
  const Vec3d* dv;
  Vec3d* dvc;
  SIM_HD void operator()(std::int64_t c) const {
    dvc[c] = contacts[c].R_WC.Transposed() * InterpolateAt(node_of, weights, dv, c);
  }
};

/// Per node, the line search's quadratic terms: m Δv·(v − v*), m‖Δv‖², ∇ℓ·Δv.
struct LineNodeKernel {
  const double* mass;
  const Vec3d* v;
  const Vec3d* v_star;
  const Vec3d* dv;
  const Vec3d* grad;
  double* a;
  double* b;
  double* slope;
  SIM_HD void operator()(std::int64_t i) const {
    a[i] = mass[i] * Dot(dv[i], v[i] - v_star[i]);
    b[i] = mass[i] * SquaredNorm(dv[i]);
    slope[i] = Dot(grad[i], dv[i]);
  }
};

/// Per contact at step α: Δv_c·γ(v_c + αΔv_c) and Δv_cᵀ G Δv_c (its terms of −ℓ′ and ℓ″).
struct LineContactKernel {
  double alpha;
  const DeviceContact* contacts;
  const Vec3d* vc;
  const Vec3d* dvc;
  double* d1;
  double* d2;
  SIM_HD void operator()(std::int64_t c) const {
    const contact::GridContactCost model =
        contact::GridContactCost::Make(contacts[c].params, contacts[c].near_rigid != 0);
    Vec3d gamma;
    Mat3d G;
    model.Calc3(vc[c] + dvc[c] * alpha, gamma, &G);
    d1[c] = Dot(dvc[c], gamma);
    d2[c] = Dot(dvc[c], G * dvc[c]);
  }
};

/// Per node: v += α dv.
struct AxpyKernel {
  double alpha;
  const Vec3d* dv;
  Vec3d* v;
  SIM_HD void operator()(std::int64_t i) const { v[i] += dv[i] * alpha; }
};

/// Per node: v = v* + jc/m (the momentum the impulses give, exactly).
struct FinalVelocityKernel {
  const double* mass;
  const Vec3d* v_star;
  const Vec3d* jc;
  Vec3d* v;
  SIM_HD void operator()(std::int64_t i) const { v[i] = v_star[i] + jc[i] / mass[i]; }
};

/// Per node: its corrected velocity onto the grid (an empty node carries no momentum to G2P: left alone).
struct WriteBackKernel {
  const std::uint32_t* global;
  const Vec3d* v;
  ContactGridView grid;
  SIM_HD void operator()(std::int64_t i) const {
    if (global[i] >= grid.num_nodes) return;
    Float4& node = grid.nodes[global[i]];
    if (!(node[3] > 0)) return;
    node = MakeFloat4(static_cast<float>(v[i].x), static_cast<float>(v[i].y), static_cast<float>(v[i].z), node[3]);
  }
};

/// Per contact: its impulse as the next substep's guess, by particle id.
struct KeepImpulsesKernel {
  const DeviceContact* contacts;
  const Vec3d* gamma_W;
  std::int32_t* warm_geometry;
  Vec3d* warm_gamma;
  SIM_HD void operator()(std::int64_t c) const {
    warm_geometry[contacts[c].id] = contacts[c].geometry;
    warm_gamma[contacts[c].id] = gamma_W[c];
  }
};

/// Per (chunk, body) pair i = chunk · bodies + b: the chunk's −Σγ on body b, its moment about the body's origin
/// and its contacts, in contact order.
struct BodyPartialKernel {
  const DeviceContact* contacts;
  const Vec3d* gamma_W;
  const Vec3d* origins;
  std::int64_t num_contacts;
  int bodies;
  int chunk;
  BodyPartial* out;
  SIM_HD void operator()(std::int64_t i) const {
    const int b = static_cast<int>(i % bodies);
    const std::int64_t begin = (i / bodies) * chunk;
    const std::int64_t end = begin + chunk < num_contacts ? begin + chunk : num_contacts;
    BodyPartial sum;
    sum.linear = Vec3d(0, 0, 0);
    sum.angular = Vec3d(0, 0, 0);
    sum.contacts = 0;
    for (std::int64_t c = begin; c < end; ++c) {
      if (contacts[c].body != b) continue;
      sum.linear -= gamma_W[c];
      sum.angular -= Cross(contacts[c].point - origins[b], gamma_W[c]);
      ++sum.contacts;
    }
    out[i] = sum;
  }
};

/// normal[list[i]] = values[i].
struct ScatterNormalsKernel {
  const std::int32_t* list;
  const Vec3d* values;
  Vec3d* normal;
  SIM_HD void operator()(std::int64_t i) const { normal[list[i]] = values[i]; }
};

/// to[i] = from[i].
template <typename T>
struct CopyKernel {
  const T* from;
  T* to;
  SIM_HD void operator()(std::int64_t i) const { to[i] = from[i]; }
};

/// Per contact: whether its impulse guess is not zero.
struct NonZeroKernel {
  const Vec3d* x;
  std::int32_t* flags;
  SIM_HD void operator()(std::int64_t c) const { flags[c] = x[c].x != 0 || x[c].y != 0 || x[c].z != 0 ? 1 : 0; }
};

}  // namespace ductile::backend
