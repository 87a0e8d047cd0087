// The weak coupling's MPM-rigid contact solve on the device (docs/architecture.md, "The device backend"): what
// coupling::MpmRigidContact and contact::SolveGridContact do on the host, organised as a GPU runs it, on the
// particles and grid the device backend keeps resident. A template over the launch-and-memory layer
// (backend/launch.h), included by backend/device_mpm_impl.h only. Per substep, after the grid update:
//
//   register    per particle, the frozen geometry it is deepest inside (φ < 0) and the normal there: the analytic
//               primitives and meshes' sampled fields (geometry/distance_kernels.h, the host's functions); a mesh
//               normal on its medial axis comes from the host (rare: deep inside)
//   compact     the contacts in particle storage order (flags, exclusive scan)
//   build       per contact its 27 stencil nodes and weights, frame, rigid velocity, cost parameters (Yu et al.
//               2025, Sec. V-A) and the last substep's impulse as a guess (by particle id)
//   node set    the contacts' nodes sorted (radix sort of 27 entries per contact, stable, so each node lists its
//               contacts in contact order), unique by scan: the problem's nodes and, per node, its contacts (CSR)
//   solve       the quasi-Newton iterations of contact/mpm_contact_solver.h (Yu et al. 2025, Sec. V-B): block-
//               diagonal Newton directions refined by preconditioned CG, the exact line search
//               (contact/exact_line_search.h) with ℓ′ and ℓ″ reduced over the contacts, the stopping rule, all as
//               kernels and device sums in double precision. Problems of at most GridContactParams::dense_contacts
//               contacts go to the host instead, whose solve takes exact Newton directions by a dense
//               factorisation there (a few hundred unknowns: latency-bound on a GPU)
//   finish      corrected velocities onto the grid's nodes, impulses kept by particle id for the next substep,
//               −γ and its moment summed per rigid body in chunks of contacts (fixed order), to the host
//
// Every sum runs in a fixed order (per node over its contacts in contact order; the device's reductions), so the
// emulated backend is bitwise the same for any thread count. Against the host the results differ at round-off: the
// problem's nodes are numbered by grid index here (by first touch there), so sums run in another order; the 3x3
// Hessian blocks are inverted by cofactors (there by Cholesky); the cost is Σ nodes + Σ contacts (there one running
// sum), which can flip the choice of the impulse guess in a near tie; bodies' impulses are summed in chunks. And
// the particles' storage order differs from the CPU backend's, so where two surface contacts tie for one point
// (DropTwinContacts keeps the first of equals) a different one may keep it.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/device_kernels.h"
#include "backend/device_mpm.h"
#include "backend/launch.h"
#include "contact/exact_line_search.h"
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
    // A particle of an object that carries a surface registers from 5 r_p away (MpmRigidContact::OntoSurfaces).
    double margin = 0;
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

// ---- orchestration

template <typename Device>
class DeviceContactSolve {
  template <typename T>
  using Buffer = typename Device::template Buffer<T>;

 public:
  /// The particle ids are below `num_ids` (the impulse guesses are kept by id).
  void Resize(std::int64_t num_ids, double h) {
    num_ids_ = num_ids;
    h_ = h;
    warm_geometry_.Resize(num_ids);
    warm_gamma_.Resize(num_ids);
  }

  /// The particles' positions at t = 0 by id (Model::x0), where objects' surfaces are defined.
  void SetRestPositions(const std::vector<std::array<float, 3>>& x0) {
    static_assert(sizeof(Vec3f) == sizeof(std::array<float, 3>), "a position is three floats on both sides");
    rest_.Upload(reinterpret_cast<const Vec3f*>(x0.data()), x0.size());
  }

  /// The positions at t = 0 by id on the device.
  const Vec3f* rest() const { return rest_.data(); }

  void UploadFields(const std::vector<DeviceField>& fields, const std::vector<float>& samples) {
    fields_.Upload(fields.data(), fields.size());
    samples_.Upload(samples.data(), samples.size());
  }

  void Begin(Device& device, const DeviceContactSetup& setup) {
    setup_ = setup;
    geometries_.Upload(setup.geometries.data(), setup.geometries.size());
    friction_.Upload(setup.friction.data(), setup.friction.size());
    origins_.Upload(setup.origins.data(), setup.origins.size());
    surfaces_.Upload(setup.surfaces.data(), setup.surfaces.size());
    device.ForEach(num_ids_, SetKernel{warm_geometry_.data(), -1});
  }

