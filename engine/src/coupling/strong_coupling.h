// The strong implicit coupling of Zong, Jiang, Han 2024 ("A convex formulation of frictional contact between rigid
// and deformable bodies"; docs/architecture.md, "Domains and couplings"): one implicit MPM step per Δt, no substeps,
// solved together with the rigid step in one convex problem, stable at Δt = 10 ms whatever the stiffness or the mass
// ratio.
//
// 1. Free motions. Rigid: SAP's own model, A_r = M + Δt D and v*_r (contact/rigid_system.h). MPM: the quadratic
//    E(v) = ½ vᵀ A_MPM v − bᵀ v of the grid velocities (mpm/implicit_free_motion.h, the paper's Sec. IV, Eq. 11,
//    lagged-rotation linear corotated energy), A_MPM its constant Hessian, v*_MPM = A_MPM⁻¹ b.
// 2. Contacts, registered at the step's start: each particle within its reach (r_p + h/20) of rigid geometry
//    or of a unilateral domain wall, with φ₀ = φ − r_p its signed distance less its contact radius r_p = ½ V_p^(1/3)
//    (the particle stands for a cube of material) and n the geometry's normal. Its velocity is
//    interpolated from the grid, v_p = Σᵢ w_ip vᵢ, so the contact velocity is
//      v_c = R_WCᵀ (Σᵢ w_ip vᵢ − J_b(x_p) v_r − v₀),
//    R_WC the contact frame (z = n), J_b the body point's Jacobian and v₀ its prescribed velocity. A particle of an
//    elastic object with a round scene shape (sphere, capsule, cylinder) touches instead at the point of the surface
//    it carries from that shape nearest the geometry, x_c = x_p + F_p (X* − X_p) (coupling/object_surface.h), its
//    gap φ − n·(x_p − x_c) (registered from r_p + 4 r_p away) and its velocity extrapolated there along the
//    particle's velocity gradient, Σᵢ (w_ip + ∇w_ip·(x_c − x_p)) vᵢ: a ball rolls on its sphere, not on the kinks
//    and lumps of its particles' spheres. Each contact is
//    SAP's near-rigid regularised friction cone (contact/constraints/friction_cone_contact.h; Castro et al. 2022,
//    Sec. V) on its Delassus estimate w = Σᵢ w_ip²/mᵢ + w_body: contact is accurate without a stiffness to tune.
// 3. One convex problem over v = (v_r, v_MPM) (the paper's Sec. V, Eq. 17):
//      min ½‖v − v*‖²_A + Σ_c ℓ_c(J_c v + b_c),   A = blockdiag(A_r, A_MPM),
//    reduced onto the grid dofs the contacts touch, c, by the Schur complement of A_MPM (Han, Masterjohn, Castro
//    2023; contact/schur_complement.h): A_MPM → S = A_cc − A_cn A_nn⁻¹ A_nc and v*_c the c part of v*_MPM. SAP's
//    Newton with exact line search solves the reduced problem (contact/sap_solver.h), the rigid constraints (rigid
//    contacts, controllers, limits, welds) in it unchanged; the other grid dofs follow by back-substitution,
//    v_n = A_nn⁻¹ (b_n − A_nc v_c). S is dense: when the contacts keep more than simulation.strong_dense_limit grid
//    dofs (a body resting on a table or a wall keeps thousands), the block is not reduced but joins whole, every grid
//    dof with A sparse, and the problem is solved over the rigid dofs and every block's dofs with each Newton step a
//    sparse Cholesky of H = A + JᵀGJ on a pattern analysed once (contact/sparse_newton.h), v* from the same
//    factorisation without contacts. Both minimise the same cost (StrongCoupling.SparseAndReducedJointSolvesAgree for
//    the grid, FemStrongCoupling.SparseAndReducedJointSolvesAgree for a soft body).
// 4. G2P with the solved grid velocities and the return map (plasticity after the step, the paper's Sec. VI); the
//    rigid state advances with the solved v_r.
// Without contacts the grid step is one Newton step of E by preconditioned conjugate gradients.
//
// The scheme itself knows no domain: each joins through its block (domain/strong_block.h), its free-motion A and b,
// its held dofs and its contacts with their stencils, and the scheme assembles over the blocks, the dense/sparse
// choice above made per block. The MPM domain's block is its grid (mpm/mpm_domain.cpp: 1, 2 and 4 above); the FEM
// soft bodies' is their linearised implicit step (fem/soft_free_motion.h), whose surface vertices the scheme
// searches for contacts against the frozen rigid geometry (a stencil of one vertex's three dofs, Delassus estimate
// 1/m) (docs/architecture.md, "FEM soft bodies in the strong scheme").
//
// Domain walls of kind sticky and slip hold the nodes outside the domain (bilateral); separate and friction walls
// are unilateral contacts of the particles near them, frictionless or with the walls' μ. Colliders, sand and cloth
// are the weak scheme's, as are affine bodies and contact between soft bodies (their domains refuse them under this
// one: MpmBackendDomain::Refusal, FemDomain::Refusal).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "contact/schur_complement.h"
#include "contact/sparse_newton.h"
#include "coupling/coupling_scheme.h"
#include "coupling/mpm_rigid_contact.h"
#include "domain/deformable_domain.h"

