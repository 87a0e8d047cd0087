#include "coupling/mpm_rigid_contact.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "contact/contact_frame.h"
#include "contact/friction_combination.h"
#include "core/small_math_eigen.h"
#include "geometry/signed_distance.h"
#include "model/rigid_model.h"
#include "multibody/spatial.h"

namespace ductile::coupling {
namespace {

// The radius of a sphere about the geometry frame's origin that holds the geometry (for a mesh, its signed
// distance field's box).
double BoundingRadius(const geometry::CollisionGeometry& g, const geometry::MeshSdf* sdf) {
  switch (g.type) {
    case ShapeType::kSheet:  // only cloth objects are sheets, never rigid geometry
      return -1;
    case ShapeType::kMesh:
      if (!sdf) return -1;  // no mesh data: never in contact
      return sdf->bounds().min.cwiseAbs().cwiseMax(sdf->bounds().max.cwiseAbs()).norm();
    case ShapeType::kBox:
    case ShapeType::kSphere:
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
    case ShapeType::kPlane:
      break;
  }
  return geometry::BoundingRadius(g);
}

// Half the extents of a box about the geometry frame's origin that holds the geometry, per axis of that frame;
// infinite for a half-space. Only called for geometries with a BoundingRadius ≥ 0.
Eigen::Vector3d LocalHalfExtents(const geometry::CollisionGeometry& g, const geometry::MeshSdf* sdf) {
  switch (g.type) {
    case ShapeType::kBox:
      return g.half_extents;
    case ShapeType::kSphere:
      return Eigen::Vector3d::Constant(g.radius);
    case ShapeType::kCylinder:  // axis along z
      return {g.radius, g.radius, 0.5 * g.length};
    case ShapeType::kCapsule:
      return {g.radius, g.radius, 0.5 * g.length + g.radius};
    case ShapeType::kMesh:
      return sdf->bounds().min.cwiseAbs().cwiseMax(sdf->bounds().max.cwiseAbs());
    case ShapeType::kPlane:
    case ShapeType::kSheet:
      break;
  }
  return Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
}

}  // namespace

MpmContactSettings MpmContactSettingsOf(const Model& m) {
  MpmContactSettings settings;
  settings.stiffness = m.rigid->mpm_stiffness;
  settings.dissipation = m.rigid->mpm_dissipation;
  settings.stiction_speed = m.rigid->stiction_speed;
  settings.solver.rel_tolerance = m.rigid->contact_rel_tolerance;
  settings.solver.abs_tolerance = m.rigid->contact_abs_tolerance;
  settings.solver.max_iterations = m.rigid->max_solver_iterations;
  settings.material_friction = m.material_friction;
  settings.mesh_sdf_cell = 0.5 * m.h;
  settings.resting_margin = 0.05 * m.h;
  return settings;
}

void MpmRigidContact::Freeze(const contact::RigidSystem& rigid) {
  const multibody::Kinematics& kin = rigid.kinematics();
  const std::vector<multibody::Vector6d> V = multibody::CalcSpatialVelocities(rigid.tree(), kin, rigid.state().v);
  geometries_.clear();
  mesh_sdfs_.resize(rigid.world().num_geometries());
  for (int g = 0; g < rigid.world().num_geometries(); ++g) {
    const geometry::CollisionGeometry& geometry = rigid.world().geometry(g);
    Frozen f;
    f.geometry = &geometry;
    if (geometry.type == ShapeType::kMesh && geometry.mesh && !geometry.mesh->triangles.empty()) {
      if (!mesh_sdfs_[g]) mesh_sdfs_[g] = std::make_shared<geometry::MeshSdf>(*geometry.mesh, settings_.mesh_sdf_cell);
      f.sdf = mesh_sdfs_[g].get();
    }
    f.body = geometry.body;
    f.X_WG = geometry::WorldPose(geometry, kin.X_WB);
    f.X_GW = f.X_WG.inverse();
    if (geometry.body >= 0) f.V = V[geometry.body];
    f.radius = BoundingRadius(geometry, f.sdf);
    if (f.radius < 0) continue;
    // The world box that holds the oriented local box: centre ± |R| e (componentwise), padded so that rounding in
    // float never drops a particle on the geometry's surface.
    const Eigen::Vector3d e = LocalHalfExtents(geometry, f.sdf);
    const Eigen::Vector3d half = e.allFinite() ? Eigen::Vector3d(f.X_WG.linear().cwiseAbs() * e)
                                               : Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
    const Eigen::Vector3d pad = Eigen::Vector3d::Constant(1e-4) + 1e-5 * half.cwiseMin(1e30);
    f.box_min = (f.X_WG.translation() - half - pad).cast<float>();
    f.box_max = (f.X_WG.translation() + half + pad).cast<float>();
    geometries_.push_back(f);
  }
  const int bodies = rigid.tree().num_bodies();
  origins_.resize(bodies);
  for (int b = 0; b < bodies; ++b) origins_[b] = kin.X_WB[b].translation();
}

void MpmRigidContact::BeginStep(const contact::RigidSystem& rigid, RigidImpulses& out, mpm::MpmContactState& state) {
  Freeze(rigid);
  const int bodies = rigid.tree().num_bodies();
  // The previous step's last impulses as the first substep's guess (the device backend keeps its own).
  warm_geometry_.clear();
  for (const mpm::WarmContact& w : state.warm) {
    if (w.particle_id < 0) continue;
    if (w.particle_id >= static_cast<int>(warm_geometry_.size())) {
      warm_geometry_.resize(w.particle_id + 1, -1);
      warm_gamma_.resize(w.particle_id + 1);
    }
    warm_geometry_[w.particle_id] = w.geometry;
    warm_gamma_[w.particle_id] = ToEigen(w.gamma_W);
  }
  state.warm.clear();
  warm_nodes_.swap(state.warm_nodes);
  state.warm_nodes.clear();
  out_ = &out;
  kept_ = &state;
  out.linear.assign(bodies, Eigen::Vector3d::Zero());
  out.angular.assign(bodies, Eigen::Vector3d::Zero());
  state.stats = {};
  state.stats.body_contacts.assign(bodies, 0);
}

void MpmRigidContact::SolveSubstep(mpm::MpmSolver& mpm, float dt) {
  const mpm::Particles& particles = mpm.particles();
  const int n = static_cast<int>(particles.size());
  // 1. Registration (Yu et al. 2025, Sec. V-A): the deepest geometry each particle is inside of, in parallel, then the
  //    contacts in particle order.
  OntoSurfaces(particles, mpm.model());
  SubstepContacts sc;
  if (local_of_.size() < mpm.grid().nodes_data.size()) local_of_.assign(mpm.grid().nodes_data.size(), -1);
  for (int p = 0; p < n; ++p)
    if (inside_[p] >= 0) AddContact(mpm, p, dt, sc);
  // Nodes that received no mass (possible at the stencil's edge) take a tiny mass so that H stays positive.
  for (double& m : sc.problem.mass) m = std::max(m, 1e-12);
  CountContacts(sc);
  if (sc.problem.contacts.empty()) {
    kept_->warm.clear();
    kept_->warm_nodes.clear();
    warm_nodes_.clear();
    ReleaseNodes(sc);
    kept_->stats.substep_iterations.push_back(0);
    kept_->stats.substep_residuals.push_back(0);
    return;
  }
  // 2. Contact solve (step 3c) and the corrected grid velocities, guessed from the last substep's impulses and,
  //    for near-rigid contacts, velocities (GridContactProblem::gamma_guess and v_guess).
  if (settings_.near_rigid()) GuessVelocities(sc);
  const contact::GridContactResult r = contact::SolveGridContact(sc.problem, settings_.solver);
  kept_->stats.substep_iterations.push_back(r.iterations);
  kept_->stats.substep_residuals.push_back(r.residual);
  kept_->stats.converged = kept_->stats.converged && r.converged;
  for (std::size_t local = 0; local < sc.global_of.size(); ++local) {
    Float4& node = mpm.node(sc.global_of[local]);
    if (!(node[3] > 0)) continue;  // an empty node carries no momentum to G2P
    node[0] = static_cast<float>(r.v[local].x());
    node[1] = static_cast<float>(r.v[local].y());
    node[2] = static_cast<float>(r.v[local].z());
  }
  ReleaseNodes(sc);
  // The impulses as the next substep's initial guess, by particle id (the block sort reorders storage), and as the
  // next step's (the State's copy, overwritten by every substep).
  warm_geometry_.assign(mpm.model().num_particles, -1);
  warm_gamma_.resize(mpm.model().num_particles);
  kept_->warm.resize(sc.problem.contacts.size());
  for (std::size_t c = 0; c < sc.problem.contacts.size(); ++c) {
    const int id = particles.id[sc.particle_of[c]];
    warm_geometry_[id] = sc.geometry_of[c];
    warm_gamma_[id] = r.gamma_W[c];
    kept_->warm[c] = {id, sc.geometry_of[c], ToVec3d(r.gamma_W[c])};
  }
  // The velocities as the next substep's guess, near-rigid contacts only: under the lagged Hunt-Crossley model an
  // impulse responds to its contact velocity softly and the impulse guess is consistent; with the velocity guess
  // there (tried) the two grippers of scenes/tshirt_folding.yaml lost the shirt they lifted, which stayed on the
  // table (tests/slow/cloth_scenes_slow_test.cpp).
  warm_nodes_.clear();
  if (settings_.near_rigid()) {
    warm_nodes_.resize(sc.cell_of.size());
    for (std::size_t local = 0; local < sc.cell_of.size(); ++local)
      warm_nodes_[local] = {sc.cell_of[local], ToVec3d(r.v_iterate[local])};
    std::sort(warm_nodes_.begin(), warm_nodes_.end(),
              [](const mpm::WarmNode& a, const mpm::WarmNode& b) { return a.cell < b.cell; });
  }
  kept_->warm_nodes = warm_nodes_;
  // 3. Impulses on the rigid bodies (step 3e): −γ at the particle.
  for (std::size_t c = 0; c < sc.problem.contacts.size(); ++c) {
    const int b = geometries_[sc.geometry_of[c]].body;
    if (b < 0) continue;
    out_->linear[b] -= r.gamma_W[c];
    out_->angular[b] -= (sc.point_of[c] - origins_[b]).cross(r.gamma_W[c]);
  }
}

void MpmRigidContact::AddSolvedSubstep(const SolvedSubstep& s) {
  kept_->stats.contacts = s.contacts;
  kept_->stats.max_contacts = std::max(kept_->stats.max_contacts, s.contacts);
  std::fill(kept_->stats.body_contacts.begin(), kept_->stats.body_contacts.end(), 0);
  for (std::size_t b = 0; b < s.body_contacts.size() && b < kept_->stats.body_contacts.size(); ++b)
    kept_->stats.body_contacts[b] = s.body_contacts[b];
  kept_->stats.substep_iterations.push_back(s.contacts > 0 ? s.iterations : 0);
  kept_->stats.substep_residuals.push_back(s.contacts > 0 ? s.residual : 0);
  if (s.contacts == 0) return;
  kept_->stats.converged = kept_->stats.converged && s.converged;
  for (std::size_t b = 0; b < s.linear.size() && b < out_->linear.size(); ++b) {
    out_->linear[b] += s.linear[b];
    out_->angular[b] += s.angular[b];
  }
}

double MpmRigidContact::FrozenDistance(const Frozen& f, const Eigen::Vector3d& x_W, Eigen::Vector3d& n_G) {
  const Eigen::Vector3d x_G = f.X_GW * x_W;
  return f.sdf ? f.sdf->Distance(x_G, &n_G) : geometry::SignedDistanceInGeometryFrame(*f.geometry, x_G, n_G);
}

void MpmRigidContact::FindInsideGeometries(const mpm::Particles& particles, const std::vector<double>* margin) {
  const int n = static_cast<int>(particles.size());
  inside_.assign(n, -1);
  if (margin) {
    depth_ = *margin;
  } else {
    depth_.assign(n, 0);
  }
  normal_.resize(n);
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 1024), [&](const tbb::blocked_range<int>& r) {
    for (int p = r.begin(); p != r.end(); ++p) {
      const Vec3f& xf = particles.x[p];
      const Eigen::Vector3d x(xf.x, xf.y, xf.z);
      const auto reach = static_cast<float>(depth_[p]);  // the particle's margin (0 without)
      for (std::size_t g = 0; g < geometries_.size(); ++g) {
        const Frozen& f = geometries_[g];
        if (xf.x < f.box_min.x() - reach || xf.y < f.box_min.y() - reach || xf.z < f.box_min.z() - reach ||
            xf.x > f.box_max.x() + reach || xf.y > f.box_max.y() + reach || xf.z > f.box_max.z() + reach)
          continue;
        if ((x - f.X_WG.translation()).norm() > f.radius + reach) continue;
        Eigen::Vector3d n_G;
        const double phi = FrozenDistance(f, x, n_G);
        if (phi < depth_[p]) {
          inside_[p] = static_cast<int>(g);
          depth_[p] = phi;
          normal_[p] = f.X_WG.linear() * n_G;
        }
      }
    }
  });
}

