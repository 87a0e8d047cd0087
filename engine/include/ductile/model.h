// The Model: everything about a scene that does not change while it runs, compiled once from a SceneDesc.
// Sizes first, then one array per field. Particle arrays hold the initial state; the Simulator copies them into
// its State at construction and on Reset.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ductile/mpm_params.h"
#include "ductile/scene.h"

namespace ductile {

/// Per-object bookkeeping: which particles were sampled for it.
struct ObjectInfo {
  std::string name;
  int material = 0;        ///< Index into Model::materials.
  int first_particle = 0;  ///< Particles of object o are [first_particle, first_particle + num_particles) at t = 0.
  int num_particles = 0;
  double mass = 0;  ///< Total mass [kg].
};

/// A group of pinned cloth vertices (`objects: NAME: pins: GROUP`): each vertex at its initial position plus the
/// group's offset, which is 0 at t = 0 and follows the keyframes linearly (holding the last one), until the release
/// time, from which the vertices move freely.
struct PinGroup {
  std::string name;
  int object = 0;                                  ///< Index into Model::objects.
  std::vector<std::int32_t> particles;             ///< Vertex particles (indices at t = 0).
  std::vector<double> key_times;                   ///< [s], increasing, > 0.
  std::vector<std::array<double, 3>> key_offsets;  ///< [m], one per key time.
  double release_time = -1;                        ///< [s]; negative: never released.

  /// The offset [m] and its rate [m/s] at time t.
  void Offset(double t, std::array<double, 3>& offset, std::array<double, 3>& velocity) const;
  /// Whether the group still holds its vertices at time t.
  bool Holds(double t) const { return release_time < 0 || t < release_time; }
};

/// A compiled output probe.
struct ProbeInfo {
  std::string name;
  int object = 0;
  ProbeQuantity quantity = ProbeQuantity::kCenterOfMass;
};

/// The compiled rigid bodies and robots (engine/src/model/rigid_model.h).
struct RigidModel;
/// The compiled soft and affine bodies of the FEM–IPC domain (engine/src/model/fem_model.h).
struct FemModel;
/// The compiled bodies of the projective-dynamics domain (engine/src/model/pd_bodies.h).
struct PdBodiesModel;
namespace mpm {
/// A static analytic collider, placed for the grid kernels (engine/src/mpm/boundary.h).
struct Collider;
}  // namespace mpm

/// The immutable, compiled scene. Its special members are defined in the engine, where mpm::Collider is complete.
struct Model {
  Model();
  Model(const Model&);
  Model(Model&&) noexcept;
  Model& operator=(const Model&);
  Model& operator=(Model&&) noexcept;
  ~Model();

  // ---- sizes
  int num_particles = 0;

  // ---- time stepping
  double dt = 1e-3;                            ///< Outer (rigid) step Δt [s].
  int substeps = 1;                            ///< MPM substeps N per Δt.
  double duration = 1.0;                       ///< Default run length [s].
  double output_rate = 60;                     ///< Output frames per simulated second [Hz].
  std::array<float, 3> gravity{0, 0, -9.81f};  ///< [m/s²].
  double cfl = 0.4;                            ///< Fraction of a cell a wave may cross in one substep.
  int threads = 0;                             ///< Worker threads from the scene; 0 = all cores.
  /// How the deformable domains and the rigid system advance together (simulation.coupling): the weak scheme's
  /// substeps, or the strong scheme's one implicit step per Δt (coupling/strong_coupling.h).
  CouplingKind coupling = CouplingKind::kWeak;
  /// Where the MPM domain runs (simulation.backend; backend/device_mpm.h resolves `auto`).
  BackendKind backend = BackendKind::kCpu;
  double strong_tolerance = 1e-6;  ///< ε_r of the strong scheme's joint SAP solve.
  /// The most kept grid dofs for the strong scheme's joint solve to be Schur-reduced (dense); above, it is sparse.
  int strong_dense_limit = 1500;
  double implicit_tolerance = 1e-8;  ///< Relative residual of the strong scheme's free-motion CG without contacts.

