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

#include "contact/grid_contact_params.h"
#include "contact/point_contact_kernels.h"
#include "core/float4.h"
#include "core/small_math.h"
#include "coupling/surface_kernels.h"
#include "ductile/model.h"
#include "geometry/distance_kernels.h"
#include "mpm/mpm_solver.h"
#include "mpm/particles.h"

namespace ductile::backend {

/// A frozen rigid geometry of the weak coupling's contact solve on the device (coupling::MpmRigidContact's, in
/// plain types): its shape, pose, broad-phase bounds and the velocity of its body, all for one step.
struct DeviceGeometry {
  geometry::PrimitiveShape shape;  ///< For a mesh (type kMesh): the sampled field `field`.
  int field = -1;                  ///< Index into the fields of UploadContactFields.
  Mat3<double> R_WG, R_GW;         ///< Orientation and its inverse.
  Vec3<double> p_WG, p_GW;         ///< Position, and the inverse pose's translation: x_G = R_GW x_W + p_GW.
  Vec3f box_min{}, box_max{};      ///< A world box that holds the geometry (infinite for a half-space).
  double radius = 0;               ///< A sphere about p_WG that holds it (infinite for a half-space).
  int body = -1;                   ///< Its rigid body, −1 the world.
  Vec3<double> angular, linear;  ///< The body's spatial velocity about the world origin: v(x) = linear + angular × x.
};

/// A mesh's sampled signed distance (geometry::SampledDistanceField) within the samples of UploadContactFields.
struct DeviceField {
  std::int64_t offset = 0;  ///< Its first sample.
  int cells[3] = {0, 0, 0};
  Vec3<double> min, max;
  double cell = 1;
};

/// One step's contact problem on the device: the frozen geometry and what the per-contact costs take (as
/// coupling::MpmRigidContact sets them on the host).
struct DeviceContactSetup {
  std::vector<DeviceGeometry> geometries;
  int num_materials = 0;
  std::vector<double> friction;       ///< μ of material m against geometry g at [m · geometries + g].
  std::vector<Vec3<double>> origins;  ///< Per rigid body: its origin at the step's start (moments about it).
  /// Per object the surface it carries for contact (coupling/object_surface.h; kind kNone: none); empty when no
  /// object carries one.
  std::vector<coupling::SurfaceShape> surfaces;
  double stiffness = 0;  ///< k [N/m] of the lagged Hunt-Crossley cost; 0: near-rigid cone.
  double dissipation = 0, stiction_speed = 0;
  double sigma = 0;           ///< σ of the cost in use (MpmContactSettings::sigma or cone_sigma).
  double resting_margin = 0;  ///< [m] Registration margin of near-rigid contacts (MpmContactSettings).
  contact::GridContactParams solver;
};

/// A substep's contact problem handed to the host (small problems, solved there: HostContactHooks::solve): the
/// nodes (mass, free-motion velocity) and per contact its 27 nodes, weights, frame, rigid velocity, cost
/// parameters and impulse guess (contact::GridContactProblem's fields); the host writes the result fields.
struct HostContactProblem {
  std::vector<double> mass;
  std::vector<Vec3<double>> v_star;
  std::vector<std::array<std::int32_t, 27>> nodes;
  std::vector<std::array<double, 27>> weights;
  std::vector<Mat3<double>> R_WC;
  std::vector<Vec3<double>> v_rigid;
  std::vector<contact::HuntCrossleyParams> params;
  std::vector<std::int32_t> near_rigid;
  std::vector<Vec3<double>> gamma_guess;
  // The result: per node its velocity, per contact its impulse on the material (world), and the solve's figures.
  std::vector<Vec3<double>> v, gamma_W;
  int iterations = 0;
  double residual = 0;
  bool converged = true;
};

/// What the device's contact solve asks of the host.
struct HostContactHooks {
  /// Solves a problem of at most GridContactParams::dense_contacts contacts (exact Newton directions by a dense
  /// factorisation: contact::SolveGridContact).
  std::function<void(HostContactProblem&)> solve;
  /// The world normal of geometry g's mesh at world point x where its sampled gradient vanishes
  /// (geometry::MeshSdf::MedialNormal: a search of its triangles).
  std::function<Vec3<double>(int g, const Vec3<double>& x)> medial_normal;
  /// With surfaces and the Hunt-Crossley cost: which of these contacts on objects' surfaces give way to a twin at the
  /// same point (coupling::DropTwinContacts: sequential, over the few surface contacts), as particle indices.
  std::function<std::vector<int>(const std::vector<coupling::SurfaceCandidate>&)> drop_twins;
};

/// One substep's contact solve on the device, as the coupling's statistics and the rigid step take it.
struct DeviceContactOutcome {
  int contacts = 0;
  int iterations = 0;
  double residual = 0;
  bool converged = true;
  bool on_host = false;                       ///< Small enough to be solved by HostContactHooks::solve.
  std::vector<int> body_contacts;             ///< Per rigid body.
  std::vector<Vec3<double>> linear, angular;  ///< Per rigid body: −Σγ [N·s] and its moment about the origin [N·m·s].
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
  /// when given, runs after each grid update, before that substep's G2P (the MPM-rigid contact solve: SolveContact).
  virtual mpm::SubstepCounters Advance(float dt, int substeps, const std::function<void(float)>& grid_hook = {}) = 0;
  /// The simulated time [s] at which the next Advance starts (where the cloth's pins are).
  virtual void SetTime(double t) = 0;
  /// The cloth triangles' transverse directions d₃ (MpmState::cloth_normal), to and from the device.
  virtual void UploadCloth(const std::vector<Vec3f>& normals) = 0;
  virtual void DownloadCloth(std::vector<Vec3f>& normals) = 0;
  /// Per pin group, the impulse [N·s] its pins put on their vertices since the last call (as
  /// mpm::MpmSolver::TakePinImpulses).
  virtual std::vector<std::array<double, 3>> TakePinImpulses() = 0;
  /// The sampled distance fields of the scene's mesh geometry (DeviceGeometry::field), once per set of meshes.
  virtual void UploadContactFields(const std::vector<DeviceField>& fields, const std::vector<float>& samples) = 0;
  /// Before a step's substeps: its frozen geometry; clears the impulse guesses of the last step.
  virtual void BeginContactStep(const DeviceContactSetup& setup) = 0;
  /// Inside a grid hook: the weak coupling's contact solve of this substep on the device (docs/architecture.md,
  /// "The device backend"): registration of the particles inside the frozen geometry, the quasi-Newton solve
  /// (Yu et al. 2025, Sec. V-B) and the corrected node velocities, the impulses summed per body.
  virtual DeviceContactOutcome SolveContact(float dt, const HostContactHooks& hooks) = 0;
  virtual bool diverged() const = 0;
  /// Device memory in use [bytes].
  virtual std::size_t memory_bytes() const = 0;
};

/// The device backend on the CPU implementation of the launch layer; `lanes` > 1 runs each block's lanes on that
/// many threads, meeting at its barriers as a CUDA block's do (CpuDevice::set_lanes; for tests: results then vary at
/// round-off from run to run).
std::unique_ptr<DeviceMpm> MakeEmulatedMpm(const Model& model, int lanes = 1);

/// Whether this build has the CUDA backend and a CUDA device can be used; `reason` says why not when it cannot.
bool CudaAvailable(std::string* reason = nullptr);
/// The device backend on CUDA (throws std::runtime_error with the reason when CudaAvailable is false).
std::unique_ptr<DeviceMpm> MakeCudaMpm(const Model& model);

/// What the device backend cannot run in `model` (the strong coupling), or empty when it runs all of it.
std::string DeviceBackendLimitation(const Model& model);

/// Why `model.backend` cannot run `model` on this machine ("the CUDA backend cannot run here: no CUDA device ..."),
/// or empty when it can (always for cpu and auto). MpmBackendDomain::Refusal declares it as the MPM domain's.
std::string BackendRefusal(const Model& model);

/// The backend that runs `model` here: its simulation.backend, with auto resolved (cuda when CudaAvailable and
/// the device backend runs the whole scene, else cpu), and cpu for any scene the device backend cannot run.
BackendKind ResolveBackend(const Model& model);

}  // namespace ductile::backend
