#include "mpm/mpm_solver.h"

#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>

#include "mpm/cell_batch_kernels.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/constitutive/fixed_corotated_batch.h"
#include "mpm/model_views.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {
namespace {

bool SameCell(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}
// Plastic linear corotated materials: the return map (G2P) reuses the rotation R₀ their stress (P2G) computed in
// the same substep.
bool ReusesRotation(const MaterialParams& m) {
  return m.model == MaterialModel::kLinearCorotated && m.yield_stress > 0.0f;
}
constexpr int NodeInBlock(int i, int j, int k) {
  return (i * kBlockEdge + j) * kBlockEdge + k;
}

// Blocks per parallel task: the per-block work is a few hundred particles at most.
constexpr std::size_t kBlockGrain = 4;

}  // namespace

MpmSolver::MpmSolver(const Model& model) : model_(&model) {
  grid_.Resize(model.grid_nodes);
  origin_ = ToVec3f(model.grid_origin);
  h_ = model.h;
  inv_h_ = 1.0f / model.h;
  for (int a = 0; a < 3; ++a) max_base_[a] = model.grid_nodes[a] - 3;
  Reset();
  ConfigureForModel();
}

void MpmSolver::ConfigureForModel() {
  grid_params_ = GridUpdateParamsFor(*model_, model_->colliders.data());
  bool plastic_linear_corotated = false;
  for (const MaterialParams& m : model_->materials) plastic_linear_corotated |= ReusesRotation(m);
  rotations_.resize(plastic_linear_corotated ? particles_.size() : 0);
}

void MpmSolver::Reset() {
  const int n = model_->num_particles;
  particles_.Resize(n);
  for (int p = 0; p < n; ++p) {
    particles_.x[p] = ToVec3f(model_->x0[p]);
    particles_.v[p] = ToVec3f(model_->v0[p]);
    particles_.F[p] = Mat3f::Identity();
    particles_.C[p] = Mat3f::Zero();
    particles_.mass[p] = model_->mass[p];
    particles_.volume[p] = model_->volume[p];
    particles_.plastic_strain[p] = 0;
    particles_.material[p] = model_->material[p];
    particles_.object[p] = model_->object[p];
    particles_.id[p] = p;
  }
  diverged_ = false;
  stencils_current_ = false;
  order_current_ = false;
}

void MpmSolver::SetModel(const Model& model) {
  model_ = &model;
  ConfigureForModel();
  for (std::size_t p = 0; p < particles_.size(); ++p) particles_.mass[p] = model.mass[particles_.id[p]];
}

void MpmSolver::ComputeBases() {
  const std::size_t n = particles_.size();
  base_.resize(n);
  fx_.resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 2048), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t p = r.begin(); p != r.end(); ++p) {
      StoreStencil(static_cast<int>(p));
    }
  });
  stencils_current_ = true;
}

void MpmSolver::StoreStencil(int p) {
  Stencil s;
  LocateStencil(particles_.x[p], origin_, inv_h_, max_base_, s);
  base_[p] = {s.base[0], s.base[1], s.base[2]};
  fx_[p] = s.fx;
}

Stencil MpmSolver::CachedStencil(int p) const {
  Stencil s;
  for (int a = 0; a < 3; ++a) s.base[a] = base_[p][a];
  s.fx = fx_[p];
  StencilWeights(s);
  return s;
}

void MpmSolver::SortParticlesByBlock() {
  if (!stencils_current_) ComputeBases();
  grid_.SortParticles(base_);
  const std::vector<std::int32_t>& order = grid_.order();
  GatherParticles(particles_, order, scratch_);
  std::swap(particles_, scratch_);
  // The cached stencils follow their particles (scratch arrays keep their capacity: no allocation per step).
  base_scratch_.resize(base_.size());
  fx_scratch_.resize(fx_.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    base_scratch_[i] = base_[order[i]];
    fx_scratch_[i] = fx_[order[i]];
  }
  base_.swap(base_scratch_);
  fx_.swap(fx_scratch_);
  grid_.AdoptIdentityOrder();
  order_current_ = true;
}

