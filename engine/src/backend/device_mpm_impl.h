// The device MPM backend's orchestration (backend/device_mpm.h), a template over the launch-and-memory layer
// (backend/launch.h): instantiated for CpuDevice in device_mpm_cpu.cpp and for CudaDevice in
// cuda/device_mpm_cuda.cu. Included by those two files only.
//
// Data on the device, structure of arrays: the particles (twice: the sort gathers them into the other copy), the
// sort's keys and permutation, the occupied blocks with their particle ranges and a dense table from block to
// occupied index, and two grids (the one the gather reads and the one the scatter builds), each a list of active
// blocks, a dense block table and 64 nodes per active block. One substep (docs/architecture.md, "The device
// backend"):
//
//   grid update        per active node of grid A: momentum to velocity, gravity, walls and colliders
//   sort               key = the block of each particle's stencil base; radix sort (key, index); occupied blocks
//                      where the sorted key changes (flags, exclusive scan); particles gathered into sorted order
//   activate           the occupied blocks' 27-neighbourhoods (candidates, radix sort, unique by scan) become grid
//                      B's active blocks and table
//   G2P2G              one launch block per occupied block: the 8x8x8 node window of grid A around it into shared
//                      memory, each particle's gather, advection, F update and return map, its stress and scatter
//                      into a second shared window, that window to global memory
//   reduce             each node of grid B sums the (up to 27) windows that overlap it, in a fixed order
//
// and grid B becomes grid A. A particle moves at most one cell per substep (else it diverged), so its stencil
// before and after the move lies in its block's window. Nothing is atomic between launch blocks: the windows are
// summed in a fixed order, so the emulated backend is bitwise the same for any thread count.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/device_cloth.h"
#include "backend/device_contact.h"
#include "backend/device_kernels.h"
#include "backend/device_mpm.h"
#include "backend/launch.h"
#include "ductile/model.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/grid_kernels.h"
#include "mpm/model_views.h"
#include "mpm/transfer_block.h"
#include "mpm/transfer_kernels.h"