  /// The substep's solve on particles `p` (n of them) and grid A (`grid`).
  DeviceContactOutcome Solve(Device& device, const ParticleView& p, std::int64_t n, const ContactGridView& grid,
                             float dt, const HostContactHooks& hooks) {
    DeviceContactOutcome out;
    const int bodies = static_cast<int>(setup_.origins.size());
    out.body_contacts.assign(bodies, 0);
    out.linear.assign(bodies, Vec3d(0, 0, 0));
    out.angular.assign(bodies, Vec3d(0, 0, 0));
    const auto num_geometries = static_cast<int>(setup_.geometries.size());
    if (n == 0 || num_geometries == 0) return out;
    // Registration.
    inside_.Resize(n), depth_.Resize(n), normal_.Resize(n), flags_.Resize(n), medial_.Resize(n), scan_.Resize(n);
    const auto num_objects = static_cast<int>(setup_.surfaces.size());
    const coupling::SurfaceShape* surfaces = num_objects > 0 ? surfaces_.data() : nullptr;
    device.ForEach(n, RegisterKernel{p.x, p.object, p.volume, surfaces, num_objects, geometries_.data(), num_geometries,
                                     fields_.data(), samples_.data(), inside_.data(), depth_.data(), normal_.data(),
                                     flags_.data(), medial_.data()});
    if (device.Sum(medial_, n) > 0) MedialNormals(device, p, n, hooks);
    if (surfaces != nullptr) OntoSurfaces(device, p, n, hooks);
    const std::int64_t C = device.ExclusiveScan(flags_, scan_, n);
    out.contacts = static_cast<int>(C);
    if (C == 0) return out;
    list_.Resize(C);
    device.ForEach(n, CompactKernel{flags_.data(), scan_.data(), list_.data()});
    // The contacts and their entries (int32 indices, as the launch layer's sorts and scans count).
    const std::int64_t E = 27 * C;
    if (E > INT32_MAX)
      throw std::runtime_error("the contact solve has more contacts than it can index (" + std::to_string(C) + ")");
    contacts_.Resize(C), guess_.Resize(C), keys_.Resize(E), values_.Resize(E), entry_weight_.Resize(E);
    const auto dummy = static_cast<std::uint32_t>(grid.num_nodes);
    contact::HuntCrossleyParams base;
    base.dt = dt;
    base.stiffness = setup_.stiffness;  // unused by the cone
    base.dissipation = setup_.dissipation;
    base.stiction_speed = setup_.stiction_speed;
    base.sigma = setup_.sigma;
    BuildContactsKernel build{};
    build.list = list_.data();
    build.x = p.x;
    build.v = p.v;
    build.C = p.C;
    build.mass = p.mass;
    build.material = p.material;
    build.id = p.id;
    build.inside = inside_.data();
    build.depth = depth_.data();
    build.normal = normal_.data();
    build.surface = surfaces != nullptr ? surface_.data() : nullptr;
    build.point = point_.data();
    build.h = h_;
    build.geometries = geometries_.data();
    build.num_geometries = num_geometries;
    build.friction = friction_.data();
    build.warm_geometry = warm_geometry_.data();
    build.warm_gamma = warm_gamma_.data();
    build.num_ids = num_ids_;
    build.grid = grid;
    build.dummy = dummy;
    build.base = base;
    build.near_rigid = setup_.stiffness > 0 ? 0 : 1;
    build.contacts = contacts_.data();
    build.gamma_guess = guess_.data();
    build.keys = keys_.data();
    build.values = values_.data();
    build.weights = entry_weight_.data();
    device.ForEach(C, build);
    // The node set: entries sorted by node (stable: each node's contacts in contact order), unique by scan.
    int key_bits = 1;
    while ((std::uint64_t{1} << key_bits) <= dummy) ++key_bits;
    device.SortPairs(keys_, values_, E, key_bits);
    entry_flags_.Resize(E), entry_scan_.Resize(E);
    device.ForEach(E, RunStartKernel{keys_.data(), dummy + 1, entry_flags_.data()});
    const std::int64_t N = device.ExclusiveScan(entry_flags_, entry_scan_, E);
    node_of_.Resize(E), touch_contact_.Resize(E), touch_weight_.Resize(E), first_.Resize(N + 1), global_.Resize(N);
    device.ForEach(
        E, NodeSetKernel{keys_.data(), values_.data(), entry_flags_.data(), entry_scan_.data(), entry_weight_.data(),
                         node_of_.data(), touch_contact_.data(), touch_weight_.data(), first_.data(), global_.data()});
    device.ForEach(1, SetKernel{first_.data() + N, static_cast<std::int32_t>(E)});
    mass_.Resize(N), v_star_.Resize(N), v_.Resize(N);
    device.ForEach(N, NodeInitKernel{global_.data(), grid, mass_.data(), v_star_.data(), v_.data()});
    // The solve, then its results onto the grid and the bodies.
    gamma_W_.Resize(C);
    if (C <= setup_.solver.dense_contacts) {
      SolveOnHost(C, N, hooks, out);
    } else {
      Iterate(device, C, N, out);
    }
    device.ForEach(N, WriteBackKernel{global_.data(), v_.data(), grid});
    device.ForEach(num_ids_, SetKernel{warm_geometry_.data(), -1});
    device.ForEach(C, KeepImpulsesKernel{contacts_.data(), gamma_W_.data(), warm_geometry_.data(), warm_gamma_.data()});
    SumPerBody(device, C, bodies, out);
    return out;
  }

