#include "mpm/mpm_domain.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <utility>

#include "core/small_math_eigen.h"
#include "ductile/model.h"
#include "model/rigid_model.h"
#include "mpm/constitutive/constitutive.h"

namespace ductile::mpm {

MpmDomain::MpmDomain(const Model& model, MpmState& state, tbb::task_arena& arena)
    : model_(&model), arena_(&arena), solver_(model, state) {
  ConfigureContact();
  cloths_ = ClothSnapshots(*model_);
}

std::vector<SnapshotCloth> ClothSnapshots(const Model& model) {
  std::vector<SnapshotCloth> cloths;
  for (const ClothElement& e : model.cloth_elements) {
    const int object = model.object[e.vertex[0]];
    if (cloths.empty() || cloths.back().object != object) {
      SnapshotCloth cloth;
      cloth.object = object;
      cloth.first_particle = model.objects[object].first_particle;
      cloth.num_vertices = model.objects[object].num_particles;
      cloths.push_back(std::move(cloth));
    }
    SnapshotCloth& cloth = cloths.back();
    const auto local = [&](int k) { return static_cast<std::uint32_t>(e.vertex[k] - cloth.first_particle); };
    cloth.triangles.push_back({local(0), local(1), local(2)});
  }
  return cloths;
}

std::unique_ptr<coupling::MpmRigidContact> MakeWeakContact(const Model& m) {
  if (!m.rigid || m.rigid->empty() || m.num_particles == 0) return nullptr;
  coupling::MpmContactSettings settings = coupling::MpmContactSettingsOf(m);
  settings.surfaces = std::make_shared<const coupling::ObjectSurfaces>(m);
  return std::make_unique<coupling::MpmRigidContact>(std::move(settings));
}

void MpmDomain::ConfigureContact() {
  contact_ = MakeWeakContact(*model_);
}

void MpmDomain::FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) {
  if (!contact_) return;
  contact_->BeginStep(rigid, impulses, solver_.contact_state());
  contact_this_step_ = true;
}

void MpmDomain::Advance(double time, double dt, StepTelemetry& telemetry) {
  const int substeps = model_->substeps;
  const float sub_dt = static_cast<float>(dt / substeps);
  // The contact solve runs between each substep's grid update and its G2P.
  std::function<void(float)> contact_solve;
  if (contact_this_step_) contact_solve = [this](float h) { contact_->SolveSubstep(solver_, h); };
  contact_this_step_ = false;
  SubstepCounters sums;
  arena_->execute([&] {
    solver_.SortParticlesByBlock();
    solver_.set_time(time);
    sums = solver_.Advance(sub_dt, substeps, contact_solve);
  });
  telemetry.pin_forces = solver_.TakePinImpulses();
  for (std::array<double, 3>& f : telemetry.pin_forces)
    for (double& c : f) c /= dt;
  RecordSubstepTelemetry(sums, substeps, telemetry);
}

void RecordSubstepTelemetry(const SubstepCounters& sums, int substeps, StepTelemetry& telemetry) {
  telemetry.substeps = substeps;
  telemetry.active_nodes_avg = static_cast<double>(sums.active_nodes) / substeps;
  telemetry.active_blocks = sums.active_blocks;
  telemetry.sort_ms = 1e3 * sums.sort_seconds;
  telemetry.p2g_ms = 1e3 * sums.p2g_seconds;
  telemetry.grid_ms = 1e3 * sums.grid_seconds;
  telemetry.g2p_ms = 1e3 * sums.g2p_seconds;
  telemetry.g2p2g_ms = 1e3 * sums.g2p2g_seconds;
}

std::string MpmDomain::SetModel(const Model& model) {
  model_ = &model;
  surfaces_.reset();
  strong_materials_.clear();
  solver_.SetModel(model);
  ConfigureContact();
  cloths_ = ClothSnapshots(*model_);
  return {};
}

int MpmDomain::num_bodies() const {
  return static_cast<int>(model_->objects.size());
}

