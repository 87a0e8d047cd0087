// StrongCoupling (strong_coupling.h, whose comment has the equations).
#include "coupling/strong_coupling.h"

#include <Eigen/SparseCholesky>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "contact/constraints/friction_cone_contact.h"
#include "contact/contact_frame.h"
#include "contact/rigid_system.h"
#include "contact/schur_complement.h"
#include "contact/sparse_newton.h"
#include "coupling/coupling_telemetry.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"

namespace ductile {
namespace {

using WallClock = std::chrono::steady_clock;

// A bound on the conjugate-gradient iterations of the free motion without contacts (its residual rule stops it far
// earlier: tens to hundreds of iterations in the scenes).
constexpr int kMaxFreeMotionIterations = 5000;

// A contact registers within this share of h beyond its contact surface (FindContacts).
constexpr double kReach = 0.05;

double Ms(WallClock::time_point since) {
  return std::chrono::duration<double, std::milli>(WallClock::now() - since).count();
}

Eigen::Vector3d ToEigen3(const Vec3f& v) {
  return {v.x, v.y, v.z};
}

// The implicit step's view of a material (mpm/implicit_free_motion.h): Lamé parameters for the linear corotated
// energy, the von Mises bound where the model has one, and a fluid's bulk stiffness as λ with μ = 0 (the Tait
// equation's p = κ(J^−γ − 1) linearised at J = 1: dp/dJ = −κγ).
mpm::ImplicitMaterial ImplicitMaterialOf(const mpm::MaterialParams& m) {
  mpm::ImplicitMaterial out;
  if (m.model == mpm::MaterialModel::kFluid) {
    out.lambda = static_cast<double>(m.bulk_modulus) * m.gamma;
    out.fluid = true;
    return out;
  }
  out.mu = m.mu;
  out.lambda = m.lambda;
  out.yield_stress = m.yield_stress;
  return out;
}

void Gather(const mpm::Particles& in, mpm::ImplicitParticles& out) {
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
    out.x[p] = ToEigen3(in.x[p]);
    out.v[p] = ToEigen3(in.v[p]);
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
bool Scatter(const mpm::ImplicitParticles& in, mpm::Particles& out) {
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

// A held dof's row and column of the system become the identity's and its right-hand side 0, so v = 0 there.
void HoldFixed(const std::vector<bool>& fixed, Eigen::SparseMatrix<double>& A, Eigen::VectorXd& b) {
  A.prune([&](Eigen::Index r, Eigen::Index c, double) {
    return !fixed[static_cast<std::size_t>(r)] && !fixed[static_cast<std::size_t>(c)];
  });
  for (Eigen::Index k = 0; k < b.size(); ++k)
    if (fixed[static_cast<std::size_t>(k)]) {
      A.coeffRef(k, k) = 1;
      b[k] = 0;
    }
}

// blockdiag(D, S) for a dense D and a compressed sparse S, both triangles.
Eigen::SparseMatrix<double> BlockDiagonal(const Eigen::MatrixXd& D, const Eigen::SparseMatrix<double>& S) {
  const Eigen::Index nd = D.rows(), n = nd + S.rows();
  Eigen::SparseMatrix<double> out(n, n);
  out.reserve(nd * nd + S.nonZeros());
  for (Eigen::Index col = 0; col < nd; ++col) {
    out.startVec(col);
    for (Eigen::Index row = 0; row < nd; ++row) out.insertBack(row, col) = D(row, col);
  }
  for (Eigen::Index col = 0; col < S.cols(); ++col) {
    out.startVec(nd + col);
    for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it)
      out.insertBack(nd + it.row(), nd + col) = it.value();
  }
  out.finalize();
  return out;
}

// blockdiag(M, S₁, S₂, ...) for a compressed sparse M and dense S_k.
Eigen::SparseMatrix<double> AppendDenseBlocks(const Eigen::SparseMatrix<double>& M,
                                              const std::vector<Eigen::MatrixXd>& blocks) {
  Eigen::Index n = M.rows();
  for (const Eigen::MatrixXd& S : blocks) n += S.rows();
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(static_cast<std::size_t>(M.nonZeros()));
  for (Eigen::Index col = 0; col < M.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(M, col); it; ++it)
      triplets.emplace_back(it.row(), it.col(), it.value());
  Eigen::Index at = M.rows();
  for (const Eigen::MatrixXd& S : blocks) {
    for (Eigen::Index c = 0; c < S.cols(); ++c)
      for (Eigen::Index r = 0; r < S.rows(); ++r) triplets.emplace_back(at + r, at + c, S(r, c));
    at += S.rows();
  }
  Eigen::SparseMatrix<double> out(n, n);
  out.setFromTriplets(triplets.begin(), triplets.end());
  out.makeCompressed();
  return out;
}

// The rigid body's part of a contact at `point` [m]: −J_b in the first nr = rigid_A_inv.size() columns of J_W, the
// point's velocity from prescribed motion in v0 (a kinematic body without dofs still moves), and the body's share of
// the Delassus estimate, returned. Nothing for static geometry (body −1) or a scene without rigid bodies.
double RigidContactPart(int body, const Eigen::Vector3d& point, const CouplingStep& step,
                        const Eigen::VectorXd& rigid_A_inv, Eigen::MatrixXd& J_W, Eigen::Vector3d& v0) {
  if (body < 0 || !step.rigid) return 0;
  const contact::RigidSystem& rigid = *step.rigid;
  const Eigen::MatrixXd Jb = multibody::CalcPointJacobian(rigid.tree(), rigid.kinematics(), body, point, &v0);
  const auto nr = rigid_A_inv.size();
  if (nr == 0) return 0;
  J_W.leftCols(nr) = -Jb;
  return (Jb * rigid_A_inv.asDiagonal() * Jb.transpose()).trace() / 3;
}

// A block's free motion without contact: A v = b (A is SPD). Throws std::runtime_error when it is not.
Eigen::VectorXd FreeSolve(const StrongBlock& block) {
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(block.A);
  if (ldlt.info() != Eigen::Success)
    throw std::runtime_error("a soft body's free-motion matrix is not positive definite");
  return ldlt.solve(block.b);
}

// Unilateral walls (separate, friction): a contact for each particle within its reach of a wall, per wall, at the
// particle's contact radius.
void AddWallContacts(const Model& model, const mpm::Particles& particles, const std::vector<double>& radius,
                     const std::vector<double>& reach, std::vector<StrongCoupling::Contact>& out) {
  const mpm::BoundaryKind kind = model.walls.kind;
  if (kind != mpm::BoundaryKind::kSeparate && kind != mpm::BoundaryKind::kFriction) return;
  const double mu = kind == mpm::BoundaryKind::kFriction ? model.walls.friction : 0.0;
  for (std::size_t p = 0; p < particles.size(); ++p)
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const double x = particles.x[p][a];
        const double phi = side == 0 ? x - model.domain_min[a] : model.domain_max[a] - x;
        if (phi >= reach[p]) continue;
        StrongCoupling::Contact c;
        c.particle = static_cast<int>(p);
        c.normal_W = Eigen::Vector3d::Unit(a) * (side == 0 ? 1.0 : -1.0);
        c.phi = phi - radius[p];
        c.friction = mu;
        c.point = ToEigen3(particles.x[p]);
        out.push_back(c);
      }
}

}  // namespace

void StrongCoupling::FreezeRigid(const Model& model, State::Data& state, CouplingStep& step) {
  frozen_ = false;
  if (!step.rigid || !model.rigid || model.rigid->empty()) return;
  if (contact_model_ != &model || !rigid_contact_) {
    rigid_contact_ = std::make_unique<coupling::MpmRigidContact>(coupling::MpmContactSettingsOf(model));
    contact_model_ = &model;
  }
  rigid_contact_->BeginStep(*step.rigid, state.impulses, state.mpm.contact);
  frozen_ = true;
}

void StrongCoupling::BuildBlocks(const Model& model, CouplingStep& step) {
  blocks_.clear();
  for (const std::unique_ptr<DeformableDomain>& domain : step.domains) {
    DomainBlock d;
    d.domain = domain.get();
    if (!domain->BuildStrongBlock(model.dt, d.block)) continue;
    const StrongBlock& b = d.block;
    if (frozen_) {
      // A point registers within the walls' reach (h/20) plus what its speed covers in the step: a contact whose
      // gap is still open may close it within the step (SAP's speculative contact, v̂ = −φ₀/Δt).
      std::vector<double> margin(b.points.size());
      for (std::size_t k = 0; k < b.points.size(); ++k)
        margin[k] = kReach * model.h + 2 * model.dt * b.v_start.segment<3>(b.point_dof[k]).norm();
      for (const coupling::ParticleContact& pc : rigid_contact_->FindPointContacts(b.points, margin)) {
        Contact c;
        c.particle = pc.particle;
        c.body = rigid_contact_->body_of(pc.geometry);
        c.normal_W = pc.normal_W;
        c.phi = pc.phi;
        c.friction = b.friction;
        c.point = b.points[static_cast<std::size_t>(pc.particle)];
        d.contacts.push_back(c);
      }
    }
    d.kept_of_dof.assign(b.fixed.size(), -1);
    for (const Contact& c : d.contacts)
      for (int a = 0; a < 3; ++a) {
        const int dof = b.point_dof[static_cast<std::size_t>(c.particle)] + a;
        if (b.fixed[static_cast<std::size_t>(dof)] || d.kept_of_dof[static_cast<std::size_t>(dof)] >= 0) continue;
        d.kept_of_dof[static_cast<std::size_t>(dof)] = static_cast<int>(d.kept.size());
        d.kept.push_back(dof);
      }
    blocks_.push_back(std::move(d));
  }
}

std::vector<StrongCoupling::Contact> StrongCoupling::FindContacts(const Model& model, const State::Data& state) {
  const mpm::Particles& particles = state.mpm.particles;
  // A particle stands for the cube of material about it: its contact surface lies r_p = ½ V_p^(1/3) beyond its
  // centre, so contacts act on φ − r_p (without it a body rests half a particle spacing deep in what it lies on).
  // The reach beyond it is small: each registered contact that sticks pins the smooth grid velocity around it, and a
  // wider band of them resists rolling (the ball on the slope, on its particles' spheres, with this reach edited:
  // 1.87 m/s² with h/4 plus Δt‖v_p‖, 2.14 with h/20, against 3.55).
  // A particle whose object carries a surface (coupling/object_surface.h) is a candidate from further away: that
  // surface may lie up to about two particle spacings beyond it (a lattice's outer particles stand back from a
  // round shape's surface by up to √3 spacings); OntoSurfaces then keeps the contacts within h/20 of its surface.
  if (surface_model_ != &model) {
    surfaces_ = coupling::ObjectSurfaces(model);
    surface_model_ = &model;
  }
  std::vector<double> radius(particles.size()), reach(particles.size());
  for (std::size_t p = 0; p < particles.size(); ++p) {
    radius[p] = 0.5 * std::cbrt(static_cast<double>(particles.volume[p]));
    reach[p] = (surfaces_.carries(particles.object[p]) ? 5 * radius[p] : radius[p]) + kReach * model.h;
  }
  std::vector<Contact> out;
  if (frozen_) {
    for (const coupling::ParticleContact& pc : rigid_contact_->FindParticleContacts(particles, reach)) {
      Contact c;
      c.particle = pc.particle;
      c.body = rigid_contact_->body_of(pc.geometry);
      c.normal_W = pc.normal_W;
      c.phi = pc.phi - radius[static_cast<std::size_t>(pc.particle)];
      c.friction = rigid_contact_->friction_of(particles.material[pc.particle], pc.geometry);
      c.point = ToEigen3(particles.x[static_cast<std::size_t>(pc.particle)]);
      out.push_back(c);
    }
  }
  AddWallContacts(model, particles, radius, reach, out);
  OntoSurfaces(model, particles, radius, out);
  return out;
}

void StrongCoupling::OntoSurfaces(const Model& model, const mpm::Particles& particles,
                                  const std::vector<double>& radius, std::vector<Contact>& contacts) const {
  std::size_t kept = 0;
  for (Contact& c : contacts) {
    const auto p = static_cast<std::size_t>(c.particle);
    const int object = particles.object[p];
    if (surfaces_.carries(object)) {
      Eigen::Vector3d point;
      double depth = 0;
      // Support points within two particle spacings (4 r_p) of the particle's own nearest surface point; F as the
      // step gathered it (particles_, in the same order).
      if (!surfaces_.ContactPoint(object, coupling::RestPosition(model, particles.id[p]), particles_.F[p], c.point,
                                  c.normal_W, 4 * radius[p], point, depth))
        continue;
      c.phi += radius[p] - depth;
      c.point = point;
      c.on_surface = true;
    }
    if (c.phi < kReach * model.h) contacts[kept++] = c;
  }
  contacts.resize(kept);
}

void StrongCoupling::AddContact(const Contact& c, double dt, const CouplingStep& step,
                                const Eigen::VectorXd& rigid_A_inv, contact::SapProblem& joint) const {
  const int p = c.particle;
  const auto nr = static_cast<int>(rigid_A_inv.size());
  const Eigen::Vector3d& x_p = particles_.x[static_cast<std::size_t>(p)];
  const Eigen::Vector3d& x = c.point;
  const Eigen::Matrix3d R_WC = contact::ContactFrame(c.normal_W);
  // Columns: the rigid dofs, then each stencil node's kept dofs.
  std::vector<int> cols;
  cols.reserve(static_cast<std::size_t>(nr) + 81);
  Eigen::MatrixXd J_W(3, nr + 81);
  J_W.setZero();
  Eigen::Vector3d v0 = Eigen::Vector3d::Zero();
  double delassus = 0;
  delassus += RigidContactPart(c.body, x, step, rigid_A_inv, J_W, v0);
  for (int k = 0; k < nr; ++k) cols.push_back(k);
  int used = nr;
  const std::array<int, 27>& nodes = free_motion_.stencil_nodes(p);
  const std::array<double, 27>& own = free_motion_.stencil_weights(p);
  // The grid velocity at the contact point: at the particle, Σᵢ w_ip vᵢ; at a point of its object's surface,
  // extrapolated along the particle's velocity gradient, Σᵢ (w_ip + ∇w_ip·(x_c − x_p)) vᵢ (exact for any affine field,
  // so for a rigid motion of the object; the surface's nodes beyond the particle's stencil may hold no mass).
  std::array<double, 27> w = own;
  if (c.on_surface) {
    const std::array<Eigen::Vector3d, 27>& grad = free_motion_.stencil_gradients(p);
    for (int m = 0; m < 27; ++m) w[m] += grad[m].dot(x - x_p);
  }
  for (int m = 0; m < 27; ++m) {
    const double mass = free_motion_.node_mass()[static_cast<std::size_t>(nodes[m])];
    // The Delassus estimate from the particle's own weights: an extrapolated weight may fall on a node at the edge
    // of the object with a trace of mass, and 1/m there would make the contact as compliant as a point of that mass.
    if (mass > 0) delassus += own[m] * own[m] / mass;
    for (int a = 0; a < 3; ++a) {
      const int kept = kept_of_dof_[3 * static_cast<std::size_t>(nodes[m]) + static_cast<std::size_t>(a)];
      if (kept < 0) continue;  // held by a wall: its velocity is 0
      J_W(a, used++) = w[m];
      cols.push_back(nr + kept);
    }
  }
  contact::FrictionConeParams cone;
  cone.dt = dt;
  cone.phi0 = c.phi;
  cone.friction = c.friction;
  cone.delassus = delassus > 0 ? delassus : 1 / particles_.mass[static_cast<std::size_t>(p)];
  const Eigen::MatrixXd J = R_WC.transpose() * J_W.leftCols(used);
  joint.Add(std::make_unique<contact::FrictionConeContact>(cone), J, -R_WC.transpose() * v0, std::move(cols));
}

void StrongCoupling::AddBlockContact(const DomainBlock& d, const Contact& c, double dt, const CouplingStep& step,
                                     const Eigen::VectorXd& rigid_A_inv, contact::SapProblem& joint) const {
  const auto nr = static_cast<int>(rigid_A_inv.size());
  const Eigen::Matrix3d R_WC = contact::ContactFrame(c.normal_W);
  std::vector<int> cols;
  cols.reserve(static_cast<std::size_t>(nr) + 3);
  Eigen::MatrixXd J_W = Eigen::MatrixXd::Zero(3, nr + 3);
  Eigen::Vector3d v0 = Eigen::Vector3d::Zero();
  const auto k = static_cast<std::size_t>(c.particle);
  double delassus = 1 / d.block.point_mass[k];
  delassus += RigidContactPart(c.body, c.point, step, rigid_A_inv, J_W, v0);
  for (int r = 0; r < nr; ++r) cols.push_back(r);
  int used = nr;
  for (int a = 0; a < 3; ++a) {
    const int kept = d.kept_of_dof[static_cast<std::size_t>(d.block.point_dof[k]) + static_cast<std::size_t>(a)];
    if (kept < 0) continue;  // held
    J_W(a, used++) = 1;
    cols.push_back(d.offset + kept);
  }
  contact::FrictionConeParams cone;
  cone.dt = dt;
  cone.phi0 = c.phi;
  cone.friction = c.friction;
  cone.delassus = delassus;
  const Eigen::MatrixXd J = R_WC.transpose() * J_W.leftCols(used);
  joint.Add(std::make_unique<contact::FrictionConeContact>(cone), J, -R_WC.transpose() * v0, std::move(cols));
}

void StrongCoupling::BuildFreeMotion(const Model& model, const State::Data& state) {
  Gather(state.mpm.particles, particles_);
  std::vector<mpm::ImplicitMaterial> materials;
  for (const mpm::MaterialParams& m : model.materials) materials.push_back(ImplicitMaterialOf(m));
  const Eigen::Vector3d origin(model.grid_origin[0], model.grid_origin[1], model.grid_origin[2]);
  const Eigen::Vector3d gravity(model.gravity[0], model.gravity[1], model.gravity[2]);
  free_motion_.Build(particles_, materials, model.h, origin, model.dt, gravity);
  const mpm::BoundaryKind kind = model.walls.kind;
  if (kind == mpm::BoundaryKind::kSticky || kind == mpm::BoundaryKind::kSlip) {
    const Eigen::Vector3d lo(model.domain_min[0], model.domain_min[1], model.domain_min[2]);
    const Eigen::Vector3d hi(model.domain_max[0], model.domain_max[1], model.domain_max[2]);
    free_motion_.SetWalls(lo, hi, kind == mpm::BoundaryKind::kSticky);
  }
}

std::vector<int> StrongCoupling::KeptDofs(const std::vector<Contact>& contacts) {
  const std::vector<bool>& fixed = free_motion_.fixed();
  kept_of_dof_.assign(fixed.size(), -1);
  std::vector<int> kept;
  for (const Contact& c : contacts)
    for (const int node : free_motion_.stencil_nodes(c.particle))
      for (int a = 0; a < 3; ++a) {
        const std::size_t dof = 3 * static_cast<std::size_t>(node) + static_cast<std::size_t>(a);
        if (fixed[dof] || kept_of_dof_[dof] >= 0) continue;
        kept_of_dof_[dof] = static_cast<int>(kept.size());
        kept.push_back(static_cast<int>(dof));
      }
  return kept;
}

Eigen::VectorXd StrongCoupling::SolveJoint(const Model& model, const std::vector<Contact>& contacts, bool with_mpm,
                                           CouplingStep& step, contact::RigidStepProblem& rigid,
                                           contact::SapResult& result) {
  std::vector<int> kept;
  std::vector<bool> fixed;
  Eigen::SparseMatrix<double> A;
  Eigen::VectorXd b;
  if (with_mpm) {
    kept = KeptDofs(contacts);
    fixed = free_motion_.fixed();
    A = free_motion_.AssembleHessian();
    b = free_motion_.RightHandSide();
    HoldFixed(fixed, A, b);
    A.makeCompressed();
  }
  const int nr = step.rigid ? step.rigid->tree().nv() : 0;
  contact::SapProblem joint;
  contact::SchurComplement schur;
  const int nb = ReduceBlocks();
  // Reduced onto the kept dofs while S is small; sparse over every grid dof when S would be large and dense
  // (simulation.strong_dense_limit; file comment, 3).
  const bool reduce = !with_mpm || kept.size() <= static_cast<std::size_t>(model.strong_dense_limit);
  if (reduce) {
    if (with_mpm) schur.Compute(A, kept);
    // The joint problem: the rigid dofs first (their constraints as the rigid step built them), then the kept dofs,
    // then each block's.
    const auto nc = static_cast<int>(kept.size());
    joint.A = Eigen::MatrixXd::Zero(nr + nc + nb, nr + nc + nb);
    joint.v_star.resize(nr + nc + nb);
    if (nr > 0) joint.A.topLeftCorner(nr, nr) = rigid.problem.A;
    if (with_mpm) {
      joint.A.block(nr, nr, nc, nc) = schur.S();
      joint.v_star.segment(nr, nc) = schur.KeptSolution(b);
    }
  } else {
    // Every grid dof kept (the held ones too, with their identity rows and no constraint on them): the joint problem
    // stays sparse.
    kept.resize(fixed.size());
    for (std::size_t dof = 0; dof < fixed.size(); ++dof) {
      kept[dof] = static_cast<int>(dof);
      kept_of_dof_[dof] = fixed[dof] ? -1 : static_cast<int>(dof);
    }
    joint.A_sparse = BlockDiagonal(nr > 0 ? rigid.problem.A : Eigen::MatrixXd(), A);
  }
  const auto nc = static_cast<int>(kept.size());
  AppendBlocks(reduce, nr + nc, joint);
  std::vector<int> rigid_dofs(static_cast<std::size_t>(nr));
  for (int k = 0; k < nr; ++k) rigid_dofs[static_cast<std::size_t>(k)] = k;
  for (contact::SapProblem::Entry& e : rigid.problem.constraints)
    joint.Add(std::move(e.constraint), std::move(e.J), std::move(e.b), e.cols.empty() ? rigid_dofs : e.cols);
  const Eigen::VectorXd rigid_A_inv =
      nr > 0 ? Eigen::VectorXd(rigid.problem.A.diagonal().cwiseInverse()) : Eigen::VectorXd();
  if (with_mpm)
    for (const Contact& c : contacts) AddContact(c, model.dt, step, rigid_A_inv, joint);
  for (const DomainBlock& d : blocks_)
    for (const Contact& c : d.contacts) AddBlockContact(d, c, model.dt, step, rigid_A_inv, joint);
  std::unique_ptr<contact::SparseNewtonSystem> newton;
  if (!reduce) newton = SparseFreeMotion(rigid, b, nr + nc + nb, joint);
  if (nr > 0) joint.v_star.head(nr) = rigid.problem.v_star;
  contact::SapSolverParams params;
  if (step.rigid) params = step.rigid->params().solver;
  params.rel_tolerance = model.strong_tolerance;
  params.max_iterations = model.rigid ? model.rigid->max_solver_iterations : params.max_iterations;
  result = contact::SolveSap(joint, params, InitialGuess(model, kept, fixed, nr, step, nr + nc + nb), newton.get());
  TakeBlockVelocities(result);
  if (!with_mpm) return {};
  Eigen::VectorXd v =
      reduce ? schur.BackSubstitute(b, result.v.segment(nr, nc)) : Eigen::VectorXd(result.v.segment(nr, nc));
  for (Eigen::Index k = 0; k < v.size(); ++k)
    if (fixed[static_cast<std::size_t>(k)]) v[k] = 0;
  return v;
}

// The step's starting velocities (the rigid state's, and the grid's from P2G, ṽ − Δt g; a block's own), nearer the
// solution than the free motion for anything resting or held (dough rolling under the strong scheme took 16.4 Newton
// iterations a step from v*, 9.4 from these: bench/results/amd-epyc-2core-strong.md).
Eigen::VectorXd StrongCoupling::InitialGuess(const Model& model, const std::vector<int>& kept,
                                             const std::vector<bool>& fixed, int nr, const CouplingStep& step,
                                             int n) const {
  Eigen::VectorXd v0(n);
  if (nr > 0) v0.head(nr) = step.rigid->state().v;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const int dof = kept[k];
    v0[nr + static_cast<Eigen::Index>(k)] =
        fixed[static_cast<std::size_t>(dof)]
            ? 0.0
            : free_motion_.free_velocity()[dof] - model.dt * static_cast<double>(model.gravity[dof % 3]);
  }
  for (const DomainBlock& d : blocks_)
    for (std::size_t k = 0; k < d.kept.size(); ++k)
      v0[d.offset + static_cast<Eigen::Index>(k)] = d.block.v_start[d.kept[k]];
  return v0;
}