  std::size_t memory_bytes() const {
    return warm_gamma_.size() * sizeof(Vec3d) + warm_geometry_.size() * sizeof(std::int32_t) +
           samples_.size() * sizeof(float) + contacts_.size() * (sizeof(DeviceContact) + 8 * sizeof(Vec3d)) +
           keys_.size() * (3 * sizeof(std::int32_t) + 2 * sizeof(double) + 8) +
           mass_.size() * (12 * sizeof(Vec3d) + sizeof(Mat3d) + 8 * sizeof(double));
  }

 private:
  // The normals the registration left to the host (a mesh's medial axis).
  void MedialNormals(Device& device, const ParticleView& p, std::int64_t n, const HostContactHooks& hooks) {
    const std::int64_t m = device.ExclusiveScan(medial_, scan_, n);
    list_.Resize(m);
    device.ForEach(n, CompactKernel{medial_.data(), scan_.data(), list_.data()});
    std::vector<std::int32_t> geometry(m);
    std::vector<Vec3f> x(m);
    Gathered(device, static_cast<const std::int32_t*>(inside_.data()), m, gather_int_, geometry);
    Gathered(device, static_cast<const Vec3f*>(p.x), m, gather_vec3f_, x);
    std::vector<Vec3d> normals(m);
    for (std::int64_t i = 0; i < m; ++i) normals[i] = hooks.medial_normal(geometry[i], Vec3d(x[i].x, x[i].y, x[i].z));
    medial_normals_.Upload(normals.data(), m);
    device.ForEach(m, ScatterNormalsKernel{list_.data(), medial_normals_.data(), normal_.data()});
  }

  // The contacts of particles of objects that carry a surface, moved onto it, and with the Hunt-Crossley cost one
  // per surface point (the host's rule over the few surface contacts); the contact flags again.
  void OntoSurfaces(Device& device, const ParticleView& p, std::int64_t n, const HostContactHooks& hooks) {
    surface_.Resize(n), point_.Resize(n);
    device.ForEach(n, SurfaceKernel{p.x, p.F, p.volume, p.object, p.id, rest_.data(), surfaces_.data(),
                                    static_cast<int>(setup_.surfaces.size()), inside_.data(), depth_.data(),
                                    normal_.data(), surface_.data(), point_.data()});
    if (setup_.stiffness > 0) {
      device.ForEach(n, ContactFlagsKernel{inside_.data(), surface_.data(), flags_.data()});
      const std::int64_t m = device.ExclusiveScan(flags_, scan_, n);
      if (m > 1) {
        list_.Resize(m);
        device.ForEach(n, CompactKernel{flags_.data(), scan_.data(), list_.data()});
        std::vector<std::int32_t> list(m), object(m), geometry(m);
        std::vector<Vec3f> x(m);
        std::vector<float> volume(m);
        std::vector<Vec3d> point(m);
        list_.Download(list.data(), m);
        Gathered(device, p.object, m, gather_int_, object);
        Gathered(device, static_cast<const std::int32_t*>(inside_.data()), m, gather_int_, geometry);
        Gathered(device, static_cast<const Vec3f*>(p.x), m, gather_vec3f_, x);
        Gathered(device, static_cast<const float*>(p.volume), m, gather_float_, volume);
        Gathered(device, static_cast<const Vec3d*>(point_.data()), m, gather_vec3d_, point);
        std::vector<coupling::SurfaceCandidate> candidates(m);
        for (std::int64_t i = 0; i < m; ++i) {
          coupling::SurfaceCandidate& k = candidates[i];
          k.particle = list[i];
          k.object = object[i];
          k.geometry = geometry[i];
          k.point = point[i];
          k.distance = Norm(point[i] - Vec3d(x[i].x, x[i].y, x[i].z));
          k.near = 0.5 * std::cbrt(static_cast<double>(volume[i]));  // r_p
        }
        const std::vector<int> dropped = hooks.drop_twins(candidates);
        if (!dropped.empty()) {
          dropped_.Upload(dropped.data(), dropped.size());
          device.ForEach(static_cast<std::int64_t>(dropped.size()), SetAtKernel{dropped_.data(), inside_.data(), -1});
        }
      }
    }
    device.ForEach(n, ContactFlagsKernel{inside_.data(), nullptr, flags_.data()});
  }

