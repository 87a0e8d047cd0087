#include "model/pd_domain.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "contact/rigid_system.h"
#include "core/drawn_surface.h"
#include "domain/rigid_impulses.h"
#include "model/pd_bodies.h"
#include "multibody/spatial.h"
#include "pd/pd_skeleton.h"

#include <Eigen/Eigenvalues>

namespace ductile {

PdDomain::PdDomain(const Model& model, pd::PdDomainState& state) : model_(&model), pd_(model.pd.get()), state_(&state) {
  for (const PdBodiesModel::Body& body : pd_->bodies) {
    solvers_.push_back(std::make_unique<pd::PdSolver>(body.model));
    if (!solvers_.back()->error().empty())
      throw std::invalid_argument("pd body '" + body.name + "': " + solvers_.back()->error());
    triangles_.push_back(SharedTriangles(body.surface));
  }
  rigid_planes_.resize(pd_->bodies.size());
  ApplyParameters();
  Reset();
}

void PdDomain::ApplyParameters() {
  const Eigen::Vector3d gravity(model_->gravity[0], model_->gravity[1], model_->gravity[2]);
  for (std::size_t b = 0; b < solvers_.size(); ++b) {
    pd::PdSolver& solver = *solvers_[b];
    const PdBodiesModel::Body& body = pd_->bodies[b];
    solver.SetStepAndGravity(model_->dt, gravity);
    const pd::PdModel& m = solver.model();
    if (m.youngs_modulus.front() != body.youngs_modulus || m.poisson_ratio.front() != body.poisson_ratio) {
      const auto tets = static_cast<std::size_t>(m.tet_count());
      solver.SetMaterials(std::vector<double>(tets, body.youngs_modulus),
                          std::vector<double>(tets, body.poisson_ratio));
    }
  }
}

void PdDomain::Bind(pd::PdDomainState& state) {
  if (state.bodies.size() != solvers_.size())
    throw std::invalid_argument("the state holds " + std::to_string(state.bodies.size()) + " pd bodies, the scene " +
                                std::to_string(solvers_.size()));
  for (std::size_t b = 0; b < solvers_.size(); ++b) {
    const pd::PdState& s = state.bodies[b];
    const int n = solvers_[b]->model().vertex_count();
    if (s.q.rows() != n || s.v.rows() != n ||
        s.z.size() != static_cast<Eigen::Index>(solvers_[b]->model().bones.size()))
      throw std::invalid_argument("pd body '" + pd_->bodies[b].name + "': the state's sizes do not match its mesh");
  }
  state_ = &state;
  divergence_.clear();
}

std::string PdDomain::SetModel(const Model& model) {
  model_ = &model;
  pd_ = model.pd.get();
  ApplyParameters();
  return {};
}

void PdDomain::Reset() {
  state_->bodies.clear();
  for (const PdBodiesModel::Body& body : pd_->bodies)
    state_->bodies.push_back(InitialStateOf(body.model, body.velocity));
  reports_.assign(solvers_.size(), {});
  divergence_.clear();
}

bool PdDomain::Present(const Model& model) {
  return model.pd && !model.pd->empty();
}

std::string PdDomain::StructureChanged(const Model& before, const Model& after) {
  return PdStructureChanged(before, after) ? "the pd bodies changed: reset to apply" : std::string();
}

void PdDomain::Fingerprint(const Model& model, Fnv1a64& hash) {
  if (!Present(model)) return;
  const std::uint64_t count = model.pd->bodies.size();
  hash.Add(&count, sizeof(count));
  for (const PdBodiesModel::Body& b : model.pd->bodies) {
    const std::uint64_t n[3] = {static_cast<std::uint64_t>(b.model.vertex_count()),
                                static_cast<std::uint64_t>(b.model.tet_count()), b.model.bones.size()};
    hash.Add(n, sizeof(n));
  }
}

std::size_t PdDomain::MemoryBytes(const pd::PdDomainState& state) {
  std::size_t bytes = HeapBytes(state.bodies);
  for (const pd::PdState& s : state.bodies)
    bytes += sizeof(double) * static_cast<std::size_t>(s.q.size() + s.v.size() + s.z.size());
  return bytes;
}

std::string PdDomain::Describe(const Model& model) {
  if (!Present(model)) return {};
  const std::size_t n = model.pd->bodies.size();
  return std::to_string(n) + (n == 1 ? " pd body" : " pd bodies");
}

DomainRefusal PdDomain::Refusal(const Model& model) {
  if (model.coupling != CouplingKind::kStrong || !Present(model)) return {};
  return {"simulation.coupling", "strong",
          "the strong coupling does not take pd bodies (pd body '" + model.pd->bodies.front().name +
              "'; the projective-dynamics domain couples them weakly): use simulation.coupling: weak"};
}

DomainRefusal PdDomain::SwitchRefusal(const Model& /*before*/, const Model& /*after*/) {
  return {};  // Refusal covers the one setting the domain cannot run
}

std::string PdDomain::DivergenceMessage(const Model& /*model*/) const {
  return divergence_ + "; lower simulation.dt or the pd bodies' stiffness";
}

void PdDomain::FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) {
  if (!frozen_) frozen_ = std::make_unique<coupling::MpmRigidContact>(coupling::MpmContactSettingsOf(*model_));
  frozen_->Freeze(rigid);
  impulses_ = &impulses;
  frozen_this_step_ = true;
}

