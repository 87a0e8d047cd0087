// The outer step (DESIGN.md §4): each step sorts the particles into grid blocks once (partial sorting), takes N
// explicit MPM substeps, each with its MPM-rigid contact solve between the grid update and G2P (the rigid state
// frozen at the step's start), then one SAP step of the rigid bodies and robots that takes the substeps' summed
// contact impulses as a known impulse (coupling/mpm_rigid_contact.h).
#include "ductile/simulator.h"

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include "contact/rigid_system.h"
#include "core/hash.h"
#include "coupling/mpm_rigid_contact.h"
#include "model/rigid_model.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/mpm_solver.h"
#include "multibody/spatial.h"
#include "robot/teleop.h"

namespace ductile {

struct Simulator::Impl {
  Impl(std::shared_ptr<const Model> m, int num_threads)
      : model(std::move(m)), threads(num_threads), arena(num_threads), mpm(*model) {
    ResetRigid();
  }

  // A fresh rigid system at the model's initial state (none when the scene has no rigid bodies).
  void ResetRigid() {
    rigid.reset();
    if (!model->rigid || model->rigid->empty()) return;
    contact::RigidSystemParams params;
    params.gravity = Eigen::Vector3d(model->gravity[0], model->gravity[1], model->gravity[2]);
    params.stiction_speed = model->rigid->stiction_speed;
    params.solver.max_iterations = model->rigid->max_solver_iterations;
    rigid = std::make_unique<contact::RigidSystem>(model->rigid->tree, model->rigid->world, params);
    rigid->controllers = model->rigid->controllers;
    rigid->welds = model->rigid->welds;
    rigid->tau_applied = model->rigid->tau_applied;
    rigid->q = model->rigid->q0;
    rigid->v = model->rigid->v0;
    rigid->UpdateKinematics();
    coupling.reset();
    if (model->num_particles > 0) {
      coupling::MpmContactSettings settings;
      settings.stiffness = model->rigid->mpm_stiffness;
      settings.dissipation = model->rigid->mpm_dissipation;
      settings.stiction_speed = model->rigid->stiction_speed;
      settings.solver.rel_tolerance = model->rigid->contact_rel_tolerance;
      settings.solver.abs_tolerance = model->rigid->contact_abs_tolerance;
      settings.solver.max_iterations = model->rigid->max_solver_iterations;
      settings.material_friction = model->material_friction;
      settings.mesh_sdf_cell = 0.5 * model->h;
      coupling = std::make_unique<coupling::MpmRigidContact>(settings);
    }
  }