BodySummary SummarizeObject(const Model& model, const Particles& p, int object) {
  const std::vector<std::int32_t> index = IndexById(p);
  BodySummary out;
  const ObjectInfo& info = model.objects[static_cast<std::size_t>(object)];
  out.name = info.name;
  out.kind = DomainBodyKind::kObject;
  std::array<double, 3> momentum{};
  out.bounds_min.fill(std::numeric_limits<double>::infinity());
  out.bounds_max.fill(-std::numeric_limits<double>::infinity());
  for (int id = info.first_particle; id < info.first_particle + info.num_particles; ++id) {
    const int i = index[id];
    const double m = p.mass[i];
    out.mass += m;
    double v2 = 0;
    for (int a = 0; a < 3; ++a) {
      out.center_of_mass[a] += m * p.x[i][a];
      momentum[a] += m * p.v[i][a];
      out.bounds_min[a] = std::min(out.bounds_min[a], static_cast<double>(p.x[i][a]));
      out.bounds_max[a] = std::max(out.bounds_max[a], static_cast<double>(p.x[i][a]));
      v2 += static_cast<double>(p.v[i][a]) * p.v[i][a];
    }
    out.kinetic_energy += 0.5 * m * v2;
  }
  for (int a = 0; a < 3; ++a) {
    out.center_of_mass[a] /= out.mass;
    out.velocity[a] = momentum[a] / out.mass;
  }
  return out;
}

void MpmDomain::Fingerprint(const Model& model, Fnv1a64& hash) {
  hash.Add(&model.num_particles, sizeof(model.num_particles));
  hash.AddVector(model.x0);
  hash.AddVector(model.material);
  hash.AddVector(model.object);
  hash.Add(&model.h, sizeof(model.h));
  hash.Add(model.grid_nodes.data(), sizeof(model.grid_nodes));
  hash.Add(model.grid_origin.data(), sizeof(model.grid_origin));
  const std::uint64_t materials = model.materials.size();
  hash.Add(&materials, sizeof(materials));
  for (const MaterialParams& m : model.materials) hash.Add(&m.model, sizeof(m.model));
  if (!model.cloth_elements.empty()) {  // the triangles (a state's d₃ is one per triangle)
    const std::uint64_t elements = model.cloth_elements.size();
    hash.Add(&elements, sizeof(elements));
    for (const ClothElement& e : model.cloth_elements) hash.Add(e.vertex, sizeof(e.vertex));
  }
}

std::size_t MpmDomain::MemoryBytes(const MpmState& state) {
  std::size_t bytes = 0;
  ForEachParticleField([&bytes](const ParticleField&, const auto& field) { bytes += HeapBytes(field); },
                       state.particles);
  const MpmContactState& k = state.contact;
  bytes += HeapBytes(k.warm) + HeapBytes(k.warm_nodes) + HeapBytes(k.stats.substep_iterations) +
           HeapBytes(k.stats.substep_residuals) + HeapBytes(k.stats.body_contacts);
  const TransferCache& c = state.cache;
  bytes += HeapBytes(c.grid.nodes_data) + HeapBytes(c.base) + HeapBytes(c.rotations) + HeapBytes(c.block_runs);
  return bytes + c.grid.MemoryBytesOfTables() + HeapBytes(state.cloth_normal);
}

std::string MpmDomain::Describe(const Model& model) {
  return std::to_string(model.num_particles) + " particles in " + std::to_string(model.objects.size()) + " object" +
         (model.objects.size() == 1 ? "" : "s");
}

std::string MpmDomain::StructureChanged(const Model& before, const Model& after) {
  if (after.num_particles != before.num_particles || after.objects.size() != before.objects.size())
    return "the MPM objects' particles changed (shape, size, pose or particles per cell): reset to apply";
  if (after.h != before.h || after.grid_nodes != before.grid_nodes || after.grid_origin != before.grid_origin)
    return "the grid changed (grid.h or the domain): reset to apply";
  if (after.materials.size() != before.materials.size()) return "the materials changed: reset to apply";
  for (std::size_t i = 0; i < after.materials.size(); ++i)
    if (after.materials[i].model != before.materials[i].model) return "a material's model changed: reset to apply";
  for (int i = 0; i < after.num_particles; ++i)
    if (after.material[i] != before.material[i] || after.object[i] != before.object[i])
      return "the particles' materials changed: reset to apply";
  return {};
}

