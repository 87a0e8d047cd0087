#include "backend/device_mpm_domain.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

#include "contact/mpm_contact_solver.h"
#include "core/small_math_eigen.h"
#include "coupling/mpm_rigid_contact.h"
#include "geometry/signed_distance.h"
#include "mpm/model_views.h"
#include "mpm/mpm_domain.h"
#include "mpm/mpm_solver.h"

namespace ductile::backend {
namespace {

// A small problem from the device solved on the host (contact::SolveGridContact, with exact Newton directions).
void SolveOnHost(const contact::GridContactParams& params, HostContactProblem& h) {
  contact::GridContactProblem problem;
  const std::size_t nodes = h.mass.size(), contacts = h.nodes.size();
  problem.mass = h.mass;
  problem.v_star.reserve(nodes);
  for (const Vec3<double>& v : h.v_star) problem.v_star.push_back(ToEigen(v));
  problem.contacts.resize(contacts);
  problem.gamma_guess.reserve(contacts);
  for (std::size_t c = 0; c < contacts; ++c) {
    contact::GridContact& k = problem.contacts[c];
    k.nodes = h.nodes[c];
    k.weights = h.weights[c];
    k.R_WC = ToEigen(h.R_WC[c]);
    k.v_rigid = ToEigen(h.v_rigid[c]);
    k.params = h.params[c];
    k.near_rigid = h.near_rigid[c] != 0;
    problem.gamma_guess.push_back(ToEigen(h.gamma_guess[c]));
  }
  const contact::GridContactResult r = contact::SolveGridContact(problem, params);
  h.v.clear();
  for (const Eigen::Vector3d& v : r.v) h.v.push_back(ToVec3d(v));
  h.gamma_W.clear();
  for (const Eigen::Vector3d& g : r.gamma_W) h.gamma_W.push_back(ToVec3d(g));
  h.iterations = r.iterations;
  h.residual = r.residual;
  h.converged = r.converged;
}

}  // namespace

DeviceMpmDomain::DeviceMpmDomain(const Model& model, mpm::MpmState& state, std::unique_ptr<DeviceMpm> device,
                                 tbb::task_arena& arena)
    : model_(&model), state_(&state), device_(std::move(device)), arena_(&arena) {
  ConfigureModel();
  Bind(state);
}

void DeviceMpmDomain::Bind(mpm::MpmState& state) {
  state_ = &state;
  failure_.clear();
  device_->Upload(state.particles);
  if (!model_->cloth_elements.empty()) {
    if (state.cloth_normal.size() != model_->cloth_elements.size())
      mpm::InitialClothNormals(*model_, state.cloth_normal);
    device_->UploadCloth(state.cloth_normal);
  }
  host_current_ = true;
}

void DeviceMpmDomain::SyncToHost() const {
  if (host_current_) return;
  device_->Download(state_->particles);
  if (!model_->cloth_elements.empty()) device_->DownloadCloth(state_->cloth_normal);
  state_->cache.Invalidate(mpm::Invalidation::kParticlesEdited);  // the device's order, no CPU transfer cache
  state_->diverged = device_->diverged();
  host_current_ = true;
}

void DeviceMpmDomain::UploadVelocities() {
  device_->UploadVelocities(state_->particles);
}

void DeviceMpmDomain::FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) {
  if (!contact_) return;
  contact_->BeginStep(rigid, impulses, state_->contact);
  contact_this_step_ = true;
  if (!failure_.empty()) return;  // the device's state is lost until a reset or a loaded state (Bind)
  try {
    arena_->execute([&] { UploadContactStep(); });
  } catch (const std::exception& e) {  // a CUDA error, no memory: reported by the coming Advance as a divergence
    failure_ = std::string("the ") + device_->name() + " backend failed: " + e.what();
  }
}

void DeviceMpmDomain::UploadContactStep() {
  const std::vector<coupling::MpmRigidContact::Frozen>& frozen = contact_->frozen();
  // The meshes' sampled fields, when the set of meshes changed (they are built once per mesh).
  std::vector<const geometry::MeshSdf*> sdfs;
  for (const auto& f : frozen)
    if (f.sdf && std::find(sdfs.begin(), sdfs.end(), f.sdf) == sdfs.end()) sdfs.push_back(f.sdf);
  if (sdfs != uploaded_sdfs_) {
    std::vector<DeviceField> fields;
    std::vector<float> samples;
    for (const geometry::MeshSdf* sdf : sdfs) {
      const geometry::SampledDistanceField f = sdf->field();
      DeviceField d;
      d.offset = static_cast<std::int64_t>(samples.size());
      for (int a = 0; a < 3; ++a) d.cells[a] = f.cells[a];
      d.min = f.min;
      d.max = f.max;
      d.cell = f.cell;
      fields.push_back(d);
      samples.insert(samples.end(), sdf->samples().begin(), sdf->samples().end());
    }
    device_->UploadContactFields(fields, samples);
    uploaded_sdfs_ = sdfs;
  }
  DeviceContactSetup setup;
  for (const auto& f : frozen) {
    DeviceGeometry g;
    g.shape = geometry::PrimitiveOf(*f.geometry);
    if (f.sdf) g.field = static_cast<int>(std::find(sdfs.begin(), sdfs.end(), f.sdf) - sdfs.begin());
    g.R_WG = ToMat3d(f.X_WG.linear());
    g.R_GW = ToMat3d(f.X_GW.linear());
    g.p_WG = ToVec3d(f.X_WG.translation());
    g.p_GW = ToVec3d(f.X_GW.translation());
    g.box_min = {f.box_min.x(), f.box_min.y(), f.box_min.z()};
    g.box_max = {f.box_max.x(), f.box_max.y(), f.box_max.z()};
    g.radius = f.radius;
    g.body = f.body;
    g.angular = ToVec3d(f.V.head<3>());
    g.linear = ToVec3d(f.V.tail<3>());
    setup.geometries.push_back(g);
  }
  setup.num_materials = static_cast<int>(model_->materials.size());
  for (int m = 0; m < setup.num_materials; ++m)
    for (std::size_t g = 0; g < frozen.size(); ++g)
      setup.friction.push_back(contact_->friction_of(m, static_cast<int>(g)));
  for (const Eigen::Vector3d& o : contact_->origins()) setup.origins.push_back(ToVec3d(o));
  const coupling::MpmContactSettings& settings = contact_->settings();
  if (settings.surfaces && settings.surfaces->any()) setup.surfaces = settings.surfaces->shapes();
  setup.stiffness = settings.stiffness;
  setup.dissipation = settings.dissipation;
  setup.stiction_speed = settings.stiction_speed;
  setup.sigma = settings.cost_sigma();
  setup.resting_margin = settings.registration_margin();
  setup.solver = settings.solver;
  device_->BeginContactStep(setup);
}