  std::shared_ptr<const Model> model;
  int threads;
  tbb::task_arena arena;
  mpm::MpmSolver mpm;
  std::unique_ptr<contact::RigidSystem> rigid;
  std::unique_ptr<coupling::MpmRigidContact> coupling;  // MPM-rigid contact, when the scene has both
  double time = 0;
  std::int64_t steps = 0;
  // Time is time_base + (steps − steps_base)·Δt, exact multiples of the current Δt since it last changed.
  double time_base = 0;
  std::int64_t steps_base = 0;
  StepTelemetry telemetry;
  // The mouse spring: its description, the grabbed point in the body frame (bodies) or the grabbed particle ids
  // (objects).
  Perturbation perturbation;
  Eigen::Vector3d perturb_p_B = Eigen::Vector3d::Zero();
  std::vector<std::int32_t> perturb_ids;
  std::vector<double> perturb_weights;  // per grabbed particle, 1 at the grabbed point falling to 0 at the edge
  void ApplyPerturbation();
  // The grabbed patch's centre and velocity with the spring's weights; returns Σ w m [kg]. `index` from IndexById.
  double PatchCentre(const std::vector<std::int32_t>& index, Eigen::Vector3d& c, Eigen::Vector3d& v) const;
  // The mouse spring pulls an MPM object (it edits that object's particle velocities before every step).
  bool PullsObject() const { return perturbation.kind == Perturbation::Kind::kObject && !perturb_ids.empty(); }
  // Teleoperation per robot (SetTeleopTarget, SetGripper), applied to the controllers before each step.
  struct Teleop {
    std::string robot;
    robot::ArmTeleop arm;
    bool arm_active = false;
    robot::GripperTeleop gripper;
    bool gripper_active = false;
  };
  std::vector<Teleop> teleops;
  Teleop& TeleopOf(const std::string& robot) {
    for (Teleop& t : teleops) {
      if (t.robot == robot) return t;
    }
    teleops.push_back(Teleop{});
    teleops.back().robot = robot;
    return teleops.back();
  }
  void ApplyTeleop() {
    if (!rigid) return;
    const Eigen::Vector3d gravity(model->gravity[0], model->gravity[1], model->gravity[2]);
    for (Teleop& t : teleops) {
      if (t.arm_active) t.arm.Apply(*rigid, gravity, model->dt);
      if (t.gripper_active) t.gripper.Apply(*rigid, model->rigid->controllers);
    }
  }
  // Snapshot meshes of the visual geometries (null for primitives), converted once.
  std::vector<std::shared_ptr<const SnapshotMesh>> visual_meshes;
};

namespace {
// index[id] = storage position of the particle with that id (the block sort reorders storage).
std::vector<std::int32_t> IndexById(const mpm::Particles& p) {
  std::vector<std::int32_t> index(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) index[p.id[i]] = static_cast<std::int32_t>(i);
  return index;
}

int ResolveThreads(const Model& model, const SimulatorOptions& options) {
  int threads = options.threads > 0 ? options.threads : model.threads;
  if (threads <= 0) threads = tbb::info::default_concurrency();
  return threads;
}
}  // namespace

void Simulator::Impl::ApplyPerturbation() {
  const Perturbation& p = perturbation;
  const double omega = 2 * 3.14159265358979323846 * p.frequency;
  const Eigen::Vector3d target(p.target[0], p.target[1], p.target[2]);
  if (p.kind == Perturbation::Kind::kBody && rigid) {
    // F = m (ω² (target − p) − 2ω v_p − g): critically damped for a free body of the grabbed link's mass, and
    // carrying its weight, so the grabbed point settles at the target rather than below it.
    const int b = model->rigid->output_bodies[p.index];
    const Eigen::Vector3d p_W = rigid->kinematics().X_WB[b] * perturb_p_B;
    const std::vector<multibody::Vector6d> V =
        multibody::CalcSpatialVelocities(rigid->tree(), rigid->kinematics(), rigid->v);
    const Eigen::Vector3d v_P = multibody::PointVelocity(V[b], p_W);
    const double m = std::max(rigid->tree().body(b).mass, 1e-6);
    const Eigen::Vector3d g(model->gravity[0], model->gravity[1], model->gravity[2]);
    rigid->ApplyBodyWrench(b, p_W, m * (omega * omega * (target - p_W) - 2 * omega * v_P - g), Eigen::Vector3d::Zero());
  } else if (PullsObject()) {
    // The spring acts on the whole object's mass M, as on a rigid body: F = M (ω² (target − c) − 2ω v_c − g), with c
    // and v_c the grabbed patch's weighted centre and velocity. F is spread over the patch, more near the grabbed point
    // (weights perturb_weights), so the material deforms there and the rest is dragged along.
    const std::vector<std::int32_t> index = IndexById(mpm.particles());
    Eigen::Vector3d c, v;
    const double wm = PatchCentre(index, c, v);
    const double M = model->objects[p.index].mass;
    const Eigen::Vector3d g(model->gravity[0], model->gravity[1], model->gravity[2]);
    const Eigen::Vector3d F = M * (omega * omega * (target - c) - 2 * omega * v - g);
    // Δv_i = Δt F w_i / Σ w m, at most a quarter cell per substep so a hard pull cannot tear the grid apart.
    Eigen::Vector3d dv = model->dt * F / wm;
    const double limit = 0.25 * model->h * model->substeps / model->dt;
    if (dv.norm() > limit) dv *= limit / dv.norm();
    std::vector<Vec3f>& velocities = mpm.mutable_velocities();
    for (std::size_t k = 0; k < perturb_ids.size(); ++k) {
      Vec3f& vi = velocities[index[perturb_ids[k]]];
      for (int a = 0; a < 3; ++a) vi[a] += static_cast<float>(perturb_weights[k] * dv[a]);
    }
  }
}

double Simulator::Impl::PatchCentre(const std::vector<std::int32_t>& index, Eigen::Vector3d& c,
                                    Eigen::Vector3d& v) const {
  const mpm::Particles& particles = mpm.particles();
  c.setZero();
  v.setZero();
  double m = 0;
  for (std::size_t k = 0; k < perturb_ids.size(); ++k) {
    const int i = index[perturb_ids[k]];
    const double mi = perturb_weights[k] * particles.mass[i];
    m += mi;
    for (int a = 0; a < 3; ++a) {
      c[a] += mi * particles.x[i][a];
      v[a] += mi * particles.v[i][a];
    }
  }
  c /= m;
  v /= m;
  return m;
}

Simulator::Simulator(std::shared_ptr<const Model> model, SimulatorOptions options) {
  const int threads = ResolveThreads(*model, options);
  impl_ = std::make_unique<Impl>(std::move(model), threads);
}

Simulator::~Simulator() = default;

void Simulator::Step() {
  Impl& s = *impl_;
  const auto start = std::chrono::steady_clock::now();
  const int substeps = s.model->substeps;
  const float sub_dt = static_cast<float>(s.model->dt / substeps);
  mpm::SubstepCounters sums;
  bool diverged = false;
  // The rigid state is frozen over the substeps; the contact solve runs between each grid update and G2P.
  std::function<void(float)> contact_solve;
  if (s.coupling) {
    s.coupling->BeginStep(*s.rigid);
    contact_solve = [&s](float h) { s.coupling->SolveSubstep(s.mpm, h); };
  }
  s.ApplyPerturbation();
  s.ApplyTeleop();
  // The spring's velocity edits before every step would void a P2G prepared for the next step: skip preparing it.
  s.mpm.set_prepare_next_step(!s.PullsObject());
  s.arena.execute([&] {
    s.mpm.SortParticlesByBlock();
    sums = s.mpm.Advance(sub_dt, substeps, contact_solve);
    diverged = s.mpm.diverged();
  });
  if (s.coupling) {
    const coupling::MpmContactStats& c = s.coupling->stats();
    s.telemetry.mpm_contacts = c.contacts;
    s.telemetry.mpm_contacts_max = c.max_contacts;
    s.telemetry.mpm_contact_iterations = 0;
    for (int it : c.substep_iterations) s.telemetry.mpm_contact_iterations += it;
    s.telemetry.mpm_contact_residual = c.substep_residuals.empty() ? 0.0 : c.substep_residuals.back();
    s.telemetry.mpm_contact_converged = c.converged;
    s.telemetry.mpm_substep_iterations = c.substep_iterations;
    s.telemetry.mpm_substep_residuals = c.substep_residuals;
  }
  std::string rigid_failure;
  if (s.rigid && !diverged) {
    const auto rigid_start = std::chrono::steady_clock::now();
    try {
      for (const RigidModel::BodyWrench& w : s.model->rigid->body_wrenches)
        s.rigid->ApplyBodyWrench(w.body, s.rigid->kinematics().X_WB[w.body].translation(), w.force, w.torque);
      // The MPM contact impulses of the substeps as a known impulse of the rigid step (seed 002, Eq. 3).
      if (s.coupling) {
        for (int b = 0; b < s.rigid->tree().num_bodies(); ++b) {
          const Eigen::Vector3d& P = s.coupling->linear_impulse(b);
          const Eigen::Vector3d& L = s.coupling->angular_impulse(b);
          if (P.isZero(0) && L.isZero(0)) continue;  // no particle touched it
          s.rigid->ApplyBodyWrench(b, s.rigid->kinematics().X_WB[b].translation(), P / s.model->dt, L / s.model->dt);
        }
      }
      const contact::RigidStepStats r = s.rigid->Step(s.model->dt);
      s.telemetry.sap_iterations = r.iterations;
      s.telemetry.sap_residual = r.residual;
      s.telemetry.sap_converged = r.converged;
      s.telemetry.rigid_contacts = r.contacts;
      s.telemetry.sap_cost_history = r.cost_history;
      s.telemetry.contacts.clear();
      const auto name = [&](int body) { return body >= 0 ? s.rigid->tree().body(body).name : std::string("world"); };
      for (const contact::RigidContact& c : s.rigid->contacts()) {
        ContactReport report;
        report.body_a = name(c.body_a);
        report.body_b = name(c.body_b);
        report.depth = c.depth;
        for (int a = 0; a < 3; ++a) {
          report.point[a] = c.p_W[a];
          report.normal[a] = c.n_W[a];
          report.force[a] = c.f_W[a];
        }
        s.telemetry.contacts.push_back(std::move(report));
      }
    } catch (const std::runtime_error& e) {
      rigid_failure = e.what();
    }
    s.telemetry.rigid_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - rigid_start).count();
  }
  ++s.steps;
  s.time = s.time_base + static_cast<double>(s.steps - s.steps_base) * s.model->dt;
  s.telemetry.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  s.telemetry.active_nodes_avg = static_cast<double>(sums.active_nodes) / substeps;
  s.telemetry.active_blocks = sums.active_blocks;
  s.telemetry.sort_ms = 1e3 * sums.sort_seconds;
  s.telemetry.p2g_ms = 1e3 * sums.p2g_seconds;
  s.telemetry.grid_ms = 1e3 * sums.grid_seconds;
  s.telemetry.g2p_ms = 1e3 * sums.g2p_seconds;
  s.telemetry.g2p2g_ms = 1e3 * sums.g2p2g_seconds;
  s.telemetry.substeps = substeps;
  if (!rigid_failure.empty()) {
    throw SimulationDiverged("simulation diverged at t = " + std::to_string(s.time) + " s: " + rigid_failure +
                             "; lower simulation.dt or the contact stiffness");
  }
  if (diverged) {
    throw SimulationDiverged("simulation diverged at t = " + std::to_string(s.time) + " s: " +
                             s.mpm.DescribeDivergence() + "; the substep Δt/N is likely too large for the material " +
                             "stiffness or speed (raise simulation.substeps, recommended ≥ " +
                             std::to_string(s.model->RecommendedSubsteps()) + ")");
  }
}

