#include "grad_command.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "ductile/gradient.h"
#include "ductile/model.h"
#include "ductile/simulator.h"
#include "run_command.h"
#include "run_support.h"

namespace ductile::cli {

namespace {

std::vector<std::string> SplitKeys(const std::string& text) {
  std::vector<std::string> keys;
  std::stringstream in(text);
  std::string key;
  while (std::getline(in, key, ','))
    if (!key.empty()) keys.push_back(key);
  return keys;
}

// |g − d| / |d| (|g − d| where d = 0).
double RelativeError(double gradient, double difference) {
  const double error = std::abs(gradient - difference);
  return difference != 0 ? error / std::abs(difference) : error;
}

void PrintJson(const std::string& scene, int steps, const GradientResult& r) {
  std::cout << std::setprecision(17) << "{\n  \"scene\": " << JsonString(scene) << ",\n  \"steps\": " << steps
            << ",\n  \"loss\": " << r.loss << ",\n  \"converged\": " << (r.converged ? "true" : "false");
  const auto object = [&](const char* name, const std::vector<double>& values) {
    std::cout << ",\n  \"" << name << "\": {";
    for (std::size_t k = 0; k < values.size(); ++k)
      std::cout << (k ? ", " : "") << JsonString(r.names[k]) << ": " << values[k];
    std::cout << "}";
  };
  if (!r.central_difference.empty())
    std::cout << ",\n  \"differences_converged\": " << (r.differences_converged ? "true" : "false");
  object("values", r.values);
  object("gradient", r.gradient);
  if (!r.central_difference.empty()) object("central_difference", r.central_difference);
  std::cout << "\n}\n";
}

void PrintTable(const std::string& scene, int steps, double dt, const GradientResult& r) {
  std::cout << scene << ": loss " << std::setprecision(10) << r.loss << " over " << steps << " steps of " << dt << " s"
            << (r.converged ? "" : " (NOT CONVERGED: a forward step or adjoint solve missed its tolerance)") << '\n';
  if (!r.central_difference.empty() && !r.differences_converged)
    std::cout << "  (a forward step of the differences' runs missed its tolerance: they may be off)\n";
  for (std::size_t k = 0; k < r.names.size(); ++k) {
    std::cout << "  " << std::left << std::setw(40) << r.names[k] << std::right << " = " << std::setw(12)
              << std::setprecision(6) << r.values[k] << "   dL/dp = " << std::setw(16) << std::setprecision(10)
              << r.gradient[k];
    if (!r.central_difference.empty())
      std::cout << "   differences " << std::setw(16) << r.central_difference[k] << "   relative error "
                << std::setprecision(2) << RelativeError(r.gradient[k], r.central_difference[k]);
    std::cout << '\n';
  }
}

}  // namespace

int Grad(const GradOptions& options) {
  const auto model = std::make_shared<const Model>(CompileModel(LoadScene(options.scene, options.overrides)));
  GradientRequest request;
  request.loss = LoadLossFile(options.loss_file);
  request.wrt = SplitKeys(options.wrt);
  request.checkpoint_interval = options.checkpoint_interval;
  request.check_fd = options.check_fd;
  request.steps = options.steps.value_or(0);  // 0: the last term's step
  const Simulator sim(model);
  const GradientResult result = sim.LossAndGradient(request);
  if (!result.error.empty()) {
    std::cerr << options.scene << ": " << result.error << '\n';
    return kExitBadInput;
  }
  if (options.json) {
    PrintJson(options.scene, result.steps, result);
  } else {
    PrintTable(options.scene, result.steps, model->dt, result);
  }
  bool agree = true;
  for (std::size_t k = 0; k < result.central_difference.size(); ++k)
    agree = agree && RelativeError(result.gradient[k], result.central_difference[k]) <= 1e-4;
  if (!agree) std::cerr << "the gradient differs from the central differences by more than 1e-4 (relative)\n";
  return result.converged && agree ? kExitOk : kExitFailure;
}

}  // namespace ductile::cli