  // ---- grid
  float h = 0.01f;                     ///< Grid spacing [m].
  std::array<float, 3> grid_origin{};  ///< World position of node (0, 0, 0) [m]: domain_min − kGridPadding·h.
  std::array<int, 3> grid_nodes{};     ///< Nodes per axis.
  std::array<float, 3> domain_min{};   ///< Domain walls [m].
  std::array<float, 3> domain_max{};
  mpm::WallParams walls;                 ///< Boundary condition at the domain walls.
  std::vector<mpm::Collider> colliders;  ///< Static analytic colliders acting on grid nodes.
  std::vector<std::string> collider_names;

  // ---- materials and objects
  std::vector<mpm::MaterialParams> materials;
  std::vector<std::string> material_names;
  /// Coulomb friction coefficient μ ≥ 0 of each material against rigid geometry, combined with the geometry's μ
  /// by CombineFriction (contact/friction_combination.h); negative = not set (the geometry's μ alone). One per
  /// entry of `materials`, same order.
  std::vector<double> material_friction;
  std::vector<ObjectInfo> objects;
  std::vector<ProbeInfo> probes;

  // ---- particles, initial state (size num_particles each)
  std::vector<std::array<float, 3>> x0;  ///< Positions [m].
  std::vector<std::array<float, 3>> v0;  ///< Velocities [m/s].
  std::vector<float> mass;               ///< [kg].
  std::vector<float> volume;             ///< Rest volume [m³].
  std::vector<std::int32_t> material;    ///< Index into materials.
  std::vector<std::int32_t> object;      ///< Index into objects.

  // ---- cloth (Jiang, Gast, Teran 2017): the triangles whose vertices are kCloth particles, and pinned vertices
  std::vector<mpm::ClothElement> cloth_elements;
  std::vector<PinGroup> pin_groups;

  // ---- rigid bodies and robots (never null; empty when the scene has none)
  std::shared_ptr<const RigidModel> rigid;

  // ---- soft and affine bodies with IPC contact (never null; empty when the scene has none)
  std::shared_ptr<const FemModel> fem;

  // ---- soft bodies of the projective-dynamics domain (null or empty when the scene has none)
  std::shared_ptr<const PdBodiesModel> pd;

  // ---- source
  /// The validated scene this model was compiled from (null for a model built by hand). Simulator::SetParameter
  /// edits a copy of it and derives the changed fields from it as CompileModel does.
  std::shared_ptr<const SceneDesc> scene;
  /// Generalized velocities of the rigid bodies and robots.
  int RigidDofs() const;
  /// Rigid bodies reported in the trajectory and contact-force outputs (every body that is not static).
  int RigidOutputBodies() const;

  /// The largest elastic wave speed √((λ + 2μ)/ρ) over the materials [m/s] (for fluids √(κγ/ρ)) that an explicit
  /// substep must resolve (ExplicitWaveSpeed).
  double MaxWaveSpeed() const;
  /// The smallest N for which Δt/N satisfies the CFL condition for the wave speed.
  int RecommendedSubsteps() const;
  /// The smallest N for which a wave of this speed [m/s] crosses at most `cfl` of a cell per substep Δt/N.
  int SubstepsFor(double wave_speed) const;
};

/// The material's elastic wave speed [m/s] if an explicit substep must resolve it, else 0 (a cloth whose in-plane
/// force is implicit, `implicit_in_plane` ≥ 1/2).
double ExplicitWaveSpeed(const mpm::MaterialParams& m);
/// "or set materials.X.implicit_in_plane: 1 (...)" for the explicit cloth materials that need more substeps than
/// the model takes, for the messages that recommend substeps; "" when there are none.
std::string ImplicitClothHint(const Model& model);

/// Cells of padding between the domain walls and the grid's edge (the quadratic stencil reaches 1.5 cells).
inline constexpr int kGridPadding = 3;

/// Compiles a validated scene into a Model: samples particles for every object, builds colliders and
/// material constants. Throws SceneError naming the object when a shape produces no particles or lies outside
/// the domain. What the model's domains cannot run (a coupling scheme, a backend) is the Simulator's to refuse
/// (CheckModel, ductile/simulator.h).
Model CompileModel(const SceneDesc& scene);

}  // namespace ductile
