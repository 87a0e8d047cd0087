// The gradient of a loss over a run of a scene's projective-dynamics bodies with respect to scene parameters
// (docs/architecture.md, "Gradients in scenes"): each pd body's trajectory from the scene's initial state through
// grad::PdLossAndGradient, the per-tet and per-step gradients summed onto the scene's keys. What
// Simulator::LossAndGradient runs.
#pragma once

#include <string>
#include <vector>

#include "ductile/gradient.h"
#include "ductile/model.h"

namespace ductile {

/// The keys a gradient can be taken by, `*` standing for a pd body's name.
const std::vector<std::string>& GradientKeys();

/// L and ∂L/∂(each key of request.wrt) for `model` at its current (live) parameters; `error` set instead when the
/// request cannot be answered (a key that is not a gradient key, a loss term on a body that is not a pd body or after
/// the run, a scene whose pd bodies touch rigid geometry other than static planes).
GradientResult ComputeSceneGradient(const Model& model, const GradientRequest& request);

}  // namespace ductile
