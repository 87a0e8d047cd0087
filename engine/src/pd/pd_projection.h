// The local step of projective dynamics: each term's Y = X_eᵀ S, its projection P onto the term's constraint set,
// and the projections' derivatives that the adjoint needs (the sets and projections: pd/pd_model.h). A term's Y and
// P are 3x3 matrices; a muscle term's live in column 0 (the rest zero).
//
//   strain   P = c R,                      dP = c dR,                              ∂P/∂c = R
//   volume   P = F + (c − tr S/3) R,         dP = dF − tr(Rᵀ dF)/3 R + (c − tr S/3) dR,  ∂P/∂c = R
//            (tr(dRᵀ F) = tr([ω]×ᵀ S) = 0: a skew matrix against a symmetric one)
//   muscle   P = ℓ f/‖f‖,                   dP = ℓ (I − f̂ f̂ᵀ) df / ‖f‖,              ∂P/∂ℓ = f̂
//
// with dR the rotation differential of core/signed_polar.h, c = a^{1/3} for a pneumatic cell's terms (1 otherwise),
// ℓ = 1 − κa for a muscle's. Each P is the closest point of its set, so dP is self-adjoint (the Hessian of
// ½ dist²(Y) is I − dP) and the adjoint's matrix is symmetric. A fibre shortened to ‖f‖ below 1e-12 keeps its last
// direction undefined: P = 0 and dP = 0 there.
#pragma once

#include <Eigen/Core>

#include "core/signed_polar.h"
#include "pd/pd_model.h"

namespace ductile::pd {

/// Y = X_eᵀ S of `term` for the positions `q` (n x 3) [–].
Eigen::Matrix3d TermY(const PdModel& model, const Term& term, const Eigen::MatrixX3d& q);

/// X_eᵀ S for a 4x3 corner matrix X_e: Y's differential for corner displacements.
Eigen::Matrix3d StencilApply(const PdModel& model, const Term& term, const Eigen::Matrix<double, 4, 3>& corners);

/// S Yᵀ (4x3): the term's corner forces per unit weight for a 3x3 Y (only column 0 of a muscle term's Y is read).
Eigen::Matrix<double, 4, 3> StencilTranspose(const PdModel& model, const Term& term, const Eigen::Matrix3d& Y);

/// The target c (strain, volume) or ℓ (muscle) of `term` under `controls` (file comment).
double TermTarget(const PdModel& model, const Term& term, const PdControls& controls);
/// dc/da or dℓ/da of `term` under `controls`; 0 for a term without an actuator.
double TermTargetDerivative(const PdModel& model, const Term& term, const PdControls& controls);

/// A term's projection at its Y, with what its derivatives need.
struct TermProjection {
  Eigen::Matrix3d Y;
  Eigen::Matrix3d P;
  SignedPolar polar;  ///< Strain and volume terms.
  double target = 1;  ///< c or ℓ.
};

/// The projection of `Y` for a term of `kind` with target c or ℓ (file comment).
TermProjection Project(TermKind kind, const Eigen::Matrix3d& Y, double target);

/// dP in direction dY (file comment).
Eigen::Matrix3d ProjectionDifferential(TermKind kind, const TermProjection& projection, const Eigen::Matrix3d& dY);

/// ∂P/∂c or ∂P/∂ℓ (file comment).
Eigen::Matrix3d ProjectionTargetDerivative(TermKind kind, const TermProjection& projection);

}  // namespace ductile::pd
