// The Simulator: the public front over Step (step/step.h). It owns the Model, the State and the Workspace bound to
// that State, and turns the public API's commands (teleoperation, the mouse spring, live edits, save and restore)
// into changes of the State.
#include "ductile/simulator.h"

#include <tbb/info.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/hash.h"
#include "fem/fem_domain.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"
#include "mpm/constitutive/constitutive.h"
#include "params/model_editor.h"
#include "robot/teleop.h"
#include "state/domain_registry.h"
#include "state/state_data.h"
#include "state/state_format.h"
#include "step/inputs.h"
#include "step/robot_checks.h"
#include "step/scene_gradient.h"
#include "step/step.h"
#include "step/workspace.h"

namespace ductile {

struct Simulator::Impl {
  Impl(std::shared_ptr<const Model> m, int threads) : model(std::move(m)), workspace(*model, state.data(), threads) {
    state.data().model_fingerprint = ModelFingerprint(*model);
  }
  State::Data& data() { return state.data(); }
  const State::Data& data() const { return state.data(); }
  // Continues from the state with `model` after it changed (the step Δt was `dt` before).
  // Returns why the model's backend could not start (the CPU backend goes on), or empty.
  // `before`: the model the state ran with until now (alive for the call).
  std::string ContinueWithModel(double dt, const Model* before) {
    Clock& clock = data().clock;
    if (model->dt != dt) {
      clock.time_base = clock.time;
      clock.steps_base = clock.steps;
    }
    return workspace.SetModel(*model, data(), before);
  }

