// The explicit MLS-MPM substeps on the CPU (Hu et al. 2018; docs/architecture.md, "One MPM substep"): sort particles
// into blocks, P2G into per-block windows reduced onto the grid, grid update with boundary conditions, G2P with the
// plasticity return map. Between two grid updates of one Advance, G2P of a substep and P2G of the next are one pass
// over the particles (G2P2G): each particle's state is read once, its stress computed from the F the gather just
// updated, and the particles are re-sorted only when one has moved out of reach of its block's window. The last G2P of
// an Advance is fused with the next Advance's first P2G too, which that Advance then skips when nothing changed in
// between: in steady state every substep is one pass over the particles. Parallel with TBB; the result is bitwise
// identical for any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "mpm/grid_kernels.h"
#include "mpm/mpm_state.h"
#include "mpm/transfer_block.h"

namespace ductile::mpm {

/// Counters of one substep.
struct SubstepCounters {
  int occupied_blocks = 0;        ///< Blocks holding particles.
  int active_blocks = 0;          ///< Blocks allocated (occupied plus their 26 neighbours).
  std::int64_t active_nodes = 0;  ///< Grid nodes with mass > 0 (the grid dofs n_v / 3).
  // Wall-clock time of each phase [s].
  double sort_seconds = 0;   ///< Stencils (when stale), sort into blocks, block activation.
  double p2g_seconds = 0;    ///< Stress and scatter of a P2G on its own, window reduction after every P2G.
  double grid_seconds = 0;   ///< Grid velocity update and boundary conditions, then the grid hook.
  double g2p_seconds = 0;    ///< A G2P on its own: gather, advection, F update, return map.
  double g2p2g_seconds = 0;  ///< Fused G2P and P2G passes (without their window reduction).
  int sorts = 0;             ///< Sorts into blocks.
  int p2g_passes = 0;        ///< P2G passes on their own (not fused with a G2P).

  /// Adds a later substep's node count and times; the block counts become the later substep's.
  void Accumulate(const SubstepCounters& later) {
    occupied_blocks = later.occupied_blocks;
    active_blocks = later.active_blocks;
    active_nodes += later.active_nodes;
    sort_seconds += later.sort_seconds;
    p2g_seconds += later.p2g_seconds;
    grid_seconds += later.grid_seconds;
    g2p_seconds += later.g2p_seconds;
    g2p2g_seconds += later.g2p2g_seconds;
    sorts += later.sorts;
    p2g_passes += later.p2g_passes;
  }
};

/// Where a group of pinned cloth vertices is at the end of a gather: each vertex at its initial position plus
/// `offset`, moving at `velocity`; `holds` false once the group is released.
struct PinTarget {
  Vec3f offset{};
  Vec3f velocity{};
  bool holds = false;
};

/// The impulse m (v_pin − v) [N·s] a pin put on one vertex in a gather, for the group's reaction force.
struct PinImpulse {
  std::int32_t group;
  Vec3f impulse;
};

/// The linearly implicit in-plane cloth step's CG (cloth_implicit.cpp; the device backend's too): it stops at this
/// preconditioned residual, relative to the right-hand side's, or after this many iterations.
inline constexpr double kImplicitClothTolerance = 1e-2;
inline constexpr int kImplicitClothMaxIterations = 100;

/// The model's particles at t = 0, in id order (F = I, C = 0, no plastic strain).
void InitialParticles(const Model& model, Particles& particles);
/// The model's cloth triangles' transverse directions d₃ at t = 0: their unit normals (MpmState::cloth_normal).
void InitialClothNormals(const Model& model, std::vector<Vec3f>& normals);

/// A description of a diverged particle for the user: the first with a non-finite state, else the fastest; its
/// object, id, position and speed.
std::string DescribeDivergedParticle(const Model& model, const Particles& particles);

/// Steps the MPM domain's state (MpmState: the particles and the transfer cache, grid included); owns scratch memory
/// only. Not thread-safe; its methods parallelise internally, so call them inside the task arena that sets the
/// thread count.
class MpmSolver {
 public:
  /// A solver of `model` working on `state`, which it resets to the model's initial particles. Neither is owned;
  /// both must outlive the solver (or the next SetModel or Bind).
  MpmSolver(const Model& model, MpmState& state);

  /// Puts the model's initial particles into the state it works on (t = 0) and voids the transfer cache.
  void Reset();
  /// Works on `state` from now on, as it is (a state of the same model, e.g. one restored from a file).
  void Bind(MpmState& state);

  /// Continues with `model`'s parameters (materials, colliders, walls, gravity) from the current state. The model
  /// must have the same particles and grid as the current one (Simulator::UpdateModel checks); particle masses
  /// follow the new densities. `model` must outlive the solver or the next SetModel.
  void SetModel(const Model& model);