namespace ductile::backend {

/// The dense block table's geometry: blocks per axis (mpm::SparseGrid's, one spare per axis).
struct BlockDims {
  int n[3];
  SIM_HD int Linear(int bx, int by, int bz) const { return (bx * n[1] + by) * n[2] + bz; }
  SIM_HD bool Inside(int bx, int by, int bz) const {
    return bx >= 0 && by >= 0 && bz >= 0 && bx < n[0] && by < n[1] && bz < n[2];
  }
  SIM_HD void Coords(int block, int c[3]) const {
    c[0] = block / (n[1] * n[2]);
    c[1] = (block / n[2]) % n[1];
    c[2] = block % n[2];
  }
};

/// Where particles are on the grid: what the stencil of a position needs.
struct GridFrame {
  Vec3f origin;
  float h;
  float inv_h;
  int max_base[3];
  BlockDims dims;
};

// ---- kernels (functors over plain pointers)

/// keys[p] = the block of particle p's stencil base, order[p] = p.
struct BlockKeyKernel {
  const Vec3f* x;
  GridFrame g;
  std::uint32_t* keys;
  std::int32_t* order;
  SIM_HD void operator()(std::int64_t p) const {
    mpm::Stencil s;
    mpm::LocateStencil(x[p], g.origin, g.inv_h, g.max_base, s);
    keys[p] = static_cast<std::uint32_t>(
        g.dims.Linear(s.base[0] / mpm::kBlockEdge, s.base[1] / mpm::kBlockEdge, s.base[2] / mpm::kBlockEdge));
    order[p] = static_cast<std::int32_t>(p);
  }
};

/// At each run start i: list[scan[i]] = keys[i], first[scan[i]] = i (when given), table[keys[i]] = scan[i].
struct WriteRunsKernel {
  const std::uint32_t* keys;
  const std::int32_t* flags;
  const std::int32_t* scan;
  std::int32_t* list;
  std::int32_t* first;
  std::int32_t* table;
  SIM_HD void operator()(std::int64_t i) const {
    if (!flags[i]) return;
    list[scan[i]] = static_cast<std::int32_t>(keys[i]);
    if (first != nullptr) first[scan[i]] = static_cast<std::int32_t>(i);
    table[keys[i]] = scan[i];
  }
};

/// table[list[i]] = −1: clears the entries a list set.
struct ClearTableKernel {
  const std::int32_t* list;
  std::int32_t* table;
  SIM_HD void operator()(std::int64_t i) const { table[list[i]] = -1; }
};

/// The 27 neighbours (itself included) of occupied block o as candidate keys 27·o + e; `invalid` where the
/// neighbour is outside the table or below block 0 (no particle's stencil reaches it: bases are ≥ 0).
struct NeighbourKernel {
  const std::int32_t* occupied;
  BlockDims dims;
  std::uint32_t invalid;
  std::uint32_t* keys;
  std::int32_t* values;
  SIM_HD void operator()(std::int64_t i) const {
    const int o = static_cast<int>(i / 27), e = static_cast<int>(i % 27);
    int c[3];
    dims.Coords(occupied[o], c);
    const int bx = c[0] + e / 9 - 1, by = c[1] + e / 3 % 3 - 1, bz = c[2] + e % 3 - 1;
    keys[i] = dims.Inside(bx, by, bz) ? static_cast<std::uint32_t>(dims.Linear(bx, by, bz)) : invalid;
    values[i] = 0;
  }
};

/// to[i] = from[order[i]] for every particle field.
struct GatherParticlesKernel {
  const std::int32_t* order;
  ParticleView from, to;
  SIM_HD void operator()(std::int64_t i) const {
    const std::int32_t j = order[i];
    to.x[i] = from.x[j];
    to.v[i] = from.v[j];
    to.F[i] = from.F[j];
    to.C[i] = from.C[j];
    to.mass[i] = from.mass[j];
    to.volume[i] = from.volume[j];
    to.plastic_strain[i] = from.plastic_strain[j];
    to.material[i] = from.material[j];
    to.object[i] = from.object[j];
    to.id[i] = from.id[j];
  }
};

/// mass[i] = model_mass[id[i]] (a live edit of densities).
struct MassByIdKernel {
  const float* model_mass;
  const std::int32_t* id;
  float* mass;
  SIM_HD void operator()(std::int64_t i) const { mass[i] = model_mass[id[i]]; }
};

/// The fused pass on one occupied block (module comment, "G2P2G"): a gather from grid A (when `gather`), then a
/// scatter into the block's window (when `scatter`). Shared scratch: the gather window, then the scatter window.
struct TransferBlockKernel {
  ParticleView p;
  GridFrame g;
  const std::int32_t* occupied;  // occupied index -> block
  const std::int32_t* first;     // occupied index -> its first particle; [num_occupied] = n
  const std::int32_t* table_a;   // grid A: block -> slot, or −1
  const Float4* nodes_a;         // grid A: velocity [m/s], mass [kg]
  Float4* windows;               // per occupied block, kWindowNodes: momentum [kg·m/s], mass [kg]
  const mpm::MaterialParams* materials;
  float dt;
  float max_speed2;  // (h/Δt)²: a particle faster than a cell per substep diverged
  bool gather;
  bool scatter;
  std::int32_t* diverged;  // set to 1 when a particle diverged
  PinView pins;            // cloth pins (backend/device_cloth.h); group_of_id null: none

