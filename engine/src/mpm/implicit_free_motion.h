// The free motion of one implicit MPM step (Zong, Jiang, Han 2024, "A convex formulation of frictional contact
// between rigid and deformable bodies", Sec. IV; docs/architecture.md, "Implicit MPM free motion"): the first stage
// of the strong coupling, built and tested on its own, not yet stepped by a coupling scheme.
//
// P2G gives each active grid node its mass mᵢ and the velocity ṽᵢ = (Σ_p w_ip m_p (v_p + C_p (xᵢ − x_p)))/mᵢ + Δt g
// (APIC, Jiang et al. 2015). The step's grid velocities minimise
//
//   E(v) = ½ Σᵢ mᵢ ‖vᵢ − ṽᵢ‖² + Σ_p V_p Ψ_p(F_p(v)),     F_p(v) = (I + Δt Σᵢ vᵢ ∇w_ipᵀ) F_pⁿ
//
// (the paper's E_MPM, Eq. 11, up to a constant), with the lagged-rotation linear corotated energy
//
//   Ψ_p(F) = μ ‖ε‖² + λ/2 tr(ε)²,   ε = sym(R_pᵀ F) − I,   R_p the rotation of F_pⁿ's polar decomposition,
//   P_p(F) = ∂Ψ_p/∂F = R_p (2μ ε + λ tr(ε) I).
//
// F_p is affine in v and Ψ_p quadratic in F, so E is a convex quadratic and one Newton step solves it:
//
//   ∇E(v)ᵢ = mᵢ (vᵢ − ṽᵢ) + Δt Σ_p V_p P_p(F_p(v)) F_pⁿᵀ ∇w_ip,
//   (H u)ᵢ = mᵢ uᵢ + Δt² Σ_p V_p δP_p(δF_p) F_pⁿᵀ ∇w_ip,   δF_p = Σⱼ uⱼ ∇w_jpᵀ F_pⁿ,
//   δP_p(δF) = R_p (2μ sym(R_pᵀ δF) + λ tr(R_pᵀ δF) I),
//
// H = ∇²E positive definite (M > 0 and the energy term PSD): H δ = −∇E(v₀) by conjugate gradients (Jacobi
// preconditioned), in double. G2P then gives the particles v_p = Σᵢ w_ip vᵢ, the APIC C_p = (4/h²) Σᵢ w_ip vᵢ (xᵢ −
// x_p)ᵀ and F_p = F_p(v) with its spin as an exact rotation (ObjectiveStepDeformation); relative to its body's mean
// velocity each particle moves and turns with that rotation (Apply: rigid motions stay rigid), then the von
// Mises return map of Zong et al. 2024, Algorithm 1, with the
// step's lagged rotation R_p (constitutive/linear_corotated.h) when the material has a yield stress: plasticity
// after the step, as the paper does. Domain walls as bilateral constraints on the nodes outside the domain (sticky:
// v = 0; slip: the normal component 0, per axis the node lies outside on): E minimised over that subspace, the
// constrained components held at 0 through the CG (projected). Unilateral walls and colliders are contacts, for
// the strong scheme's contact problem; not here yet.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/small_math.h"
#include "mpm/constitutive/linear_corotated.h"

namespace ductile::mpm {

/// Particles of linear corotated materials as the implicit step reads and writes them.
struct ImplicitParticles {
  std::vector<Eigen::Vector3d> x;  ///< Position [m].
  std::vector<Eigen::Vector3d> v;  ///< Velocity [m/s].
  std::vector<Eigen::Matrix3d> C;  ///< APIC affine velocity [1/s].
  std::vector<Eigen::Matrix3d> F;  ///< Deformation gradient [-].
  std::vector<double> mass;        ///< [kg].
  std::vector<double> volume;      ///< Rest volume [m³].
  std::vector<int> material;       ///< Per particle its index into the materials; empty: all the first.
  /// Per particle the body it belongs to (Model::objects), whose mean velocity Apply moves it relative to; empty:
  /// one body.
  std::vector<int> object;
  std::vector<double> plastic_strain;  ///< Accumulated plastic strain [-]; Apply adds to it when it is sized.
};

struct ImplicitMaterial {
  double mu = 0;            ///< Lamé μ [Pa].
  double lambda = 0;        ///< Lamé λ [Pa].
  double yield_stress = 0;  ///< η [Pa]: von Mises bound on ‖dev s‖_F after the step; 0 = elastic.
  /// A fluid (μ = 0, λ its bulk stiffness): after the step F keeps only its volume change, F = J^(1/3) I, so that
  /// the flow keeps no memory of shear and the lagged rotation stays the identity.
  bool fluid = false;
};

/// The quadratic problem of one step and its solution (file comment). Build, then Solve, then Apply.
class ImplicitFreeMotion {
 public:
  /// P2G onto a grid of spacing h with a node at `origin`; every particle's stencil, lagged rotation and F_pⁿ;
  /// `materials` indexed by ImplicitParticles::material.
  void Build(const ImplicitParticles& particles, const std::vector<ImplicitMaterial>& materials, double h,
             const Eigen::Vector3d& origin, double dt, const Eigen::Vector3d& gravity);