  std::shared_ptr<const Model> model;
  params::ModelEditor editor;  // live edits of `model` (SetParameter)
  State state;                 // declared before the workspace, which binds to it
  Workspace workspace;
};

namespace {
int ResolveThreads(const Model& model, const SimulatorOptions& options) {
  int threads = options.threads > 0 ? options.threads : model.threads;
  if (threads <= 0) threads = tbb::info::default_concurrency();
  return threads;
}
}  // namespace

void CheckModel(const Model& model) {
  const DomainRefusal refusal = ModelRefusal(model);
  if (!refusal) return;
  SourceLocation at;
  if (model.scene && refusal.key == "simulation.coupling") at = model.scene->simulation.coupling_where;
  if (model.scene && refusal.key == "simulation.backend") at = model.scene->simulation.backend_where;
  throw SceneError(at.file, at.line, at.column, Describe(refusal));
}

Simulator::Simulator(std::shared_ptr<const Model> model, SimulatorOptions options) {
  CheckModel(*model);
  const int threads = ResolveThreads(*model, options);
  impl_ = std::make_unique<Impl>(std::move(model), threads);
}

Simulator::~Simulator() = default;

void Simulator::Step() {
  ductile::Step(*impl_->model, impl_->data(), impl_->workspace);
}

void Simulator::Reset() {
  impl_->workspace.Reset(*impl_->model, impl_->data());
}

const State& Simulator::state() const {
  impl_->workspace.SyncToHost();
  return impl_->state;
}

void Simulator::SetState(const State& state) {
  SetState(State(state));
}

void Simulator::SetState(State&& state) {
  if (state.data().model_fingerprint != impl_->data().model_fingerprint)
    throw StateError("the state belongs to another scene (its particles, grid or rigid bodies differ)");
  impl_->state = std::move(state);
  impl_->workspace.Bind(*impl_->model, impl_->data());
}

std::vector<std::uint8_t> Simulator::SaveState() const {
  impl_->workspace.SyncToHost();
  return EncodeState(*impl_->model, impl_->state);
}

void Simulator::RestoreState(const std::vector<std::uint8_t>& bytes) {
  State decoded;
  DecodeState(*impl_->model, bytes.data(), bytes.size(), decoded);
  SetState(std::move(decoded));
}

void Simulator::SaveStateFile(const std::string& path) const {
  WriteStateFile(path, SaveState());
}

void Simulator::LoadStateFile(const std::string& path) {
  try {
    RestoreState(ReadStateFile(path));
  } catch (const StateError& e) {
    const std::string what = e.what();
    if (what.rfind(path + ":", 0) == 0) throw;
    throw StateError(path + ": " + what);
  }
}

namespace {

// Why a state of `before` cannot go on with `after`: each domain kind's structure test, then the rigid bodies'.
std::string StructureChanged(const Model& before, const Model& after) {
  for (const DomainKind& kind : DomainKinds())
    if (std::string changed = kind.structure_changed(before, after); !changed.empty()) return changed;
  const RigidModel& ra = *before.rigid;
  const RigidModel& rb = *after.rigid;
  if (ra.tree.num_bodies() != rb.tree.num_bodies() || ra.tree.nq() != rb.tree.nq() || ra.tree.nv() != rb.tree.nv() ||
      ra.world.num_geometries() != rb.world.num_geometries() || ra.empty() != rb.empty())
    return "the rigid bodies or robots changed: reset to apply";
  return {};
}

}  // namespace

std::string Simulator::UpdateModel(std::shared_ptr<const Model> model, std::vector<std::string>* later) {
  Impl& s = *impl_;
  const std::shared_ptr<const Model> before = s.model;  // alive until the workspace has moved on
  const Model& old = *before;
  const Model& m = *model;
  std::vector<ParameterChange> changes;
  if (old.scene && m.scene) changes = DiffParameters(*old.scene, *m.scene);
  if (std::string changed = StructureChanged(old, m); !changed.empty()) {
    // The rows' view of it: the changed parameters that a running state cannot take.
    std::string keys;
    for (const ParameterChange& c : changes)
      if (c.info->apply != ParameterApply::kLive && !c.info->initial_condition)
        keys += (keys.empty() ? "" : ", ") + c.key;
    return keys.empty() ? changed : changed + " (changed: " + keys + ")";
  }
  if (const DomainRefusal refusal = EditRefusal(old, m)) return Describe(refusal);

  // Applied: the new model drives every later step; the state carries over.
  if (later) {
    for (const ParameterChange& c : changes) {
      if (c.info->initial_condition)
        later->push_back(c.key + " " + c.info->reason + ": it applies at the next reset");
      else if (c.info->apply == ParameterApply::kReload)
        later->push_back(c.key + " " + c.info->reason + ": it applies when the scene is loaded again");
    }
  }
  const double dt = old.dt;
  s.model = std::move(model);
  return s.ContinueWithModel(dt, &old);
}

std::string Simulator::SetParameter(const std::string& key, const std::string& value) {
  Impl& s = *impl_;
  // The models the workspace refers to stay alive until it has moved on to the edited ones.
  const std::shared_ptr<const Model> before = s.model;
  const std::shared_ptr<const RigidModel> before_rigid = s.model->rigid;
  const std::shared_ptr<const FemModel> before_fem = s.model->fem;
  const double dt = s.model->dt;
  if (std::string refused = s.editor.Apply(s.model, key, value); !refused.empty()) return refused;
  return s.ContinueWithModel(dt, before.get());
}

double Simulator::time() const {
  return impl_->data().clock.time;
}
std::int64_t Simulator::step_count() const {
  return impl_->data().clock.steps;
}
const char* Simulator::backend() const {
  switch (impl_->workspace.mpm().backend()) {
    case BackendKind::kCuda:
      return "cuda";
    case BackendKind::kEmulated:
      return "emulated";
    case BackendKind::kCpu:
    case BackendKind::kAuto:
      break;
  }
  return "cpu";
}
int Simulator::threads() const {
  return impl_->workspace.threads;
}
const Model& Simulator::model() const {
  return *impl_->model;
}
const StepTelemetry& Simulator::last_step() const {
  return impl_->workspace.telemetry;
}
ObjectSummary Simulator::SummarizeObject(int object) const {
  const BodySummary s = impl_->workspace.mpm().SummarizeBody(object);
  ObjectSummary out;
  out.mass = s.mass;
  out.center_of_mass = s.center_of_mass;
  out.velocity = s.velocity;
  out.bounds_min = s.bounds_min;
  out.bounds_max = s.bounds_max;
  out.kinetic_energy = s.kinetic_energy;
  return out;
}

int Simulator::num_bodies() const {
  int n = 0;
  for (const std::unique_ptr<DeformableDomain>& d : impl_->workspace.domains) n += d->num_bodies();
  return n;
}

BodySummary Simulator::SummarizeBody(int i) const {
  for (const std::unique_ptr<DeformableDomain>& d : impl_->workspace.domains) {
    if (i < d->num_bodies()) return d->SummarizeBody(i);
    i -= d->num_bodies();
  }
  throw std::out_of_range("Simulator::SummarizeBody: no body " + std::to_string(i));
}

namespace {
// A display colour per material model: dough and plastics warm, sand ochre, fluids blue, elastic solids red; the
// index varies the shade so two materials of one model stay apart.
std::array<float, 4> MaterialColor(mpm::MaterialModel model, int index) {
  std::array<float, 4> c{0.8f, 0.3f, 0.25f, 1.0f};
  switch (model) {
    case mpm::MaterialModel::kFixedCorotated:
      c = {0.80f, 0.28f, 0.24f, 1};
      break;
    case mpm::MaterialModel::kLinearCorotated:
      c = {0.90f, 0.72f, 0.48f, 1};
      break;
    case mpm::MaterialModel::kStvkHencky:
      c = {0.62f, 0.42f, 0.78f, 1};
      break;
    case mpm::MaterialModel::kDruckerPrager:
      c = {0.82f, 0.66f, 0.36f, 1};
      break;
    case mpm::MaterialModel::kFluid:
      c = {0.22f, 0.48f, 0.88f, 1};
      break;
    case mpm::MaterialModel::kCloth:
      c = {0.30f, 0.55f, 0.62f, 1};
      break;
  }
  const float shade = 1.0f - 0.18f * static_cast<float>(index % 3);
  for (int a = 0; a < 3; ++a) c[a] *= shade;
  return c;
}

std::array<float, 4> ToFloat4(const Eigen::Quaterniond& q) {
  return {static_cast<float>(q.w()), static_cast<float>(q.x()), static_cast<float>(q.y()), static_cast<float>(q.z())};
}
std::array<float, 3> ToFloat3(const Eigen::Vector3d& v) {
  return {static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z())};
}

// The scene file's name of an engine material model.
MaterialModelDesc ModelDesc(mpm::MaterialModel model) {
  switch (model) {
    case mpm::MaterialModel::kFixedCorotated:
      return MaterialModelDesc::kFixedCorotated;
    case mpm::MaterialModel::kLinearCorotated:
      return MaterialModelDesc::kLinearCorotated;
    case mpm::MaterialModel::kStvkHencky:
      return MaterialModelDesc::kStvkHencky;
    case mpm::MaterialModel::kDruckerPrager:
      return MaterialModelDesc::kDruckerPrager;
    case mpm::MaterialModel::kFluid:
      return MaterialModelDesc::kFluid;
    case mpm::MaterialModel::kCloth:
      return MaterialModelDesc::kCloth;
  }
  return MaterialModelDesc::kFixedCorotated;
}

// The materials as snapshots show them: a display colour, the model, and E and ν back from the Lamé parameters
// (double, so the round trip loses only the float storage).
void SnapshotMaterials(const Model& model, Snapshot& out) {
  out.material_rgba.resize(model.materials.size());
  out.materials.resize(model.materials.size());
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    const mpm::MaterialParams& p = model.materials[m];
    out.material_rgba[m] = MaterialColor(p.model, static_cast<int>(m));
    if (model.scene && m < model.scene->materials.size() && model.scene->materials[m].rgba)
      for (int a = 0; a < 4; ++a) out.material_rgba[m][a] = static_cast<float>((*model.scene->materials[m].rgba)[a]);
    SnapshotMaterial& sm = out.materials[m];
    sm.model = ModelDesc(p.model);
    const double mu = p.mu, lambda = p.lambda;
    sm.youngs_modulus = mu > 0 ? mu * (3 * lambda + 2 * mu) / (lambda + mu) : 0.0;
    sm.poisson_ratio = mu > 0 ? lambda / (2 * (lambda + mu)) : 0.0;
    sm.density = p.density;
    sm.yield_stress = p.yield_stress;
    sm.friction = m < model.material_friction.size() ? model.material_friction[m] : -1.0;
  }
}