  /// Physically reorders the particles by grid block (once per outer step, for memory locality); nothing to do
  /// while the last reorder still holds (no particle has left its block's reach, the runs of particles that share
  /// a cell have not fragmented).
  void SortParticlesByBlock();

  /// The simulated time [s] at which the next Advance starts: where the cloth's pinned vertices are
  /// (Model::pin_groups). 0 after a reset.
  void set_time(double t) { time_ = t; }

  /// `substeps` explicit substeps of dt [s] each. Returns their counters summed. Sets diverged() and stops when a
  /// particle's state became non-finite or it moved more than one cell in a substep. The first P2G is the one the
  /// last Advance already did (next_p2g_ready()) when this Advance has the same dt, else it runs here.
  /// `grid_hook(dt)`, when given, runs after each grid update, before that substep's G2P: the MPM-rigid contact
  /// solve, which reads the particles (positions, velocities, stencils) and edits node velocities through
  /// NodeIndex and node. Between substeps the particles are otherwise in flight: edit them between calls only.
  SubstepCounters Advance(float dt, int substeps, const std::function<void(float)>& grid_hook = {});
  /// Whether Advance's last pass also does the next Advance's first P2G (fused with its G2P; on by default). The
  /// next Advance reuses it unless dt changed or SetModel, Reset, mutable_particles or mutable_velocities came in
  /// between (sorting keeps it). Switch it off while particles are edited between steps (the mouse spring), so the
  /// scatter is not done for nothing.
  void set_prepare_next_step(bool on) { prepare_next_step_ = on; }
  /// The grid holds the P2G of the current particle state, done by the last Advance for a next one with its dt.
  bool next_p2g_ready() const { return st_->cache.prepared_dt > 0; }
  /// One substep: Advance(dt, 1, grid_hook).
  SubstepCounters Substep(float dt, const std::function<void(float)>& grid_hook = {}) {
    return Advance(dt, 1, grid_hook);
  }
  /// Storage index of grid node (i, j, k) in node(), or −1 when its block is not active this substep.
  int NodeIndex(int i, int j, int k) const {
    const SparseGrid& grid = st_->cache.grid;
    const std::int32_t slot = grid.Slot(grid.LinearBlock(i / kBlockEdge, j / kBlockEdge, k / kBlockEdge));
    if (slot < 0) return -1;
    return slot * kBlockNodes + (i % kBlockEdge * kBlockEdge + j % kBlockEdge) * kBlockEdge + k % kBlockEdge;
  }
  /// A grid node: after the grid update, velocity [m/s] in lanes 0-2 and mass [kg] in lane 3.
  Float4& node(int index) { return st_->cache.grid.nodes_data[index]; }
  /// The stencil of particle p at its current position.
  Stencil ParticleStencil(int p) const;

  /// Runs of particles sharing a stencil base (the SIMD batches hold up to eight of one run) in the last pass.
  std::int64_t runs() const { return st_->cache.runs; }

  bool diverged() const { return st_->diverged; }
  /// Marks the state diverged: another step of its particles (the strong scheme's) left one not finite.
  void MarkDiverged() { st_->diverged = true; }
  /// A description of the first diverged particle (by id): object, position, velocity. Empty if none.
  std::string DescribeDivergence() const;

  const Particles& particles() const { return st_->particles; }
  /// The model it solves (its particles at t = 0, grid spacing, materials).
  const Model& model() const { return *model_; }
  /// Particle state for editing between substeps (tests).
  Particles& mutable_particles() {
    st_->cache.Invalidate(Invalidation::kParticlesEdited);
    return st_->particles;
  }
  /// Particle velocities for editing between steps (the mouse spring): positions stay, so the stencils and the
  /// block order stay valid.
  std::vector<Vec3f>& mutable_velocities() {
    st_->cache.Invalidate(Invalidation::kVelocitiesEdited);
    return st_->particles.v;
  }
  const SparseGrid& grid() const { return st_->cache.grid; }
  /// Per cloth pin group: the impulse [N·s] its pins put on their vertices since the last call (summed in a fixed
  /// order: the same for any thread count); resets the sums.
  std::vector<std::array<double, 3>> TakePinImpulses();
  const MpmState& state() const { return *st_; }
  /// The State's contact part (its statistics and warm starts), which the contact solve keeps.
  MpmContactState& contact_state() { return st_->contact; }