  /// Domain walls after Build: the nodes outside [min, max] held (sticky: every component; slip: the components
  /// along the axes on which the node lies outside).
  void SetWalls(const Eigen::Vector3d& min, const Eigen::Vector3d& max, bool sticky);

  int num_nodes() const { return static_cast<int>(mass_.size()); }
  /// The velocities v (3 per node, in node order) that P2G gave, ṽ.
  const Eigen::VectorXd& free_velocity() const { return v_tilde_; }
  const std::vector<double>& node_mass() const { return mass_; }
  /// Per dof, whether a wall holds it at 0 (SetWalls).
  const std::vector<bool>& fixed() const { return fixed_; }
  /// Particle p's 27 stencil nodes (indices into the node order) and weights w_ip.
  const std::array<int, 27>& stencil_nodes(int p) const { return stencil_[static_cast<std::size_t>(p)].node; }
  const std::array<double, 27>& stencil_weights(int p) const { return stencil_[static_cast<std::size_t>(p)].w; }
  /// Their gradients ∇w_ip [1/m].
  const std::array<Eigen::Vector3d, 27>& stencil_gradients(int p) const {
    return stencil_[static_cast<std::size_t>(p)].grad;
  }
  /// World position of node i [m].
  Eigen::Vector3d NodePosition(int i) const {
    const std::array<int, 3>& c = node_coord_[static_cast<std::size_t>(i)];
    return origin_ + h_ * Eigen::Vector3d(c[0], c[1], c[2]);
  }
  /// b with E(v) = ½ vᵀ H v − bᵀ v + const: −∇E(0).
  Eigen::VectorXd RightHandSide() const { return -Gradient(Eigen::VectorXd::Zero(v_tilde_.size())); }

  double Energy(const Eigen::VectorXd& v) const;
  Eigen::VectorXd Gradient(const Eigen::VectorXd& v) const;
  /// H u; H does not depend on v (E is quadratic).
  Eigen::VectorXd HessianTimes(const Eigen::VectorXd& u) const;
  /// H assembled (both triangles), for a sparse factorisation and the Schur complement onto contact dofs. Per
  /// particle, with gⱼ = F_pⁿᵀ ∇w_jp, the 3x3 block between nodes j and k is
  /// Δt² V_p R_p (μ (gⱼ·g_k) I + μ g_k gⱼᵀ + λ gⱼ g_kᵀ) R_pᵀ (from μ‖sym A‖² + λ/2 tr(A)², A = Σⱼ R_pᵀuⱼ gⱼᵀ).
  Eigen::SparseMatrix<double> AssembleHessian() {
    Eigen::SparseMatrix<double> H;
    AssembleHessian(H);
    return H;
  }
  /// The same into `H`, compressed, whose storage it reuses (as it does its own scratch: a step of the strong scheme
  /// allocates nothing here once the grid stops growing). With `held` (per dof), a held dof's row and column are the
  /// identity's.
  void AssembleHessian(Eigen::SparseMatrix<double>& H, const std::vector<bool>* held = nullptr);

  /// One Newton step from ṽ: H δ = −∇E(ṽ) by preconditioned conjugate gradients to a residual of
  /// `tolerance` times ‖∇E(ṽ)‖, at most `max_iterations`. Returns v; iterations() says how many it took.
  Eigen::VectorXd Solve(double tolerance = 1e-12, int max_iterations = 10000);
  int iterations() const { return iterations_; }