std::string MpmDivergenceMessage(const Model& model, const std::string& what) {
  // Under the strong scheme the particles are stepped by its implicit solve (coupling/strong_coupling.h), which
  // flags a non-finite state without a particle's description.
  if (model.coupling == CouplingKind::kStrong)
    return "a particle's state is not finite after the strong coupling's implicit step; lower simulation.dt or "
           "simulation.strong_tolerance";
  const std::string hint = ImplicitClothHint(model);
  return what + "; the substep Δt/N is likely too large for the material stiffness or speed (raise " +
         "simulation.substeps, recommended ≥ " + std::to_string(model.RecommendedSubsteps()) +
         (hint.empty() ? "" : ", " + hint) + ")";
}

void MpmDomain::Reset() {
  solver_.Reset();
  ConfigureContact();
}

void MpmDomain::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  CaptureParticles(*model_, solver_.particles(), out, with_stress);
  out.cloths = cloths_;
}

void CaptureParticles(const Model& model, const Particles& p, Snapshot& out, bool with_stress) {
  SnapshotParticles& sp = out.particles;
  const std::size_t n = p.size();
  sp.position.resize(n);
  sp.speed.resize(n);
  sp.velocity.resize(n);
  sp.von_mises.resize(with_stress ? n : 0);
  sp.plastic_strain.resize(n);
  sp.material.resize(n);
  sp.object.resize(n);
  double volume = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int id = p.id[i];
    sp.position[id] = {p.x[i].x, p.x[i].y, p.x[i].z};
    sp.speed[id] = Norm(p.v[i]);
    sp.velocity[id] = {p.v[i].x, p.v[i].y, p.v[i].z};
    sp.plastic_strain[id] = p.plastic_strain[i];
    sp.material[id] = p.material[i];
    sp.object[id] = p.object[i];
    volume += p.volume[i];
    if (!with_stress) continue;
    // Cauchy stress σ = τ/J; von Mises √(3/2 s:s) of its deviator s.
    const MaterialParams& material = model.materials[p.material[i]];
    const Mat3f tau = KirchhoffStress(material, p.F[i], p.C[i]);
    const float J = p.F[i].Determinant();
    const float trace = (tau.m[0][0] + tau.m[1][1] + tau.m[2][2]) / 3.0f;
    float ss = 0;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const float s = tau.m[r][c] - (r == c ? trace : 0.0f);
        ss += s * s;
      }
    sp.von_mises[id] = J > 0 ? std::sqrt(1.5f * ss) / J : 0.0f;
  }
  sp.radius = n > 0 ? 0.5f * static_cast<float>(std::cbrt(volume / static_cast<double>(n))) : 0.0f;
}

// ---- The strong scheme's step (coupling/strong_coupling.h, 1, 2 and 4) ----