  SIM_HD void operator()(const BlockLanes& b) const {
    Float4* in = b.shared;
    Float4* out = b.shared + mpm::kWindowNodes;
    int c[3];
    g.dims.Coords(occupied[b.block], c);
    const int o[3] = {c[0] * mpm::kBlockEdge - mpm::kWindowMargin, c[1] * mpm::kBlockEdge - mpm::kWindowMargin,
                      c[2] * mpm::kBlockEdge - mpm::kWindowMargin};
    for (int n = b.lane; n < mpm::kWindowNodes; n += b.lanes) {
      out[n] = ZeroFloat4();
      if (gather) in[n] = LoadNode(o[0] + n / 64, o[1] + n / 8 % 8, o[2] + n % 8);
    }
    b.Sync();
    for (int q = first[b.block] + b.lane; q < first[b.block + 1]; q += b.lanes) Particle(b, q, o, in, out);
    b.Sync();
    if (!scatter) return;
    Float4* window = windows + static_cast<std::int64_t>(b.block) * mpm::kWindowNodes;
    for (int n = b.lane; n < mpm::kWindowNodes; n += b.lanes) window[n] = out[n];
  }

  // Grid A's node (i, j, k), zero where its block is not active.
  SIM_HD Float4 LoadNode(int i, int j, int k) const {
    if (i < 0 || j < 0 || k < 0) return ZeroFloat4();
    const int bx = i / mpm::kBlockEdge, by = j / mpm::kBlockEdge, bz = k / mpm::kBlockEdge;
    if (!g.dims.Inside(bx, by, bz)) return ZeroFloat4();
    const std::int32_t slot = table_a[g.dims.Linear(bx, by, bz)];
    if (slot < 0) return ZeroFloat4();
    return nodes_a[static_cast<std::int64_t>(slot) * mpm::kBlockNodes +
                   mpm::NodeInBlock(i % mpm::kBlockEdge, j % mpm::kBlockEdge, k % mpm::kBlockEdge)];
  }

  // The stencil at x and its base in window coordinates; false when the stencil leaves the window.
  SIM_HD bool WindowStencil(const Vec3f& x, const int o[3], mpm::Stencil& s, int w[3]) const {
    mpm::ComputeStencil(x, g.origin, g.inv_h, g.max_base, s);
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      w[a] = s.base[a] - o[a];
      inside = inside && w[a] >= 0 && w[a] + 2 < mpm::kWindowEdge;
    }
    return inside;
  }

  // A pinned cloth vertex that its group still holds: at its rest position plus the group's offset, moving with it
  // (C = 0), whatever the grid said; the impulse that takes, m (v_pin − v), kept for the group's reaction.
  SIM_HD void ApplyPin(int q, Vec3f& x, Vec3f& v, Mat3f& C) const {
    const std::int32_t id = p.id[q];
    const std::int32_t group = pins.group_of_id[id];
    Vec3f impulse{};
    if (group >= 0 && pins.targets[group].holds) {
      const DevicePinTarget& target = pins.targets[group];
      const float m = p.mass[q];
      impulse = Vec3f{m * (target.velocity.x - v.x), m * (target.velocity.y - v.y), m * (target.velocity.z - v.z)};
      x = pins.x0[id] + target.offset;
      v = target.velocity;
      C = Mat3f::Zero();
    }
    pins.impulse[q] = impulse;
  }

  SIM_HD void Particle(const BlockLanes& b, int q, const int o[3], const Float4* in, Float4* out) const {
    if (gather && pins.group_of_id != nullptr) pins.impulse[q] = Vec3f{};  // every slot summed, even on divergence
    Vec3f x = p.x[q], v = p.v[q];
    Mat3f F = p.F[q], C = p.C[q];
    const mpm::MaterialParams& material = materials[p.material[q]];
    mpm::Stencil s;
    int w[3];
    if (gather) {
      if (!WindowStencil(x, o, s, w)) {
        AtomicMax(diverged, 1);
        return;
      }
      mpm::GatherParticle(
          s, g.h, g.inv_h,
          [&](int di, int dj, int dk) { return in[mpm::WindowIndex(w[0] + di, w[1] + dj, w[2] + dk)]; }, v, C);
      x += v * dt;
      if (pins.group_of_id != nullptr) ApplyPin(q, x, v, C);
      const Mat3f F_old = F;
      F = mpm::UpdateDeformationGradient(F_old, C, dt);
      p.plastic_strain[q] += mpm::ReturnMap(material, F_old, F);
      const float speed2 = Dot(v, v);
      if (!(speed2 <= max_speed2) || !IsFinite(F.Determinant())) AtomicMax(diverged, 1);
      p.x[q] = x;
      p.v[q] = v;
      p.F[q] = F;
      p.C[q] = C;
    }
    if (!scatter) return;
    if (!WindowStencil(x, o, s, w)) {
      AtomicMax(diverged, 1);
      return;
    }
    const Mat3f tau = mpm::KirchhoffStress(material, F, C);
    const Mat3f A = mpm::AffineMomentum(p.mass[q], p.volume[q], C, tau, dt, g.inv_h);
    mpm::ScatterParticle(s, g.h, p.mass[q], v, A, [&](int di, int dj, int dk, const Float4& value) {
      LaneAdd(b, &out[mpm::WindowIndex(w[0] + di, w[1] + dj, w[2] + dk)], value);
    });
  }
};