// The moving bodies at their current poses, in the order of num_rigid_bodies(). Returns, per body of the rigid
// tree (`tree_bodies` of them), its index among the moving bodies, or −1.
std::vector<int> SnapshotBodies(const Simulator& sim, const Model& model, int tree_bodies,
                                std::vector<SnapshotBody>& bodies) {
  bodies.resize(sim.num_rigid_bodies());
  std::vector<int> body_slot(tree_bodies, -1);
  for (int i = 0; i < sim.num_rigid_bodies(); ++i) {
    const RigidBodySummary summary = sim.SummarizeRigidBody(i);
    SnapshotBody& b = bodies[i];
    b.name = summary.name;
    for (int a = 0; a < 3; ++a) {
      b.position[a] = static_cast<float>(summary.position[a]);
      b.contact_force[a] = static_cast<float>(summary.contact_force[a]);
    }
    for (int a = 0; a < 4; ++a) b.quaternion[a] = static_cast<float>(summary.quaternion[a]);
    b.mpm_contacts = summary.mpm_contacts;
    body_slot[model.rigid->output_bodies[i]] = i;
  }
  return body_slot;
}

// The visual geometries' meshes in the snapshot's form, converted once (when the visuals changed) and shared by
// every snapshot after.
void ConvertVisualMeshes(const std::vector<VisualGeometry>& visuals,
                         std::vector<std::shared_ptr<const SnapshotMesh>>& meshes) {
  if (meshes.size() == visuals.size()) return;
  meshes.assign(visuals.size(), nullptr);
  for (std::size_t v = 0; v < visuals.size(); ++v) {
    const geometry::TriangleMesh* mesh = visuals[v].shape.mesh.get();
    if (!mesh) continue;
    auto converted = std::make_shared<SnapshotMesh>();
    for (const Eigen::Vector3d& x : mesh->vertices) converted->vertices.push_back(ToFloat3(x));
    for (const std::array<int, 3>& t : mesh->triangles)
      converted->triangles.push_back(
          {static_cast<std::uint32_t>(t[0]), static_cast<std::uint32_t>(t[1]), static_cast<std::uint32_t>(t[2])});
    meshes[v] = std::move(converted);
  }
}