void DeviceMpmDomain::ConfigureModel() {
  cloths_ = mpm::ClothSnapshots(*model_);
  contact_ = mpm::MakeWeakContact(*model_);
  uploaded_sdfs_.clear();
}

void DeviceMpmDomain::SolveContact(float dt) {
  HostContactHooks hooks;
  hooks.solve = [this](HostContactProblem& h) { SolveOnHost(contact_->settings().solver, h); };
  hooks.medial_normal = [this](int g, const Vec3<double>& x) {
    const coupling::MpmRigidContact::Frozen& f = contact_->frozen()[static_cast<std::size_t>(g)];
    const Vec3<double> n_G = f.sdf->MedialNormal(f.X_GW * ToEigen(x));
    return ToVec3d(f.X_WG.linear() * ToEigen(n_G));
  };
  hooks.drop_twins = coupling::DropTwinContacts;
  const DeviceContactOutcome o = device_->SolveContact(dt, hooks);
  coupling::SolvedSubstep s;
  s.contacts = o.contacts;
  s.body_contacts = o.body_contacts;
  s.iterations = o.iterations;
  s.residual = o.residual;
  s.converged = o.converged;
  for (std::size_t b = 0; b < o.linear.size(); ++b) {
    s.linear.push_back(ToEigen(o.linear[b]));
    s.angular.push_back(ToEigen(o.angular[b]));
  }
  contact_->AddSolvedSubstep(s);
}

void DeviceMpmDomain::Advance(double time, double dt, StepTelemetry& telemetry) {
  const int substeps = model_->substeps;
  std::function<void(float)> contact_solve;
  if (contact_this_step_) contact_solve = [this](float h) { SolveContact(h); };
  contact_this_step_ = false;
  if (!failure_.empty()) return;  // the device's state is lost until a reset or a loaded state (Bind)
  mpm::SubstepCounters sums;
  try {
    arena_->execute([&] {
      device_->SetTime(time);
      sums = device_->Advance(static_cast<float>(dt / substeps), substeps, contact_solve);
    });
  } catch (const std::exception& e) {  // a CUDA error, or memory the emulated backend could not have
    // The device's state is lost; the host copy keeps the last one it received.
    failure_ = std::string("the ") + device_->name() + " backend failed: " + e.what();
    host_current_ = true;
    return;
  }
  host_current_ = false;
  telemetry.pin_forces = device_->TakePinImpulses();
  for (std::array<double, 3>& f : telemetry.pin_forces)
    for (double& c : f) c /= dt;
  mpm::RecordSubstepTelemetry(sums, substeps, telemetry);
}

std::string DeviceMpmDomain::DescribeDivergence() const {
  if (!failure_.empty()) return failure_;
  if (!device_->diverged()) return {};
  SyncToHost();
  return mpm::DescribeDivergedParticle(*model_, state_->particles);
}

std::string DeviceMpmDomain::DivergenceMessage(const Model& model) const {
  if (!failure_.empty())
    return failure_ + "; its particles are lost: switch simulation.backend to cpu and reset or load a state";
  return mpm::MpmDivergenceMessage(model, DescribeDivergence());
}

std::string DeviceMpmDomain::SetModel(const Model& model) {
  SyncToHost();
  const bool new_cloth = model.cloth_elements.size() != model_->cloth_elements.size();
  model_ = &model;
  device_->SetModel(model);
  if (new_cloth && !model.cloth_elements.empty()) {  // the device has no d₃ for these triangles yet
    if (state_->cloth_normal.size() != model.cloth_elements.size())
      mpm::InitialClothNormals(model, state_->cloth_normal);
    device_->UploadCloth(state_->cloth_normal);
  }
  ConfigureModel();
  for (std::size_t i = 0; i < state_->particles.size(); ++i)
    state_->particles.mass[i] = model.mass[state_->particles.id[i]];
  return {};
}

int DeviceMpmDomain::num_bodies() const {
  return static_cast<int>(model_->objects.size());
}

BodySummary DeviceMpmDomain::SummarizeBody(int body) const {
  SyncToHost();
  return mpm::SummarizeObject(*model_, state_->particles, body);
}

void DeviceMpmDomain::Reset() {
  *state_ = mpm::MpmState{};
  mpm::InitialParticles(*model_, state_->particles);
  Bind(*state_);
}

void DeviceMpmDomain::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  SyncToHost();  // once per published frame
  mpm::CaptureParticles(*model_, state_->particles, out, with_stress);
  out.cloths = cloths_;
}

}  // namespace ductile::backend