  // from[list_[i]] for the first m entries of list_, to the host through `staging`.
  template <typename T>
  void Gathered(Device& device, const T* from, std::int64_t m, Buffer<T>& staging, std::vector<T>& to) {
    staging.Resize(m);
    device.ForEach(m, GatherKernel<T>{from, list_.data(), staging.data()});
    staging.Download(to.data(), m);
  }

  // A small problem: to the host, solved there, the velocities and impulses back.
  void SolveOnHost(std::int64_t C, std::int64_t N, const HostContactHooks& hooks, DeviceContactOutcome& out) {
    HostContactProblem h;
    h.mass.resize(N), h.v_star.resize(N), h.nodes.resize(C), h.weights.resize(C), h.gamma_guess.resize(C);
    mass_.Download(h.mass.data(), N);
    v_star_.Download(h.v_star.data(), N);
    std::vector<std::int32_t> node_of(27 * C);
    std::vector<double> weights(27 * C);
    node_of_.Download(node_of.data(), 27 * C);
    entry_weight_.Download(weights.data(), 27 * C);
    std::vector<DeviceContact> contacts(C);
    contacts_.Download(contacts.data(), C);
    guess_.Download(h.gamma_guess.data(), C);
    for (std::int64_t c = 0; c < C; ++c) {
      for (int k = 0; k < 27; ++k) {
        h.nodes[c][k] = node_of[27 * c + k];
        h.weights[c][k] = weights[27 * c + k];
      }
      h.R_WC.push_back(contacts[c].R_WC);
      h.v_rigid.push_back(contacts[c].v_rigid);
      h.params.push_back(contacts[c].params);
      h.near_rigid.push_back(contacts[c].near_rigid);
    }
    hooks.solve(h);
    if (static_cast<std::int64_t>(h.v.size()) != N || static_cast<std::int64_t>(h.gamma_W.size()) != C)
      throw std::logic_error("the host's contact solve returned the wrong number of velocities or impulses");
    v_.Upload(h.v.data(), N);
    gamma_W_.Upload(h.gamma_W.data(), C);
    out.iterations = h.iterations;
    out.residual = h.residual;
    out.converged = h.converged;
    out.on_host = true;
  }

