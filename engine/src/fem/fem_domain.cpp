#include "fem/fem_domain.h"

#include <Eigen/Geometry>
#include <Eigen/SVD>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "contact/rigid_system.h"
#include "core/drawn_surface.h"
#include "core/hash.h"
#include "domain/rigid_impulses.h"
#include "fem/affine_body.h"
#include "model/fem_model.h"
#include "multibody/spatial.h"

namespace ductile::fem {

FemDomain::FemDomain(const Model& model, IpcState& state)
    : model_(&model), fem_(model.fem.get()), state_(&state), system_(BuildIpcSystem(*model.fem)) {
  for (const FemModel::SoftBody& b : fem_->soft_bodies) triangles_.push_back(SharedTriangles(b.surface));
  for (const FemModel::AffineBody& b : fem_->affine_bodies) triangles_.push_back(SharedTriangles(b.desc.faces));
  std::vector<SoftBodyDesc> soft;
  std::vector<std::vector<std::array<int, 3>>> surfaces;
  for (const FemModel::SoftBody& b : fem_->soft_bodies) {
    soft.push_back(b.desc);
    surfaces.push_back(b.surface);
  }
  strong_.Configure(soft, surfaces);
  ApplyParameters();
  initial_ = system_.state();
  *state_ = initial_;
}

void FemDomain::ApplyParameters() {
  IpcSettings settings = fem_->settings;
  settings.gravity = Eigen::Vector3d(model_->gravity[0], model_->gravity[1], model_->gravity[2]);
  system_.set_settings(settings);
  for (std::size_t b = 0; b < fem_->soft_bodies.size(); ++b) {
    system_.SetSoftMaterial(static_cast<int>(b), fem_->soft_bodies[b].desc.model, fem_->soft_bodies[b].desc.lame);
    strong_.SetMaterial(static_cast<int>(b), fem_->soft_bodies[b].desc.model, fem_->soft_bodies[b].desc.lame);
  }
  for (std::size_t b = 0; b < fem_->affine_bodies.size(); ++b)
    system_.SetAffineStiffness(static_cast<int>(b), fem_->affine_bodies[b].desc.stiffness);
}

void FemDomain::Bind(IpcState& state) {
  system_.set_state(state);
  state_ = &state;
  divergence_.clear();
}

std::string FemDomain::SetModel(const Model& model) {
  model_ = &model;
  fem_ = model.fem.get();
  ApplyParameters();
  return {};
}

bool FemDomain::Present(const Model& model) {
  return model.fem && !model.fem->empty();
}

DomainRefusal FemDomain::Refusal(const Model& model) {
  if (model.coupling != CouplingKind::kStrong || !model.fem) return {};
  if (!model.fem->affine_bodies.empty())
    return {"simulation.coupling", "strong",
            "the strong coupling does not take affine bodies (affine body '" + model.fem->affine_bodies.front().name +
                "'; the FEM–IPC domain couples them weakly): use simulation.coupling: weak"};
  if (model.fem->soft_bodies.size() > 1)
    return {"simulation.coupling", "strong",
            "the strong coupling takes one soft body (soft bodies do not meet each other in it; the FEM–IPC domain "
            "keeps several apart under simulation.coupling: weak)"};
  return {};
}

DomainRefusal FemDomain::SwitchRefusal(const Model& before, const Model& after) {
  if (before.coupling != CouplingKind::kStrong || after.coupling == CouplingKind::kStrong) return {};
  if (!before.fem || before.fem->soft_bodies.empty()) return {};
  return {"simulation.coupling", "weak",
          "a scene with soft bodies goes back to the weak coupling at a reset (the strong coupling's compliant "
          "contact leaves their surfaces touching, which IPC's barrier cannot start from)",
          true};
}

void FemDomain::Fingerprint(const Model& model, Fnv1a64& hash) {
  if (!model.fem || model.fem->empty()) return;
  const FemModel& fem = *model.fem;
  std::uint64_t sizes[3] = {fem.soft_bodies.size(), fem.affine_bodies.size(), fem.kinematic.size()};
  hash.Add(sizes, sizeof(sizes));
  for (const FemModel::SoftBody& b : fem.soft_bodies) {
    const std::uint64_t n[2] = {b.desc.vertices.size(), b.desc.tets.size()};
    hash.Add(n, sizeof(n));
  }
  for (const FemModel::Kinematic& k : fem.kinematic) {
    const std::uint64_t n = k.desc.vertices.size();
    hash.Add(&n, sizeof(n));
  }
}

std::size_t FemDomain::MemoryBytes(const IpcState& state) {
  return HeapBytes(state.x) + HeapBytes(state.v) + HeapBytes(state.q) + HeapBytes(state.q_dot) +
         HeapBytes(state.kinematic_points);
}

std::string FemDomain::Describe(const Model& model) {
  if (!model.fem || model.fem->empty()) return {};
  return std::to_string(model.fem->soft_bodies.size()) + " soft and " +
         std::to_string(model.fem->affine_bodies.size()) + " affine bodies";
}

std::string FemDomain::StructureChanged(const Model& before, const Model& after) {
  return FemStructureChanged(before, after) ? "the soft or affine bodies changed: reset to apply" : std::string();
}

std::string FemDomain::DivergenceMessage(const Model& model) const {
  if (model.coupling == CouplingKind::kStrong)
    return divergence_ + "; lower simulation.dt or the soft bodies' stiffness";
  return divergence_ + "; lower simulation.dt or the soft bodies' stiffness, or raise ipc.dhat";
}

void FemDomain::Reset() {
  system_.set_state(initial_);
  *state_ = initial_;
  report_ = {};
  divergence_.clear();
}

void FemDomain::FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) {
  const multibody::Kinematics& kin = rigid.kinematics();
  const std::vector<multibody::Vector6d> V = multibody::CalcSpatialVelocities(rigid.tree(), kin, rigid.state().v);
  const double dt = model_->dt;
  for (std::size_t k = 0; k < fem_->kinematic.size(); ++k) {
    const FemModel::Kinematic& kinematic = fem_->kinematic[k];
    if (kinematic.body < 0) continue;  // static: stays at its pose
    const Eigen::Isometry3d X_WG = geometry::WorldPose(rigid.world().geometry(kinematic.geometry), kin.X_WB);
    const multibody::Vector6d& Vb = V[kinematic.body];
    Eigen::Isometry3d target = X_WG;
    target.translation() += dt * multibody::PointVelocity(Vb, X_WG.translation());
    const Eigen::Vector3d turn = dt * Vb.head<3>();
    if (turn.norm() > 0) target.linear() = Eigen::AngleAxisd(turn.norm(), turn.normalized()) * X_WG.linear();
    system_.SetKinematicTarget(static_cast<int>(k), target);
  }
  const int bodies = rigid.tree().num_bodies();
  origins_.resize(static_cast<std::size_t>(bodies));
  for (int b = 0; b < bodies; ++b) origins_[static_cast<std::size_t>(b)] = kin.X_WB[b].translation();
  // The coupling scheme sized and cleared the impulses for this step; this domain adds to them.
  impulses_ = &impulses;
}

