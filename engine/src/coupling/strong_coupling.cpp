// StrongCoupling (strong_coupling.h, whose comment has the equations).
#include "coupling/strong_coupling.h"

#include <chrono>
#include <stdexcept>

#include "contact/constraints/friction_cone_contact.h"
#include "contact/contact_frame.h"
#include "contact/rigid_system.h"
#include "coupling/coupling_telemetry.h"
#include "model/rigid_model.h"

namespace ductile {
namespace {

using WallClock = std::chrono::steady_clock;

double Ms(WallClock::time_point since) {
  return std::chrono::duration<double, std::milli>(WallClock::now() - since).count();
}

// The sparse joint problem's A: blockdiag(A_r, each block's), A_r the rigid block (dense), a reduced block its dense
// Schur complement S, a whole one its sparse A (compressed, both triangles). Written column by column: each column
// belongs to one block, its rows in increasing order.
Eigen::SparseMatrix<double> SparseJointMatrix(const Eigen::MatrixXd& A_r, const std::vector<const Eigen::MatrixXd*>& S,
                                              const std::vector<const Eigen::SparseMatrix<double>*>& A,
                                              Eigen::Index n) {
  Eigen::Index nonzeros = A_r.size();
  for (std::size_t k = 0; k < S.size(); ++k) nonzeros += S[k] ? S[k]->size() : A[k]->nonZeros();
  Eigen::SparseMatrix<double> out(n, n);
  out.reserve(nonzeros);
  for (Eigen::Index col = 0; col < A_r.cols(); ++col) {
    out.startVec(col);
    for (Eigen::Index row = 0; row < A_r.rows(); ++row) out.insertBack(row, col) = A_r(row, col);
  }
  Eigen::Index at = A_r.rows();
  for (std::size_t k = 0; k < S.size(); ++k) {
    if (S[k]) {
      for (Eigen::Index col = 0; col < S[k]->cols(); ++col) {
        out.startVec(at + col);
        for (Eigen::Index row = 0; row < S[k]->rows(); ++row) out.insertBack(at + row, at + col) = (*S[k])(row, col);
      }
      at += S[k]->rows();
    } else {
      for (Eigen::Index col = 0; col < A[k]->outerSize(); ++col) {
        out.startVec(at + col);
        for (Eigen::SparseMatrix<double>::InnerIterator it(*A[k], col); it; ++it)
          out.insertBack(at + it.row(), at + col) = it.value();
      }
      at += A[k]->rows();
    }
  }
  out.finalize();
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

void StrongCoupling::FindPointContacts(const Model& model, StrongBlock& b) const {
  if (!frozen_ || b.points.empty()) return;
  // A point registers within the walls' reach (h/20) plus what its speed covers in the step: a contact whose gap is
  // still open may close it within the step (SAP's speculative contact, v̂ = −φ₀/Δt).
  std::vector<double> margin(b.points.size());
  for (std::size_t k = 0; k < b.points.size(); ++k)
    margin[k] = kStrongContactReach * model.h + 2 * model.dt * b.v_start.segment<3>(b.point_dof[k]).norm();
  for (const coupling::ParticleContact& pc : rigid_contact_->FindPointContacts(b.points, margin)) {
    const auto k = static_cast<std::size_t>(pc.particle);
    StrongContact c;
    c.body = rigid_contact_->body_of(pc.geometry);
    c.normal_W = pc.normal_W;
    c.phi = pc.phi;
    c.friction = b.friction;
    c.point = b.points[k];
    c.inverse_mass = 1 / b.point_mass[k];
    c.first = static_cast<int>(b.stencil.size());
    c.count = 1;
    b.stencil.push_back({b.point_dof[k], 1.0, 1 / b.point_mass[k]});
    b.contacts.push_back(c);
  }
}

void StrongCoupling::KeepContactDofs(const Model& model, DomainBlock& d) {
  const StrongBlock& b = d.block;
  d.kept_of_dof.assign(b.fixed.size(), -1);
  d.kept.clear();
  for (const StrongContact& c : b.contacts)
    for (int e = c.first; e < c.first + c.count; ++e)
      for (int a = 0; a < 3; ++a) {
        const std::size_t dof =
            static_cast<std::size_t>(b.stencil[static_cast<std::size_t>(e)].dof) + static_cast<std::size_t>(a);
        if (b.fixed[dof] || d.kept_of_dof[dof] >= 0) continue;
        d.kept_of_dof[dof] = static_cast<int>(d.kept.size());
        d.kept.push_back(static_cast<int>(dof));
      }
  // Reduced onto the kept dofs while S is small; whole and sparse when S would be large and dense
  // (simulation.strong_dense_limit; file comment, 3): every dof kept (the held ones too, with their identity rows
  // and no constraint on them).
  d.reduced = d.kept.size() <= static_cast<std::size_t>(model.strong_dense_limit);
  if (d.reduced) return;
  d.kept.resize(b.fixed.size());
  for (std::size_t dof = 0; dof < b.fixed.size(); ++dof) {
    d.kept[dof] = static_cast<int>(dof);
    d.kept_of_dof[dof] = b.fixed[dof] ? -1 : static_cast<int>(dof);
  }
}

void StrongCoupling::BuildBlocks(const Model& model, CouplingStep& step) {
  // The blocks are kept from step to step (their matrices' and lists' storage is reused), one per joining domain.
  std::size_t joined = 0;
  for (const std::unique_ptr<DeformableDomain>& domain : step.domains) {
    if (blocks_.size() == joined) blocks_.emplace_back();
    DomainBlock& d = blocks_[joined];
    d.domain = domain.get();
    d.block.Clear();
    if (!domain->BuildStrongBlock(model.dt, frozen_ ? rigid_contact_.get() : nullptr, d.block)) continue;
    FindPointContacts(model, d.block);
    ++joined;
  }
  blocks_.resize(joined);
}

void StrongCoupling::AddContact(const DomainBlock& d, const StrongContact& c, double dt, const CouplingStep& step,
                                const Eigen::VectorXd& rigid_A_inv, contact::SapProblem& joint) const {
  const auto nr = static_cast<int>(rigid_A_inv.size());
  const Eigen::Matrix3d R_WC = contact::ContactFrame(c.normal_W);
  // Columns: the rigid dofs, then each stencil entry's kept dofs.
  std::vector<int> cols;
  cols.reserve(static_cast<std::size_t>(nr) + 3 * static_cast<std::size_t>(c.count));
  Eigen::MatrixXd J_W = Eigen::MatrixXd::Zero(3, nr + 3 * c.count);
  Eigen::Vector3d v0 = Eigen::Vector3d::Zero();
  double delassus = RigidContactPart(c.body, c.point, step, rigid_A_inv, J_W, v0);
  for (int k = 0; k < nr; ++k) cols.push_back(k);
  int used = nr;
  for (int e = c.first; e < c.first + c.count; ++e) {
    const StrongStencilEntry& entry = d.block.stencil[static_cast<std::size_t>(e)];
    delassus += entry.delassus;
    for (int a = 0; a < 3; ++a) {
      const int kept = d.kept_of_dof[static_cast<std::size_t>(entry.dof) + static_cast<std::size_t>(a)];
      if (kept < 0) continue;  // held: its velocity is 0
      J_W(a, used++) = entry.weight;
      cols.push_back(d.offset + kept);
    }
  }
  contact::FrictionConeParams cone;
  cone.dt = dt;
  cone.phi0 = c.phi;
  cone.friction = c.friction;
  cone.delassus = delassus > 0 ? delassus : c.inverse_mass;
  const Eigen::MatrixXd J = R_WC.transpose() * J_W.leftCols(used);
  joint.Add(std::make_unique<contact::FrictionConeContact>(cone), J, -R_WC.transpose() * v0, std::move(cols));
}

void StrongCoupling::SolveJoint(const Model& model, CouplingStep& step, contact::RigidStepProblem& rigid,
                                contact::SapResult& result) {
  const int nr = step.rigid ? step.rigid->tree().nv() : 0;
  // The joint problem's columns: the rigid dofs first (their constraints as the rigid step built them), then each
  // block's with contacts, reduced (dense) or whole (sparse: then the joint problem is sparse).
  int n = nr;
  bool sparse = false;
  for (DomainBlock& d : blocks_) {
    if (d.block.contacts.empty()) continue;
    d.domain->AssembleStrongSystem(d.block);
    KeepContactDofs(model, d);
    if (d.reduced) d.schur.Compute(d.block.A, d.kept);
    sparse = sparse || !d.reduced;
    d.offset = n;
    n += static_cast<int>(d.kept.size());
  }
  contact::SapProblem joint;
  if (!sparse) {
    joint.A = Eigen::MatrixXd::Zero(n, n);
    joint.v_star.resize(n);
    if (nr > 0) joint.A.topLeftCorner(nr, nr) = rigid.problem.A;
    for (const DomainBlock& d : blocks_) {
      if (d.block.contacts.empty()) continue;
      const auto nk = static_cast<Eigen::Index>(d.kept.size());
      joint.A.block(d.offset, d.offset, nk, nk) = d.schur.S();
      joint.v_star.segment(d.offset, nk) = d.schur.KeptSolution(d.block.b);
    }
  } else {
    std::vector<const Eigen::MatrixXd*> S;
    std::vector<const Eigen::SparseMatrix<double>*> A;
    for (const DomainBlock& d : blocks_) {
      if (d.block.contacts.empty()) continue;
      S.push_back(d.reduced ? &d.schur.S() : nullptr);
      A.push_back(&d.block.A);
    }
    joint.A_sparse = SparseJointMatrix(nr > 0 ? rigid.problem.A : Eigen::MatrixXd(), S, A, n);
  }
  std::vector<int> rigid_dofs(static_cast<std::size_t>(nr));
  for (int k = 0; k < nr; ++k) rigid_dofs[static_cast<std::size_t>(k)] = k;
  for (contact::SapProblem::Entry& e : rigid.problem.constraints)
    joint.Add(std::move(e.constraint), std::move(e.J), std::move(e.b), e.cols.empty() ? rigid_dofs : e.cols);
  const Eigen::VectorXd rigid_A_inv =
      nr > 0 ? Eigen::VectorXd(rigid.problem.A.diagonal().cwiseInverse()) : Eigen::VectorXd();
  for (const DomainBlock& d : blocks_)
    for (const StrongContact& c : d.block.contacts) AddContact(d, c, model.dt, step, rigid_A_inv, joint);
  std::unique_ptr<contact::SparseNewtonSystem> newton;
  if (sparse) newton = SparseFreeMotion(rigid, n, joint);
  if (nr > 0) joint.v_star.head(nr) = rigid.problem.v_star;
  contact::SapSolverParams params;
  if (step.rigid) params = step.rigid->params().solver;
  params.rel_tolerance = model.strong_tolerance;
  params.max_iterations = model.rigid ? model.rigid->max_solver_iterations : params.max_iterations;
  result = contact::SolveSap(joint, params, InitialGuess(nr, step, n), newton.get());
  TakeBlockVelocities(result);
}

Eigen::VectorXd StrongCoupling::InitialGuess(int nr, const CouplingStep& step, int n) const {
  Eigen::VectorXd v0(n);
  if (nr > 0) v0.head(nr) = step.rigid->state().v;
  for (const DomainBlock& d : blocks_) {
    if (d.block.contacts.empty()) continue;
    for (std::size_t k = 0; k < d.kept.size(); ++k) {
      const auto dof = static_cast<std::size_t>(d.kept[k]);
      v0[d.offset + static_cast<Eigen::Index>(k)] =
          d.block.fixed[dof] ? 0.0 : d.block.v_start[static_cast<Eigen::Index>(dof)];
    }
  }
  return v0;
}

// The free motion v* = A⁻¹ (A_r v*_r, each block's b or S v*) with the Newton system's own factorisation, before any
// contact; the system is kept for SAP's Newton steps.
std::unique_ptr<contact::SparseNewtonSystem> StrongCoupling::SparseFreeMotion(const contact::RigidStepProblem& rigid,
                                                                              int n, contact::SapProblem& joint) const {
  auto newton = std::make_unique<contact::SparseNewtonSystem>(joint);
  const auto nr = static_cast<Eigen::Index>(rigid.problem.v_star.size());
  Eigen::VectorXd rhs(n);
  if (nr > 0) rhs.head(nr) = rigid.problem.A * rigid.problem.v_star;
  for (const DomainBlock& d : blocks_) {
    if (d.block.contacts.empty()) continue;
    const auto nk = static_cast<Eigen::Index>(d.kept.size());
    if (d.reduced)
      rhs.segment(d.offset, nk) = d.schur.S() * d.schur.KeptSolution(d.block.b);
    else
      rhs.segment(d.offset, nk) = d.block.b;
  }
  joint.v_star = newton->Solve({}, rhs);
  return newton;
}

void StrongCoupling::TakeBlockVelocities(const contact::SapResult& result) {
  block_v_.assign(blocks_.size(), Eigen::VectorXd());
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    DomainBlock& d = blocks_[i];
    Eigen::VectorXd& v = block_v_[i];
    if (d.block.contacts.empty()) {
      v = d.domain->SolveStrongFreeMotion(d.block);
    } else {
      const auto solved = result.v.segment(d.offset, static_cast<Eigen::Index>(d.kept.size()));
      v = d.reduced ? d.schur.BackSubstitute(d.block.b, solved) : Eigen::VectorXd(solved);
    }
    for (Eigen::Index k = 0; k < v.size(); ++k)
      if (d.block.fixed[static_cast<std::size_t>(k)]) v[k] = 0;
  }
}

void StrongCoupling::RecordImpulses(const contact::SapResult& result, int first, const contact::RigidSystem* rigid,
                                    State::Data& state) const {
  RigidImpulses& out = state.impulses;
  const std::size_t bodies = out.linear.size();
  // The joint solve's statistics are kept where the weak scheme keeps the MPM contact solve's (its contacts are the
  // particles' and the soft bodies' vertices').
  mpm::MpmContactStats& stats = state.mpm.contact.stats;
  stats = {};
  stats.body_contacts.assign(bodies, 0);
  for (const DomainBlock& d : blocks_) stats.contacts += static_cast<int>(d.block.contacts.size());
  stats.max_contacts = stats.contacts;
  const bool none = stats.contacts == 0;
  stats.substep_iterations.push_back(none ? 0 : result.iterations);
  stats.substep_residuals.push_back(none ? 0 : result.residual);
  stats.converged = none || result.converged;
  auto k = static_cast<std::size_t>(first);
  for (const DomainBlock& d : blocks_)
    for (const StrongContact& c : d.block.contacts) {
      const std::size_t constraint = k++;
      if (c.body < 0 || static_cast<std::size_t>(c.body) >= bodies || !rigid) continue;
      // −γ at the contact point, in the world frame, and its moment about the body origin at the step's start.
      const Eigen::Vector3d gamma_W = contact::ContactFrame(c.normal_W) * result.gamma[constraint].head<3>();
      out.linear[static_cast<std::size_t>(c.body)] -= gamma_W;
      const Eigen::Vector3d origin = rigid->kinematics().X_WB[static_cast<std::size_t>(c.body)].translation();
      out.angular[static_cast<std::size_t>(c.body)] -= (c.point - origin).cross(gamma_W);
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
  BuildBlocks(model, step);
  bool contacts = false;
  for (const DomainBlock& d : blocks_) contacts = contacts || !d.block.contacts.empty();
  t.p2g_ms = Ms(start);
  start = WallClock::now();
  contact::SapResult result;
  const auto first = static_cast<int>(begun.problem.constraints.size());
  try {
    if (!contacts) {
      TakeBlockVelocities(result);  // each block's free motion
      if (rigid && rigid->tree().nv() > 0)
        result = contact::SolveSap(begun.problem, rigid->params().solver, rigid->state().v);
    } else {
      SolveJoint(model, step, begun, result);
    }
  } catch (const std::runtime_error& e) {  // a factorisation that failed: the step cannot go on
    step.rigid_failure = std::string("the strong coupling's joint solve failed: ") + e.what();
    return;
  }
  RecordImpulses(result, first, rigid, state);
  t.grid_ms = Ms(start);
  start = WallClock::now();
  t.substeps = 1;
  t.active_nodes_avg = 0;
  bool diverged = false;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    blocks_[i].domain->ApplyStrongVelocities(model.dt, block_v_[i], t);
    diverged = diverged || blocks_[i].domain->diverged();
  }
  t.g2p_ms = Ms(start);
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