  // The quasi-Newton iterations on the device (contact/mpm_contact_solver.cpp's Solve, step for step).
  void Iterate(Device& device, std::int64_t C, std::int64_t N, DeviceContactOutcome& out) {
    vc_.Resize(C), G_W_.Resize(C), contact_cost_.Resize(C), dvc_.Resize(C), scratch_.Resize(C);
    d1_.Resize(C), d2_.Resize(C), contact_flags_.Resize(C);
    jc_.Resize(N), grad_.Resize(N), dv_.Resize(N), blocks_.Resize(N), r_.Resize(N), z_.Resize(N), d_.Resize(N);
    Hd_.Resize(N), other_v_.Resize(N);
    for (Buffer<double>* b : {&t0_, &t1_, &t2_}) b->Resize(N);
    const contact::GridContactParams& params = setup_.solver;
    double cost = Evaluate(device, C, N, v_);
    device.ForEach(C, NonZeroKernel{guess_.data(), contact_flags_.data()});
    if (device.Sum(contact_flags_, C) > 0) {  // a step's first substep has no guess: v* itself
      device.ForEach(N, AddImpulsesKernel{first_.data(), touch_contact_.data(), touch_weight_.data(), mass_.data(),
                                          v_star_.data(), guess_.data(), other_v_.data()});
      const double guess_cost = Evaluate(device, C, N, other_v_);
      if (guess_cost < cost) {
        v_.swap(other_v_);
      } else {
        Evaluate(device, C, N, v_);
      }
    }
    double last_alpha = 1;
    double residual = 0, bound = 0;
    for (int it = 0;; ++it) {
      device.ForEach(
          N, BlockNewtonKernel{first_.data(), touch_contact_.data(), touch_weight_.data(), mass_.data(), v_.data(),
                               v_star_.data(), gamma_W_.data(), G_W_.data(), jc_.data(), grad_.data(), blocks_.data(),
                               dv_.data(), t0_.data(), t1_.data(), t2_.data()});
      residual = std::sqrt(device.Sum(t0_, N));
      bound = params.abs_tolerance +
              params.rel_tolerance * std::max(std::sqrt(device.Sum(t1_, N)), std::sqrt(device.Sum(t2_, N)));
      out.iterations = it;
      if (residual < bound) break;
      if (it == params.max_iterations) break;
      if (params.cg_iterations > 0) {
        double reduction = std::clamp(0.5 * bound / residual, params.cg_reduction, 0.5);
        if (last_alpha < 0.5) reduction = std::max(reduction, 0.2);
        Refine(device, C, N, reduction);
      }
      double alpha = 0;
      if (!SearchLine(device, C, N, alpha)) {
        out.converged = residual < 1e3 * bound;
        out.residual = residual;
        device.ForEach(N, FinalVelocityKernel{mass_.data(), v_star_.data(), jc_.data(), v_.data()});
        return;
      }
      device.ForEach(N, AxpyKernel{alpha, dv_.data(), v_.data()});
      last_alpha = alpha;
      Evaluate(device, C, N, v_);
    }
    out.converged = residual < bound;
    out.residual = residual;
    device.ForEach(N, FinalVelocityKernel{mass_.data(), v_star_.data(), jc_.data(), v_.data()});
  }

  // ℓ(v), with each contact's v_c, γ, G and cost.
  double Evaluate(Device& device, std::int64_t C, std::int64_t N, Buffer<Vec3d>& v) {
    device.ForEach(C, EvaluateKernel{contacts_.data(), node_of_.data(), entry_weight_.data(), v.data(), vc_.data(),
                                     gamma_W_.data(), G_W_.data(), contact_cost_.data()});
    device.ForEach(N, InertiaKernel{mass_.data(), v.data(), v_star_.data(), t0_.data()});
    return device.Sum(t0_, N) + device.Sum(contact_cost_, C);
  }

  // y = (M + JᵀGJ) x.
  void HessianProduct(Device& device, std::int64_t C, std::int64_t N, const Buffer<Vec3d>& x, Buffer<Vec3d>& y) {
    device.ForEach(C,
                   ContactProductKernel{node_of_.data(), entry_weight_.data(), G_W_.data(), x.data(), scratch_.data()});
    device.ForEach(N, NodeProductKernel{first_.data(), touch_contact_.data(), touch_weight_.data(), mass_.data(),
                                        x.data(), scratch_.data(), y.data()});
  }

  // Preconditioned CG on H dv = −∇ℓ from the block direction (mpm_contact_solver.cpp, RefineDirection).
  void Refine(Device& device, std::int64_t C, std::int64_t N, double reduction) {
    HessianProduct(device, C, N, dv_, Hd_);
    device.ForEach(N, CgStartKernel{mass_.data(), grad_.data(), Hd_.data(), blocks_.data(), r_.data(), z_.data(),
                                    d_.data(), t0_.data(), t1_.data(), t2_.data()});
    const double r0 = device.Sum(t0_, N);
    double rz = device.Sum(t1_, N);
    double rr = device.Sum(t2_, N);
    for (int k = 0; k < setup_.solver.cg_iterations; ++k) {
      if (rr <= reduction * reduction * r0) break;
      HessianProduct(device, C, N, d_, Hd_);
      device.ForEach(N, DotKernel{d_.data(), Hd_.data(), t0_.data()});
      const double dHd = device.Sum(t0_, N);
      if (!(dHd > 0)) break;
      device.ForEach(N, CgStepKernel{rz / dHd, mass_.data(), d_.data(), Hd_.data(), blocks_.data(), dv_.data(),
                                     r_.data(), z_.data(), t1_.data(), t2_.data()});
      const double rz_next = device.Sum(t1_, N);
      rr = device.Sum(t2_, N);
      const double beta = rz_next / rz;
      rz = rz_next;
      device.ForEach(N, CgDirectionKernel{beta, z_.data(), d_.data()});
    }
  }

