// The FEM–IPC system's bodies, contact surface and degrees of freedom (the method: fem/ipc_system.h).
#include "fem/ipc_system.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "contact/cholmod_support.h"
#include "fem/affine_body.h"
#include "fem/ipc_distance.h"
#include "fem/tet_mesh.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

// The unique edges of a triangle surface, each (low, high), sorted.
std::vector<std::array<int, 2>> SurfaceEdges(const std::vector<std::array<int, 3>>& faces) {
  std::set<std::array<int, 2>> edges;
  for (const auto& f : faces)
    for (int i = 0; i < 3; ++i) edges.insert({std::min(f[i], f[(i + 1) % 3]), std::max(f[i], f[(i + 1) % 3])});
  return {edges.begin(), edges.end()};
}

// Appends a body's surface (faces over `points`, global surface indices of its local vertices, −1 for vertices not
// on it) to the surface.
void AppendSurface(ContactSurface& surface, const std::vector<std::array<int, 3>>& faces,
                   const std::vector<int>& points, int body) {
  for (const auto& f : faces) surface.faces.push_back({points[f[0]], points[f[1]], points[f[2]]});
  for (const auto& e : SurfaceEdges(faces)) surface.edges.push_back({points[e[0]], points[e[1]]});
  for (int p : points)
    if (p >= 0) surface.vertex_body[p] = body;  // −1: a soft body's interior vertex, not on the surface
}

void CheckFaces(const std::vector<std::array<int, 3>>& faces, std::size_t vertex_count, const char* what) {
  for (std::size_t f = 0; f < faces.size(); ++f)
    for (int v : faces[f])
      if (v < 0 || static_cast<std::size_t>(v) >= vertex_count)
        throw std::invalid_argument(std::string(what) + ": face " + std::to_string(f) + " has vertex index " +
                                    std::to_string(v) + " outside 0.." + std::to_string(vertex_count - 1));
}

}  // namespace

IpcSystem::IpcSystem() = default;
IpcSystem::~IpcSystem() = default;
IpcSystem::IpcSystem(IpcSystem&&) noexcept = default;
IpcSystem& IpcSystem::operator=(IpcSystem&&) noexcept = default;

int IpcSystem::AddSoftBody(const SoftBodyDesc& desc) {
  const int body = static_cast<int>(soft_.size());
  const std::string name = "soft body " + std::to_string(body);
  SoftBody b;
  b.first_vertex = static_cast<int>(state_.x.size());
  b.vertex_count = static_cast<int>(desc.vertices.size());
  b.first_tet = static_cast<int>(tets_.size());
  b.tet_count = static_cast<int>(desc.tets.size());
  b.model = desc.model;
  b.lame = desc.lame;
  double volume = 0;  // of all its tets [m³]
  for (std::size_t t = 0; t < desc.tets.size(); ++t) {
    const auto& tet = desc.tets[t];
    for (int v : tet)
      if (v < 0 || v >= b.vertex_count)
        throw std::invalid_argument(name + ": tetrahedron " + std::to_string(t) + " has vertex index " +
                                    std::to_string(v) + " outside 0.." + std::to_string(b.vertex_count - 1));
    const auto rest =
        MakeTetRest(desc.vertices[tet[0]], desc.vertices[tet[1]], desc.vertices[tet[2]], desc.vertices[tet[3]]);
    if (!rest) throw std::invalid_argument(name + ": tetrahedron " + std::to_string(t) + " has no positive volume");
    tet_rest_.push_back(*rest);
    tets_.push_back(
        {tet[0] + b.first_vertex, tet[1] + b.first_vertex, tet[2] + b.first_vertex, tet[3] + b.first_vertex});
    tet_body_.push_back(body);
    volume += rest->volume;
  }
  // ℓ = ∛(6 V̄): the edge of the cube a mean tetrahedron would fill as one of six (the barrier's elastic floor).
  b.element_size = b.tet_count > 0 ? std::cbrt(6.0 * volume / b.tet_count) : 0.0;
  const std::vector<double> mass = LumpedMasses(desc.vertices, desc.tets, desc.density);
  for (int i = 0; i < b.vertex_count; ++i) {
    state_.x.push_back(desc.vertices[i]);
    state_.v.push_back(desc.velocity);
    vertex_mass_.push_back(mass[i]);
    pinned_.push_back(mass[i] <= 0);  // a vertex of no tetrahedron has no dynamics: held where it is
  }
  for (int p : desc.pinned) {
    if (p < 0 || p >= b.vertex_count)
      throw std::invalid_argument(name + ": pinned vertex " + std::to_string(p) + " outside 0.." +
                                  std::to_string(b.vertex_count - 1));
    pinned_[b.first_vertex + p] = true;
    state_.v[b.first_vertex + p].setZero();
  }
  soft_.push_back(b);
  return body;
}

