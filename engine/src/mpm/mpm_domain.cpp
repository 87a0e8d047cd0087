#include "mpm/mpm_domain.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <utility>

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

}  // namespace ductile::mpm