// A drawn shape at its current pose: on the moving body `body_slot` gives for its tree body, or fixed in the world.
void SnapshotVisual(const VisualGeometry& visual, const contact::RigidSystem* rigid, const std::vector<int>& body_slot,
                    std::shared_ptr<const SnapshotMesh> mesh, SnapshotShape& s) {
  const geometry::CollisionGeometry& g = visual.shape;
  s.name = g.name;
  s.type = g.type;
  s.half_extents = ToFloat3(g.half_extents);
  s.radius = static_cast<float>(g.radius);
  s.length = static_cast<float>(g.length);
  s.mesh = std::move(mesh);
  Eigen::Isometry3d X_WG = g.X_BG;
  s.body = -1;
  if (g.body >= 0 && rigid) {
    X_WG = rigid->kinematics().X_WB[g.body] * g.X_BG;
    s.body = body_slot[g.body];
  }
  if (g.type == ShapeType::kPlane) {
    // The drawn frame's z is the plane's outward normal.
    X_WG.linear() = X_WG.linear() * Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), g.normal).matrix();
  }
  s.position = ToFloat3(X_WG.translation());
  s.quaternion = ToFloat4(Eigen::Quaterniond(X_WG.linear()).normalized());
  for (int a = 0; a < 4; ++a) s.rgba[a] = static_cast<float>(visual.rgba[a]);
}
}  // namespace