 private:
  /// What follows from the model alone: grid-update parameters, storage for the reused rotations.
  void ConfigureForModel();
  /// Computes every particle's stencil base. G2P keeps them current as it moves the particles, so this runs only
  /// after a reset or an edit (positions do not change between P2G and G2P). The offsets x̂ − base are not kept:
  /// each pass computes them from the positions it loads anyway.
  void ComputeBases();
  /// Stores the stencil base of particle p at its position.
  void StoreStencil(int p);
  /// Sorts the particles into blocks by their current stencil bases; counts the sort in `counters` when given.
  void SortIntoBlocks(SubstepCounters* counters = nullptr);
  /// One pass over the particles, block by block in parallel, of the given kind: G2P, then P2G into the block
  /// windows, or both fused. After a scatter, the windows are summed onto the grid and the particles that left
  /// their block's reach are scattered one by one; they make the next pass sort first. Adds the pass's times to
  /// `counters`.
  void TransferPass(float dt, TransferKind kind, SubstepCounters& counters);
  /// The pass on one occupied block (transfer_block.cpp); returns flags: kDiverged (a particle diverged), kEscaped
  /// (a particle left the block's reach).
  int TransferBlock(int occupied_block, float dt, TransferKind kind);
  /// Sums the windows overlapping active block `slot` into its nodes.
  void ReduceWindows(int slot);
  /// P2G of particle p, with its affine momentum from the pass, straight onto the grid (its nodes' blocks must be
  /// active), serially.
  void ScatterToGrid(int p, const Mat3f& affine);
  int UpdateGrid(float dt);

  // ---- cloth (cloth_transfer.cpp; Jiang, Gast, Teran 2017)
  /// The storage index of every particle by its index at t = 0, for the triangles' vertices (after a reorder).
  void IndexClothVertices();
  /// Each triangle's transverse direction d₃ at rest: its unit normal.
  void ResetClothNormals();
  /// The cloth vertices and each triangle's corners among them (cloth_vertices_, cloth_corners_), from the model.
  void ConfigureCloth();
  /// Where the pinned vertices are at time t: pin_targets_.
  void UpdatePinTargets(double t);
  /// After a grid update: the grid's velocity gradient C_v at each cloth vertex, and per triangle d₃ ← (I + Δt C̄) d₃
  /// with C̄ the mean over its vertices.
  void AdvectClothNormals(float dt);
  /// After a scatter: each triangle's F from its vertices and d₃, the return map, and its elastic forces times Δt
  /// onto the grid's momenta (both parts through its vertices' stencils). Sums per vertex in triangle order and
  /// scatters in a fixed order (by grid column colour, then vertex): bitwise the same for any thread count.
  void ScatterClothForces(float dt);
  /// For the triangles of materials with θ = `cloth_implicit` > 0: replaces their in-plane impulses in
  /// vertex_impulse_ by one Newton step of the θ-method (cloth_implicit.cpp).
  void ImplicitInPlaneImpulses(float dt);
  /// The implicit triangles, the vertices they touch, each vertex's triangles among them and each triangle's
  /// corners among those vertices, from the model (ConfigureForModel); false if there are none.
  bool IndexImplicitCloth();
  /// Per implicit vertex its mass, velocity, pin and preconditioner (the diagonal).
  void PrepareImplicitCloth(float dt);
  /// y = θ H u over the implicit vertices (u, y in implicit_vertices_ order).
  void ApplyImplicitStiffness(const std::vector<Vec3f>& u, std::vector<Vec3f>& y);
  /// implicit_dv_: (M + θ Δt² H) Δv = rhs by preconditioned conjugate gradients, held vertices at 0.
  void SolveImplicitVelocity(float dt, const std::vector<Vec3f>& rhs);
  /// Whether a pin holds the particle with index `id` at t = 0 in this substep.
  bool PinHolds(std::int32_t id) const;
  /// The held vertices' impulses, taken off vertex_impulse_ into their pins' reactions.
  void AbsorbPinnedImpulses();
  /// Each cloth vertex's stencil and node indices at its current position (cloth_stencils_, cloth_nodes_).
  void LocateClothVertices();
  /// Each cloth vertex's summed impulse and affine term onto the grid, in parallel by grid column colour.
  void ScatterClothVertices();

