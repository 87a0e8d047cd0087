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
//    dofs (a body resting on a table or a wall keeps thousands), the problem is solved unreduced instead, over the
//    rigid dofs and every grid dof with A sparse, each Newton step a sparse Cholesky of H = A + JᵀGJ on a pattern
//    analysed once (contact/sparse_newton.h), v*_MPM from the same factorisation without contacts. Both minimise the
//    same cost (StrongCoupling.SparseAndReducedJointSolvesAgree).
// 4. G2P with the solved grid velocities and the return map (plasticity after the step, the paper's Sec. VI); the
//    rigid state advances with the solved v_r.
// Without contacts the grid step is one Newton step of E by preconditioned conjugate gradients.
//
// Other deformable domains join through their blocks (domain/strong_block.h; the FEM soft bodies' linearised implicit
// step, fem/soft_free_motion.h): each block's points touching rigid geometry are SAP friction cones on the rigid dofs
// and the point's dofs, the block is reduced onto those dofs by its own Schur complement and appended to the joint
// problem after the grid's, and its other dofs follow by back-substitution (docs/architecture.md, "FEM soft bodies in
// the strong scheme").
//
// Domain walls of kind sticky and slip hold the nodes outside the domain (bilateral); separate and friction walls
// are unilateral contacts of the particles near them, frictionless or with the walls' μ. Colliders, sand and cloth
// are the weak scheme's, as are affine bodies and contact between soft bodies (their domains refuse them under this
// one: MpmBackendDomain::Refusal, FemDomain::Refusal).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "contact/schur_complement.h"
#include "contact/sparse_newton.h"
#include "coupling/coupling_scheme.h"
#include "coupling/mpm_rigid_contact.h"
#include "coupling/object_surface.h"
#include "domain/deformable_domain.h"
#include "mpm/implicit_free_motion.h"

namespace ductile {

class StrongCoupling final : public CouplingScheme {
 public:
  void Advance(const Model& model, State::Data& state, CouplingStep& step) override;

  /// One particle contact of the step's problem (file comment, 2).
  struct Contact {
    int particle = -1;  ///< Storage index.
    int body = -1;      ///< Rigid body (−1: static geometry or a wall).
    Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();
    double phi = 0;       ///< Signed distance at the step's start [m].
    double friction = 0;  ///< Coulomb μ.
    /// Where it acts: the particle's centre, or a point of its object's surface (on_surface; file comment, 2).
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    bool on_surface = false;
  };

 private:
  // A domain that joins the joint problem through its StrongBlock (the FEM soft bodies; domain/strong_block.h), with
  // the step's contacts of its points (Contact::particle is the point) and its reduction onto their dofs.
  struct DomainBlock {
    DeformableDomain* domain = nullptr;
    StrongBlock block;
    std::vector<Contact> contacts;
    std::vector<int> kept;         // the contacts' dofs (of the block), in order
    std::vector<int> kept_of_dof;  // per dof of the block: its place among `kept`, or −1
    contact::SchurComplement schur;
    int offset = 0;  // its first column in the joint problem
  };