void Simulator::Reset() {
  impl_->mpm.Reset();
  impl_->ResetRigid();
  impl_->time = 0;
  impl_->steps = 0;
  impl_->time_base = 0;
  impl_->steps_base = 0;
  impl_->telemetry = {};
  impl_->perturbation = {};
  impl_->perturb_ids.clear();
  impl_->perturb_weights.clear();
  impl_->teleops.clear();
}

std::string Simulator::UpdateModel(std::shared_ptr<const Model> model) {
  Impl& s = *impl_;
  const Model& old = *s.model;
  const Model& m = *model;
  if (m.num_particles != old.num_particles || m.objects.size() != old.objects.size())
    return "the MPM objects' particles changed (shape, size, pose or particles per cell): reset to apply";
  if (m.h != old.h || m.grid_nodes != old.grid_nodes || m.grid_origin != old.grid_origin)
    return "the grid changed (grid.h or the domain): reset to apply";
  if (m.materials.size() != old.materials.size()) return "the materials changed: reset to apply";
  for (std::size_t i = 0; i < m.materials.size(); ++i)
    if (m.materials[i].model != old.materials[i].model) return "a material's model changed: reset to apply";
  const RigidModel& ra = *old.rigid;
  const RigidModel& rb = *m.rigid;
  if (ra.tree.num_bodies() != rb.tree.num_bodies() || ra.tree.nq() != rb.tree.nq() || ra.tree.nv() != rb.tree.nv() ||
      ra.world.num_geometries() != rb.world.num_geometries() || ra.empty() != rb.empty())
    return "the rigid bodies or robots changed: reset to apply";
  for (int i = 0; i < m.num_particles; ++i)
    if (m.material[i] != old.material[i] || m.object[i] != old.object[i])
      return "the particles' materials changed: reset to apply";

  // Applied: the new model drives every later step; the state carries over.
  if (m.dt != old.dt) {
    s.time_base = s.time;
    s.steps_base = s.steps;
  }
  s.model = std::move(model);
  s.mpm.SetModel(*s.model);
  if (s.rigid) {
    const Eigen::VectorXd q = s.rigid->q, v = s.rigid->v;
    const double rigid_time = s.rigid->time;
    const std::vector<contact::JointController> controllers = s.rigid->controllers;
    s.ResetRigid();
    s.rigid->q = q;
    s.rigid->v = v;
    s.rigid->time = rigid_time;
    // Controller targets set while running (teleop) stay; gains come from the new model.
    for (std::size_t c = 0; c < controllers.size() && c < s.rigid->controllers.size(); ++c) {
      s.rigid->controllers[c].q_target = controllers[c].q_target;
      s.rigid->controllers[c].v_target = controllers[c].v_target;
    }
    s.rigid->UpdateKinematics();
  }
  return {};
}

