// The settings of the MPM-rigid contact solve (contact/mpm_contact_solver.h), in a header of their own without Eigen:
// the device backend's solve (backend/device_contact.h) takes the same ones.
#pragma once

namespace ductile::contact {

struct GridContactParams {
  double abs_tolerance = 1e-6;  ///< ε_a.
  double rel_tolerance = 5e-2;  ///< ε_r (Yu et al. 2025 default).
  int max_iterations = 100;
  double alpha_max = 1.5;
  /// Conjugate-gradient steps that refine each block-diagonal direction toward the full Newton step on
  /// (M + JᵀGJ)Δv = −∇ℓ (0: Algorithm 1's block-diagonal step alone). Sticking contacts couple neighbouring
  /// nodes strongly, and the block-diagonal step alone then converges only linearly.
  int cg_iterations = 20;
  /// CG stops when its residual (D-norm) falls by max(cg_reduction, min(0.5, ½·bound/‖D∇ℓ‖)): no further than the
  /// stopping rule needs (inexact Newton), at least 2x.
  double cg_reduction = 1e-2;
  /// Up to this many contacts each Newton direction is exact: H⁻¹ by the Woodbury identity in contact space, one
  /// dense LU of size 3C (about (2/3)(3C)³ flops: 18 Mflop at 100 contacts); above it, CG as above.
  int dense_contacts = 100;
  /// Near-rigid contacts (the friction cone) that slide within this factor of the cone's edge take the stiction
  /// branch's Hessian R⁻¹ in the Newton directions (1: the exact Hessian). The cone's Hessian drops from 1/(σw)
  /// to μγ_n/‖v_t‖ across the edge, so a direction computed where a contact barely slides moves it freely along
  /// its slip until it sticks again, and the line search cuts the step there: with 2, a resting cloth sheet's solve
  /// took 6.3 Newton iterations a substep instead of 8.2 (temporary builds; see
  /// bench/results/amd-epyc-2core-contact-defaults.md). The directions stay descent directions (M + JᵀGJ stays
  /// positive definite) and the exact line search keeps the cost decreasing.
  double stiction_band = 2;
  /// The band applies to the first this many iterations; after them the exact Hessian gives back Newton's fast
  /// local convergence where a contact really slides that slowly at the solution (a near-rigid unit-test problem
  /// solved to ε_r = 1e-6 took 84 iterations with the band throughout, 23 without it and 17 with it for 10:
  /// MpmContactSolver.StictionBandReachesTheSameMinimiser's trial 3 records the three).
  int stiction_band_iterations = 10;
};

}  // namespace ductile::contact