// The free motion v* = A⁻¹ (rigid A v*, b, the blocks' S v*) with the Newton system's own factorisation, before any
// contact; the system is kept for SAP's Newton steps.
std::unique_ptr<contact::SparseNewtonSystem> StrongCoupling::SparseFreeMotion(const contact::RigidStepProblem& rigid,
                                                                              const Eigen::VectorXd& b, int n,
                                                                              contact::SapProblem& joint) const {
  auto newton = std::make_unique<contact::SparseNewtonSystem>(joint);
  const auto nr = static_cast<Eigen::Index>(rigid.problem.v_star.size());
  Eigen::VectorXd rhs(n);
  if (nr > 0) rhs.head(nr) = rigid.problem.A * rigid.problem.v_star;
  rhs.segment(nr, b.size()) = b;
  for (const DomainBlock& d : blocks_)
    if (!d.kept.empty())
      rhs.segment(d.offset, static_cast<Eigen::Index>(d.kept.size())) = d.schur.S() * d.schur.KeptSolution(d.block.b);
  joint.v_star = newton->Solve({}, rhs);
  return newton;
}

int StrongCoupling::ReduceBlocks() {
  int nb = 0;
  for (DomainBlock& d : blocks_) {
    if (d.kept.empty()) continue;
    d.schur.Compute(d.block.A, d.kept);
    nb += static_cast<int>(d.kept.size());
  }
  return nb;
}