double Simulator::time() const {
  return impl_->time;
}
std::int64_t Simulator::step_count() const {
  return impl_->steps;
}
int Simulator::threads() const {
  return impl_->threads;
}
const Model& Simulator::model() const {
  return *impl_->model;
}
const StepTelemetry& Simulator::last_step() const {
  return impl_->telemetry;
}
const mpm::Particles& Simulator::particles() const {
  return impl_->mpm.particles();
}

ObjectSummary Simulator::SummarizeObject(int object) const {
  const mpm::Particles& p = impl_->mpm.particles();
  // Sums in id order, so the result does not depend on the block sort.
  const std::vector<std::int32_t> index = IndexById(p);
  ObjectSummary out;
  std::array<double, 3> momentum{};
  out.bounds_min.fill(std::numeric_limits<double>::infinity());
  out.bounds_max.fill(-std::numeric_limits<double>::infinity());
  const ObjectInfo& info = impl_->model->objects[object];
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
}  // namespace

void Simulator::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  const Model& model = *impl_->model;
  out.time = impl_->time;
  out.step = impl_->steps;
  out.telemetry = impl_->telemetry;
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
    out.perturb_target[a] = static_cast<float>(impl_->perturbation.target[a]);
  }
  out.material_rgba.resize(model.materials.size());
  out.materials.resize(model.materials.size());
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    const mpm::MaterialParams& p = model.materials[m];
    out.material_rgba[m] = MaterialColor(p.model, static_cast<int>(m));
    SnapshotMaterial& sm = out.materials[m];
    // E and ν back from the Lamé parameters (double, so the round trip loses only the float storage).
    const double mu = p.mu, lambda = p.lambda;
    sm.youngs_modulus = mu > 0 ? mu * (3 * lambda + 2 * mu) / (lambda + mu) : 0.0;
    sm.poisson_ratio = mu > 0 ? lambda / (2 * (lambda + mu)) : 0.0;
    sm.density = p.density;
    sm.yield_stress = p.yield_stress;
    sm.friction = m < model.material_friction.size() ? model.material_friction[m] : -1.0;
  }
  out.object_names.resize(model.objects.size());
  for (std::size_t o = 0; o < model.objects.size(); ++o) out.object_names[o] = model.objects[o].name;

  // Particles, in id order.
  const mpm::Particles& p = impl_->mpm.particles();
  SnapshotParticles& sp = out.particles;
  const std::size_t n = p.size();
  sp.position.resize(n);
  sp.speed.resize(n);
  sp.von_mises.resize(with_stress ? n : 0);
  sp.plastic_strain.resize(n);
  sp.material.resize(n);
  sp.object.resize(n);
  double volume = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int id = p.id[i];
    sp.position[id] = {p.x[i].x, p.x[i].y, p.x[i].z};
    sp.speed[id] = Norm(p.v[i]);
    sp.plastic_strain[id] = p.plastic_strain[i];
    sp.material[id] = p.material[i];
    sp.object[id] = p.object[i];
    volume += p.volume[i];
    if (!with_stress) continue;
    // Cauchy stress σ = τ/J; von Mises √(3/2 s:s) of its deviator s.
    const mpm::MaterialParams& material = model.materials[p.material[i]];
    const Mat3f tau = mpm::KirchhoffStress(material, p.F[i], p.C[i]);
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

  // Moving bodies and every drawn shape at its current pose.
  const contact::RigidSystem* rigid = impl_->rigid.get();
  out.bodies.resize(num_rigid_bodies());
  std::vector<int> body_slot(rigid ? rigid->tree().num_bodies() : 0, -1);
  for (int i = 0; i < num_rigid_bodies(); ++i) {
    const RigidBodySummary summary = SummarizeRigidBody(i);
    SnapshotBody& b = out.bodies[i];
    b.name = summary.name;
    for (int a = 0; a < 3; ++a) {
      b.position[a] = static_cast<float>(summary.position[a]);
      b.contact_force[a] = static_cast<float>(summary.contact_force[a]);
    }
    for (int a = 0; a < 4; ++a) b.quaternion[a] = static_cast<float>(summary.quaternion[a]);
    b.mpm_contacts = summary.mpm_contacts;
    body_slot[model.rigid->output_bodies[i]] = i;
  }
  const std::vector<VisualGeometry>& visuals = model.rigid->visuals;
  if (impl_->visual_meshes.size() != visuals.size()) {
    impl_->visual_meshes.assign(visuals.size(), nullptr);
    for (std::size_t v = 0; v < visuals.size(); ++v) {
      const geometry::TriangleMesh* mesh = visuals[v].shape.mesh.get();
      if (!mesh) continue;
      auto converted = std::make_shared<SnapshotMesh>();
      for (const Eigen::Vector3d& x : mesh->vertices) converted->vertices.push_back(ToFloat3(x));
      for (const std::array<int, 3>& t : mesh->triangles)
        converted->triangles.push_back(
            {static_cast<std::uint32_t>(t[0]), static_cast<std::uint32_t>(t[1]), static_cast<std::uint32_t>(t[2])});
      impl_->visual_meshes[v] = std::move(converted);
    }
  }
  out.shapes.resize(visuals.size());
  for (std::size_t v = 0; v < visuals.size(); ++v) {
    const geometry::CollisionGeometry& g = visuals[v].shape;
    SnapshotShape& s = out.shapes[v];
    s.name = g.name;
    s.type = g.type;
    s.half_extents = ToFloat3(g.half_extents);
    s.radius = static_cast<float>(g.radius);
    s.length = static_cast<float>(g.length);
    s.mesh = impl_->visual_meshes[v];
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
    for (int a = 0; a < 4; ++a) s.rgba[a] = static_cast<float>(visuals[v].rgba[a]);
  }
}

