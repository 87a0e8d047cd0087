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

#include "backend/device_contact_kernels.h"
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
    if (n == 0 || setup_.geometries.empty()) return out;
    const std::int64_t C = Register(device, p, n, hooks);
    out.contacts = static_cast<int>(C);
    if (C == 0) return out;
    const std::int64_t N = BuildProblem(device, p, C, grid, dt);
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
  // Registration: the geometry each particle is in, moved onto its object's surface where it carries one; the
  // contacts' particles compacted into list_ in storage order. Returns their number.
  std::int64_t Register(Device& device, const ParticleView& p, std::int64_t n, const HostContactHooks& hooks) {
    inside_.Resize(n), depth_.Resize(n), normal_.Resize(n), flags_.Resize(n), medial_.Resize(n), scan_.Resize(n);
    const auto num_objects = static_cast<int>(setup_.surfaces.size());
    const coupling::SurfaceShape* surfaces = num_objects > 0 ? surfaces_.data() : nullptr;
    device.ForEach(
        n, RegisterKernel{p.x, p.object, p.volume, surfaces, num_objects, setup_.resting_margin, geometries_.data(),
                          static_cast<int>(setup_.geometries.size()), fields_.data(), samples_.data(), inside_.data(),
                          depth_.data(), normal_.data(), flags_.data(), medial_.data()});
    if (device.Sum(medial_, n) > 0) MedialNormals(device, p, n, hooks);
    if (surfaces != nullptr) OntoSurfaces(device, p, n, hooks);
    const std::int64_t C = device.ExclusiveScan(flags_, scan_, n);
    list_.Resize(C);
    device.ForEach(n, CompactKernel{flags_.data(), scan_.data(), list_.data()});
    return C;
  }

  // The C contacts of list_ (their 27 entries each), the problem's nodes from the entries sorted by node (stable:
  // each node's contacts in contact order) and made unique by a scan, each node's mass and v*. Returns their number.
  std::int64_t BuildProblem(Device& device, const ParticleView& p, std::int64_t C, const ContactGridView& grid,
                            float dt) {
    // int32 indices, as the launch layer's sorts and scans count.
    const std::int64_t E = 27 * C;
    if (E > INT32_MAX)
      throw std::runtime_error("the contact solve has more contacts than it can index (" + std::to_string(C) + ")");
    contacts_.Resize(C), guess_.Resize(C), keys_.Resize(E), values_.Resize(E), entry_weight_.Resize(E);
    const auto dummy = static_cast<std::uint32_t>(grid.num_nodes);
    device.ForEach(C, MakeBuildKernel(p, grid, dummy, dt));
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
    return N;
  }

  BuildContactsKernel MakeBuildKernel(const ParticleView& p, const ContactGridView& grid, std::uint32_t dummy,
                                      float dt) {
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
    build.surface = setup_.surfaces.empty() ? nullptr : surface_.data();
    build.point = point_.data();
    build.h = h_;
    build.geometries = geometries_.data();
    build.num_geometries = static_cast<int>(setup_.geometries.size());
    build.friction = friction_.data();
    build.warm_geometry = warm_geometry_.data();
    build.warm_gamma = warm_gamma_.data();
    build.num_ids = num_ids_;
    build.grid = grid;
    build.dummy = dummy;
    build.base.dt = dt;
    build.base.stiffness = setup_.stiffness;  // unused by the cone
    build.base.dissipation = setup_.dissipation;
    build.base.stiction_speed = setup_.stiction_speed;
    build.base.sigma = setup_.sigma;
    build.near_rigid = setup_.stiffness > 0 ? 0 : 1;
    build.contacts = contacts_.data();
    build.gamma_guess = guess_.data();
    build.keys = keys_.data();
    build.values = values_.data();
    build.weights = entry_weight_.data();
    return build;
  }

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