std::vector<ParticleContact> MpmRigidContact::FindParticleContacts(const mpm::Particles& particles,
                                                                   const std::vector<double>& margin) {
  FindInsideGeometries(particles, &margin);
  std::vector<ParticleContact> out;
  for (std::size_t p = 0; p < particles.size(); ++p)
    if (inside_[p] >= 0) out.push_back({static_cast<int>(p), inside_[p], depth_[p], normal_[p]});
  return out;
}

std::vector<ParticleContact> MpmRigidContact::FindPointContacts(const std::vector<Eigen::Vector3d>& points,
                                                                const std::vector<double>& margin) const {
  std::vector<ParticleContact> out;
  for (std::size_t p = 0; p < points.size(); ++p) {
    const Eigen::Vector3d& x = points[p];
    const double reach = margin[p];
    ParticleContact best{static_cast<int>(p), -1, reach, Eigen::Vector3d::UnitZ()};
    for (std::size_t g = 0; g < geometries_.size(); ++g) {
      const Frozen& f = geometries_[g];
      if ((x.array() < f.box_min.cast<double>().array() - reach).any() ||
          (x.array() > f.box_max.cast<double>().array() + reach).any() ||
          (x - f.X_WG.translation()).norm() > f.radius + reach)
        continue;
      Eigen::Vector3d n_G;
      const double phi = FrozenDistance(f, x, n_G);
      if (phi < best.phi) best = {static_cast<int>(p), static_cast<int>(g), phi, f.X_WG.linear() * n_G};
    }
    if (best.geometry >= 0) out.push_back(best);
  }
  return out;
}