void Simulator::SetPerturbation(const Perturbation& perturbation) {
  Impl& s = *impl_;
  Perturbation& p = s.perturbation;
  const bool same = perturbation.kind == p.kind && perturbation.index == p.index;
  if (same && p.kind != Perturbation::Kind::kNone) {
    p.target = perturbation.target;
    p.frequency = perturbation.frequency;
    return;
  }
  p = perturbation;
  s.perturb_ids.clear();
  s.perturb_weights.clear();
  const Eigen::Vector3d anchor(p.anchor[0], p.anchor[1], p.anchor[2]);
  if (p.kind == Perturbation::Kind::kBody) {
    if (!s.rigid || p.index < 0 || p.index >= num_rigid_bodies()) {
      p.kind = Perturbation::Kind::kNone;
      return;
    }
    s.perturb_p_B = s.rigid->kinematics().X_WB[s.model->rigid->output_bodies[p.index]].inverse() * anchor;
  } else if (p.kind == Perturbation::Kind::kObject) {
    const mpm::Particles& particles = s.mpm.particles();
    const double radius = 3 * s.model->h;
    double nearest = std::numeric_limits<double>::infinity();
    std::int32_t nearest_id = -1;
    std::vector<std::pair<std::int32_t, double>> grabbed;  // (id, weight)
    for (std::size_t i = 0; i < particles.size(); ++i) {
      if (particles.object[i] != p.index) continue;
      const Eigen::Vector3d x(particles.x[i].x, particles.x[i].y, particles.x[i].z);
      const double d = (x - anchor).norm();
      if (d <= radius) grabbed.emplace_back(particles.id[i], 1 - (d / radius) * (d / radius));
      if (d < nearest) {
        nearest = d;
        nearest_id = particles.id[i];
      }
    }
    if (grabbed.empty() && nearest_id >= 0) grabbed.emplace_back(nearest_id, 1.0);
    std::sort(grabbed.begin(), grabbed.end());  // id order: independent of the block sort
    s.perturb_weights.clear();
    for (const auto& [id, w] : grabbed) {
      s.perturb_ids.push_back(id);
      s.perturb_weights.push_back(w);
    }
    if (s.perturb_ids.empty()) p.kind = Perturbation::Kind::kNone;
  }
}