void Simulator::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  const Model& model = *impl_->model;
  out.time = impl_->data().clock.time;
  out.step = impl_->data().clock.steps;
  out.telemetry = impl_->workspace.telemetry;
  out.domain_min = model.domain_min;
  out.domain_max = model.domain_max;
  out.grid_spacing = model.h;
  out.material_names = model.material_names;
  out.dt = model.dt;
  out.substeps = model.substeps;
  std::array<double, 3> anchor{};
  out.perturbing = PerturbationAnchor(anchor);
  for (int a = 0; a < 3; ++a) {
    out.perturb_anchor[a] = static_cast<float>(anchor[a]);
    out.perturb_target[a] = static_cast<float>(impl_->data().inputs.perturbation.spec.target[a]);
  }
  SnapshotMaterials(model, out);
  out.object_names.resize(model.objects.size());
  for (std::size_t o = 0; o < model.objects.size(); ++o) out.object_names[o] = model.objects[o].name;

  out.soft_bodies.clear();  // `out` is reused from snapshot to snapshot, and the FEM domain appends its bodies
  for (const std::unique_ptr<DeformableDomain>& domain : impl_->workspace.domains)
    domain->CaptureSnapshot(out, with_stress);

  // Moving bodies and every drawn shape at its current pose.
  const contact::RigidSystem* rigid = impl_->workspace.rigid.get();
  const std::vector<int> body_slot = SnapshotBodies(*this, model, rigid ? rigid->tree().num_bodies() : 0, out.bodies);
  const std::vector<VisualGeometry>& visuals = model.rigid->visuals;
  std::vector<std::shared_ptr<const SnapshotMesh>>& meshes = impl_->workspace.visual_meshes;
  ConvertVisualMeshes(visuals, meshes);
  out.shapes.resize(visuals.size());
  for (std::size_t v = 0; v < visuals.size(); ++v)
    SnapshotVisual(visuals[v], rigid, body_slot, meshes[v], out.shapes[v]);
}

void Simulator::SetPerturbation(const Perturbation& perturbation) {
  ductile::SetPerturbation(*impl_->model, perturbation, impl_->data(), impl_->workspace);
}

bool Simulator::PerturbationAnchor(std::array<double, 3>& anchor) const {
  Eigen::Vector3d a;
  if (!ductile::PerturbationAnchor(*impl_->model, impl_->data(), impl_->workspace, a)) return false;
  anchor = {a.x(), a.y(), a.z()};
  return true;
}

int Simulator::num_rigid_bodies() const {
  return static_cast<int>(impl_->model->rigid->output_bodies.size());
}

int Simulator::num_ipc_bodies() const {
  const FemModel* fem = impl_->model->fem.get();
  return fem ? static_cast<int>(fem->soft_bodies.size() + fem->affine_bodies.size()) : 0;
}

IpcBodySummary Simulator::SummarizeIpcBody(int i) const {
  const BodySummary s = impl_->workspace.Find<fem::FemDomain>()->SummarizeBody(i);
  IpcBodySummary out;
  out.name = s.name;
  out.affine = s.kind == DomainBodyKind::kAffineBody;
  out.position = s.center_of_mass;
  out.quaternion = s.quaternion;
  return out;
}

RigidBodySummary Simulator::SummarizeRigidBody(int i) const {
  const contact::RigidSystem& rigid = *impl_->workspace.rigid;
  const int b = impl_->model->rigid->output_bodies[i];
  RigidBodySummary out;
  out.name = rigid.tree().body(b).name;
  const Eigen::Isometry3d& X = rigid.kinematics().X_WB[b];
  const Eigen::Quaterniond q(X.linear());
  out.quaternion = {q.w(), q.x(), q.y(), q.z()};
  // The rigid contacts plus the MPM and IPC contact forces of the last step.
  Eigen::Vector3d f, t;
  BodyContactWrench(*impl_->model, impl_->data(), rigid, b, f, t);
  const std::vector<int>& mpm_contacts = impl_->data().mpm.contact.stats.body_contacts;
  if (impl_->data().clock.steps > 0 && b < static_cast<int>(mpm_contacts.size()))
    out.mpm_contacts = mpm_contacts[static_cast<std::size_t>(b)];
  for (int a = 0; a < 3; ++a) {
    out.position[a] = X.translation()[a];
    out.contact_force[a] = f[a];
    out.contact_torque[a] = t[a];
  }
  return out;
}

GradientResult Simulator::LossAndGradient(const GradientRequest& request) const {
  return ComputeSceneGradient(*impl_->model, request);
}