  const Model* model_;
  MpmState* st_;
  Particles scratch_;                             // for reordering the particles
  std::vector<std::array<int, 3>> base_scratch_;  // for reordering the stencil bases
  std::vector<Mat3f> rotations_scratch_;          // for reordering the rotations R₀
  // Per occupied block: its particles' P2G into an 8x8x8 node window; all zero between passes (ReduceWindows zeroes
  // what it sums).
  std::vector<Float4> windows_;
  // Per occupied block: particles whose new stencil base left the block's window in the last scatter.
  std::vector<std::vector<EscapedParticle>> escaped_;
  std::vector<int> node_counts_;  // per active block: nodes with mass > 0
  GridUpdateParams grid_params_;
  Vec3f origin_{};
  float h_ = 0;
  float inv_h_ = 0;
  int max_base_[3] = {0, 0, 0};
  bool prepare_next_step_ = true;
  double time_ = 0;
  // Cloth: storage index by index at t = 0 (IndexClothVertices); per particle (by index at t = 0) its pin group or
  // −1; per pin group where its vertices are at the end of the coming gather.
  std::vector<std::int32_t> index_of_id_;
  std::vector<std::int32_t> pin_group_of_id_;
  std::vector<PinTarget> pin_targets_;
  std::vector<std::vector<PinImpulse>> pin_impulses_;    // per occupied block, the last gather's
  std::vector<std::array<double, 3>> pin_impulse_sums_;  // per pin group, since the last TakePinImpulses
  // Cloth: the vertices' ids, ascending, and per triangle its corners' positions in that list (ConfigureCloth).
  std::vector<std::int32_t> cloth_vertices_;
  std::vector<std::array<std::int32_t, 3>> cloth_corners_;
  // Cloth scratch (ScatterClothForces): per triangle its in-plane impulses on vertices 1 and 2 and its transverse
  // affine term; per cloth vertex the summed in-plane impulse.
  std::vector<std::array<Vec3f, 2>> cloth_impulse_;
  std::vector<Mat3f> cloth_affine_;
  std::vector<Vec3f> vertex_impulse_;
  std::vector<Mat3f> vertex_affine_;    // per cloth vertex: its share of its triangles' transverse terms
  std::vector<Mat3f> vertex_gradient_;  // per cloth vertex: the grid's velocity gradient (AdvectClothNormals)
  // Per cloth vertex, its triangles as (triangle << 2 | corner), in triangle order (ConfigureCloth; CSR offsets).
  std::vector<std::int32_t> vertex_triangle_offsets_;
  std::vector<std::int32_t> vertex_triangles_;
  // Per cloth vertex: its stencil and its 27 nodes' storage indices (−1: inactive) where the last scatter left it.
  // Valid for the next gather while cloth_stencils_valid_ (the particles have not moved and the grid's active
  // blocks are those of that scatter); cleared at the start of every Advance.
  std::vector<Stencil> cloth_stencils_;
  std::vector<std::array<int, 27>> cloth_nodes_;
  bool cloth_stencils_valid_ = false;
  // Linearly implicit in-plane step (cloth_implicit.cpp): per triangle (all of them, filled for the implicit ones by
  // ScatterClothForces) its in-plane rotation's two columns; the implicit triangles and vertices with their local
  // numbering, per-vertex triangle table and corners (from the model); per implicit triangle its forces for a
  // matrix-vector product; per vertex the solver's vectors.
  std::vector<std::array<Vec3f, 2>> cloth_rotation_;
  static constexpr std::size_t kGrain = 4096;     // few enough tasks for a mesh of a few thousand vertices
  std::vector<std::int32_t> implicit_triangles_;  // ascending
  std::vector<std::int32_t> implicit_vertices_;   // cloth-vertex positions, ascending
  std::vector<std::int32_t> local_of_vertex_;     // per cloth vertex its place in implicit_vertices_, or −1
  std::vector<std::int32_t> local_of_triangle_;   // per triangle its place in implicit_triangles_, or −1
  std::vector<std::int32_t> implicit_entry_offsets_, implicit_entries_;
  std::vector<std::array<std::int32_t, 3>> implicit_corners_;
  std::vector<std::array<Vec3f, 2>> implicit_triangle_force_;
  std::vector<float> implicit_mass_, implicit_diagonal_;
  std::vector<std::uint8_t> implicit_held_;
  std::vector<Vec3f> implicit_velocity_, implicit_rhs_, implicit_dv_, implicit_residual_, implicit_z_,
      implicit_direction_, implicit_q_;
  bool implicit_warm_ = false;   // implicit_dv_ holds this Advance's last Δv
  bool implicit_cloth_ = false;  // some cloth triangle's material has θ > 0 (IndexImplicitCloth)
  // The scatter's order: cloth vertices bucketed by their stencil's first grid column of blocks (bx, by), the
  // columns in four colours by (bx mod 2, by mod 2); columns of one colour touch disjoint nodes.
  std::vector<std::int32_t> column_of_vertex_;
  std::vector<std::int32_t> column_offsets_;
  std::vector<std::int32_t> column_vertices_;
  std::vector<std::int32_t> occupied_columns_[4];
  std::vector<std::int32_t> vertex_scratch_;
};

}  // namespace ductile::mpm