double MpmRigidContact::friction_of(int material, int g) const {
  const double mu = geometries_[static_cast<std::size_t>(g)].geometry->friction;
  if (material < static_cast<int>(settings_.material_friction.size()) && settings_.material_friction[material] >= 0)
    return contact::CombineFriction(settings_.material_friction[material], mu);
  return mu;
}

double MpmRigidContact::AddContactNodes(mpm::MpmSolver& mpm, int p, const Eigen::Vector3d& offset, SubstepContacts& sc,
                                        contact::GridContact& c) {
  contact::GridContactProblem& problem = sc.problem;
  const mpm::Stencil s = mpm.ParticleStencil(p);
  // Moved: the weights' derivatives per axis [1/m], w_ip + ∇w_ip·offset below.
  const bool moved = !offset.isZero(0);
  double w_unused[3][3], dw[3][3];
  if (moved)
    for (int a = 0; a < 3; ++a) {
      mpm::QuadraticBSpline(static_cast<double>(s.fx[a]), w_unused[a], dw[a]);
      for (double& d : dw[a]) d /= mpm.model().h;
    }
  double delassus = 0;
  int slot = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k, ++slot) {
        const int global = mpm.NodeIndex(s.base[0] + i, s.base[1] + j, s.base[2] + k);
        int& local = local_of_[global];
        if (local < 0) {
          local = static_cast<int>(problem.mass.size());
          const Float4& node = mpm.node(global);
          problem.mass.push_back(node[3]);
          problem.v_star.emplace_back(node[0], node[1], node[2]);
          sc.global_of.push_back(global);
          const std::array<int, 3>& dims = mpm.model().grid_nodes;
          sc.cell_of.push_back((std::int64_t{s.base[0] + i} * dims[1] + (s.base[1] + j)) * dims[2] + (s.base[2] + k));
        }
        c.nodes[slot] = local;
        const double w = static_cast<double>(s.w[0][i]) * s.w[1][j] * s.w[2][k];
        c.weights[slot] = w;
        if (moved)
          c.weights[slot] += offset.dot(Eigen::Vector3d(
              dw[0][i] * s.w[1][j] * s.w[2][k], s.w[0][i] * dw[1][j] * s.w[2][k], s.w[0][i] * s.w[1][j] * dw[2][k]));
        if (problem.mass[local] > 0) delassus += w * w / problem.mass[local];
      }
  return delassus;
}