SubstepCounters MpmSolver::Substep(float dt, const std::function<void(float)>& grid_hook) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  SubstepCounters counters;
  const Clock::time_point t0 = Clock::now();
  if (!stencils_current_) ComputeBases();
  if (!order_current_) grid_.SortParticles(base_);
  order_current_ = false;  // G2P moves the particles
  grid_.ActivateBlocks();
  const Clock::time_point t1 = Clock::now();
  ParticleToGrid(dt);
  const Clock::time_point t2 = Clock::now();
  counters.active_nodes = UpdateGrid(dt);
  if (grid_hook) grid_hook(dt);
  const Clock::time_point t3 = Clock::now();
  GridToParticle(dt);
  const Clock::time_point t4 = Clock::now();
  counters.occupied_blocks = grid_.num_occupied_blocks();
  counters.active_blocks = grid_.num_active_blocks();
  counters.sort_seconds = seconds(t0, t1);
  counters.p2g_seconds = seconds(t1, t2);
  counters.grid_seconds = seconds(t2, t3);
  counters.g2p_seconds = seconds(t3, t4);
  return counters;
}

void MpmSolver::ParticleToGrid(float dt) {
  // 1. Every occupied block scatters its particles into its own 6x6x6 window: no two tasks share memory.
  const int num_occupied = grid_.num_occupied_blocks();
  windows_.resize(static_cast<std::size_t>(num_occupied) * kWindowNodes);
  tbb::parallel_for(tbb::blocked_range<int>(0, num_occupied, 1), [&](const tbb::blocked_range<int>& r) {
    for (int b = r.begin(); b != r.end(); ++b) ScatterBlock(b, dt);
  });
  // 2. Every active block sums the (up to 8) windows that overlap it, always in the same order.
  const int num_active = grid_.num_active_blocks();
  tbb::parallel_for(tbb::blocked_range<int>(0, num_active, 8), [&](const tbb::blocked_range<int>& r) {
    for (int slot = r.begin(); slot != r.end(); ++slot) ReduceWindows(slot);
  });
}

void MpmSolver::ReduceWindows(int slot) {
  Float4* nodes = grid_.nodes_data.data() + static_cast<std::size_t>(slot) * kBlockNodes;
  for (int n = 0; n < kBlockNodes; ++n) nodes[n] = ZeroFloat4();
  const std::array<int, 3> bc = grid_.BlockCoords(grid_.active_block(slot));
  // The window of occupied block bc − d covers this block's nodes shifted by 4·d; with d = 1 on an axis only the
  // first two nodes along it.
  for (int dx = 0; dx < 2; ++dx)
    for (int dy = 0; dy < 2; ++dy)
      for (int dz = 0; dz < 2; ++dz) {
        if (bc[0] < dx || bc[1] < dy || bc[2] < dz) continue;
        const std::int32_t o = grid_.OccupiedIndex(grid_.LinearBlock(bc[0] - dx, bc[1] - dy, bc[2] - dz));
        if (o < 0) continue;
        const Float4* window = windows_.data() + static_cast<std::size_t>(o) * kWindowNodes;
        const int ni = dx ? kWindowEdge - kBlockEdge : kBlockEdge;
        const int nj = dy ? kWindowEdge - kBlockEdge : kBlockEdge;
        const int nk = dz ? kWindowEdge - kBlockEdge : kBlockEdge;
        for (int i = 0; i < ni; ++i)
          for (int j = 0; j < nj; ++j)
            for (int k = 0; k < nk; ++k)
              nodes[NodeInBlock(i, j, k)] +=
                  window[WindowIndex(i + kBlockEdge * dx, j + kBlockEdge * dy, k + kBlockEdge * dz)];
      }
}