  // Freezes the rigid geometry for the step's contact queries (rigid_contact_), when the scene has rigid bodies.
  void FreezeRigid(const Model& model, State::Data& state, CouplingStep& step);
  // The step's contacts against the frozen rigid geometry and the unilateral walls.
  std::vector<Contact> FindContacts(const Model& model, const State::Data& state);
  // The blocks of the domains that join (every domain's BuildStrongBlock) and their points' contacts.
  void BuildBlocks(const Model& model, CouplingStep& step);
  // A block contact's rows of the joint problem: the rigid dofs and the point's three dofs.
  void AddBlockContact(const DomainBlock& d, const Contact& c, double dt, const CouplingStep& step,
                       const Eigen::VectorXd& rigid_A_inv, contact::SapProblem& joint) const;
  // Moves the contacts of particles whose objects carry a surface onto it (coupling/object_surface.h) and drops
  // those whose gap is beyond the reach. The particles about a ball's lowest point all find that point: each keeps
  // its contact there, so that they share the load as the particles of a contact patch do (one contact with a
  // Delassus estimate from one particle's stencil, Σ w²/mᵢ, held a dropped ball 2.4 mm deep in a one-off run of
  // that variant; all of them hold it 0.088 mm deep: StrongCoupling.ABallRestsOnItsSphereNotOnItsParticles).
  void OntoSurfaces(const Model& model, const mpm::Particles& particles, const std::vector<double>& radius,
                    std::vector<Contact>& contacts) const;
  // The contact's rows of the joint problem (its Jacobian over the rigid dofs and the kept grid dofs).
  // `rigid_A_inv` is the inverse of the rigid block's diagonal (size nr), for the contact's Delassus estimate.
  void AddContact(const Contact& c, double dt, const CouplingStep& step, const Eigen::VectorXd& rigid_A_inv,
                  contact::SapProblem& joint) const;
  // The free motion of the step's particles (materials, walls).
  void BuildFreeMotion(const Model& model, const State::Data& state);
  // The grid dofs the contacts' stencils touch that are not held (by a wall, or as a node without mass), in order;
  // fills kept_of_dof_ with their places.
  std::vector<int> KeptDofs(const std::vector<Contact>& contacts);
  // The grid velocities and the rigid solve with contacts: the joint problem reduced onto the kept grid dofs.
  // With `with_mpm` false the MPM grid stays out of it (no particle contact: its free motion is solved alone); the
  // blocks with contacts join reduced onto their contacts' dofs, and each gets its velocities (block_v_).
  Eigen::VectorXd SolveJoint(const Model& model, const std::vector<Contact>& contacts, bool with_mpm,
                             CouplingStep& step, contact::RigidStepProblem& rigid, contact::SapResult& result);
  // The Newton iteration's first guess over the joint problem's n dofs (rigid, kept grid dofs, blocks' kept dofs).
  Eigen::VectorXd InitialGuess(const Model& model, const std::vector<int>& kept, const std::vector<bool>& fixed, int nr,
                               const CouplingStep& step, int n) const;
  // The unreduced joint problem's Newton system and its free motion (into joint.v_star); `b` the grid's right-hand
  // side, n the joint problem's size.
  std::unique_ptr<contact::SparseNewtonSystem> SparseFreeMotion(const contact::RigidStepProblem& rigid,
                                                                const Eigen::VectorXd& b, int n,
                                                                contact::SapProblem& joint) const;
  // Each block with contacts reduced onto their dofs (its Schur complement); returns how many dofs they keep.
  int ReduceBlocks();
  // The reduced blocks into the joint problem from column `offset` on: into the dense A and v* when `reduce`, else
  // appended to the sparse A (v* comes from the Newton system's factorisation then). Sets each block's offset.
  void AppendBlocks(bool reduce, int offset, contact::SapProblem& joint);
  // Each block's velocities after the solve: its kept dofs' from `result`, the others by back-substitution (its free
  // motion when it had no contact); held dofs 0.
  void TakeBlockVelocities(const contact::SapResult& result);
  // The contacts' impulses on the rigid bodies (for the reports) and their counts.
  void RecordImpulses(const std::vector<Contact>& contacts, const contact::SapResult& result, int first,
                      const contact::RigidSystem* rigid, State::Data& state) const;

  std::unique_ptr<coupling::MpmRigidContact> rigid_contact_;
  const Model* contact_model_ = nullptr;  // the model rigid_contact_ was configured for
  coupling::ObjectSurfaces surfaces_;
  const Model* surface_model_ = nullptr;  // the model surfaces_ were taken from
  mpm::ImplicitParticles particles_;      // the step's particles in double precision
  mpm::ImplicitFreeMotion free_motion_;
  std::vector<int> kept_of_dof_;  // per grid dof: its place among the kept dofs, or −1
  bool frozen_ = false;           // rigid_contact_ holds this step's frozen geometry
  std::vector<DomainBlock> blocks_;
  std::vector<Eigen::VectorXd> block_v_;  // per block: its dofs' solved velocities
};

}  // namespace ductile