/// Node a of grid B (slot a / 64) = Σ of the windows of the occupied blocks around its block, in a fixed order.
struct ReduceWindowsKernel {
  BlockDims dims;
  const std::int32_t* active_b;     // slot -> block
  const std::int32_t* occupied_of;  // block -> occupied index, or −1
  const Float4* windows;
  Float4* nodes_b;
  SIM_HD void operator()(std::int64_t a) const {
    const int slot = static_cast<int>(a / mpm::kBlockNodes), local = static_cast<int>(a % mpm::kBlockNodes);
    const int n[3] = {local / 16, local / 4 % 4, local % 4};
    int c[3];
    dims.Coords(active_b[slot], c);
    Float4 sum = ZeroFloat4();
    for (int e = 0; e < 27; ++e) {
      const int ex = e / 9 - 1, ey = e / 3 % 3 - 1, ez = e % 3 - 1;
      if (!dims.Inside(c[0] + ex, c[1] + ey, c[2] + ez)) continue;
      const std::int32_t o = occupied_of[dims.Linear(c[0] + ex, c[1] + ey, c[2] + ez)];
      if (o < 0) continue;
      const int wi = n[0] + mpm::kWindowMargin - mpm::kBlockEdge * ex;
      const int wj = n[1] + mpm::kWindowMargin - mpm::kBlockEdge * ey;
      const int wk = n[2] + mpm::kWindowMargin - mpm::kBlockEdge * ez;
      if (wi < 0 || wj < 0 || wk < 0 || wi >= mpm::kWindowEdge || wj >= mpm::kWindowEdge || wk >= mpm::kWindowEdge)
        continue;
      sum += windows[static_cast<std::int64_t>(o) * mpm::kWindowNodes + mpm::WindowIndex(wi, wj, wk)];
    }
    nodes_b[a] = sum;
  }
};

/// Grid update of node a of grid A (MLS-MPM, Hu et al. 2018, Sec. 5): momentum to velocity, gravity, boundary
/// conditions; counted[a] = 1 where the node has mass.
struct GridUpdateKernel {
  BlockDims dims;
  const std::int32_t* active;
  Float4* nodes;
  mpm::GridUpdateParams params;  // colliders in device memory
  std::int32_t* counted;
  SIM_HD void operator()(std::int64_t a) const {
    Float4& node = nodes[a];
    const float m = node[3];
    counted[a] = m > 0 ? 1 : 0;
    if (!(m > 0)) return;
    const int slot = static_cast<int>(a / mpm::kBlockNodes), local = static_cast<int>(a % mpm::kBlockNodes);
    int c[3];
    dims.Coords(active[slot], c);
    const Vec3f v =
        mpm::UpdateNodeVelocity(params, c[0] * mpm::kBlockEdge + local / 16, c[1] * mpm::kBlockEdge + local / 4 % 4,
                                c[2] * mpm::kBlockEdge + local % 4, m, Xyz(node));
    node = MakeFloat4(v.x, v.y, v.z, m);
  }
};