void MpmSolver::ScatterBlock(int b, float dt) {
  const std::int32_t* order = grid_.order().data();
  const std::array<int, 3> bc = grid_.BlockCoords(grid_.occupied_block(b));
  const int o[3] = {bc[0] * kBlockEdge, bc[1] * kBlockEdge, bc[2] * kBlockEdge};
  Float4* window = windows_.data() + static_cast<std::size_t>(b) * kWindowNodes;
  for (int n = 0; n < kWindowNodes; ++n) window[n] = ZeroFloat4();
  const int begin = grid_.occupied_begin(b);
  const int end = grid_.occupied_begin(b + 1);
  // The affine momenta of the block's particles, stresses in batches of kStressBatch.
  thread_local std::vector<Mat3f> affine;
  affine.resize(static_cast<std::size_t>(end - begin));
  for (int q0 = begin; q0 < end; q0 += kStressBatch) {
    const int count = std::min(kStressBatch, end - q0);
    Mat3f tau[kStressBatch];
    ComputeStresses(order + q0, count, tau);
    for (int l = 0; l < count; ++l) {
      const int p = order[q0 + l];
      affine[q0 - begin + l] =
          AffineMomentum(particles_.mass[p], particles_.volume[p], particles_.C[p], tau[l], dt, inv_h_);
    }
  }
  const auto scatter_one = [&](int q) {
    const int p = order[q];
    const Stencil s = CachedStencil(p);
    Float4* corner = window + WindowIndex(s.base[0] - o[0], s.base[1] - o[1], s.base[2] - o[2]);
    ScatterParticle(s, h_, particles_.mass[p], particles_.v[p], affine[q - begin],
                    [corner](int di, int dj, int dk, const Float4& q4) { corner[WindowIndex(di, dj, dk)] += q4; });
  };
#if DUCTILE_CELL_BATCH
  // Runs of particles with the same stencil base (the sort puts them together) go through the SIMD batch kernel;
  // a run of one or two particles costs less one particle at a time.
  constexpr int kMinBatch = 3;
  for (int q0 = begin; q0 < end;) {
    const std::array<int, 3>& cell = base_[order[q0]];
    int count = 1;
    while (count < kCellBatch && q0 + count < end && SameCell(base_[order[q0 + count]], cell)) ++count;
    if (count < kMinBatch) {
      for (int l = 0; l < count; ++l) scatter_one(q0 + l);
    } else {
      alignas(32) float fx[3][kCellBatch], mass[kCellBatch], mv[3][kCellBatch], A[3][3][kCellBatch];
      for (int l = 0; l < kCellBatch; ++l) {
        const bool used = l < count;
        const int p = order[q0 + (used ? l : 0)];
        const float m = used ? particles_.mass[p] : 0.0f;
        const Mat3f& a = affine[q0 - begin + (used ? l : 0)];
        mass[l] = m;
        for (int r = 0; r < 3; ++r) {
          fx[r][l] = fx_[p][r];
          mv[r][l] = used ? m * particles_.v[p][r] : 0.0f;
          for (int c = 0; c < 3; ++c) A[r][c][l] = used ? a.m[r][c] : 0.0f;
        }
      }
      CellBatchStencil s;
      CellBatchWeights(fx, h_, s);
      ScatterCellBatch(s, mass, mv, A, window + WindowIndex(cell[0] - o[0], cell[1] - o[1], cell[2] - o[2]));
    }
    q0 += count;
  }
#else
  for (int q = begin; q < end; ++q) scatter_one(q);
#endif
}

void MpmSolver::ComputeStresses(const std::int32_t* particles, int count, Mat3f* tau) const {
  // Fixed corotated particles go through the batched (SIMD) path, the others one by one.
  const Mat3f* F[kStressBatch];
  float mu[kStressBatch];
  float lambda[kStressBatch];
  int lane_of[kStressBatch];
  int batched = 0;
  for (int l = 0; l < count; ++l) {
    const int p = particles[l];
    const MaterialParams& m = model_->materials[particles_.material[p]];
    if (m.model == MaterialModel::kFixedCorotated) {
      F[batched] = &particles_.F[p];
      mu[batched] = m.mu;
      lambda[batched] = m.lambda;
      lane_of[batched++] = l;
    } else if (ReusesRotation(m)) {
      rotations_[p] = FastPolarRotation3(particles_.F[p]);
      tau[l] = LinearCorotated<float>{m.mu, m.lambda, m.yield_stress}.Kirchhoff(particles_.F[p], rotations_[p]);
    } else {
      tau[l] = KirchhoffStress(m, particles_.F[p], particles_.C[p]);
    }
  }
  if (batched == 0) return;
  Mat3f batch_tau[kStressBatch];
  FixedCorotatedKirchhoffBatch(F, mu, lambda, batched, batch_tau);
  for (int i = 0; i < batched; ++i) tau[lane_of[i]] = batch_tau[i];
}

int MpmSolver::UpdateGrid(float dt) {
  const int num_active = grid_.num_active_blocks();
  node_counts_.assign(num_active, 0);
  GridUpdateParams params = grid_params_;
  params.dt = dt;
  tbb::parallel_for(tbb::blocked_range<int>(0, num_active, 16), [&](const tbb::blocked_range<int>& r) {
    for (int slot = r.begin(); slot != r.end(); ++slot) {
      const std::array<int, 3> bc = grid_.BlockCoords(grid_.active_block(slot));
      int count = 0;
      for (int i = 0; i < kBlockEdge; ++i)
        for (int j = 0; j < kBlockEdge; ++j)
          for (int k = 0; k < kBlockEdge; ++k) {
            Float4& node = grid_.nodes_data[slot * kBlockNodes + NodeInBlock(i, j, k)];
            const float m = node[3];
            if (m > 0) {
              const Vec3f v = UpdateNodeVelocity(params, bc[0] * kBlockEdge + i, bc[1] * kBlockEdge + j,
                                                 bc[2] * kBlockEdge + k, m, Xyz(node));
              node = MakeFloat4(v.x, v.y, v.z, m);
              ++count;
            }
          }
      node_counts_[slot] = count;
    }
  });
  int total = 0;
  for (int c : node_counts_) total += c;
  return total;
}