int FemDomain::num_bodies() const {
  return static_cast<int>(fem_->soft_bodies.size() + fem_->affine_bodies.size());
}

BodySummary FemDomain::SummarizeBody(int i) const {
  const IpcState& state = *state_;
  BodySummary out;
  out.bounds_min.fill(std::numeric_limits<double>::infinity());
  out.bounds_max.fill(-std::numeric_limits<double>::infinity());
  const auto bound = [&out](const Eigen::Vector3d& x) {
    for (int a = 0; a < 3; ++a) {
      out.bounds_min[a] = std::min(out.bounds_min[a], x[a]);
      out.bounds_max[a] = std::max(out.bounds_max[a], x[a]);
    }
  };
  const auto soft_count = static_cast<int>(fem_->soft_bodies.size());
  if (i < soft_count) {
    const std::vector<double>& mass = system_.soft_vertex_masses();
    std::size_t first = 0;
    for (int b = 0; b < i; ++b) first += fem_->soft_bodies[static_cast<std::size_t>(b)].desc.vertices.size();
    const FemModel::SoftBody& body = fem_->soft_bodies[static_cast<std::size_t>(i)];
    out.name = body.name;
    out.kind = DomainBodyKind::kSoftBody;
    Eigen::Vector3d sum = Eigen::Vector3d::Zero(), momentum = Eigen::Vector3d::Zero();
    double total = 0;
    for (std::size_t v = first; v < first + body.desc.vertices.size(); ++v) {
      sum += mass[v] * state.x[v];
      momentum += mass[v] * state.v[v];
      total += mass[v];
      out.kinetic_energy += 0.5 * mass[v] * state.v[v].squaredNorm();
      bound(state.x[v]);
    }
    const Eigen::Vector3d c = total > 0 ? Eigen::Vector3d(sum / total) : Eigen::Vector3d::Zero();
    const Eigen::Vector3d u = total > 0 ? Eigen::Vector3d(momentum / total) : Eigen::Vector3d::Zero();
    out.mass = total;
    out.center_of_mass = {c.x(), c.y(), c.z()};
    out.velocity = {u.x(), u.y(), u.z()};
    return out;
  }
  const auto a = static_cast<std::size_t>(i - soft_count);
  const FemModel::AffineBody& body = fem_->affine_bodies[a];
  out.name = body.name;
  out.kind = DomainBodyKind::kAffineBody;
  out.oriented = true;
  const Eigen::Matrix<double, 12, 1>& q = state.q[a];
  const Eigen::Matrix<double, 12, 1>& q_dot = state.q_dot[a];
  out.mass = body.desc.mass;
  out.center_of_mass = {q[0], q[1], q[2]};
  out.velocity = {q_dot[0], q_dot[1], q_dot[2]};
  const Eigen::Matrix3d A_dot = AffineMatrix(q_dot);
  out.kinetic_energy = 0.5 * body.desc.mass * q_dot.head<3>().squaredNorm() +
                       0.5 * (A_dot * body.desc.second_moment * A_dot.transpose()).trace();
  for (const Eigen::Vector3d& x_bar : body.desc.vertices) bound(AffinePoint(q, x_bar));
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(AffineMatrix(q), Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d R = svd.matrixU() * svd.matrixV().transpose();
  if (R.determinant() < 0) R = -R;  // not reached for an orientation-preserving A
  const Eigen::Quaterniond rotation(R);
  out.quaternion = {rotation.w(), rotation.x(), rotation.y(), rotation.z()};
  return out;
}

bool FemDomain::BuildStrongBlock(double dt, coupling::MpmRigidContact* /*frozen*/, StrongBlock& block) {
  if (!fem_->affine_bodies.empty()) return false;  // Refusal refuses these scenes
  const Eigen::Vector3d gravity(model_->gravity[0], model_->gravity[1], model_->gravity[2]);
  strong_.Build(state_->x, state_->v, dt, gravity, block.A, block.b, block.fixed, block.v_start);
  for (const int v : strong_.surface_vertices()) {
    if (block.fixed[3 * static_cast<std::size_t>(v)]) continue;  // pinned: no contact moves it
    block.points.push_back(state_->x[static_cast<std::size_t>(v)]);
    block.point_dof.push_back(3 * v);
    block.point_mass.push_back(strong_.masses()[static_cast<std::size_t>(v)]);
  }
  block.friction = fem_->settings.friction;
  divergence_.clear();
  return true;
}

void FemDomain::ApplyStrongVelocities(double dt, const Eigen::VectorXd& v, StepTelemetry& /*telemetry*/) {
  IpcState next = *state_;
  for (std::size_t i = 0; i < next.x.size(); ++i) {
    next.v[i] = v.segment<3>(3 * static_cast<Eigen::Index>(i));
    next.x[i] += dt * next.v[i];
    if (divergence_.empty() && (!next.x[i].allFinite() || !next.v[i].allFinite()))
      divergence_ = "soft vertex " + std::to_string(i) +
                    " has a non-finite position or velocity after the strong "
                    "coupling's implicit step";
  }
  if (!divergence_.empty()) return;  // the State keeps the last good step
  *state_ = next;
  system_.set_state(next);
}

void FemDomain::Advance(double /*time*/, double dt, StepTelemetry& telemetry) {
  const auto start = std::chrono::steady_clock::now();
  divergence_.clear();
  try {
    report_ = system_.Step(dt);
  } catch (const std::exception& e) {  // the factorisation failed (a non-finite Hessian)
    divergence_ = std::string("the FEM–IPC step failed: ") + e.what();
  }
  const IpcState& now = system_.state();
  for (std::size_t v = 0; v < now.x.size() && divergence_.empty(); ++v)
    if (!now.x[v].allFinite() || !now.v[v].allFinite())
      divergence_ = "soft vertex " + std::to_string(v) + " has a non-finite position or velocity";
  for (std::size_t b = 0; b < now.q.size() && divergence_.empty(); ++b)
    if (!now.q[b].allFinite() || !now.q_dot[b].allFinite())
      divergence_ = "affine body '" + fem_->affine_bodies[b].name + "' has a non-finite state";
  if (!divergence_.empty()) {  // the State keeps the last good step, and so does the system (what it draws)
    system_.set_state(*state_);
    return;
  }
  *state_ = now;

  double force_sum = 0;
  for (std::size_t k = 0; k < fem_->kinematic.size(); ++k) {
    const KinematicWrench& w = system_.kinematic_wrench(static_cast<int>(k));
    force_sum += w.force.norm();
    const int body = fem_->kinematic[k].body;
    if (impulses_ == nullptr || body < 0 || !impulses_->has(body)) continue;
    // The moment is about the geometry's target origin; move it to the body origin at the step's start.
    const Eigen::Isometry3d& target = system_.kinematic_target(static_cast<int>(k));
    const Eigen::Vector3d moment =
        w.moment + (target.translation() - origins_[static_cast<std::size_t>(body)]).cross(w.force);
    impulses_->linear[static_cast<std::size_t>(body)] += dt * w.force;
    impulses_->angular[static_cast<std::size_t>(body)] += dt * moment;
  }
  for (double f : system_.half_space_normal_forces()) force_sum += std::abs(f);
  impulses_ = nullptr;

  telemetry.has_ipc = true;
  telemetry.ipc_newton_iterations = report_.newton_iterations;
  telemetry.ipc_converged = report_.converged;
  telemetry.ipc_min_distance = report_.min_distance;
  telemetry.ipc_active_pairs = report_.active_pairs;
  telemetry.ipc_kinematic_lag = report_.kinematic_lag;
  telemetry.ipc_contact_force = force_sum;
  telemetry.ipc_collision_ms = 1e3 * report_.time_collision;
  telemetry.ipc_energy_ms = 1e3 * report_.time_energy;
  telemetry.ipc_hessian_ms = 1e3 * report_.time_hessian;
  telemetry.ipc_solve_ms = 1e3 * report_.time_linear_solve;
  telemetry.ipc_ccd_ms = 1e3 * report_.time_ccd;
  telemetry.ipc_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void FemDomain::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  const IpcState& s = system_.state();
  const std::vector<double> stress = with_stress ? system_.SoftVonMises() : std::vector<double>{};
  std::size_t first = 0, drawn = 0;
  for (const FemModel::SoftBody& b : fem_->soft_bodies) {
    SnapshotSoftBody body;
    body.name = b.name;
    body.rgba = ToFloat(b.rgba);
    body.triangles = triangles_[drawn++];
    const std::size_t n = b.desc.vertices.size();
    body.vertices.reserve(n);
    for (std::size_t v = 0; v < n; ++v) body.vertices.push_back(ToFloat(s.x[first + v]));
    if (!stress.empty())
      for (std::size_t v = 0; v < n; ++v) body.von_mises.push_back(static_cast<float>(stress[first + v]));
    first += n;
    out.soft_bodies.push_back(std::move(body));
  }
  for (std::size_t a = 0; a < fem_->affine_bodies.size(); ++a) {
    const FemModel::AffineBody& b = fem_->affine_bodies[a];
    SnapshotSoftBody body;
    body.name = b.name;
    body.affine = true;
    body.rgba = ToFloat(b.rgba);
    body.triangles = triangles_[drawn++];
    for (const Eigen::Vector3d& x_bar : b.desc.vertices) body.vertices.push_back(ToFloat(AffinePoint(s.q[a], x_bar)));
    out.soft_bodies.push_back(std::move(body));
  }
}

}  // namespace ductile::fem