  // The exact line search along dv from v: the step α; false when dv is no descent direction.
  bool SearchLine(Device& device, std::int64_t C, std::int64_t N, double& step) {
    device.ForEach(
        C, ContactDirectionKernel{contacts_.data(), node_of_.data(), entry_weight_.data(), dv_.data(), dvc_.data()});
    device.ForEach(N, LineNodeKernel{mass_.data(), v_.data(), v_star_.data(), dv_.data(), grad_.data(), t0_.data(),
                                     t1_.data(), t2_.data()});
    const double a = device.Sum(t0_, N), b = device.Sum(t1_, N), d1_0 = device.Sum(t2_, N);
    if (!(d1_0 < 0)) return false;
    const auto derivatives = [&](double alpha, double& d1, double& d2) {
      device.ForEach(C, LineContactKernel{alpha, contacts_.data(), vc_.data(), dvc_.data(), d1_.data(), d2_.data()});
      d1 = a + alpha * b - device.Sum(d1_, C);
      d2 = b + device.Sum(d2_, C);
    };
    contact::LineSearchParams search;
    search.alpha_max = setup_.solver.alpha_max;
    search.slope_tolerance = 1e-3;
    step = contact::ExactLineSearch(derivatives, d1_0, search).alpha;
    return true;
  }

  // −Σγ and its moment per body, in chunks of contacts summed on the host in chunk order.
  void SumPerBody(Device& device, std::int64_t C, int bodies, DeviceContactOutcome& out) {
    if (bodies == 0) return;
    constexpr int kChunk = 1024;
    const std::int64_t chunks = (C + kChunk - 1) / kChunk;
    partials_.Resize(chunks * bodies);
    device.ForEach(chunks * bodies, BodyPartialKernel{contacts_.data(), gamma_W_.data(), origins_.data(), C, bodies,
                                                      kChunk, partials_.data()});
    std::vector<BodyPartial> partials(chunks * bodies);
    partials_.Download(partials.data(), partials.size());
    for (std::int64_t k = 0; k < chunks; ++k)
      for (int b = 0; b < bodies; ++b) {
        const BodyPartial& s = partials[k * bodies + b];
        out.linear[b] += s.linear;
        out.angular[b] += s.angular;
        out.body_contacts[b] += s.contacts;
      }
  }

  DeviceContactSetup setup_;
  std::int64_t num_ids_ = 0;
  Buffer<DeviceGeometry> geometries_;
  Buffer<DeviceField> fields_;
  Buffer<float> samples_;
  Buffer<double> friction_;
  Buffer<Vec3d> origins_;
  Buffer<coupling::SurfaceShape> surfaces_;
  Buffer<Vec3f> rest_;
  double h_ = 0;  // grid spacing [m]
  Buffer<std::int32_t> warm_geometry_;
  Buffer<Vec3d> warm_gamma_;
  // Registration, per particle.
  Buffer<std::int32_t> inside_, flags_, medial_, scan_, list_;
  Buffer<double> depth_;
  Buffer<Vec3d> normal_, medial_normals_;
  Buffer<std::int32_t> surface_, dropped_, gather_int_;
  Buffer<Vec3d> point_, gather_vec3d_;
  Buffer<Vec3f> gather_vec3f_;
  Buffer<float> gather_float_;
  // Per contact and per entry (27 per contact).
  Buffer<DeviceContact> contacts_;
  Buffer<Vec3d> guess_, gamma_W_, vc_, dvc_, scratch_;
  Buffer<Mat3d> G_W_;
  Buffer<double> contact_cost_, d1_, d2_;
  Buffer<std::int32_t> contact_flags_;
  Buffer<std::uint32_t> keys_, global_;
  Buffer<std::int32_t> values_, entry_flags_, entry_scan_, node_of_, touch_contact_, first_;
  Buffer<double> entry_weight_, touch_weight_;
  // Per problem node.
  Buffer<double> mass_, t0_, t1_, t2_;
  Buffer<Vec3d> v_star_, v_, other_v_, jc_, grad_, dv_, r_, z_, d_, Hd_;
  Buffer<Mat3d> blocks_;
  Buffer<BodyPartial> partials_;
};

}  // namespace ductile::backend