bool Simulator::PerturbationAnchor(std::array<double, 3>& anchor) const {
  const Impl& s = *impl_;
  const Perturbation& p = s.perturbation;
  if (p.kind == Perturbation::Kind::kBody && s.rigid) {
    const Eigen::Vector3d a = s.rigid->kinematics().X_WB[s.model->rigid->output_bodies[p.index]] * s.perturb_p_B;
    anchor = {a.x(), a.y(), a.z()};
    return true;
  }
  if (s.PullsObject()) {
    Eigen::Vector3d c, v;
    s.PatchCentre(IndexById(s.mpm.particles()), c, v);  // the point the spring pulls
    anchor = {c.x(), c.y(), c.z()};
    return true;
  }
  return false;
}

int Simulator::num_rigid_bodies() const {
  return static_cast<int>(impl_->model->rigid->output_bodies.size());
}

RigidBodySummary Simulator::SummarizeRigidBody(int i) const {
  const contact::RigidSystem& rigid = *impl_->rigid;
  const int b = impl_->model->rigid->output_bodies[i];
  RigidBodySummary out;
  out.name = rigid.tree().body(b).name;
  const Eigen::Isometry3d& X = rigid.kinematics().X_WB[b];
  const Eigen::Quaterniond q(X.linear());
  out.quaternion = {q.w(), q.x(), q.y(), q.z()};
  Eigen::Vector3d f, t;
  rigid.ContactWrench(b, f, t);
  // Plus the MPM contact forces of the last step (none right after a reset or a live edit rebuilt the coupling).
  if (impl_->coupling && impl_->steps > 0 && impl_->coupling->has_impulses(b) &&
      b < static_cast<int>(impl_->coupling->stats().body_contacts.size())) {
    f += impl_->coupling->linear_impulse(b) / impl_->model->dt;
    t += impl_->coupling->angular_impulse(b) / impl_->model->dt;
    out.mpm_contacts = impl_->coupling->stats().body_contacts[b];
  }
  for (int a = 0; a < 3; ++a) {
    out.position[a] = X.translation()[a];
    out.contact_force[a] = f[a];
    out.contact_torque[a] = t[a];
  }
  return out;
}