void StrongCoupling::AppendBlocks(bool reduce, int offset, contact::SapProblem& joint) {
  std::vector<Eigen::MatrixXd> block_S;
  for (DomainBlock& d : blocks_) {
    if (d.kept.empty()) continue;
    d.offset = offset;
    const auto nk = static_cast<Eigen::Index>(d.kept.size());
    if (reduce) {
      joint.A.block(offset, offset, nk, nk) = d.schur.S();
      joint.v_star.segment(offset, nk) = d.schur.KeptSolution(d.block.b);
    } else {
      block_S.push_back(d.schur.S());
    }
    offset += static_cast<int>(nk);
  }
  if (!reduce && !block_S.empty()) joint.A_sparse = AppendDenseBlocks(joint.A_sparse, block_S);
}

void StrongCoupling::TakeBlockVelocities(const contact::SapResult& result) {
  block_v_.assign(blocks_.size(), Eigen::VectorXd());
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const DomainBlock& d = blocks_[i];
    block_v_[i] = d.kept.empty() ? FreeSolve(d.block)
                                 : d.schur.BackSubstitute(
                                       d.block.b, result.v.segment(d.offset, static_cast<Eigen::Index>(d.kept.size())));
    for (Eigen::Index k = 0; k < block_v_[i].size(); ++k)
      if (d.block.fixed[static_cast<std::size_t>(k)]) block_v_[i][k] = 0;
  }
}