namespace ductile {

class StrongCoupling final : public CouplingScheme {
 public:
  void Advance(const Model& model, State::Data& state, CouplingStep& step) override;

 private:
  // A domain that joins the joint problem through its StrongBlock (domain/strong_block.h), with its reduction onto
  // its contacts' dofs.
  struct DomainBlock {
    DeformableDomain* domain = nullptr;
    StrongBlock block;
    std::vector<int> kept;         // the contacts' dofs (of the block), in order; every dof when not reduced
    std::vector<int> kept_of_dof;  // per dof of the block: its place among `kept`, or −1 (held)
    bool reduced = true;           // by its Schur complement (dense), or whole (sparse)
    contact::SchurComplement schur;
    int offset = 0;  // its first column in the joint problem
  };

  // Freezes the rigid geometry for the step's contact queries (rigid_contact_), when the scene has rigid bodies.
  void FreezeRigid(const Model& model, State::Data& state, CouplingStep& step);
  // The blocks of the domains that join (every domain's BuildStrongBlock) with their contacts: the domain's own and
  // those of its points.
  void BuildBlocks(const Model& model, CouplingStep& step);
  // A block's points' contacts against the frozen rigid geometry, each with a stencil of its three dofs.
  void FindPointContacts(const Model& model, StrongBlock& b) const;
  // A block contact's rows of the joint problem: the rigid dofs and its stencil's kept dofs. `rigid_A_inv` is the
  // inverse of the rigid block's diagonal (size nr), for the contact's Delassus estimate.
  void AddContact(const DomainBlock& d, const StrongContact& c, double dt, const CouplingStep& step,
                  const Eigen::VectorXd& rigid_A_inv, contact::SapProblem& joint) const;
  // The dofs of a block's contacts' stencils that are not held, in order (fills kept_of_dof), and whether it is
  // reduced onto them: while they are at most simulation.strong_dense_limit (file comment, 3). Every dof otherwise.
  static void KeepContactDofs(const Model& model, DomainBlock& d);
  // The rigid system and the blocks with contacts in one SAP problem, solved; each block gets its velocities
  // (block_v_).
  void SolveJoint(const Model& model, CouplingStep& step, contact::RigidStepProblem& rigid, contact::SapResult& result);
  // The Newton iteration's first guess over the joint problem's n dofs (rigid, each block's kept dofs).
  Eigen::VectorXd InitialGuess(int nr, const CouplingStep& step, int n) const;
  // The sparse joint problem's Newton system and its free motion (into joint.v_star).
  std::unique_ptr<contact::SparseNewtonSystem> SparseFreeMotion(const contact::RigidStepProblem& rigid, int n,
                                                                contact::SapProblem& joint) const;
  // Each block's velocities after the solve: its kept dofs' from `result`, the others by back-substitution (its free
  // motion when it had no contact); held dofs 0.
  void TakeBlockVelocities(const contact::SapResult& result);
  // The contacts' impulses on the rigid bodies (for the reports) and their counts; the blocks' contacts are the
  // joint problem's constraints from `first` on.
  void RecordImpulses(const contact::SapResult& result, int first, const contact::RigidSystem* rigid,
                      State::Data& state) const;

  std::unique_ptr<coupling::MpmRigidContact> rigid_contact_;
  const Model* contact_model_ = nullptr;  // the model rigid_contact_ was configured for
  bool frozen_ = false;                   // rigid_contact_ holds this step's frozen geometry
  std::vector<DomainBlock> blocks_;
  std::vector<Eigen::VectorXd> block_v_;  // per block: its dofs' solved velocities
};

}  // namespace ductile
