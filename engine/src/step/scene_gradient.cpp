#include "step/scene_gradient.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "grad/pd_gradient.h"
#include "model/pd_bodies.h"
#include "model/rigid_model.h"

namespace ductile {

namespace {

enum class Param {
  kYoungsModulus,
  kPoissonRatio,
  kVelocity,
  kPneumaticRatio,
  kMuscleActivation,
  kJointTorque,
  kFriction
};

// One scalar to differentiate by.
struct Wrt {
  Param param = Param::kFriction;
  int body = -1;      // for a body's parameter
  int component = 0;  // of the velocity, or the bone of a joint torque
  std::string name;
};

// The parameters one evaluation runs with: per pd body its material, initial velocity and activations, and μ.
struct Setup {
  struct Body {
    double youngs_modulus = 0, poisson_ratio = 0, pneumatic_ratio = 1, muscle_activation = 0;
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
    std::vector<double> joint_torques;
  };
  std::vector<Body> bodies;
  double friction = 0;

  double& At(const Wrt& w) {
    if (w.param == Param::kFriction) return friction;
    Body& b = bodies[static_cast<std::size_t>(w.body)];
    switch (w.param) {
      case Param::kYoungsModulus:
        return b.youngs_modulus;
      case Param::kPoissonRatio:
        return b.poisson_ratio;
      case Param::kVelocity:
        return b.velocity[w.component];
      case Param::kPneumaticRatio:
        return b.pneumatic_ratio;
      case Param::kJointTorque:
        return b.joint_torques[static_cast<std::size_t>(w.component)];
      case Param::kMuscleActivation:
      case Param::kFriction:
        break;
    }
    return b.muscle_activation;
  }
};

std::string Cat(const auto&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

int BodyIndex(const PdBodiesModel& pd, const std::string& name) {
  for (std::size_t b = 0; b < pd.bodies.size(); ++b)
    if (pd.bodies[b].name == name) return static_cast<int>(b);
  return -1;
}

std::string BodyNames(const PdBodiesModel& pd) {
  std::string out;
  for (const PdBodiesModel::Body& b : pd.bodies) out += (out.empty() ? "" : ", ") + b.name;
  return out;
}

std::string KeyList() {
  std::string keys;
  for (const std::string& k : GradientKeys()) keys += (keys.empty() ? "" : ", ") + k;
  return keys;
}

// pd_bodies.BODY.skeleton.BONE.torque (`skeleton` where ".skeleton." starts), or why it is not a gradient key.
std::string ParseTorqueKey(const PdBodiesModel& pd, const std::string& key, std::size_t skeleton,
                           std::vector<Wrt>& out) {
  const std::size_t prefix = std::string("pd_bodies.").size(), bone_start = skeleton + std::string(".skeleton.").size();
  const std::size_t dot = key.find('.', bone_start);
  if (dot == std::string::npos || key.substr(dot + 1) != "torque")
    return Cat("cannot differentiate by '", key, "': the gradient keys are ", KeyList());
  const std::string body = key.substr(prefix, skeleton - prefix), bone = key.substr(bone_start, dot - bone_start);
  const int b = BodyIndex(pd, body);
  if (b < 0) return Cat("cannot differentiate by '", key, "': no pd body '", body, "' (", BodyNames(pd), ")");
  const std::vector<std::string>& names = pd.bodies[static_cast<std::size_t>(b)].bone_names;
  const auto found = std::find(names.begin(), names.end(), bone);
  if (found == names.end()) {
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    return Cat("cannot differentiate by '", key, "': pd body '", body, "' has no bone '", bone,
               "' (bones: ", listed.empty() ? "none" : listed, ")");
  }
  out.push_back({Param::kJointTorque, b, static_cast<int>(found - names.begin()), key});
  return {};
}

// The scalars of `key`, or why it is not a gradient key.
std::string ParseKey(const PdBodiesModel& pd, const std::string& key, std::vector<Wrt>& out) {
  if (key == "pd.friction") {
    out.push_back({Param::kFriction, -1, 0, key});
    return {};
  }
  const std::string prefix = "pd_bodies.";
  if (const std::size_t skeleton = key.find(".skeleton.", prefix.size());
      key.rfind(prefix, 0) == 0 && skeleton != std::string::npos)
    return ParseTorqueKey(pd, key, skeleton, out);
  const std::size_t dot = key.rfind('.');
  if (key.rfind(prefix, 0) == 0 && dot > prefix.size()) {
    const std::string body = key.substr(prefix.size(), dot - prefix.size()), name = key.substr(dot + 1);
    const int b = BodyIndex(pd, body);
    if (b < 0) return Cat("cannot differentiate by '", key, "': no pd body '", body, "' (", BodyNames(pd), ")");
    const std::pair<const char*, Param> params[] = {{"youngs_modulus", Param::kYoungsModulus},
                                                    {"poisson_ratio", Param::kPoissonRatio},
                                                    {"pneumatic_ratio", Param::kPneumaticRatio},
                                                    {"muscle_activation", Param::kMuscleActivation}};
    for (const auto& [text, param] : params)
      if (name == text) {
        out.push_back({param, b, 0, key});
        return {};
      }
    if (name == "velocity") {
      for (int k = 0; k < 3; ++k) out.push_back({Param::kVelocity, b, k, Cat(key, '[', k, ']')});
      return {};
    }
  }
  return Cat("cannot differentiate by '", key, "': the gradient keys are ", KeyList());
}

// Why the request cannot be answered for `model`, or empty.
std::string Refusal(const Model& model, const GradientRequest& request) {
  if (!model.pd || model.pd->empty()) return "the scene has no pd bodies (gradients are taken over pd bodies)";
  if (request.steps < 1) return Cat("steps: ", request.steps, " (must be at least 1, or 0 for the last term's step)");
  if (request.checkpoint_interval < 1) return Cat("checkpoint interval: ", request.checkpoint_interval, " (>= 1)");
  if (request.loss.empty()) return "the loss has no terms";
  for (std::size_t t = 0; t < request.loss.size(); ++t) {
    const LossTerm& term = request.loss[t];
    if (BodyIndex(*model.pd, term.body) < 0)
      return Cat("loss term ", t + 1, ": '", term.body, "' is not a pd body (", BodyNames(*model.pd), ")");
    if (term.time > (request.steps + 0.5) * model.dt)
      return Cat("loss term ", t + 1, ": time ", term.time, " s is after the run's end (", request.steps, " steps of ",
                 model.dt, " s)");
  }
  for (int g = 0; g < model.rigid->world.num_geometries(); ++g) {
    const geometry::CollisionGeometry& geometry = model.rigid->world.geometry(g);
    if (geometry.type != ShapeType::kPlane)
      return Cat("gradients through contact with rigid bodies are not supported yet (rigid geometry '", geometry.name,
                 "'; static planes are)");
  }
  return {};
}

// The loss terms of body b as a grad::PdLoss over its trajectory.
grad::PdLoss BodyLoss(const Model& model, const GradientRequest& request, int b, const pd::PdModel& m) {
  std::vector<LossTerm> terms;
  for (const LossTerm& term : request.loss)
    if (BodyIndex(*model.pd, term.body) == b) terms.push_back(term);
  const double dt = model.dt, mass = pd::TotalMass(m);
  return {[terms, &m, dt, mass](int step, const pd::PdState& s, Eigen::MatrixX3d* dq, Eigen::MatrixX3d* dv) {
    double loss = 0;
    for (const LossTerm& term : terms) {
      if (std::lround(term.time / dt) != step) continue;
      const bool velocity = term.quantity == LossQuantity::kVelocity;
      const Eigen::MatrixX3d& x = velocity ? s.v : s.q;
      Eigen::Vector3d c = Eigen::Vector3d::Zero();
      for (int i = 0; i < x.rows(); ++i) c += m.masses[static_cast<std::size_t>(i)] / mass * x.row(i).transpose();
      const Eigen::Vector3d e = c - Eigen::Vector3d(term.target[0], term.target[1], term.target[2]);
      loss += 0.5 * term.weight * e.squaredNorm();
      Eigen::MatrixX3d* d = velocity ? dv : dq;
      if (d == nullptr) continue;
      for (int i = 0; i < x.rows(); ++i)
        d->row(i) += (term.weight * m.masses[static_cast<std::size_t>(i)] / mass) * e.transpose();
    }
    return loss;
  }};
}

struct BodyRun {
  double loss = 0;
  bool converged = true;
  grad::PdGradient gradient;
};

// Body b's loss under `setup`, with its gradient when `with_gradient`.
BodyRun RunBody(const Model& model, const GradientRequest& request, const Setup& setup, int b, bool with_gradient) {
  const PdBodiesModel::Body& body = model.pd->bodies[static_cast<std::size_t>(b)];
  const Setup::Body& p = setup.bodies[static_cast<std::size_t>(b)];
  pd::PdSolver solver(body.model);
  const auto tets = static_cast<std::size_t>(body.model.tet_count());
  solver.SetStepAndGravity(model.dt, Eigen::Vector3d(model.gravity[0], model.gravity[1], model.gravity[2]));
  solver.SetMaterials(std::vector<double>(tets, p.youngs_modulus), std::vector<double>(tets, p.poisson_ratio));
  std::vector<pd::PdHalfSpace> planes = model.pd->planes;
  for (pd::PdHalfSpace& plane : planes) plane.friction = setup.friction;
  solver.SetObstacles(planes);
  BodyRun run;
  if (!solver.error().empty()) {
    run.converged = false;
    return run;
  }
  const pd::PdState initial = InitialStateOf(body.model, p.velocity);
  const std::vector<pd::PdControls> controls(
      static_cast<std::size_t>(request.steps),
      ControlsOf(body.model, p.pneumatic_ratio, p.muscle_activation, p.joint_torques));
  const grad::PdLoss loss = BodyLoss(model, request, b, solver.model());
  grad::PdGradientOptions options;
  options.checkpoint_interval = request.checkpoint_interval;
  if (with_gradient) {
    run.gradient = grad::PdLossAndGradient(solver, initial, controls, loss, options);
    run.loss = run.gradient.loss;
    run.converged = run.gradient.converged;
    return run;
  }
  pd::PdState state = initial, next;
  run.loss = loss.term(0, state, nullptr, nullptr);
  for (int n = 0; n < request.steps; ++n) {
    run.converged =
        solver.Step(state, controls[static_cast<std::size_t>(n)], next, options.forward).converged && run.converged;
    std::swap(state, next);
    run.loss += loss.term(n + 1, state, nullptr, nullptr);
  }
  return run;
}

// ∂L/∂(w) from body runs' gradients.
double GradientOf(const Wrt& w, const std::vector<BodyRun>& runs) {
  double sum = 0;
  if (w.param == Param::kFriction) {
    for (const BodyRun& run : runs)
      for (double x : run.gradient.materials.friction) sum += x;
    return sum;
  }
  const grad::PdGradient& g = runs[static_cast<std::size_t>(w.body)].gradient;
  switch (w.param) {
    case Param::kYoungsModulus:
      for (double x : g.materials.youngs_modulus) sum += x;
      break;
    case Param::kPoissonRatio:
      for (double x : g.materials.poisson_ratio) sum += x;
      break;
    case Param::kVelocity:
      sum = g.initial_v.rows() > 0 ? g.initial_v.col(w.component).sum() : 0.0;  // pinned rows hold 0
      break;
    case Param::kPneumaticRatio:
      for (const pd::PdControls& u : g.controls)
        for (double x : u.cell_volume_ratio) sum += x;
      break;
    case Param::kMuscleActivation:
      for (const pd::PdControls& u : g.controls)
        for (double x : u.muscle_activation) sum += x;
      break;
    case Param::kJointTorque:
      for (const pd::PdControls& u : g.controls) sum += u.joint_torques[static_cast<std::size_t>(w.component)];
      break;
    case Param::kFriction:
      break;
  }
  return sum;
}

// Whether a loss term names body b (a body that none names has no loss and no gradient: the bodies do not meet).
bool Named(const Model& model, const GradientRequest& request, std::size_t b) {
  return std::any_of(request.loss.begin(), request.loss.end(),
                     [&](const LossTerm& t) { return t.body == model.pd->bodies[b].name; });
}

// The loss of the named bodies that parameter w moves (its own body, or all for μ), forward only: what the
// differences of w need, since the others' loss does not change with it.
double LossMovedBy(const Model& model, const GradientRequest& request, const Setup& setup, const Wrt& w,
                   bool& converged) {
  double loss = 0;
  for (std::size_t b = 0; b < setup.bodies.size(); ++b) {
    if (!Named(model, request, b) || (w.body >= 0 && static_cast<int>(b) != w.body)) continue;
    const BodyRun run = RunBody(model, request, setup, static_cast<int>(b), false);
    loss += run.loss;
    converged = converged && run.converged;
  }
  return loss;
}

}  // namespace

const std::vector<std::string>& GradientKeys() {
  static const std::vector<std::string> keys{"pd_bodies.*.youngs_modulus",
                                             "pd_bodies.*.poisson_ratio",
                                             "pd_bodies.*.velocity",
                                             "pd_bodies.*.pneumatic_ratio",
                                             "pd_bodies.*.muscle_activation",
                                             "pd_bodies.*.skeleton.*.torque",
                                             "pd.friction"};
  return keys;
}

GradientResult ComputeSceneGradient(const Model& model, const GradientRequest& asked) {
  GradientResult result;
  GradientRequest request = asked;
  if (request.steps == 0) {  // the last term's step
    double last = 0;
    for (const LossTerm& term : request.loss) last = std::max(last, term.time);
    request.steps = std::max(1, static_cast<int>(std::lround(last / model.dt)));
  }
  result.steps = request.steps;
  if ((result.error = Refusal(model, request)); !result.error.empty()) return result;
  std::vector<Wrt> wrt;
  for (const std::string& key : request.wrt)
    if ((result.error = ParseKey(*model.pd, key, wrt)); !result.error.empty()) return result;
  Setup setup;
  setup.friction = model.pd->friction;
  for (const PdBodiesModel::Body& body : model.pd->bodies)
    setup.bodies.push_back({body.youngs_modulus, body.poisson_ratio, body.pneumatic_ratio, body.muscle_activation,
                            body.velocity, body.joint_torques});
  std::vector<BodyRun> runs(model.pd->bodies.size());
  for (std::size_t b = 0; b < runs.size(); ++b) {
    if (!Named(model, request, b)) continue;
    runs[b] = RunBody(model, request, setup, static_cast<int>(b), true);
    result.loss += runs[b].loss;
    result.converged = result.converged && runs[b].converged;
  }
  for (const Wrt& w : wrt) {
    result.names.push_back(w.name);
    result.values.push_back(setup.At(w));
    result.gradient.push_back(GradientOf(w, runs));
    if (!request.check_fd) continue;
    // Five-point central differences: truncation O(δ⁴), so δ can be large enough that the forward steps' stopping
    // tolerance (1e-10 of their reference force) leaves the differences accurate to about 1e-7.
    const double delta = 1e-4 * std::max(std::abs(setup.At(w)), 1.0);
    const auto at = [&](double offset) {
      Setup shifted = setup;
      shifted.At(w) += offset;
      return LossMovedBy(model, request, shifted, w, result.differences_converged);
    };
    result.central_difference.push_back((at(-2 * delta) - 8 * at(-delta) + 8 * at(delta) - at(2 * delta)) /
                                        (12 * delta));
  }
  return result;
}

}  // namespace ductile