// ---- orchestration

template <typename Device>
class DeviceMpmOn final : public DeviceMpm {
  template <typename T>
  using Buffer = typename Device::template Buffer<T>;

  struct ParticleBuffers {
    Buffer<Vec3f> x, v;
    Buffer<Mat3f> F, C;
    Buffer<float> mass, volume, plastic_strain;
    Buffer<std::int32_t> material, object, id;

    void Resize(std::size_t n) {
      mpm::ForEachParticleField([n](const mpm::ParticleField&, auto& buffer) { buffer.Resize(n); }, *this);
    }
    ParticleView View() {
      return {x.data(),        v.data(),      F.data(), C.data(), mass.data(), volume.data(), plastic_strain.data(),
              material.data(), object.data(), id.data()};
    }
    void swap(ParticleBuffers& o) {
      mpm::ForEachParticleField([](const mpm::ParticleField&, auto& mine, auto& theirs) { mine.swap(theirs); }, *this,
                                o);
    }
  };

  struct Grid {
    Buffer<std::int32_t> table;   // block -> slot, or −1
    Buffer<std::int32_t> active;  // slot -> block
    Buffer<Float4> nodes;         // 64 per slot
    std::int64_t num_active = 0;
  };

 public:
  /// The device its launches run on (a test sets the CPU device's lanes).
  Device& device() { return device_; }

  explicit DeviceMpmOn(const Model& model) {
    frame_.origin = mpm::ToVec3f(model.grid_origin);
    frame_.h = model.h;
    frame_.inv_h = 1.0f / model.h;
    for (int a = 0; a < 3; ++a) {
      frame_.max_base[a] = model.grid_nodes[a] - 3;
      frame_.dims.n[a] = model.grid_nodes[a] / mpm::kBlockEdge + 2;  // as mpm::SparseGrid::Resize
    }
    num_blocks_ = static_cast<std::int64_t>(frame_.dims.n[0]) * frame_.dims.n[1] * frame_.dims.n[2];
    key_bits_ = 1;
    while ((std::int64_t{1} << key_bits_) <= num_blocks_) ++key_bits_;  // keys up to num_blocks_ (invalid) fit
    for (Grid* grid : {&grids_[0], &grids_[1]}) {
      grid->table.Resize(num_blocks_);
      device_.ForEach(num_blocks_, SetKernel{grid->table.data(), -1});
    }
    occupied_of_.Resize(num_blocks_);
    device_.ForEach(num_blocks_, SetKernel{occupied_of_.data(), -1});
    diverged_flag_.Resize(1);
    device_.ForEach(1, SetKernel{diverged_flag_.data(), 0});
    contact_.Resize(model.num_particles, model.h);
    SetModel(model);
  }

  void SetTime(double t) override { time_ = t; }

  void UploadCloth(const std::vector<Vec3f>& normals) override {
    if (cloth_.active()) cloth_.UploadNormals(normals);
  }

  void DownloadCloth(std::vector<Vec3f>& normals) override {
    if (cloth_.active()) cloth_.DownloadNormals(normals);
  }

  std::vector<std::array<double, 3>> TakePinImpulses() override { return cloth_.TakePinImpulses(); }

  const char* name() const override { return Device::kName == std::string("cpu") ? "emulated" : "cuda"; }

  void SetModel(const Model& model) override {
    model_ = &model;
    materials_.Upload(model.materials.data(), model.materials.size());
    colliders_.Upload(model.colliders.data(), model.colliders.size());
    grid_params_ = mpm::GridUpdateParamsFor(model, colliders_.data());
    cloth_.Configure(model);  // none when the model has no cloth
    contact_.SetRestPositions(model.x0);
    if (n_ > 0) {
      model_mass_.Upload(model.mass.data(), model.mass.size());
      device_.ForEach(n_, MassByIdKernel{model_mass_.data(), particles_.id.data(), particles_.mass.data()});
    }
    prepared_dt_ = 0;
  }