void StrongCoupling::RecordImpulses(const std::vector<Contact>& contacts, const contact::SapResult& result, int first,
                                    const contact::RigidSystem* rigid, State::Data& state) const {
  RigidImpulses& out = state.impulses;
  const std::size_t bodies = out.linear.size();
  // The joint solve's statistics are kept where the weak scheme keeps the MPM contact solve's (its contacts are the
  // particles' and the soft bodies' vertices').
  mpm::MpmContactStats& stats = state.mpm.contact.stats;
  stats = {};
  stats.body_contacts.assign(bodies, 0);
  stats.contacts = static_cast<int>(contacts.size());
  stats.max_contacts = stats.contacts;
  stats.substep_iterations.push_back(contacts.empty() ? 0 : result.iterations);
  stats.substep_residuals.push_back(contacts.empty() ? 0 : result.residual);
  stats.converged = contacts.empty() || result.converged;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    if (c.body < 0 || static_cast<std::size_t>(c.body) >= bodies || !rigid) continue;
    // −γ at the particle, in the world frame, and its moment about the body origin at the step's start.
    const Eigen::Vector3d gamma_W =
        contact::ContactFrame(c.normal_W) * result.gamma[static_cast<std::size_t>(first) + k].head<3>();
    const Eigen::Vector3d& x = c.point;
    out.linear[static_cast<std::size_t>(c.body)] -= gamma_W;
    const Eigen::Vector3d origin = rigid->kinematics().X_WB[static_cast<std::size_t>(c.body)].translation();
    out.angular[static_cast<std::size_t>(c.body)] -= (x - origin).cross(gamma_W);
    ++stats.body_contacts[static_cast<std::size_t>(c.body)];
  }
}