std::uint64_t Simulator::StateHash() const {
  const mpm::Particles& p = impl_->mpm.particles();
  Fnv1a64 hash;
  for (std::int32_t i : IndexById(p)) {
    hash.Add(&p.x[i], sizeof(p.x[i]));
    hash.Add(&p.v[i], sizeof(p.v[i]));
    hash.Add(&p.F[i], sizeof(p.F[i]));
    hash.Add(&p.C[i], sizeof(p.C[i]));
    hash.Add(&p.plastic_strain[i], sizeof(p.plastic_strain[i]));
  }
  if (impl_->rigid) {
    hash.Add(impl_->rigid->q.data(), sizeof(double) * impl_->rigid->q.size());
    hash.Add(impl_->rigid->v.data(), sizeof(double) * impl_->rigid->v.size());
  }
  return hash.value();
}

std::vector<std::string> Simulator::RobotNames() const {
  std::vector<std::string> names;
  if (!impl_->rigid) return names;
  for (const multibody::Body& body : impl_->rigid->tree().bodies()) {
    const std::size_t slash = body.name.find('/');
    if (slash == std::string::npos) continue;
    std::string robot = body.name.substr(0, slash);
    if (std::find(names.begin(), names.end(), robot) == names.end()) names.push_back(std::move(robot));
  }
  return names;
}

std::string Simulator::LinkPose(const std::string& robot, const std::string& link, std::array<double, 3>& position,
                                std::array<double, 4>& quaternion) const {
  const std::vector<std::string> robots = RobotNames();
  if (std::find(robots.begin(), robots.end(), robot) == robots.end()) return "no robot named '" + robot + "'";
  const int b = impl_->rigid->tree().FindBody(robot + "/" + link);
  if (b < 0) return "robot '" + robot + "' has no link '" + link + "'";
  const Eigen::Isometry3d& X = impl_->rigid->kinematics().X_WB[b];
  const Eigen::Quaterniond q(X.linear());
  position = {X.translation().x(), X.translation().y(), X.translation().z()};
  quaternion = {q.w(), q.x(), q.y(), q.z()};
  return {};
}