std::vector<std::string> Simulator::GradientKeys() {
  return ductile::GradientKeys();
}

std::uint64_t Simulator::StateHash() const {
  impl_->workspace.SyncToHost();
  const mpm::Particles& p = impl_->data().mpm.particles;
  Fnv1a64 hash;
  for (std::int32_t i : mpm::IndexById(p)) {  // per particle, by id, the fields that move with it
    mpm::ForEachParticleField(
        [&hash, i](const mpm::ParticleField& field, const auto& values) {
          if (field.evolves) hash.Add(&values[i], sizeof(values[i]));
        },
        p);
  }
  const std::vector<Vec3f>& d3 = impl_->data().mpm.cloth_normal;  // cloth triangles' transverse directions, if any
  if (!d3.empty()) hash.Add(d3.data(), sizeof(Vec3f) * d3.size());
  if (impl_->workspace.rigid) {
    const contact::RigidState& r = impl_->data().rigid;
    hash.Add(r.q.data(), sizeof(double) * r.q.size());
    hash.Add(r.v.data(), sizeof(double) * r.v.size());
  }
  const fem::IpcState& f = impl_->data().fem;  // soft vertices and affine bodies, if any
  const auto add = [&hash](const auto& v) { hash.Add(v.data(), sizeof(v[0]) * v.size()); };
  add(f.x);
  add(f.v);
  add(f.q);
  add(f.q_dot);
  add(f.kinematic_points);
  for (const pd::PdState& b : impl_->data().pd.bodies) {  // projective-dynamics bodies, if any
    hash.Add(b.q.data(), sizeof(double) * static_cast<std::size_t>(b.q.size()));
    hash.Add(b.v.data(), sizeof(double) * static_cast<std::size_t>(b.v.size()));
    hash.Add(b.z.data(), sizeof(double) * static_cast<std::size_t>(b.z.size()));
  }
  return hash.value();
}

std::vector<std::string> Simulator::RobotNames() const {
  std::vector<std::string> names;
  if (!impl_->workspace.rigid) return names;
  for (const multibody::Body& body : impl_->workspace.rigid->tree().bodies()) {
    const std::size_t slash = body.name.find('/');
    if (slash == std::string::npos) continue;
    std::string robot = body.name.substr(0, slash);
    if (std::find(names.begin(), names.end(), robot) == names.end()) names.push_back(std::move(robot));
  }
  return names;
}

bool Simulator::HasRobot(const std::string& robot) const {
  const std::vector<std::string> robots = RobotNames();
  return std::find(robots.begin(), robots.end(), robot) != robots.end();
}

std::string Simulator::LinkPose(const std::string& robot, const std::string& link, std::array<double, 3>& position,
                                std::array<double, 4>& quaternion) const {
  if (!HasRobot(robot)) return "no robot named '" + robot + "'";
  const int b = impl_->workspace.rigid->tree().FindBody(robot + "/" + link);
  if (b < 0) return "robot '" + robot + "' has no link '" + link + "'";
  const Eigen::Isometry3d& X = impl_->workspace.rigid->kinematics().X_WB[b];
  const Eigen::Quaterniond q(X.linear());
  position = {X.translation().x(), X.translation().y(), X.translation().z()};
  quaternion = {q.w(), q.x(), q.y(), q.z()};
  return {};
}

std::string Simulator::SetTeleopTarget(const TeleopTarget& target) {
  RobotTeleop* entry = nullptr;
  std::string problem = ductile::SetArmTarget(target, impl_->data(), impl_->workspace, &entry);
  if (problem.empty()) entry->manual = true;  // a scene script no longer drives this robot
  return problem;
}

void Simulator::ClearTeleopTarget(const std::string& robot) {
  if (!HasRobot(robot)) return;
  RobotTeleop& t = TeleopOf(impl_->data().inputs, robot);
  t.arm_active = false;
  t.manual = true;  // also before the script's first step: the robot keeps its controllers' targets
}

std::string Simulator::SetGripper(const GripperCommand& command) {
  RobotTeleop* entry = nullptr;
  std::string problem = ductile::SetGripperCommand(command, impl_->data(), impl_->workspace, &entry);
  if (problem.empty()) entry->manual = true;  // a scene script no longer drives this robot
  return problem;
}