void MpmRigidContact::AddContact(mpm::MpmSolver& mpm, int p, float dt, SubstepContacts& sc) {
  const mpm::Particles& particles = mpm.particles();
  const Frozen& f = geometries_[inside_[p]];
  const Eigen::Vector3d x_p(particles.x[p].x, particles.x[p].y, particles.x[p].z);
  // Where it acts: the particle, or the point of its object's surface (OntoSurfaces), with the particle's affine
  // velocity there, v_p + C_p (x − x_p).
  const bool on_surface = !surface_.empty() && surface_[p];
  const Eigen::Vector3d x = on_surface ? point_[p] : x_p;
  contact::GridContact c;
  double delassus = AddContactNodes(mpm, p, x - x_p, sc, c);
  c.R_WC = contact::ContactFrame(normal_[p]);
  c.v_rigid = f.body >= 0 ? multibody::PointVelocity(f.V, x) : Eigen::Vector3d::Zero();
  Eigen::Vector3d v_p(particles.v[p].x, particles.v[p].y, particles.v[p].z);
  if (on_surface)
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) v_p[r] += particles.C[p].m[r][k] * (x[k] - x_p[k]);
  c.params.dt = dt;
  c.params.phi0 = depth_[p];
  // k > 0: the lagged Hunt-Crossley model with that stiffness; 0: near-rigid, SAP's friction cone on the
  // contact's Delassus estimate (or, when its nodes hold no mass yet, the particle's own).
  c.near_rigid = settings_.near_rigid();
  if (delassus <= 0) delassus = 1 / static_cast<double>(particles.mass[p]);
  c.params.stiffness = settings_.stiffness;  // unused by the cone
  c.params.dissipation = settings_.dissipation;
  c.params.friction = friction_of(particles.material[p], inside_[p]);
  c.params.vn0 = (c.R_WC.transpose() * (v_p - c.v_rigid))[2];
  c.params.stiction_speed = settings_.stiction_speed;
  c.params.sigma = settings_.cost_sigma();
  c.params.delassus = delassus;
  const int id = particles.id[p];
  const bool warm = id < static_cast<int>(warm_geometry_.size()) && warm_geometry_[id] == inside_[p];
  sc.problem.gamma_guess.push_back(warm ? warm_gamma_[id] : Eigen::Vector3d::Zero());
  sc.problem.contacts.push_back(c);
  sc.particle_of.push_back(p);
  sc.geometry_of.push_back(inside_[p]);
  sc.point_of.push_back(x);
}