namespace {

// A bound on the conjugate-gradient iterations of the free motion without contacts (its residual rule stops it far
// earlier: tens to hundreds of iterations in the scenes).
constexpr int kMaxFreeMotionIterations = 5000;

// The implicit step's view of a material (mpm/implicit_free_motion.h): Lamé parameters for the linear corotated
// energy, the von Mises bound where the model has one, and a fluid's bulk stiffness as λ with μ = 0 (the Tait
// equation's p = κ(J^−γ − 1) linearised at J = 1: dp/dJ = −κγ).
ImplicitMaterial ImplicitMaterialOf(const MaterialParams& m) {
  ImplicitMaterial out;
  if (m.model == MaterialModel::kFluid) {
    out.lambda = static_cast<double>(m.bulk_modulus) * m.gamma;
    out.fluid = true;
    return out;
  }
  out.mu = m.mu;
  out.lambda = m.lambda;
  out.yield_stress = m.yield_stress;
  return out;
}

void Gather(const Particles& in, ImplicitParticles& out) {
  const std::size_t n = in.size();
  out.x.resize(n);
  out.v.resize(n);
  out.C.resize(n);
  out.F.resize(n);
  out.mass.resize(n);
  out.volume.resize(n);
  out.material.resize(n);
  out.object.resize(n);
  out.plastic_strain.assign(n, 0);
  for (std::size_t p = 0; p < n; ++p) {
    out.x[p] = ductile::ToEigen(in.x[p]);
    out.v[p] = ductile::ToEigen(in.v[p]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        out.C[p](r, c) = in.C[p].m[r][c];
        out.F[p](r, c) = in.F[p].m[r][c];
      }
    out.mass[p] = in.mass[p];
    out.volume[p] = in.volume[p];
    out.material[p] = in.material[p];
    out.object[p] = in.object[p];
  }
}

// Writes the stepped particles back; returns false when one is not finite.
bool Scatter(const ImplicitParticles& in, Particles& out) {
  bool finite = true;
  for (std::size_t p = 0; p < out.size(); ++p) {
    finite = finite && in.x[p].allFinite() && in.v[p].allFinite() && in.F[p].allFinite() && in.C[p].allFinite();
    out.x[p] = {static_cast<float>(in.x[p].x()), static_cast<float>(in.x[p].y()), static_cast<float>(in.x[p].z())};
    out.v[p] = {static_cast<float>(in.v[p].x()), static_cast<float>(in.v[p].y()), static_cast<float>(in.v[p].z())};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        out.C[p].m[r][c] = static_cast<float>(in.C[p](r, c));
        out.F[p].m[r][c] = static_cast<float>(in.F[p](r, c));
      }
    out.plastic_strain[p] += static_cast<float>(in.plastic_strain[p]);
  }
  return finite;
}

// Unilateral walls (separate, friction): a contact for each particle within its reach of a wall, per wall, at the
// particle's contact radius.
void AddWallContacts(const Model& model, const Particles& particles, const std::vector<double>& radius,
                     const std::vector<double>& reach, std::vector<ParticleTouch>& out) {
  const BoundaryKind kind = model.walls.kind;
  if (kind != BoundaryKind::kSeparate && kind != BoundaryKind::kFriction) return;
  const double mu = kind == BoundaryKind::kFriction ? model.walls.friction : 0.0;
  for (std::size_t p = 0; p < particles.size(); ++p)
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const double x = particles.x[p][a];
        const double phi = side == 0 ? x - model.domain_min[a] : model.domain_max[a] - x;
        if (phi >= reach[p]) continue;
        ParticleTouch t;
        t.particle = static_cast<int>(p);
        t.contact.normal_W = Eigen::Vector3d::Unit(a) * (side == 0 ? 1.0 : -1.0);
        t.contact.phi = phi - radius[p];
        t.contact.friction = mu;
        t.contact.point = ductile::ToEigen(particles.x[p]);
        out.push_back(t);
      }
}

// Moves the contacts of particles whose objects carry a surface (coupling/object_surface.h) onto it and drops those
// whose gap is beyond the reach. The particles about a ball's lowest point all find that point: each keeps its
// contact there, so that they share the load as the particles of a contact patch do (one contact with a Delassus
// estimate from one particle's stencil, Σ w²/mᵢ, held a dropped ball 2.4 mm deep in a one-off run of that variant;
// all of them hold it 0.088 mm deep: StrongCoupling.ABallRestsOnItsSphereNotOnItsParticles). `F` the particles'
// deformation gradients as the step gathered them (in the same order).
void OntoSurfaces(const Model& model, const coupling::ObjectSurfaces& surfaces, const Particles& particles,
                  const std::vector<Eigen::Matrix3d>& F, const std::vector<double>& radius,
                  std::vector<ParticleTouch>& touches) {
  std::size_t kept = 0;
  for (ParticleTouch& t : touches) {
    const auto p = static_cast<std::size_t>(t.particle);
    const int object = particles.object[p];
    StrongContact& c = t.contact;
    if (surfaces.carries(object)) {
      Eigen::Vector3d point;
      double depth = 0;
      // Support points within two particle spacings (4 r_p) of the particle's own nearest surface point.
      if (!surfaces.ContactPoint(object, coupling::RestPosition(model, particles.id[p]), F[p], c.point, c.normal_W,
                                 4 * radius[p], point, depth))
        continue;
      c.phi += radius[p] - depth;
      c.point = point;
      t.on_surface = true;
    }
    if (c.phi < kStrongContactReach * model.h) touches[kept++] = t;
  }
  touches.resize(kept);
}