  void Upload(const mpm::Particles& p) override {
    n_ = static_cast<std::int64_t>(p.size());
    const std::int64_t n = n_;
    mpm::ForEachParticleField(
        [n](const mpm::ParticleField&, auto& buffer, const auto& host) { buffer.Upload(host.data(), n); }, particles_,
        p);
    // A fresh start: every table cleared, whatever a failed substep left in them.
    for (Grid* grid : {&grids_[0], &grids_[1]}) {
      device_.ForEach(num_blocks_, SetKernel{grid->table.data(), -1});
      grid->num_active = 0;
    }
    device_.ForEach(num_blocks_, SetKernel{occupied_of_.data(), -1});
    num_occupied_ = 0;
    a_ = 0;
    sorted_.Resize(n_);
    keys_.Resize(n_);
    order_.Resize(n_);
    flags_.Resize(n_);
    scan_.Resize(n_);
    prepared_dt_ = 0;
    diverged_ = false;
    device_.ForEach(1, SetKernel{diverged_flag_.data(), 0});
    if (cloth_.active()) cloth_.Index(device_, particles_.id.data(), n_);
    cloth_.ClearPins();
  }

  void Download(mpm::Particles& p) override { DownloadParticles(particles_, n_, p); }

  void UploadVelocities(const mpm::Particles& p) override {
    if (static_cast<std::int64_t>(p.size()) != n_) throw std::logic_error("UploadVelocities: particle count changed");
    particles_.v.Upload(p.v.data(), n_);
    prepared_dt_ = 0;
  }

  mpm::SubstepCounters Advance(float dt, int substeps, const std::function<void(float)>& grid_hook) override {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    mpm::SubstepCounters counters;
    if (substeps < 1 || n_ == 0 || diverged_) return counters;
    cloth_.BeginAdvance();
    if (prepared_dt_ != dt) {
      Clock::time_point t0 = Clock::now();
      SortAndActivate(counters);
      counters.sort_seconds += since(t0);
      t0 = Clock::now();
      Transfer(dt, false, true, cloth_.Pins(contact_.rest(), time_, n_));
      counters.p2g_seconds += since(t0);
      ++counters.p2g_passes;
    }
    prepared_dt_ = 0;
    for (int k = 0; k < substeps; ++k) {
      Clock::time_point t0 = Clock::now();
      counters.active_nodes += UpdateGrid(dt);
      if (grid_hook) grid_hook(dt);
      if (cloth_.active()) cloth_.Advect(device_, particles_.x.data(), GridView(grids_[a_]), frame_.h, dt);
      counters.grid_seconds += since(t0);
      counters.occupied_blocks = static_cast<int>(num_occupied_);
      counters.active_blocks = static_cast<int>(grids_[a_].num_active);
      t0 = Clock::now();
      SortAndActivate(counters);
      counters.sort_seconds += since(t0);
      t0 = Clock::now();
      Transfer(dt, true, true, cloth_.Pins(contact_.rest(), time_ + (k + 1) * double(dt), n_));
      counters.g2p2g_seconds += since(t0);
      if (device_.Read(diverged_flag_, 0) != 0) {
        diverged_ = true;
        time_ += (k + 1) * double(dt);
        return counters;
      }
    }
    time_ += substeps * double(dt);
    prepared_dt_ = dt;
    return counters;
  }

  bool diverged() const override { return diverged_; }

  void UploadContactFields(const std::vector<DeviceField>& fields, const std::vector<float>& samples) override {
    contact_.UploadFields(fields, samples);
  }

  void BeginContactStep(const DeviceContactSetup& setup) override { contact_.Begin(device_, setup); }

  DeviceContactOutcome SolveContact(float dt, const HostContactHooks& hooks) override {
    return contact_.Solve(device_, particles_.View(), n_, GridView(grids_[a_]), dt, hooks);
  }