int IpcSystem::AddAffineBody(const AffineBodyDesc& desc) {
  const int body = static_cast<int>(affine_.size());
  CheckFaces(desc.faces, desc.vertices.size(), ("affine body " + std::to_string(body)).c_str());
  AffineBody b;
  b.mass = desc.mass;
  b.volume = desc.volume;
  b.stiffness = desc.stiffness;
  b.second_moment = desc.second_moment;
  b.mass_matrix = AffineMassMatrix(desc.mass, desc.second_moment);
  const Eigen::Matrix3d R = desc.pose.linear();
  const Eigen::Matrix3d R_dot =
      (Eigen::Matrix3d() << 0, -desc.angular_velocity.z(), desc.angular_velocity.y(), desc.angular_velocity.z(), 0,
       -desc.angular_velocity.x(), -desc.angular_velocity.y(), desc.angular_velocity.x(), 0)
          .finished() *
      R;
  Eigen::Matrix<double, 12, 1> q, q_dot;
  q << desc.pose.translation(), R.col(0), R.col(1), R.col(2);
  q_dot << desc.velocity, R_dot.col(0), R_dot.col(1), R_dot.col(2);
  state_.q.push_back(q);
  state_.q_dot.push_back(q_dot);
  affine_.push_back(b);
  affine_surfaces_.emplace_back(desc.vertices, desc.faces);
  return body;
}

int IpcSystem::AddKinematicBody(const KinematicBodyDesc& desc) {
  const int body = static_cast<int>(kinematic_.size());
  CheckFaces(desc.faces, desc.vertices.size(), ("kinematic body " + std::to_string(body)).c_str());
  KinematicBody b;
  b.first_point = static_cast<int>(state_.kinematic_points.size());
  b.local = desc.vertices;
  b.target = desc.pose;
  for (const Vector3d& p : desc.vertices) {
    state_.kinematic_points.push_back(desc.pose * p);
    kinematic_point_body_.push_back(body);
  }
  kinematic_.push_back(b);
  kinematic_faces_.push_back(desc.faces);
  return body;
}

void IpcSystem::AddHalfSpace(const HalfSpaceDesc& desc) {
  half_spaces_.push_back({desc.normal.normalized(), desc.offset});
  half_space_force_.push_back(0);
}

void IpcSystem::set_state(const IpcState& state) {
  if (state.x.size() != state_.x.size() || state.v.size() != state_.v.size() || state.q.size() != state_.q.size() ||
      state.q_dot.size() != state_.q_dot.size() || state.kinematic_points.size() != state_.kinematic_points.size())
    throw std::invalid_argument("the FEM–IPC state has " + std::to_string(state.x.size()) + " soft vertices, " +
                                std::to_string(state.q.size()) + " affine bodies and " +
                                std::to_string(state.kinematic_points.size()) + " kinematic points; the scene has " +
                                std::to_string(state_.x.size()) + ", " + std::to_string(state_.q.size()) + " and " +
                                std::to_string(state_.kinematic_points.size()));
  state_ = state;
}

void IpcSystem::SetSoftMaterial(int body, ElasticModel model, const LameParameters& lame) {
  SoftBody& b = soft_.at(static_cast<std::size_t>(body));
  b.model = model;
  b.lame = lame;
}

void IpcSystem::SetAffineStiffness(int body, double stiffness) {
  affine_.at(static_cast<std::size_t>(body)).stiffness = stiffness;
}