void MpmRigidContact::GuessVelocities(SubstepContacts& sc) const {
  if (warm_nodes_.empty()) return;
  std::vector<Eigen::Vector3d>& guess = sc.problem.v_guess;
  guess.resize(sc.cell_of.size());
  for (std::size_t local = 0; local < sc.cell_of.size(); ++local) {
    const std::int64_t cell = sc.cell_of[local];
    const auto at = std::lower_bound(warm_nodes_.begin(), warm_nodes_.end(), cell,
                                     [](const mpm::WarmNode& n, std::int64_t c) { return n.cell < c; });
    // A node the last substep did not solve for starts from its free motion.
    guess[local] = at != warm_nodes_.end() && at->cell == cell ? ToEigen(at->v) : sc.problem.v_star[local];
  }
}

void MpmRigidContact::OntoSurfaces(const mpm::Particles& particles, const Model& model) {
  const ObjectSurfaces* surfaces = settings_.surfaces.get();
  const int n = static_cast<int>(particles.size());
  // Near-rigid contacts register from the resting margin outside (MpmContactSettings::registration_margin).
  const double resting = settings_.registration_margin();
  if (!surfaces || !surfaces->any()) {  // most scenes: the particles' own contacts, no per-particle pass
    if (resting > 0) {
      margin_.assign(n, resting);
      FindInsideGeometries(particles, &margin_);
    } else {
      FindInsideGeometries(particles);
    }
    surface_.clear();
    return;
  }
  margin_.assign(n, resting);
  for (int p = 0; p < n; ++p)
    if (surfaces->carries(particles.object[p]))
      margin_[p] = 2.5 * std::cbrt(static_cast<double>(particles.volume[p]));  // 5 r_p
  FindInsideGeometries(particles, &margin_);
  surface_.assign(n, 0);
  point_.resize(n);
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 1024), [&](const tbb::blocked_range<int>& r) {
    for (int p = r.begin(); p != r.end(); ++p) {
      if (inside_[p] < 0 || !surfaces->carries(particles.object[p])) continue;
      Eigen::Matrix3d F;
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) F(i, k) = particles.F[p].m[i][k];
      const Eigen::Vector3d x(particles.x[p].x, particles.x[p].y, particles.x[p].z);
      const double spread = 2 * std::cbrt(static_cast<double>(particles.volume[p]));  // 4 r_p
      double depth = 0;
      if (surfaces->ContactPoint(particles.object[p], RestPosition(model, particles.id[p]), F, x, normal_[p], spread,
                                 point_[p], depth) &&
          depth_[p] - depth < 0) {
        depth_[p] -= depth;
        surface_[p] = 1;
      } else if (!(depth_[p] < 0)) {
        inside_[p] = -1;  // near, not in: no contact
      }
    }
  });
  if (!settings_.near_rigid()) KeepOnePerPoint(particles);
}