  std::size_t memory_bytes() const override {
    std::size_t bytes = 2 * static_cast<std::size_t>(n_) *
                        (2 * sizeof(Vec3f) + 2 * sizeof(Mat3f) + 3 * sizeof(float) + 3 * sizeof(std::int32_t));
    bytes += static_cast<std::size_t>(n_) * (sizeof(std::uint32_t) + 3 * sizeof(std::int32_t));
    for (const Grid& grid : grids_)
      bytes += grid.table.size() * sizeof(std::int32_t) + grid.nodes.size() * sizeof(Float4);
    bytes += windows_.size() * sizeof(Float4) + occupied_of_.size() * sizeof(std::int32_t);
    return bytes + contact_.memory_bytes() + cloth_.memory_bytes();
  }

 private:
  // The first n particles of `from` into host arrays.
  static void DownloadParticles(const ParticleBuffers& from, std::int64_t n, mpm::Particles& p) {
    p.Resize(n);
    mpm::ForEachParticleField(
        [n](const mpm::ParticleField&, const auto& buffer, auto& host) { buffer.Download(host.data(), n); }, from, p);
  }

  // Sorts the particles by block (occupied blocks, their ranges and table) and activates grid B around them.
  void SortAndActivate(mpm::SubstepCounters& counters) {
    device_.ForEach(n_, BlockKeyKernel{particles_.x.data(), frame_, keys_.data(), order_.data()});
    device_.SortPairs(keys_, order_, n_, key_bits_);
    device_.ForEach(n_, RunStartKernel{keys_.data(), static_cast<std::uint32_t>(num_blocks_), flags_.data()});
    if (num_occupied_ > 0) device_.ForEach(num_occupied_, ClearTableKernel{occupied_.data(), occupied_of_.data()});
    num_occupied_ = device_.ExclusiveScan(flags_, scan_, n_);
    occupied_.Resize(num_occupied_);
    first_.Resize(num_occupied_ + 1);
    device_.ForEach(n_, WriteRunsKernel{keys_.data(), flags_.data(), scan_.data(), occupied_.data(), first_.data(),
                                        occupied_of_.data()});
    device_.ForEach(1, SetKernel{first_.data() + num_occupied_, static_cast<std::int32_t>(n_)});
    device_.ForEach(n_, GatherParticlesKernel{order_.data(), particles_.View(), sorted_.View()});
    particles_.swap(sorted_);
    if (cloth_.active()) cloth_.Index(device_, particles_.id.data(), n_);
    ++counters.sorts;
    // Grid B: the 27-neighbourhoods of the occupied blocks, ascending, unique.
    Grid& b = grids_[1 - a_];
    if (b.num_active > 0) device_.ForEach(b.num_active, ClearTableKernel{b.active.data(), b.table.data()});
    const std::int64_t m = 27 * num_occupied_;
    candidates_.Resize(m);
    candidate_values_.Resize(m);
    candidate_flags_.Resize(m);
    candidate_scan_.Resize(m);
    const auto invalid = static_cast<std::uint32_t>(num_blocks_);
    device_.ForEach(
        m, NeighbourKernel{occupied_.data(), frame_.dims, invalid, candidates_.data(), candidate_values_.data()});
    device_.SortPairs(candidates_, candidate_values_, m, key_bits_);
    device_.ForEach(m, RunStartKernel{candidates_.data(), invalid, candidate_flags_.data()});
    b.num_active = device_.ExclusiveScan(candidate_flags_, candidate_scan_, m);
    b.active.Resize(b.num_active);
    device_.ForEach(m, WriteRunsKernel{candidates_.data(), candidate_flags_.data(), candidate_scan_.data(),
                                       b.active.data(), nullptr, b.table.data()});
    b.nodes.Resize(b.num_active * mpm::kBlockNodes);
  }