std::string Simulator::SetTeleopTarget(const TeleopTarget& target) {
  Impl& s = *impl_;
  if (!s.rigid) return "no robot named '" + target.robot + "' (the scene has no rigid bodies)";
  for (double x : target.position) {
    if (!std::isfinite(x)) return "teleop target of '" + target.robot + "': position is not finite";
  }
  for (double x : target.tool_point) {
    if (!std::isfinite(x)) return "teleop target of '" + target.robot + "': tool point is not finite";
  }
  const Eigen::Quaterniond R(target.quaternion[0], target.quaternion[1], target.quaternion[2], target.quaternion[3]);
  if (!std::isfinite(R.norm()) || R.norm() < 1e-6) {
    return "teleop target of '" + target.robot + "': the quaternion is not a rotation";
  }
  robot::ArmTeleop arm;
  Impl::Teleop* existing = nullptr;
  for (Impl::Teleop& t : s.teleops) {
    if (t.robot == target.robot && t.arm_active && t.arm.link() == target.link) existing = &t;
  }
  if (existing == nullptr) {
    const std::string problem = arm.Configure(*s.rigid, target.robot, target.link);
    if (!problem.empty()) return problem;
  }
  Impl::Teleop& t = existing ? *existing : s.TeleopOf(target.robot);
  if (!existing) {
    t.arm = std::move(arm);
    t.arm_active = true;
  }
  t.arm.SetTarget(Eigen::Vector3d(target.tool_point[0], target.tool_point[1], target.tool_point[2]),
                  Eigen::Vector3d(target.position[0], target.position[1], target.position[2]), R,
                  target.track_orientation);
  return {};
}

void Simulator::ClearTeleopTarget(const std::string& robot) {
  for (Impl::Teleop& t : impl_->teleops) {
    if (t.robot == robot) t.arm_active = false;
  }
}

std::string Simulator::SetGripper(const GripperCommand& command) {
  Impl& s = *impl_;
  if (!(command.opening >= 0 && command.opening <= 1)) {
    return "gripper of '" + command.robot + "': opening " + std::to_string(command.opening) + " is outside [0, 1]";
  }
  if (!(command.force >= 0) || !std::isfinite(command.force)) {
    return "gripper of '" + command.robot + "': force " + std::to_string(command.force) + " N must be >= 0";
  }
  const std::vector<std::string> robots = RobotNames();
  if (std::find(robots.begin(), robots.end(), command.robot) == robots.end()) {
    return "no robot named '" + command.robot + "'";
  }
  Impl::Teleop* existing = nullptr;
  for (Impl::Teleop& t : s.teleops) {
    if (t.robot == command.robot) existing = &t;
  }
  robot::GripperTeleop gripper;
  if (existing == nullptr || !existing->gripper_active) {
    std::vector<int> arm_bodies;
    if (existing && existing->arm_active) {
      for (int b = existing->arm.link_body(); b >= 0; b = s.rigid->tree().body(b).parent) arm_bodies.push_back(b);
    }
    const std::string problem = gripper.Configure(*s.rigid, command.robot, arm_bodies);
    if (!problem.empty()) return problem;
  }
  Impl::Teleop& t = existing ? *existing : s.TeleopOf(command.robot);
  if (!t.gripper_active) {
    t.gripper = std::move(gripper);
    t.gripper_active = true;
  }
  t.gripper.Set(command.opening, command.force);
  return {};
}

TeleopStatus Simulator::GetTeleopStatus(const std::string& robot) const {
  TeleopStatus status;
  for (const Impl::Teleop& t : impl_->teleops) {
    if (t.robot != robot) continue;
    if (t.arm_active) {
      status.active = true;
      status.ik_position = t.arm.position_residual();
      status.ik_rotation = t.arm.rotation_residual();
      status.ik_iterations = t.arm.iterations();
      status.at_joint_limit = t.arm.at_limit();
      status.tracking = t.arm.TrackingError(*impl_->rigid);
    }
    if (t.gripper_active) {
      status.gripper_opening = t.gripper.opening();
      status.gripper_force = t.gripper.force();
    }
  }
  return status;
}

}  // namespace ductile
