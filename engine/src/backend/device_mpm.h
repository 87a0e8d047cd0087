// The device MPM backend (docs/architecture.md, "The device backend"): the explicit MLS-MPM substeps of
// mpm/mpm_solver.h, organised as a GPU runs them, with the particles and the grid resident in device memory between
// steps. Per substep: sort the particles by grid block (radix sort by block key), activate the occupied blocks and
// their 26 neighbours in a block table, one fused G2P2G pass per occupied block with its grid window in shared
// memory (Wang et al. 2020, "A Massively Parallel and Scalable Multi-GPU Material Point Method", Sec. 4), every
// block's window summed onto the next grid in a fixed order, the grid update. The kernels are the CPU backend's
// SIM_HD functions (mpm/transfer_kernels.h, mpm/grid_kernels.h, mpm/constitutive/).
//
// Two implementations of one template (backend/device_mpm_impl.h): on CUDA (backend/cuda/) and on the CPU
// implementation of the launch layer ("emulated"), which runs the CUDA backend's own code paths where there is no
// GPU. Results agree with the CPU backend to float round-off, not bitwise (different summation order); the emulated
// backend is bitwise the same for any thread count, CUDA is not (lanes of a block add into shared memory in the
// order they run).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/float4.h"
#include "ductile/model.h"
#include "mpm/mpm_solver.h"
#include "mpm/particles.h"

namespace ductile::backend {

/// A frozen rigid geometry's bound for the contact broad phase on the device (coupling::GeometryBound in floats):
/// a world box, or for a half-space the plane n·x = offset with n its outward normal.
struct ContactBound {
  Vec3f box_min{}, box_max{};
  int half_space = 0;
  Vec3f normal{};
  float offset = 0;
};

/// A grid node's four lanes across the host/device boundary of this interface.
using NodeValue = std::array<float, 4>;
static_assert(sizeof(NodeValue) == sizeof(Float4), "a node is four floats on both sides");

/// The particles near rigid geometry and the grid nodes their stencils touch, copied from the device inside a
/// grid hook for the contact solve on the host.
struct ContactRegion {
  mpm::Particles particles;              ///< The near particles, in device storage order.
  std::vector<std::int32_t> node_index;  ///< Per particle its 27 stencil nodes' device storage indices (−1: none).
  /// Those nodes after the grid update: velocity [m/s], mass [kg]. Plain arrays, not Float4, which is a vector
  /// register in the host compiler's files and a struct in nvcc's (the same 16 bytes).
  std::vector<NodeValue> nodes;
};

/// The MPM substeps on a device. Not thread-safe.
class DeviceMpm {
 public:
  virtual ~DeviceMpm() = default;

  /// "cuda" or "emulated".
  virtual const char* name() const = 0;
  /// Continues with `model`'s parameters (materials, colliders, walls, gravity; masses by particle id). Same
  /// particles and grid as before. `model` must outlive the backend or the next SetModel.
  virtual void SetModel(const Model& model) = 0;
  /// Copies the particles to the device (any order; ids as the CPU backend's). Voids the prepared P2G.
  virtual void Upload(const mpm::Particles& particles) = 0;
  /// Copies the particles from the device, in the device's storage order.
  virtual void Download(mpm::Particles& particles) = 0;
  /// Copies only the velocities to the device, in the order of the last Download (the mouse spring's edit).
  virtual void UploadVelocities(const mpm::Particles& particles) = 0;
  /// `substeps` substeps of dt [s]; stops at the substep where a particle diverged (non-finite F or a move of more
  /// than a cell). Counters as the CPU backend's (phase times include waiting for the device). `grid_hook(dt)`,
  /// when given, runs after each grid update, before that substep's G2P (the MPM-rigid contact solve): it may
  /// read the particles near rigid geometry and their nodes through DownloadContactRegion and write node
  /// velocities back with UploadNodes.
  virtual mpm::SubstepCounters Advance(float dt, int substeps, const std::function<void(float)>& grid_hook = {}) = 0;
  /// Inside a grid hook: the particles within `reach` [m] (plus a float pad) of some bound, with their stencils'
  /// nodes (a broad phase on the device: the rest of the particles and the grid stay there).
  virtual void DownloadContactRegion(const std::vector<ContactBound>& bounds, float reach, ContactRegion& out) = 0;
  /// Inside a grid hook: nodes[i] to device node storage index[i] (skipped where index[i] < 0).
  virtual void UploadNodes(const std::vector<std::int32_t>& index, const std::vector<NodeValue>& nodes) = 0;
  virtual bool diverged() const = 0;
  /// Device memory in use [bytes].
  virtual std::size_t memory_bytes() const = 0;
};

/// The device backend on the CPU implementation of the launch layer.
std::unique_ptr<DeviceMpm> MakeEmulatedMpm(const Model& model);

/// Whether this build has the CUDA backend and a CUDA device can be used; `reason` says why not when it cannot.
bool CudaAvailable(std::string* reason = nullptr);
/// The device backend on CUDA (throws std::runtime_error with the reason when CudaAvailable is false).
std::unique_ptr<DeviceMpm> MakeCudaMpm(const Model& model);

/// What the device backend cannot run yet in `model`, or empty when it runs all of it.
std::string DeviceBackendLimitation(const Model& model);

/// Why `model.backend` cannot run `model` on this machine ("cuda: no CUDA device: ..."), or empty when it can
/// (always for cpu and auto).
std::string BackendRefusal(const Model& model);

/// The backend that runs `model` here: its simulation.backend, with auto resolved (cuda when CudaAvailable and
/// the device backend runs the whole scene, else cpu), and cpu for any scene the device backend cannot run.
BackendKind ResolveBackend(const Model& model);

}  // namespace ductile::backend