  // A grid's storage with the frame (for the contact solve and the cloth).
  ContactGridView GridView(Grid& grid) const {
    ContactGridView view;
    view.origin = frame_.origin;
    view.inv_h = frame_.inv_h;
    for (int i = 0; i < 3; ++i) {
      view.max_base[i] = frame_.max_base[i];
      view.block_dims[i] = frame_.dims.n[i];
    }
    view.table = grid.table.data();
    view.nodes = grid.nodes.data();
    view.num_nodes = grid.num_active * mpm::kBlockNodes;
    return view;
  }

  // The per-block pass from grid A (gather, with `pins`) into grid B (scatter and reduce, then the cloth's forces);
  // B becomes A.
  void Transfer(float dt, bool gather, bool scatter, const PinView& pins) {
    Grid& a = grids_[a_];
    Grid& b = grids_[1 - a_];
    windows_.Resize(num_occupied_ * mpm::kWindowNodes);
    TransferBlockKernel kernel{particles_.View(),
                               frame_,
                               occupied_.data(),
                               first_.data(),
                               a.table.data(),
                               a.nodes.data(),
                               windows_.data(),
                               materials_.data(),
                               dt,
                               (frame_.h / dt) * (frame_.h / dt),
                               gather,
                               scatter,
                               diverged_flag_.data(),
                               gather ? pins : PinView{}};
    device_.ForEachBlock(static_cast<int>(num_occupied_), kLanes, 2 * mpm::kWindowNodes, kernel);
    device_.ForEach(
        b.num_active * mpm::kBlockNodes,
        ReduceWindowsKernel{frame_.dims, b.active.data(), occupied_of_.data(), windows_.data(), b.nodes.data()});
    a_ = 1 - a_;
    if (gather) cloth_.SumGatherPins(device_, particles_.id.data(), n_);
    if (cloth_.active())
      cloth_.Scatter(device_, particles_.View(), materials_.data(), GridView(grids_[a_]), frame_.h, dt, pins,
                     diverged_flag_.data());
    device_.Synchronize();
  }

  // The grid update of grid A; returns its nodes with mass.
  std::int64_t UpdateGrid(float dt) {
    Grid& a = grids_[a_];
    mpm::GridUpdateParams params = grid_params_;
    params.dt = dt;
    const std::int64_t nodes = a.num_active * mpm::kBlockNodes;
    counted_.Resize(nodes);
    device_.ForEach(nodes, GridUpdateKernel{frame_.dims, a.active.data(), a.nodes.data(), params, counted_.data()});
    return device_.Sum(counted_, nodes);
  }

  static constexpr int kLanes = 128;  // CUDA threads per occupied block

  Device device_;
  const Model* model_ = nullptr;
  GridFrame frame_{};
  std::int64_t num_blocks_ = 0;
  int key_bits_ = 1;
  std::int64_t n_ = 0;
  ParticleBuffers particles_, sorted_;
  Buffer<mpm::MaterialParams> materials_;
  Buffer<mpm::Collider> colliders_;
  Buffer<float> model_mass_;
  mpm::GridUpdateParams grid_params_{};
  Buffer<std::uint32_t> keys_;
  Buffer<std::int32_t> order_, flags_, scan_;
  Buffer<std::int32_t> occupied_, first_, occupied_of_;
  std::int64_t num_occupied_ = 0;
  Buffer<std::uint32_t> candidates_;
  Buffer<std::int32_t> candidate_values_, candidate_flags_, candidate_scan_;
  Grid grids_[2];
  int a_ = 0;  // which grid is A (the gather's)
  Buffer<Float4> windows_;
  Buffer<std::int32_t> counted_;
  Buffer<std::int32_t> diverged_flag_;
  DeviceContactSolve<Device> contact_;  // the weak coupling's contact solve on the device
  DeviceCloth<Device> cloth_;           // the cloth's triangles and pins
  double time_ = 0;                     // the simulated time at the next Advance's start [s] (pins)
  float prepared_dt_ = 0;               // > 0: grid A holds the P2G of the current particles for this Δt
  bool diverged_ = false;
};

}  // namespace ductile::backend