// A vertex x within reach of frozen geometry f gets the geometry's tangent plane at its nearest surface point
// p = x − φn, moving with the body's velocity at p over the step (the linearisation of the file comment). The reach
// covers the solver's candidate margin and how far the vertex and the surface can move in the step.
void PdDomain::SetObstacles(std::size_t b, double dt) {
  pd::PdSolver& solver = *solvers_[b];
  const pd::PdModel& m = solver.model();
  const pd::PdState& s = state_->bodies[b];
  std::vector<pd::PdHalfSpace> obstacles = pd_->planes;
  for (pd::PdHalfSpace& plane : obstacles) plane.friction = pd_->friction;
  std::vector<int>& owner = rigid_planes_[b];
  owner.clear();
  if (frozen_this_step_) {
    const double gravity_reach =
        dt * dt * Eigen::Vector3d(model_->gravity[0], model_->gravity[1], model_->gravity[2]).norm();
    for (const int i : m.free_vertices) {
      const Eigen::Vector3d x = s.q.row(i).transpose();
      const double base = solver.contact_margin() + dt * s.v.row(i).norm() + gravity_reach;
      for (const coupling::MpmRigidContact::Frozen& f : frozen_->frozen()) {
        if (f.geometry->type == ShapeType::kPlane) continue;  // static planes are every vertex's (pd_->planes)
        const Eigen::Vector3d surface_velocity =
            f.body >= 0 ? multibody::PointVelocity(f.V, x) : Eigen::Vector3d::Zero();
        const double reach = base + 2 * dt * surface_velocity.norm();
        if ((x.array() < f.box_min.cast<double>().array() - reach).any() ||
            (x.array() > f.box_max.cast<double>().array() + reach).any() ||
            (x - f.X_WG.translation()).norm() > f.radius + reach)
          continue;
        Eigen::Vector3d n_G;
        const double phi = coupling::MpmRigidContact::FrozenDistance(f, x, n_G);
        if (!(phi < reach)) continue;
        const Eigen::Vector3d n = (f.X_WG.linear() * n_G).normalized();
        const Eigen::Vector3d p = x - phi * n;
        const Eigen::Vector3d motion =
            f.body >= 0 ? Eigen::Vector3d(dt * multibody::PointVelocity(f.V, p)) : Eigen::Vector3d::Zero();
        obstacles.push_back(
            {.normal = n, .offset = n.dot(p + motion), .friction = pd_->friction, .vertex = i, .motion = motion});
        owner.push_back(f.body);
      }
    }
  }
  if (!solver.SetObstacles(std::move(obstacles)))
    divergence_ = "pd body '" + pd_->bodies[b].name + "': " + solver.error();
}