void StrongCoupling::Advance(const Model& model, State::Data& state, CouplingStep& step) {
  StepTelemetry& t = step.telemetry;
  contact::RigidSystem* rigid = step.rigid;
  auto start = WallClock::now();
  contact::RigidStepProblem begun;
  if (rigid) {
    coupling::ApplyBodyWrenches(model, *rigid);
    begun = rigid->BeginStep(model.dt);
  }
  t.rigid_ms = Ms(start);
  start = WallClock::now();
  FreezeRigid(model, state, step);
  // The MPM domain joins with its particles (when it has any), every other domain through its block.
  const bool has_mpm = model.num_particles > 0;
  std::vector<Contact> contacts;
  if (has_mpm) {
    BuildFreeMotion(model, state);
    contacts = FindContacts(model, state);
  }
  BuildBlocks(model, step);
  bool block_contacts = false;
  for (const DomainBlock& d : blocks_) block_contacts = block_contacts || !d.contacts.empty();
  t.p2g_ms = Ms(start);
  start = WallClock::now();
  contact::SapResult result;
  Eigen::VectorXd v;
  const auto first = static_cast<int>(begun.problem.constraints.size());
  try {
    if (contacts.empty() && !block_contacts) {
      if (has_mpm) v = free_motion_.Solve(model.implicit_tolerance, kMaxFreeMotionIterations);
      block_v_.clear();
      for (const DomainBlock& d : blocks_) block_v_.push_back(FreeSolve(d.block));
      if (rigid && rigid->tree().nv() > 0)
        result = contact::SolveSap(begun.problem, rigid->params().solver, rigid->state().v);
    } else {
      const bool with_mpm = !contacts.empty();
      Eigen::VectorXd joint_v = SolveJoint(model, contacts, with_mpm, step, begun, result);
      v = with_mpm ? std::move(joint_v)
                   : (has_mpm ? free_motion_.Solve(model.implicit_tolerance, kMaxFreeMotionIterations) : v);
    }
  } catch (const std::runtime_error& e) {  // a factorisation that failed: the step cannot go on
    step.rigid_failure = std::string("the strong coupling's joint solve failed: ") + e.what();
    return;
  }
  // Every contact of the joint problem in its order: the particles', then each block's.
  std::vector<Contact> all = contacts;
  for (const DomainBlock& d : blocks_) all.insert(all.end(), d.contacts.begin(), d.contacts.end());
  RecordImpulses(all, result, first, rigid, state);
  t.grid_ms = Ms(start);
  start = WallClock::now();
  if (has_mpm) {
    free_motion_.Apply(v, particles_);
    state.mpm.diverged = state.mpm.diverged || !Scatter(particles_, state.mpm.particles);
    state.mpm.cache.Invalidate(mpm::Invalidation::kParticlesEdited);
  }
  bool diverged = state.mpm.diverged;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    blocks_[i].domain->ApplyStrongVelocities(model.dt, block_v_[i]);
    diverged = diverged || blocks_[i].domain->diverged();
  }
  t.g2p_ms = Ms(start);
  t.substeps = 1;
  t.active_nodes_avg = has_mpm ? free_motion_.num_nodes() : 0;
  t.sort_ms = t.g2p2g_ms = 0;
  t.pin_forces.clear();
  coupling::RecordContactTelemetry(state.mpm.contact.stats, t);
  if (!rigid || diverged) return;
  start = WallClock::now();
  try {
    coupling::RecordRigidTelemetry(*rigid, rigid->FinishStep(model.dt, begun, result), t);
  } catch (const std::runtime_error& e) {
    step.rigid_failure = e.what();
  }
  t.rigid_ms += Ms(start);
}

}  // namespace ductile