// The contacts into the block, each with its particle's stencil. `free_motion` and `particles` as the step built
// and gathered them.
void AppendContacts(const ImplicitFreeMotion& free_motion, const ImplicitParticles& particles,
                    const std::vector<ParticleTouch>& touches, StrongBlock& block) {
  // Each contact's stencil: the grid velocity at the contact point, at the particle Σᵢ w_ip vᵢ; at a point of its
  // object's surface extrapolated along the particle's velocity gradient, Σᵢ (w_ip + ∇w_ip·(x_c − x_p)) vᵢ (exact for
  // any affine field, so for a rigid motion of the object; the surface's nodes beyond the particle's stencil may
  // hold no mass). The Delassus estimate Σᵢ w_ip²/mᵢ takes the particle's own weights: an extrapolated weight may
  // fall on a node at the edge of the object with a trace of mass, and 1/m there would make the contact as
  // compliant as a point of that mass.
  for (const ParticleTouch& t : touches) {
    const int p = t.particle;
    const Eigen::Vector3d& x_p = particles.x[static_cast<std::size_t>(p)];
    const std::array<int, 27>& nodes = free_motion.stencil_nodes(p);
    const std::array<double, 27>& own = free_motion.stencil_weights(p);
    const std::array<Eigen::Vector3d, 27>& grad = free_motion.stencil_gradients(p);
    StrongContact c = t.contact;
    c.first = static_cast<int>(block.stencil.size());
    c.count = 27;
    c.inverse_mass = 1 / particles.mass[static_cast<std::size_t>(p)];
    for (int m = 0; m < 27; ++m) {
      StrongStencilEntry e;
      e.dof = 3 * nodes[m];
      e.weight = own[m];
      if (t.on_surface) e.weight += grad[m].dot(c.point - x_p);
      const double mass = free_motion.node_mass()[static_cast<std::size_t>(nodes[m])];
      if (mass > 0) e.delassus = own[m] * own[m] / mass;
      block.stencil.push_back(e);
    }
    block.contacts.push_back(c);
  }
}

}  // namespace