  /// G2P with the grid velocities v: the particles' v, C, x and F (returned to the yield surface).
  void Apply(const Eigen::VectorXd& v, ImplicitParticles& particles) const;

 private:
  struct Stencil {
    std::array<int, 27> node;
    std::array<double, 27> w;
    std::array<Eigen::Vector3d, 27> grad;  // ∇w_ip [1/m]
  };
  // F_p(v) = (I + Δt Σᵢ vᵢ ∇w_ipᵀ) F_pⁿ.
  Mat3<double> StepDeformation(int p, const Eigen::VectorXd& v) const;
  // The F stored after the step: (I + L) F_pⁿ, L = Δt ∇v, with its spin W = skew(L) taken as the rotation Q = (I −
  // W/2)⁻¹(I + W/2) (Hughes and Winget 1980; Apply computes Q once for this and for the particle's turn): Q (I +
  // sym L) F_pⁿ, (I + L) F_pⁿ to first order. The linearised update stretches a body spinning by ω Δt per step by
  // √(1 + ω²Δt²), 6% a step at 35 rad/s and 10 ms (test ImplicitFreeMotion.SpinningBlockKeepsItsShape).
  Mat3<double> ObjectiveStepDeformation(int p, const Eigen::Matrix3d& L, const Eigen::Matrix3d& Q) const;
  // Particle p's F after the step from its ∇v and Q: the objective update and the return map (adding to
  // `plastic`), or for a fluid its volume ratio alone.
  Eigen::Matrix3d StepF(std::size_t p, const Eigen::Matrix3d& gradient, const Eigen::Matrix3d& Q,
                        double& plastic) const;
  // G2P: each particle's velocity and APIC C at its position at the step's start.
  void G2P(const Eigen::VectorXd& v, const ImplicitParticles& particles, std::vector<Eigen::Vector3d>& vp,
           std::vector<Eigen::Matrix3d>& Cp) const;
  // Particle p's material as the constitutive model (constitutive/linear_corotated.h: Ψ, P, the return map).
  LinearCorotated<double> ModelOf(std::size_t p) const;
  // δF_p for grid velocities u (without F_pⁿ's factor on the right: Σⱼ uⱼ ∇w_jpᵀ).
  Eigen::Matrix3d VelocityGradient(int p, const Eigen::VectorXd& u) const;
  // Adds Δt V_p P F_pⁿᵀ ∇w_ip to each node i of particle p, scaled by `scale`.
  void ScatterStress(int p, const Eigen::Matrix3d& P, double scale, Eigen::VectorXd& out) const;

  const ImplicitMaterial& MaterialOf(std::size_t p) const {
    return materials_[material_of_.empty() ? 0 : static_cast<std::size_t>(material_of_[p])];
  }

  std::vector<ImplicitMaterial> materials_;
  std::vector<int> material_of_;
  double h_ = 1, dt_ = 0;
  Eigen::Vector3d origin_ = Eigen::Vector3d::Zero();
  std::vector<std::array<int, 3>> node_coord_;
  std::vector<double> mass_;
  Eigen::VectorXd v_tilde_;
  std::vector<Stencil> stencil_;
  std::vector<Mat3<double>> rotation_;  // R_p, the lagged rotation (PolarRotation3 of F_pⁿ)
  std::vector<Eigen::Matrix3d> F_;
  std::vector<double> volume_;
  std::vector<bool> fixed_;  // per dof: held at 0 by a wall
  int iterations_ = 0;
  // AssembleHessian's first part: each coupled pair of nodes' 3x3 block of H without the mass, into the scratch.
  void SumHessianBlocks();
  // AssembleHessian's scratch, kept from call to call: per node and offset code its summed 3x3 block and partner node,
  // and per node its partners in increasing order with their codes.
  std::vector<Eigen::Matrix3d> hessian_blocks_;
  std::vector<int> hessian_partner_;
  std::vector<std::pair<int, int>> hessian_partners_;
  std::vector<int> hessian_first_;  // per node: where its partners start in hessian_partners_
};

}  // namespace ductile::mpm