std::vector<double> IpcSystem::SoftVonMises() const {
  std::vector<double> sum(state_.x.size(), 0.0);
  std::vector<int> count(state_.x.size(), 0);
  const std::vector<Eigen::Vector3d>& x = state_.x;
  for (std::size_t t = 0; t < tets_.size(); ++t) {
    const std::array<int, 4>& tet = tets_[t];
    const SoftBody& body = soft_[static_cast<std::size_t>(tet_body_[t])];
    const Eigen::Matrix3d F = DeformationGradient(tet_rest_[t], x[tet[0]], x[tet[1]], x[tet[2]], x[tet[3]]);
    const double J = F.determinant();
    double von_mises = 0;
    if (J > 0) {
      const Eigen::Matrix3d sigma = FirstPiola(body.model, body.lame, F) * F.transpose() / J;
      const Eigen::Matrix3d dev = sigma - sigma.trace() / 3 * Eigen::Matrix3d::Identity();
      von_mises = std::sqrt(1.5 * dev.squaredNorm());
    }
    for (int c : tet) {
      sum[static_cast<std::size_t>(c)] += von_mises;
      ++count[static_cast<std::size_t>(c)];
    }
  }
  for (std::size_t v = 0; v < sum.size(); ++v)
    if (count[v] > 0) sum[v] /= count[v];
  return sum;
}

void IpcSystem::SetKinematicTarget(int body, const Eigen::Isometry3d& pose) {
  kinematic_.at(body).target = pose;
}

void IpcSystem::BuildContactSurface() {
  surface_ = {};
  points_.clear();
  // Contact bodies: soft bodies, then affine, then kinematic.
  for (std::size_t b = 0; b < soft_.size(); ++b) {
    TetMesh mesh;
    const SoftBody& s = soft_[b];
    mesh.vertices.assign(state_.x.begin() + s.first_vertex, state_.x.begin() + s.first_vertex + s.vertex_count);
    for (int t = 0; t < s.tet_count; ++t) {
      auto tet = tets_[s.first_tet + t];
      for (int& v : tet) v -= s.first_vertex;
      mesh.tets.push_back(tet);
    }
    const TetSurface tet_surface = BuildSurface(mesh);
    std::vector<int> local_to_surface(s.vertex_count, -1);
    for (int v : tet_surface.vertices) {
      local_to_surface[v] = static_cast<int>(points_.size());
      points_.push_back({PointKind::kSoft, s.first_vertex + v, Vector3d::Zero()});
    }
    surface_.vertex_body.resize(points_.size());
    AppendSurface(surface_, tet_surface.triangles, local_to_surface, static_cast<int>(b));
    surface_.body_self_contact.push_back(true);
    surface_.body_moves.push_back(true);
  }
  for (std::size_t b = 0; b < affine_.size(); ++b) {
    std::vector<int> local_to_surface;
    for (const Vector3d& x_bar : affine_surfaces_[b].first) {
      local_to_surface.push_back(static_cast<int>(points_.size()));
      points_.push_back({PointKind::kAffine, static_cast<int>(b), x_bar});
    }
    surface_.vertex_body.resize(points_.size());
    AppendSurface(surface_, affine_surfaces_[b].second, local_to_surface, static_cast<int>(surface_.body_moves.size()));
    surface_.body_self_contact.push_back(false);
    surface_.body_moves.push_back(true);
  }
  for (std::size_t b = 0; b < kinematic_.size(); ++b) {
    std::vector<int> local_to_surface;
    for (std::size_t i = 0; i < kinematic_[b].local.size(); ++i) {
      local_to_surface.push_back(static_cast<int>(points_.size()));
      points_.push_back({PointKind::kKinematic, kinematic_[b].first_point + static_cast<int>(i), Vector3d::Zero()});
    }
    surface_.vertex_body.resize(points_.size());
    AppendSurface(surface_, kinematic_faces_[b], local_to_surface, static_cast<int>(surface_.body_moves.size()));
    surface_.body_self_contact.push_back(false);
    surface_.body_moves.push_back(false);
  }
}