void PdDomain::Advance(double /*time*/, double dt, StepTelemetry& telemetry) {
  const auto start = std::chrono::steady_clock::now();
  divergence_.clear();
  telemetry.has_pd = true;
  telemetry.pd_iterations = 0;
  telemetry.pd_converged = true;
  telemetry.pd_residual = 0;
  telemetry.pd_contacts = 0;
  telemetry.pd_contact_force = 0;
  for (std::size_t b = 0; b < solvers_.size() && divergence_.empty(); ++b) {
    SetObstacles(b, dt);
    if (!divergence_.empty()) break;
    const pd::PdSolver& solver = *solvers_[b];
    pd::PdState next;
    const pd::PdStepReport report = solver.Step(state_->bodies[b], ControlsOf(pd_->bodies[b]), next, pd_->settings);
    if (!next.q.allFinite() || !next.v.allFinite()) {
      divergence_ = "pd body '" + pd_->bodies[b].name + "' has a non-finite position or velocity";
      break;  // the State keeps the last good step
    }
    reports_[b] = report;
    telemetry.pd_iterations = std::max(telemetry.pd_iterations, report.iterations);
    telemetry.pd_converged = telemetry.pd_converged && report.converged;
    if (report.reference > 0)
      telemetry.pd_residual = std::max(telemetry.pd_residual, report.residual / report.reference);
    const auto planes = pd_->planes.size();
    for (const pd::PdContact& c : solver.contacts()) {
      if (c.force.isZero(0)) continue;
      ++telemetry.pd_contacts;
      telemetry.pd_contact_force += c.force.norm();
      if (static_cast<std::size_t>(c.obstacle) < planes || impulses_ == nullptr) continue;
      const int body = rigid_planes_[b][static_cast<std::size_t>(c.obstacle) - planes];
      if (body < 0 || !impulses_->has(body)) continue;
      // The body receives −Δt f at the vertex, its moment about the body origin at the step's start.
      const Eigen::Vector3d impulse = -dt * c.force;
      const Eigen::Vector3d x = next.q.row(c.vertex).transpose();
      impulses_->linear[static_cast<std::size_t>(body)] += impulse;
      impulses_->angular[static_cast<std::size_t>(body)] +=
          (x - frozen_->origins()[static_cast<std::size_t>(body)]).cross(impulse);
    }
    state_->bodies[b] = std::move(next);
  }
  frozen_this_step_ = false;
  impulses_ = nullptr;
  telemetry.pd_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int PdDomain::num_bodies() const {
  return static_cast<int>(pd_->bodies.size());
}

BodySummary PdDomain::SummarizeBody(int i) const {
  const auto b = static_cast<std::size_t>(i);
  const pd::PdModel& m = solvers_[b]->model();
  const pd::PdState& s = state_->bodies[b];
  BodySummary out;
  out.name = pd_->bodies[b].name;
  out.kind = DomainBodyKind::kPdBody;
  Eigen::Vector3d sum = Eigen::Vector3d::Zero(), momentum = Eigen::Vector3d::Zero();
  double total = 0;
  for (int v = 0; v < m.vertex_count(); ++v) {
    const double mass = m.masses[static_cast<std::size_t>(v)];
    sum += mass * s.q.row(v).transpose();
    momentum += mass * s.v.row(v).transpose();
    total += mass;
    out.kinetic_energy += 0.5 * mass * s.v.row(v).squaredNorm();
  }
  const Eigen::Vector3d c = sum / total, u = momentum / total;
  const Eigen::Vector3d lo = s.q.colwise().minCoeff().transpose(), hi = s.q.colwise().maxCoeff().transpose();
  out.mass = total;
  out.center_of_mass = {c.x(), c.y(), c.z()};
  out.velocity = {u.x(), u.y(), u.z()};
  out.bounds_min = {lo.x(), lo.y(), lo.z()};
  out.bounds_max = {hi.x(), hi.y(), hi.z()};
  return out;
}

namespace {

// The drawn skeleton (SnapshotSoftBody::bones): per bone the segment its vertices span along their principal axis
// (the direction of their largest spread), and for a revolute joint a segment from the joint, at its anchor as the
// parent places it, to the nearer end, so that the chain reads connected.
std::vector<std::array<std::array<float, 3>, 2>> BoneSegments(const pd::PdModel& model, const pd::PdState& s) {
  std::vector<std::array<std::array<float, 3>, 2>> segments;
  if (model.bones.empty()) return segments;
  const std::vector<pd::BonePlacement> placed = pd::PlaceBones(model, s.z);
  for (const pd::PdBone& bone : model.bones) {
    Eigen::Vector3d centre = Eigen::Vector3d::Zero();
    for (const int v : bone.vertices) centre += s.q.row(v).transpose();
    centre /= static_cast<double>(bone.vertices.size());
    Eigen::Matrix3d spread = Eigen::Matrix3d::Zero();
    for (const int v : bone.vertices) {
      const Eigen::Vector3d d = s.q.row(v).transpose() - centre;
      spread += d * d.transpose();
    }
    const Eigen::Vector3d axis = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(spread).eigenvectors().col(2);
    double half = 0;
    for (const int v : bone.vertices) half = std::max(half, std::abs(axis.dot(s.q.row(v).transpose() - centre)));
    const Eigen::Vector3d a = centre - half * axis, b = centre + half * axis;
    segments.push_back({ToFloat(a), ToFloat(b)});
    if (bone.joint != pd::JointKind::kRevolute) continue;
    Eigen::Vector3d joint = bone.anchor;
    if (bone.parent >= 0) {
      const pd::BonePlacement& parent = placed[static_cast<std::size_t>(bone.parent)];
      joint = parent.R * joint + parent.t;
    }
    const Eigen::Vector3d& nearer = (joint - a).norm() < (joint - b).norm() ? a : b;
    if ((joint - nearer).norm() > 1e-9) segments.push_back({ToFloat(joint), ToFloat(nearer)});
  }
  return segments;
}

}  // namespace

void PdDomain::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  for (std::size_t b = 0; b < solvers_.size(); ++b) {
    const PdBodiesModel::Body& body = pd_->bodies[b];
    const pd::PdState& s = state_->bodies[b];
    SnapshotSoftBody drawn;
    drawn.name = body.name;
    drawn.rgba = ToFloat(body.rgba);
    drawn.triangles = triangles_[b];
    drawn.vertices.reserve(static_cast<std::size_t>(s.q.rows()));
    for (int v = 0; v < s.q.rows(); ++v) drawn.vertices.push_back(ToFloat(s.q.row(v).transpose()));
    if (with_stress)
      for (const double x : solvers_[b]->VonMises(s.q, ControlsOf(body)))
        drawn.von_mises.push_back(static_cast<float>(x));
    drawn.bones = BoneSegments(body.model, s);
    out.soft_bodies.push_back(std::move(drawn));
  }
}

}  // namespace ductile