void MpmSolver::GridToParticle(float dt) {
  std::atomic<bool> diverged{false};
  tbb::parallel_for(tbb::blocked_range<int>(0, grid_.num_occupied_blocks(), kBlockGrain),
                    [&](const tbb::blocked_range<int>& r) {
                      bool local_diverged = false;
                      for (int b = r.begin(); b != r.end(); ++b) local_diverged |= !GatherBlock(b, dt);
                      if (local_diverged) diverged.store(true, std::memory_order_relaxed);
                    });
  if (diverged.load()) diverged_ = true;
}

bool MpmSolver::GatherBlock(int b, float dt) {
  const std::vector<std::int32_t>& order = grid_.order();
  const MaterialParams* materials = model_->materials.data();
  const float max_speed2 = (h_ / dt) * (h_ / dt);  // one cell per substep
  const float max_base_f[3] = {static_cast<float>(max_base_[0]) + 0.5f, static_cast<float>(max_base_[1]) + 0.5f,
                               static_cast<float>(max_base_[2]) + 0.5f};
  const std::array<int, 3> bc = grid_.BlockCoords(grid_.occupied_block(b));
  const int o[3] = {bc[0] * kBlockEdge, bc[1] * kBlockEdge, bc[2] * kBlockEdge};
  // Copy the 6x6x6 node window from the (up to) 8 blocks it covers.
  Float4 window[kWindowNodes];
  for (int i = 0; i < kWindowEdge; ++i)
    for (int j = 0; j < kWindowEdge; ++j)
      for (int k = 0; k < kWindowEdge; ++k) {
        const std::int32_t slot =
            grid_.Slot(grid_.LinearBlock(bc[0] + i / kBlockEdge, bc[1] + j / kBlockEdge, bc[2] + k / kBlockEdge));
        window[WindowIndex(i, j, k)] =
            grid_.nodes_data[slot * kBlockNodes + NodeInBlock(i % kBlockEdge, j % kBlockEdge, k % kBlockEdge)];
      }
  // Up to eight particles at a time, all with the same stencil base (a run of the sort by cell), one per lane: the
  // gather as one SIMD batch where AVX2 is available (else one by one), then the position, stencil and F updates
  // and the checks in lane loops that the compiler vectorises. Padding lanes hold a resting identity.
  constexpr int L = kStressBatch;
  bool healthy = true;
  const int end = grid_.occupied_begin(b + 1);
  for (int q0 = grid_.occupied_begin(b); q0 < end;) {
    const std::array<int, 3> cell = base_[order[q0]];
    int count = 1;
    while (count < L && q0 + count < end && SameCell(base_[order[q0 + count]], cell)) ++count;
    const Float4* corner = window + WindowIndex(cell[0] - o[0], cell[1] - o[1], cell[2] - o[2]);
    int lane_particle[L];
    for (int l = 0; l < L; ++l) lane_particle[l] = order[q0 + (l < count ? l : 0)];
    alignas(32) float v[3][L], c[3][3][L], x[3][L], f[9][L];
#if DUCTILE_CELL_BATCH
    static_assert(kCellBatch == L);
    {
      alignas(32) float fx[3][L];
      for (int l = 0; l < L; ++l)
        for (int a = 0; a < 3; ++a) fx[a][l] = fx_[lane_particle[l]][a];
      CellBatchStencil batch;
      CellBatchWeights(fx, h_, batch);
      GatherCellBatch(batch, corner, inv_h_, v, c);
    }
#else
    for (int l = 0; l < L; ++l) {
      Vec3f vp;
      Mat3f Cp;
      GatherParticle(
          CachedStencil(lane_particle[l]), h_, inv_h_,
          [corner](int di, int dj, int dk) { return corner[WindowIndex(di, dj, dk)]; }, vp, Cp);
      for (int r = 0; r < 3; ++r) {
        v[r][l] = vp[r];
        for (int k = 0; k < 3; ++k) c[r][k][l] = Cp.m[r][k];
      }
    }
#endif
    for (int l = 0; l < L; ++l) {
      const int p = lane_particle[l];
      for (int a = 0; a < 3; ++a) x[a][l] = particles_.x[p][a];
      for (int e = 0; e < 9; ++e) f[e][l] = particles_.F[p].m[e / 3][e % 3];
    }
    for (int l = count; l < L; ++l) {
      for (int r = 0; r < 3; ++r) {
        v[r][l] = 0;
        for (int k = 0; k < 3; ++k) c[r][k][l] = 0;
      }
      for (int e = 0; e < 9; ++e) f[e][l] = e % 4 == 0 ? 1.0f : 0.0f;
    }
    // x += Δt v; the stencil of the new position (LocateStencil, for the next substep's sort and transfers);
    // F ← (I + Δt C) F (UpdateDeformationGradient) with the speed and finiteness checks.
    alignas(32) int base_lanes[3][L];
    alignas(32) float fx_lanes[3][L];
    for (int a = 0; a < 3; ++a) {
#pragma omp simd
      for (int l = 0; l < L; ++l) x[a][l] += v[a][l] * dt;
#if DUCTILE_CELL_BATCH
      LocateCellBatch(x[a], origin_[a], inv_h_, max_base_f[a], base_lanes[a], fx_lanes[a]);
#else
      for (int l = 0; l < L; ++l) {
        // As LocateStencil: clamped so the cast is always defined, a NaN becomes the lower bound.
        float xg = (x[a][l] - origin_[a]) * inv_h_;
        xg = xg > 0.5f ? xg : 0.5f;
        xg = xg < max_base_f[a] ? xg : max_base_f[a];
        base_lanes[a][l] = static_cast<int>(std::floor(xg - 0.5f));
        fx_lanes[a][l] = xg - static_cast<float>(base_lanes[a][l]);
      }
#endif
    }
    alignas(32) float det[L];
    alignas(32) float speed2[L];
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      speed2[l] = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
      float g[9];
      for (int e = 0; e < 9; ++e) g[e] = c[e / 3][e % 3][l] * dt + (e % 4 == 0 ? 1.0f : 0.0f);
      float fn[9];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          fn[3 * i + j] = g[3 * i] * f[j][l] + g[3 * i + 1] * f[3 + j][l] + g[3 * i + 2] * f[6 + j][l];
      for (int e = 0; e < 9; ++e) f[e][l] = fn[e];
      det[l] = fn[0] * (fn[4] * fn[8] - fn[5] * fn[7]) - fn[1] * (fn[3] * fn[8] - fn[5] * fn[6]) +
               fn[2] * (fn[3] * fn[7] - fn[4] * fn[6]);
    }
    for (int l = 0; l < count; ++l) {
      const int p = lane_particle[l];
      particles_.v[p] = {v[0][l], v[1][l], v[2][l]};
      particles_.x[p] = {x[0][l], x[1][l], x[2][l]};
      base_[p] = {base_lanes[0][l], base_lanes[1][l], base_lanes[2][l]};
      fx_[p] = {fx_lanes[0][l], fx_lanes[1][l], fx_lanes[2][l]};
      Mat3f& C = particles_.C[p];
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) C.m[r][k] = c[r][k][l];
      Mat3f F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = f[e][l];
      const MaterialParams& material = materials[particles_.material[p]];
      if (ReusesRotation(material)) {
        particles_.plastic_strain[p] +=
            LinearCorotated<float>{material.mu, material.lambda, material.yield_stress}.ReturnMap(rotations_[p], F);
      } else if (material.model != MaterialModel::kFixedCorotated) {
        particles_.plastic_strain[p] += ReturnMap(material, particles_.F[p], F);
      }
      particles_.F[p] = F;
      // The negated comparison is also true for NaN.
      if (!(speed2[l] <= max_speed2) || !std::isfinite(det[l])) healthy = false;
    }
    q0 += count;
  }
  return healthy;
}

std::string MpmSolver::DescribeDivergence() const {
  if (!diverged_) return {};
  // The first particle with a non-finite state, else the fastest one.
  int worst = -1;
  float worst_speed = -1;
  for (std::size_t p = 0; p < particles_.size(); ++p) {
    const float speed = Norm(particles_.v[p]);
    if (!std::isfinite(speed) || !std::isfinite(particles_.F[p].Determinant())) {
      worst = static_cast<int>(p);
      worst_speed = speed;
      break;
    }
    if (speed > worst_speed) {
      worst = static_cast<int>(p);
      worst_speed = speed;
    }
  }
  std::ostringstream out;
  const Vec3f& x = particles_.x[worst];
  out << "object '" << model_->objects[particles_.object[worst]].name << "', particle " << particles_.id[worst]
      << " at (" << x.x << ", " << x.y << ", " << x.z << ") m, speed " << worst_speed << " m/s";
  return out.str();
}

}  // namespace ductile::mpm
