// Gradients of a loss over a run with respect to scene parameters (docs/architecture.md, "Gradients in scenes"): what
// Simulator::LossAndGradient, `ductile-cli grad` and Python's `loss_and_grad` take and give. Plain data, and the
// loss file's reader.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace ductile {

/// What a loss term measures of a body.
enum class LossQuantity {
  kCenterOfMass,  ///< Its centre of mass [m].
  kVelocity,      ///< Its centre of mass's velocity [m/s].
};

/// One term w/2 ‖x(t) − target‖² of a loss: a quantity x of a body at the step nearest time t.
struct LossTerm {
  std::string body;  ///< A pd body of the scene (`pd_bodies`).
  LossQuantity quantity = LossQuantity::kCenterOfMass;
  double time = 0;  ///< [s], within the run.
  std::array<double, 3> target{0, 0, 0};
  double weight = 1;
};

/// A loss over a run of `steps` steps from the scene's initial state and the parameters to differentiate it by.
struct GradientRequest {
  std::vector<LossTerm> loss;    ///< L = Σ terms.
  std::vector<std::string> wrt;  ///< Parameter keys (Simulator::LossAndGradient lists those it takes).
  int steps = 0;                 ///< ≥ 1, or 0: the last loss term's step.
  int checkpoint_interval = 1;   ///< A state kept every k ≥ 1 steps; the rest recomputed in the backward pass.
  bool check_fd = false;         ///< Also central differences of the loss for every parameter.
};

/// The loss and its gradient: one entry per scalar parameter (a vector parameter gives three, `key[0]` to `key[2]`).
struct GradientResult {
  double loss = 0;
  int steps = 0;  ///< The run's steps.
  std::vector<std::string> names;
  std::vector<double> values;    ///< The parameters' values.
  std::vector<double> gradient;  ///< ∂L/∂(each).
  /// With check_fd: five-point central differences (L(p − 2δ) − 8L(p − δ) + 8L(p + δ) − L(p + 2δ)) / 12δ,
  /// δ = 1e-4 max(|p|, 1).
  std::vector<double> central_difference;
  bool converged = true;              ///< Every forward step met its tolerance, every adjoint solve succeeded.
  bool differences_converged = true;  ///< Every forward step of the differences' runs met its tolerance.
  std::string error;                  ///< Why there is no result (a bad key, a body that is not a pd body).
};

/// The quantity a loss term names: `center_of_mass` or `velocity`; false for another name.
bool LossQuantityFromName(const std::string& name, LossQuantity& quantity);

/// Reads a loss file: `loss:` a list of {body, quantity (`center_of_mass` or `velocity`), time, target, weight}.
/// Throws SceneError naming the file, line and column of a bad entry.
std::vector<LossTerm> LoadLossFile(const std::filesystem::path& file);

}  // namespace ductile