bool MpmDomain::BuildStrongBlock(double dt, coupling::MpmRigidContact* frozen, StrongBlock& block) {
  if (model_->num_particles == 0) return false;
  const Model& model = *model_;
  const Particles& particles = solver_.particles();
  Gather(particles, strong_particles_);
  if (strong_materials_.empty())
    for (const MaterialParams& m : model.materials) strong_materials_.push_back(ImplicitMaterialOf(m));
  const Eigen::Vector3d origin(model.grid_origin[0], model.grid_origin[1], model.grid_origin[2]);
  const Eigen::Vector3d gravity(model.gravity[0], model.gravity[1], model.gravity[2]);
  strong_.Build(strong_particles_, strong_materials_, model.h, origin, dt, gravity);
  const BoundaryKind kind = model.walls.kind;
  if (kind == BoundaryKind::kSticky || kind == BoundaryKind::kSlip) {
    const Eigen::Vector3d lo(model.domain_min[0], model.domain_min[1], model.domain_min[2]);
    const Eigen::Vector3d hi(model.domain_max[0], model.domain_max[1], model.domain_max[2]);
    strong_.SetWalls(lo, hi, kind == BoundaryKind::kSticky);
  }
  block.fixed = strong_.fixed();
  // The grid's velocities from P2G, ṽ − Δt g, as the first guess: nearer the solution than the free motion for
  // anything resting or held (dough rolling under the strong scheme took 16.4 Newton iterations a step from v*, 9.4
  // from these: bench/results/amd-epyc-2core-strong.md). The scheme starts the held dofs at 0.
  const auto n = static_cast<Eigen::Index>(block.fixed.size());
  block.v_start.resize(n);
  for (Eigen::Index dof = 0; dof < n; ++dof)
    block.v_start[dof] = strong_.free_velocity()[dof] - dt * static_cast<double>(model.gravity[dof % 3]);

  // A particle stands for the cube of material about it: its contact surface lies r_p = ½ V_p^(1/3) beyond its
  // centre, so contacts act on φ − r_p (without it a body rests half a particle spacing deep in what it lies on).
  // The reach beyond it is small: each registered contact that sticks pins the smooth grid velocity around it, and a
  // wider band of them resists rolling (the ball on the slope, on its particles' spheres, with this reach edited:
  // 1.87 m/s² with h/4 plus Δt‖v_p‖, 2.14 with h/20, against 3.55).
  // A particle whose object carries a surface (coupling/object_surface.h) is a candidate from further away: that
  // surface may lie up to about two particle spacings beyond it (a lattice's outer particles stand back from a
  // round shape's surface by up to √3 spacings); OntoSurfaces then keeps the contacts within h/20 of its surface.
  if (!surfaces_) surfaces_ = std::make_unique<const coupling::ObjectSurfaces>(model);
  std::vector<double>& radius = strong_radius_;
  std::vector<double>& reach = strong_reach_;
  radius.resize(particles.size());
  reach.resize(particles.size());
  for (std::size_t p = 0; p < particles.size(); ++p) {
    radius[p] = 0.5 * std::cbrt(static_cast<double>(particles.volume[p]));
    reach[p] = (surfaces_->carries(particles.object[p]) ? 5 * radius[p] : radius[p]) + kStrongContactReach * model.h;
  }
  std::vector<ParticleTouch>& touches = strong_touches_;
  touches.clear();
  if (frozen) {
    for (const coupling::ParticleContact& pc : frozen->FindParticleContacts(particles, reach)) {
      ParticleTouch t;
      t.particle = pc.particle;
      t.contact.body = frozen->body_of(pc.geometry);
      t.contact.normal_W = pc.normal_W;
      t.contact.phi = pc.phi - radius[static_cast<std::size_t>(pc.particle)];
      t.contact.friction = frozen->friction_of(particles.material[pc.particle], pc.geometry);
      t.contact.point = ductile::ToEigen(particles.x[static_cast<std::size_t>(pc.particle)]);
      touches.push_back(t);
    }
  }
  AddWallContacts(model, particles, radius, reach, touches);
  OntoSurfaces(model, *surfaces_, particles, strong_particles_.F, radius, touches);

  AppendContacts(strong_, strong_particles_, touches, block);
  return true;
}

void MpmDomain::AssembleStrongSystem(StrongBlock& block) {
  // A held dof's row and column are the identity's and its right-hand side 0, so v = 0 there.
  strong_.AssembleHessian(block.A, &block.fixed);
  block.b = strong_.RightHandSide();
  for (Eigen::Index k = 0; k < block.b.size(); ++k)
    if (block.fixed[static_cast<std::size_t>(k)]) block.b[k] = 0;
}

Eigen::VectorXd MpmDomain::SolveStrongFreeMotion(const StrongBlock& /*block*/) {
  return strong_.Solve(model_->implicit_tolerance, kMaxFreeMotionIterations);
}

void MpmDomain::ApplyStrongVelocities(double /*dt*/, const Eigen::VectorXd& v, StepTelemetry& telemetry) {
  strong_.Apply(v, strong_particles_);
  if (!Scatter(strong_particles_, solver_.mutable_particles())) solver_.MarkDiverged();
  telemetry.active_nodes_avg = strong_.num_nodes();
}

}  // namespace ductile::mpm
