// `ductile-cli grad`: the loss of a run of a scene's pd bodies and its gradient by scene keys (Simulator::
// LossAndGradient, ductile/gradient.h; docs/cli.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile::cli {

struct GradOptions {
  std::string scene;
  std::vector<Override> overrides;  ///< --set.
  std::string loss_file;            ///< --loss: the loss terms (YAML).
  std::string wrt;                  ///< --wrt: comma-separated parameter keys.
  std::optional<int> steps;         ///< --steps: default, the last loss term's step.
  int checkpoint_interval = 1;      ///< --checkpoint.
  bool json = false;                ///< --json: JSON on stdout instead of the table.
  bool check_fd = false;            ///< --check-fd: five-point central differences beside the gradient.
};

/// Prints the loss and gradient. Returns the exit code: kExitBadInput for a bad scene, loss file or key;
/// kExitFailure when a forward step or adjoint solve did not converge, or --check-fd finds a gradient more than 1e-4
/// (relative) off its differences.
int Grad(const GradOptions& options);

}  // namespace ductile::cli