namespace {

// The body of `robot`'s moving joint `joint`, or −1.
int JointBody(const multibody::MultibodyTree& tree, const std::string& robot, const std::string& joint) {
  for (int b = 0; b < tree.num_bodies(); ++b) {
    const multibody::Body& body = tree.body(b);
    if (body.joint_name == joint && body.nv == 1 && robot::IsRobotBody(body, robot)) return b;
  }
  return -1;
}

}  // namespace

std::string Simulator::RobotJoints(const std::string& robot, std::vector<JointStatus>& joints) const {
  joints.clear();
  if (!HasRobot(robot)) return "no robot named '" + robot + "'";
  const contact::RigidSystem& rigid = *impl_->workspace.rigid;
  const multibody::MultibodyTree& tree = rigid.tree();
  for (int b = 0; b < tree.num_bodies(); ++b) {
    const multibody::Body& body = tree.body(b);
    if (body.nv != 1 || !robot::IsRobotBody(body, robot)) continue;
    JointStatus j;
    j.name = body.joint_name;
    j.position = rigid.state().q[body.q_start];
    j.velocity = rigid.state().v[body.v_start];
    j.lower = body.lower;
    j.upper = body.upper;
    const int c = robot::ControllerOf(rigid.controllers(), b);
    j.controlled = c >= 0;
    if (j.controlled) j.target = rigid.state().targets[static_cast<std::size_t>(c)].q_target;
    joints.push_back(std::move(j));
  }
  return {};
}

std::string Simulator::SetJointTarget(const std::string& robot, const std::string& joint, double position,
                                      double velocity) {
  if (!HasRobot(robot)) return "no robot named '" + robot + "'";
  contact::RigidSystem& rigid = *impl_->workspace.rigid;
  const int b = JointBody(rigid.tree(), robot, joint);
  if (b < 0) return "robot '" + robot + "' has no moving joint '" + joint + "'";
  const int controller = robot::ControllerOf(rigid.controllers(), b);
  const std::string what = "joint '" + joint + "' of robot '" + robot + "'";
  if (controller < 0) return what + " has no controller (robots: NAME: controllers: in the scene)";
  if (!std::isfinite(position) || !std::isfinite(velocity)) return what + ": the target is not finite";
  const multibody::Body& body = rigid.tree().body(b);
  if (position < body.lower || position > body.upper) {
    return what + ": target " + std::to_string(position) + " is outside its limits [" + std::to_string(body.lower) +
           ", " + std::to_string(body.upper) + "]";
  }
  const auto drives = [controller](const std::vector<int>& list) {
    return std::find(list.begin(), list.end(), controller) != list.end();
  };
  for (const RobotTeleop& t : impl_->data().inputs.teleops) {
    if (t.robot != robot) continue;
    if (t.arm_active && drives(t.arm.controllers()))
      return what + " follows the arm's teleoperation target: clear it first";
    if (t.gripper_active && drives(t.gripper.controllers())) return what + " follows the gripper command";
  }
  contact::JointTarget& target = rigid.state().targets[static_cast<std::size_t>(controller)];
  target.q_target = position;
  target.v_target = velocity;
  TeleopOf(impl_->data().inputs, robot).manual = true;  // a scene script no longer drives this robot
  return {};
}

TeleopStatus Simulator::GetTeleopStatus(const std::string& robot) const {
  TeleopStatus status;
  for (const RobotTeleop& t : impl_->data().inputs.teleops) {
    if (t.robot != robot) continue;
    if (t.arm_active) {
      status.active = true;
      status.ik_position = t.arm.position_residual();
      status.ik_rotation = t.arm.rotation_residual();
      status.ik_iterations = t.arm.iterations();
      status.at_joint_limit = t.arm.at_limit();
      status.tracking = t.arm.TrackingError(*impl_->workspace.rigid);
    }
    if (t.gripper_active) {
      status.gripper_opening = t.gripper.opening();
      status.gripper_force = t.gripper.force();
    }
  }
  return status;
}

}  // namespace ductile