void MpmRigidContact::KeepOnePerPoint(const mpm::Particles& particles) {
  std::vector<SurfaceCandidate> candidates;
  for (int p = 0; p < static_cast<int>(particles.size()); ++p) {
    if (inside_[p] < 0 || !surface_[p]) continue;
    const Eigen::Vector3d x(particles.x[p].x, particles.x[p].y, particles.x[p].z);
    const double near = 0.5 * std::cbrt(static_cast<double>(particles.volume[p]));  // r_p
    const Eigen::Vector3d& at = point_[p];
    candidates.push_back({p, particles.object[p], inside_[p], {at.x(), at.y(), at.z()}, (at - x).norm(), near});
  }
  for (int p : DropTwinContacts(candidates)) inside_[p] = -1;
}

std::vector<int> DropTwinContacts(const std::vector<SurfaceCandidate>& candidates) {
  std::vector<const SurfaceCandidate*> kept;
  std::vector<int> dropped;
  for (const SurfaceCandidate& mine : candidates) {
    bool twin = false;
    for (const SurfaceCandidate*& k : kept) {
      if (k->object != mine.object || k->geometry != mine.geometry || Norm(k->point - mine.point) >= mine.near)
        continue;
      twin = true;
      if (mine.distance < k->distance) {  // the particle nearer the point keeps it
        dropped.push_back(k->particle);
        k = &mine;
      } else {
        dropped.push_back(mine.particle);
      }
      break;
    }
    if (!twin) kept.push_back(&mine);
  }
  return dropped;
}

void MpmRigidContact::CountContacts(const SubstepContacts& sc) {
  kept_->stats.contacts = static_cast<int>(sc.problem.contacts.size());
  kept_->stats.max_contacts = std::max(kept_->stats.max_contacts, kept_->stats.contacts);
  std::fill(kept_->stats.body_contacts.begin(), kept_->stats.body_contacts.end(), 0);
  for (int g : sc.geometry_of)
    if (geometries_[g].body >= 0) ++kept_->stats.body_contacts[geometries_[g].body];
}

void MpmRigidContact::ReleaseNodes(const SubstepContacts& sc) {
  for (int g : sc.global_of) local_of_[g] = -1;
}

}  // namespace ductile::coupling