void IpcSystem::Finalize() {
  BuildContactSurface();
  // Degrees of freedom: free soft coordinates, then 12 per affine body.
  soft_dof_.assign(state_.x.size(), -1);
  dof_count_ = 0;
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    if (!pinned_[i]) soft_dof_[i] = dof_count_, dof_count_ += 3;
  affine_dof_.clear();
  for (std::size_t b = 0; b < affine_.size(); ++b) affine_dof_.push_back(dof_count_), dof_count_ += 12;
  ComputeScales();
  BuildBasePattern();
  surface_rest_ = SurfacePositions();
  // The initial configuration must be free of contact closer than zero (IPC's invariant starts here).
  Candidates candidates;
  const std::vector<Vector3d> surface = SurfacePositions();
  FindCandidates(surface_, surface, surface, settings_.dhat, candidates);
  std::vector<ActivePair> pairs;
  double min_distance = settings_.dhat;
  CollectPairs(surface, candidates, pairs, min_distance);
  if (!(min_distance > 0))
    throw std::invalid_argument("the initial configuration has touching or intersecting surfaces (distance " +
                                std::to_string(min_distance) + " m)");
}

void IpcSystem::ComputeScales() {
  const std::vector<Vector3d> surface = SurfacePositions();
  Eigen::AlignedBox3d box;
  for (const Vector3d& p : surface) box.extend(p);
  for (const Vector3d& p : state_.x) box.extend(p);
  bbox_diagonal_ = box.isEmpty() ? 1.0 : std::max(box.diagonal().norm(), 1e-6);
  double mass = 0;
  int count = 0;
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    if (!pinned_[i]) mass += vertex_mass_[i], ++count;
  for (const AffineBody& b : affine_) mass += b.mass, ++count;
  average_mass_ = count ? mass / count : 1.0;
}

Eigen::VectorXd IpcSystem::GatherDofs() const {
  Eigen::VectorXd z(dof_count_);
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    if (soft_dof_[i] >= 0) z.segment<3>(soft_dof_[i]) = state_.x[i];
  for (std::size_t b = 0; b < affine_.size(); ++b) z.segment<12>(affine_dof_[b]) = state_.q[b];
  return z;
}

void IpcSystem::ScatterDofs(const Eigen::VectorXd& z) {
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    if (soft_dof_[i] >= 0) state_.x[i] = z.segment<3>(soft_dof_[i]);
  for (std::size_t b = 0; b < affine_.size(); ++b) state_.q[b] = z.segment<12>(affine_dof_[b]);
}

std::vector<Vector3d> IpcSystem::SoftFrom(const Eigen::VectorXd& z) const {
  std::vector<Vector3d> x = state_.x;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (soft_dof_[i] >= 0) x[i] = z.segment<3>(soft_dof_[i]);
  return x;
}

Eigen::Matrix<double, 12, 1> IpcSystem::AffineFrom(const Eigen::VectorXd& z, int body) const {
  return z.segment<12>(affine_dof_[body]);
}

std::vector<Vector3d> IpcSystem::SurfaceFrom(const Eigen::VectorXd& z, const std::vector<Vector3d>& kinematic) const {
  std::vector<Vector3d> out(points_.size());
  for (std::size_t p = 0; p < points_.size(); ++p) {
    const SurfacePoint& point = points_[p];
    switch (point.kind) {
      case PointKind::kSoft:
        out[p] = soft_dof_[point.index] >= 0 ? Vector3d(z.segment<3>(soft_dof_[point.index])) : state_.x[point.index];
        break;
      case PointKind::kAffine:
        out[p] = AffinePoint(AffineFrom(z, point.index), point.x_bar);
        break;
      case PointKind::kKinematic:
        out[p] = kinematic[point.index];
        break;
    }
  }
  return out;
}

std::vector<Vector3d> IpcSystem::SurfacePositions() const {
  return SurfaceFrom(GatherDofs(), state_.kinematic_points);
}

std::vector<Vector3d> IpcSystem::KinematicTargets() const {
  std::vector<Vector3d> out(state_.kinematic_points.size());
  for (const KinematicBody& b : kinematic_)
    for (std::size_t i = 0; i < b.local.size(); ++i) out[b.first_point + i] = b.target * b.local[i];
  return out;
}

}  // namespace ductile::fem
