// The `ductile` Python module's compiled part, `ductile._ductile` (pybind11; docs/python.md): a Simulator over one
// scene with NumPy arrays of its particles, rigid poses, live parameters, teleoperation and save/restore. The GIL is
// released while stepping, so simulators in several Python threads step in parallel.
//
// Particle arrays come in particle id order (the order at t = 0, stable across steps) and are copies: the engine
// keeps its particles sorted by grid block and reorders them as they move (mpm/particles.h), so a view of its storage
// would change meaning under the caller's feet. A Simulator is used by one thread at a time: each binding holds its
// lock (Held), and a call from another thread while it steps or draws waits for it, so Python threads sharing one
// cannot race on its state.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ductile/model.h"
#include "ductile/parameters.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "ductile/state.h"
#include "ductile/telemetry.h"
#include "mpm/mpm_state.h"
#include "mpm/particles.h"
#include "pictures.h"
#include "scene/suggest.h"
#include "state/state_data.h"

namespace py = pybind11;

namespace ductile::python {
namespace {

std::vector<Override> ParseOverrides(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back(ParseOverride(t));
  return out;
}

// A parameter value as `--set` takes it: strings as they are, numbers in full precision, sequences as [a, b, c].
std::string ValueText(const py::handle& value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return std::to_string(value.cast<long long>());
  if (py::isinstance<py::float_>(value)) {
    std::ostringstream s;
    s.precision(17);
    s << value.cast<double>();
    return s.str();
  }
  // NumPy scalars and arrays (np.float32(3e4), np.int64(2), np.array([0, 0, -9.81])) as the Python numbers and lists
  // they hold.
  if (py::isinstance(value, py::module_::import("numpy").attr("generic")) || py::isinstance<py::array>(value))
    return ValueText(value.attr("tolist")());
  if (py::isinstance<py::sequence>(value)) {
    std::string out = "[";
    bool first = true;
    for (const py::handle item : value) {
      out += (first ? "" : ", ") + ValueText(item);
      first = false;
    }
    return out + "]";
  }
  throw py::type_error("a parameter value must be a number, a string, a bool or a sequence of numbers");
}

template <std::size_t N>
std::array<double, N> FixedArray(const py::handle& value, const char* what) {
  std::vector<double> list;
  try {
    list = value.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(what) + " needs " + std::to_string(N) + " numbers, got a " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  if (list.size() != N) throw py::value_error(std::string(what) + " needs " + std::to_string(N) + " numbers");
  std::array<double, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = list[i];
  return out;
}

py::array_t<double> ToArray(const std::array<double, 3>& a) {
  py::array_t<double> out(3);
  std::memcpy(out.mutable_data(), a.data(), sizeof(double) * 3);
  return out;
}

// A deformable body's summary as Python's bodies() and object_summary() give it.
py::dict BodyDict(const BodySummary& s) {
  py::dict d;
  d["kind"] = NameOf(s.kind);
  d["mass"] = s.mass;
  d["center_of_mass"] = ToArray(s.center_of_mass);
  d["velocity"] = ToArray(s.velocity);
  d["bounds_min"] = ToArray(s.bounds_min);
  d["bounds_max"] = ToArray(s.bounds_max);
  d["kinetic_energy"] = s.kinetic_energy;
  py::array_t<double> q(4);
  std::memcpy(q.mutable_data(), s.quaternion.data(), sizeof(double) * 4);
  d["quaternion"] = q;
  return d;
}

// (position, quaternion (w, x, y, z)) as two NumPy arrays.
py::tuple PoseTuple(const std::array<double, 3>& p, const std::array<double, 4>& q) {
  py::array_t<double> qa(4);
  std::memcpy(qa.mutable_data(), q.data(), sizeof(double) * 4);
  return py::make_tuple(ToArray(p), qa);
}

class PySimulator {
 public:
  PySimulator(SceneDesc scene, int threads) : scene_(std::move(scene)) {
    SimulatorOptions options;
    options.threads = threads;
    sim_ = std::make_unique<Simulator>(std::make_shared<const Model>(CompileModel(scene_)), options);
  }

  static std::unique_ptr<PySimulator> FromFile(const std::string& path, const std::vector<std::string>& overrides,
                                               int threads, const std::string& backend) {
    return std::make_unique<PySimulator>(LoadScene(path, WithBackend(overrides, backend)), threads);
  }
  static std::unique_ptr<PySimulator> FromYaml(const std::string& text, const std::vector<std::string>& overrides,
                                               const std::string& name, int threads, const std::string& backend) {
    return std::make_unique<PySimulator>(LoadSceneFromString(text, name, WithBackend(overrides, backend)), threads);
  }
  // The overrides, then simulation.backend when `backend` is given (as ductile-cli's --backend).
  static std::vector<Override> WithBackend(const std::vector<std::string>& overrides, const std::string& backend) {
    std::vector<Override> out = ParseOverrides(overrides);
    if (!backend.empty()) out.push_back({"simulation.backend", backend});
    return out;
  }
  std::string backend() const { return sim_->backend(); }

  /// f(the engine's simulator), holding its lock as the bound calls do (Held; the Exporter reads it).
  void WithSimulator(const std::function<void(const Simulator&)>& f) const {
    CallLock hold(mutex_);
    f(*sim_);
  }

  void Step(int n) {
    if (n < 0) throw py::value_error("step: n must be ≥ 0, got " + std::to_string(n));
    py::gil_scoped_release release;
    for (int i = 0; i < n; ++i) sim_->Step();
  }
  void Reset() { sim_->Reset(); }
  double time() const { return sim_->time(); }
  std::int64_t step_count() const { return sim_->step_count(); }
  double dt() const { return sim_->model().dt; }
  int threads() const { return sim_->threads(); }
  std::uint64_t StateHash() const { return sim_->StateHash(); }

  py::bytes SaveState() const {
    const std::vector<std::uint8_t> bytes = sim_->SaveState();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  void RestoreState(const py::bytes& blob) {
    const std::string text = blob;
    sim_->RestoreState(std::vector<std::uint8_t>(text.begin(), text.end()));
  }
  void SaveStateFile(const std::string& path) const { sim_->SaveStateFile(path); }
  void LoadStateFile(const std::string& path) { sim_->LoadStateFile(path); }

  void SetParameter(const std::string& key, const py::handle& value) {
    const std::string why = sim_->SetParameter(key, ValueText(value));
    if (!why.empty()) throw py::value_error(why);
  }
  std::vector<std::string> Parameters() const {
    std::vector<std::string> keys;
    for (const SceneParameter& p : ListParameters(scene_)) keys.push_back(p.key);
    return keys;
  }

  // ---- particles, in id order
  std::size_t num_particles() const { return Particles().size(); }
  /// Every particle field (mpm::ForEachParticleField): name → unit.
  py::dict ParticleFields() const {
    py::dict out;
    mpm::Particles none;
    mpm::ForEachParticleField([&out](const mpm::ParticleField& f, const auto&) { out[f.name] = f.unit; }, none);
    return out;
  }
  /// One particle field by name, in id order (a copy): N for scalars, N×3 for vectors, N×3×3 for matrices.
  py::array Field(const std::string& name) const {
    const mpm::Particles& p = Particles();
    py::array out;
    bool found = false;
    std::vector<std::string> names;
    mpm::ForEachParticleField(
        [&](const mpm::ParticleField& f, const auto& values) {
          names.emplace_back(f.name);
          if (name != f.name) return;
          out = ById(p, values);
          found = true;
        },
        p);
    if (!found) throw py::value_error("no particle field '" + name + "' (fields: " + scene::JoinNames(names) + ")");
    return out;
  }
  py::array Positions() const { return Field("position"); }
  py::array Velocities() const { return Field("velocity"); }
  py::array DeformationGradients() const { return Field("deformation_gradient"); }
  py::array Materials() const { return Field("material"); }
  py::array Objects() const { return Field("object"); }
  py::array PlasticStrain() const { return Field("plastic_strain"); }
  void SetPositions(const py::array_t<float, py::array::c_style | py::array::forcecast>& values) {
    EditVec3(values, &mpm::Particles::x, "set_particle_positions");
  }
  void SetVelocities(const py::array_t<float, py::array::c_style | py::array::forcecast>& values) {
    EditVec3(values, &mpm::Particles::v, "set_particle_velocities");
  }

  // ---- rigid bodies and objects
  // The names of `count` items, `summarize(i).name` each.
  template <typename Summarize>
  static std::vector<std::string> NamesOf(int count, Summarize summarize) {
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) names.push_back(summarize(i).name);
    return names;
  }
  std::vector<std::string> BodyNames() const {
    return NamesOf(sim_->num_rigid_bodies(), [&](int i) { return sim_->SummarizeRigidBody(i); });
  }
  py::tuple BodyPose(const std::string& name) const {
    const RigidBodySummary s = Body(name);
    return PoseTuple(s.position, s.quaternion);
  }
  py::dict BodyContact(const std::string& name) const {
    const RigidBodySummary s = Body(name);
    py::dict d;
    d["force"] = ToArray(s.contact_force);
    d["torque"] = ToArray(s.contact_torque);
    d["mpm_contacts"] = s.mpm_contacts;
    return d;
  }
  std::vector<std::string> SoftBodyNames() const {
    return NamesOf(sim_->num_ipc_bodies(), [&](int i) { return sim_->SummarizeIpcBody(i); });
  }
  py::tuple SoftBodyPose(const std::string& name) const {
    const IpcBodySummary s = sim_->SummarizeIpcBody(SoftBodyIndex(name));
    return PoseTuple(s.position, s.quaternion);
  }
  // The body's vertices (a soft body's all, an affine body's surface) and surface triangles, from a snapshot.
  py::tuple SoftBodyMesh(const std::string& name) const {
    const int index = SoftBodyIndex(name);
    Snapshot snapshot;
    sim_->CaptureSnapshot(snapshot, false);
    const SnapshotSoftBody& body = snapshot.soft_bodies.at(static_cast<std::size_t>(index));
    py::array_t<float> vertices({static_cast<py::ssize_t>(body.vertices.size()), py::ssize_t{3}});
    std::memcpy(vertices.mutable_data(), body.vertices.data(), body.vertices.size() * sizeof(body.vertices[0]));
    const std::size_t count = body.triangles ? body.triangles->size() : 0;
    py::array_t<std::int32_t> triangles({static_cast<py::ssize_t>(count), py::ssize_t{3}});
    auto t = triangles.mutable_unchecked<2>();
    for (std::size_t k = 0; k < count; ++k)
      for (int c = 0; c < 3; ++c)
        t(static_cast<py::ssize_t>(k), c) = static_cast<std::int32_t>((*body.triangles)[k][c]);
    return py::make_tuple(vertices, triangles);
  }
  // The loss of a run of the scene's pd bodies from t = 0 and its gradient (Simulator::LossAndGradient), the GIL
  // released while it runs. `loss`: a list of dicts {body, quantity ('center_of_mass' or 'velocity'), time, target,
  // weight}; ValueError for a bad term, key or scene.
  py::dict LossAndGrad(const py::list& loss, const std::vector<std::string>& wrt, const py::object& steps,
                       int checkpoint, bool check_fd) const {
    GradientRequest request;
    for (const py::handle& item : loss) {
      const py::dict term = py::cast<py::dict>(item);
      LossTerm t;
      if (!term.contains("body") || !term.contains("time") || !term.contains("target"))
        throw py::value_error("a loss term needs 'body', 'time' and 'target'");
      t.body = py::cast<std::string>(term["body"]);
      t.time = py::cast<double>(term["time"]);
      const std::vector<double> target = py::cast<std::vector<double>>(term["target"]);
      if (target.size() != 3) throw py::value_error("a loss term's 'target' holds 3 numbers");
      std::copy(target.begin(), target.end(), t.target.begin());
      if (term.contains("weight")) t.weight = py::cast<double>(term["weight"]);
      const std::string quantity =
          term.contains("quantity") ? py::cast<std::string>(term["quantity"]) : std::string("center_of_mass");
      if (!LossQuantityFromName(quantity, t.quantity))
        throw py::value_error("unknown loss quantity '" + quantity + "' (center_of_mass or velocity)");
      request.loss.push_back(t);
    }
    request.wrt = wrt;
    request.steps = steps.is_none() ? 0 : py::cast<int>(steps);  // 0: the last term's step
    request.checkpoint_interval = checkpoint;
    request.check_fd = check_fd;
    GradientResult r;
    {
      py::gil_scoped_release release;
      r = sim_->LossAndGradient(request);
    }
    if (!r.error.empty()) throw py::value_error(r.error);
    py::dict out;
    out["loss"] = r.loss;
    out["names"] = r.names;
    out["values"] = py::array_t<double>(static_cast<py::ssize_t>(r.values.size()), r.values.data());
    out["gradient"] = py::array_t<double>(static_cast<py::ssize_t>(r.gradient.size()), r.gradient.data());
    out["central_difference"] =
        check_fd ? py::object(py::array_t<double>(static_cast<py::ssize_t>(r.central_difference.size()),
                                                  r.central_difference.data()))
                 : py::object(py::none());
    out["converged"] = r.converged;
    out["steps"] = r.steps;
    return out;
  }

  // Every deformable domain's bodies (MPM objects, soft and affine bodies) by name, each summarised.
  py::dict Bodies() const {
    py::dict out;
    for (int i = 0; i < sim_->num_bodies(); ++i) {
      const BodySummary s = sim_->SummarizeBody(i);
      out[py::str(s.name)] = BodyDict(s);
    }
    return out;
  }
  std::vector<std::string> ObjectNames() const {
    std::vector<std::string> names;
    for (const ObjectInfo& o : sim_->model().objects) names.push_back(o.name);
    return names;
  }
  py::dict Object(const std::string& name) const {
    const std::vector<ObjectInfo>& objects = sim_->model().objects;
    for (std::size_t i = 0; i < objects.size(); ++i)
      if (objects[i].name == name) {
        return BodyDict(sim_->SummarizeBody(static_cast<int>(i)));  // the MPM domain's bodies come first
      }
    throw py::key_error("no object '" + name + "' in the scene");
  }

  // ---- robots
  std::vector<std::string> Robots() const { return sim_->RobotNames(); }
  void SetTeleopTarget(const std::string& robot, const std::string& link, const py::handle& position,
                       const py::object& quaternion, const py::handle& tool_point) {
    RequireRobot(robot);
    TeleopTarget t;
    t.robot = robot;
    t.link = link;
    t.position = FixedArray<3>(position, "position");
    t.tool_point = FixedArray<3>(tool_point, "tool_point");
    t.track_orientation = !quaternion.is_none();
    if (t.track_orientation) t.quaternion = FixedArray<4>(quaternion, "quaternion");
    const std::string why = sim_->SetTeleopTarget(t);
    if (!why.empty()) throw py::value_error(why);
  }
  void ClearTeleopTarget(const std::string& robot) {
    RequireRobot(robot);
    sim_->ClearTeleopTarget(robot);
  }
  void SetGripper(const std::string& robot, double opening, double force) {
    RequireRobot(robot);
    const std::string why = sim_->SetGripper({robot, opening, force});
    if (!why.empty()) throw py::value_error(why);
  }
  py::list Joints(const std::string& robot) const {
    RequireRobot(robot);
    std::vector<JointStatus> joints;
    const std::string why = sim_->RobotJoints(robot, joints);
    if (!why.empty()) throw py::key_error(why);
    py::list out;
    for (const JointStatus& j : joints) {
      py::dict d;
      d["name"] = j.name;
      d["position"] = j.position;
      d["velocity"] = j.velocity;
      d["lower"] = j.lower;
      d["upper"] = j.upper;
      d["controlled"] = j.controlled;
      d["target"] = j.controlled ? py::object(py::float_(j.target)) : py::object(py::none());
      out.append(d);
    }
    return out;
  }
  void SetJointTarget(const std::string& robot, const std::string& joint, double position, double velocity) {
    RequireRobot(robot);
    const std::string why = sim_->SetJointTarget(robot, joint, position, velocity);
    if (!why.empty()) throw py::value_error(why);
  }
  py::dict TeleopStatusOf(const std::string& robot) const {
    RequireRobot(robot);
    const TeleopStatus s = sim_->GetTeleopStatus(robot);
    py::dict d;
    d["active"] = s.active;
    d["ik_position"] = s.ik_position;
    d["ik_rotation"] = s.ik_rotation;
    d["tracking"] = s.tracking;
    d["ik_iterations"] = s.ik_iterations;
    d["at_joint_limit"] = s.at_joint_limit;
    d["gripper_opening"] = s.gripper_opening;
    d["gripper_force"] = s.gripper_force;
    return d;
  }
  py::tuple LinkPose(const std::string& robot, const std::string& link) const {
    RequireRobot(robot);
    std::array<double, 3> p{};
    std::array<double, 4> q{};
    const std::string why = sim_->LinkPose(robot, link, p, q);
    if (!why.empty()) throw py::value_error(why);
    return PoseTuple(p, q);
  }

  py::object Render(int width, int height, const py::object& camera, const std::string& color,
                    const std::string& particles, int samples, bool depth) {
    return pictures_.Render(*sim_, scene_, width, height, camera, color, particles, samples, depth);
  }

  // Every channel of the telemetry table (ductile/telemetry.h) that the last step has, by its key.
  py::dict Telemetry() const {
    const StepTelemetry& t = sim_->last_step();
    py::dict d;
    for (const TelemetryChannel& c : TelemetryChannels()) {
      if (!c.In(t)) continue;
      const double x = c.read(t);
      if (c.type == ChannelType::kFlag) {
        d[c.key] = x != 0;
      } else if (c.type == ChannelType::kInteger) {
        d[c.key] = static_cast<std::int64_t>(x);
      } else {
        d[c.key] = x;
      }
    }
    return d;
  }

 private:
  // The MPM domain's particles, in storage order (the State's MPM part; state() brings a device's copy to the host).
  const mpm::Particles& Particles() const { return sim_->state().data().mpm.particles; }

  // A field's values in id order: the storage order is the block sort's (Particles::id gives each one's id).
  static py::array ById(const mpm::Particles& p, const std::vector<Vec3f>& v) {
    py::array_t<float> out({static_cast<py::ssize_t>(p.size()), py::ssize_t{3}});
    auto a = out.mutable_unchecked<2>();
    for (std::size_t at = 0; at < p.size(); ++at)
      for (int k = 0; k < 3; ++k) a(p.id[at], k) = v[at][k];
    return out;
  }
  static py::array ById(const mpm::Particles& p, const std::vector<Mat3f>& m) {
    py::array_t<float> out({static_cast<py::ssize_t>(p.size()), py::ssize_t{3}, py::ssize_t{3}});
    auto a = out.mutable_unchecked<3>();
    for (std::size_t at = 0; at < p.size(); ++at)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) a(p.id[at], r, c) = m[at].m[r][c];
    return out;
  }
  template <typename T>
  static py::array ById(const mpm::Particles& p, const std::vector<T>& v) {
    py::array_t<T> out(static_cast<py::ssize_t>(p.size()));
    auto a = out.template mutable_unchecked<1>();
    for (std::size_t at = 0; at < p.size(); ++at) a(p.id[at]) = v[at];
    return out;
  }

  // Writes an N×3 array (id order) into a copy of the state and continues from it: the transfer cache is
  // invalidated (the next step sorts and transfers from scratch), as after the studio's particle edits.
  void EditVec3(const py::array_t<float, py::array::c_style | py::array::forcecast>& values,
                std::vector<Vec3f> mpm::Particles::*field, const char* what) {
    const std::size_t n = Particles().size();
    if (values.ndim() != 2 || values.shape(0) != static_cast<py::ssize_t>(n) || values.shape(1) != 3)
      throw py::value_error(std::string(what) + ": needs an array of shape (" + std::to_string(n) + ", 3)");
    auto in = values.unchecked<2>();
    for (py::ssize_t i = 0; i < in.shape(0); ++i)
      for (int k = 0; k < 3; ++k)
        if (!std::isfinite(in(i, k)))
          throw py::value_error(std::string(what) + ": particle " + std::to_string(i) + " has a non-finite value");
    State edited = sim_->state();
    mpm::Particles& p = edited.data().mpm.particles;
    std::vector<Vec3f>& v = p.*field;
    for (std::size_t at = 0; at < p.size(); ++at) {
      const auto id = static_cast<py::ssize_t>(p.id[at]);
      v[at] = Vec3f(in(id, 0), in(id, 1), in(id, 2));
    }
    edited.data().mpm.cache.Invalidate(mpm::Invalidation::kParticlesEdited);
    sim_->SetState(std::move(edited));
  }

  // Unknown robot names raise KeyError, as unknown bodies, objects and cameras do.
  void RequireRobot(const std::string& robot) const {
    if (!sim_->HasRobot(robot)) throw py::key_error("no robot '" + robot + "' in the scene (robots() lists them)");
  }

  int SoftBodyIndex(const std::string& name) const {
    for (int i = 0; i < sim_->num_ipc_bodies(); ++i)
      if (sim_->SummarizeIpcBody(i).name == name) return i;
    throw py::key_error("no soft or affine body '" + name + "' in the scene (soft_bodies() lists them)");
  }
  RigidBodySummary Body(const std::string& name) const {
    for (int i = 0; i < sim_->num_rigid_bodies(); ++i) {
      RigidBodySummary s = sim_->SummarizeRigidBody(i);
      if (s.name == name) return s;
    }
    throw py::key_error("no rigid body '" + name + "' in the scene (rigid_bodies() lists them)");
  }

  SceneDesc scene_;
  std::unique_ptr<Simulator> sim_;
  FrameRenderer pictures_;
  mutable std::mutex mutex_;  // held by each bound call (Held) and by WithSimulator

  template <auto, typename>
  friend struct Held;
};

// A method of PySimulator as bound to Python: the call holds the simulator's lock (CallLock) throughout, so that one
// thread at a time uses it; a step or a frame releases the GIL inside, after the lock is taken.
template <auto Method, typename = decltype(Method)>
struct Held;
template <auto Method, typename R, typename... A>
struct Held<Method, R (PySimulator::*)(A...)> {
  static R Call(PySimulator& sim, A... args) {
    CallLock hold(sim.mutex_);
    return (sim.*Method)(std::forward<A>(args)...);
  }
};
template <auto Method, typename R, typename... A>
struct Held<Method, R (PySimulator::*)(A...) const> {
  static R Call(const PySimulator& sim, A... args) {
    CallLock hold(sim.mutex_);
    return (sim.*Method)(std::forward<A>(args)...);
  }
};

}  // namespace
}  // namespace ductile::python

PYBIND11_MODULE(_ductile, m) {
  using ductile::python::Held;
  using ductile::python::PySimulator;
  m.doc() = "Ductile's simulator: MPM and rigid bodies with frictional contact (docs/python.md).";
  m.attr("__version__") = DUCTILE_VERSION;
  m.attr("data_dir") = DUCTILE_DATA_DIR;  // the source tree; ductile/_data.py prefers an installed share folder
  py::register_exception<ductile::SceneError>(m, "SceneError", PyExc_ValueError);
  py::register_exception<ductile::StateError>(m, "StateError", PyExc_ValueError);
  py::register_exception<ductile::SimulationDiverged>(m, "SimulationDiverged", PyExc_RuntimeError);

  py::class_<PySimulator>(m, "Simulator",
                          "One scene's simulation. Simulator(path, overrides=[...]) loads a scene file; "
                          "Simulator.from_yaml(text) a scene given as text.")
      .def(py::init(&PySimulator::FromFile), py::arg("scene"), py::arg("overrides") = std::vector<std::string>{},
           py::arg("threads") = 0, py::arg("backend") = "",
           "Loads SCENE (a path) with `key=value` overrides (as ductile-cli --set); threads 0: the scene's or all "
           "cores; backend: where the MPM domain runs, 'cpu', 'cuda', 'auto' or 'emulated' (default: the scene's "
           "simulation.backend; 'cuda' without a device raises SceneError with the reason). Raises SceneError with "
           "FILE:LINE:COL on bad input.")
      .def_static("from_yaml", &PySimulator::FromYaml, py::arg("text"),
                  py::arg("overrides") = std::vector<std::string>{}, py::arg("name") = "<string>",
                  py::arg("threads") = 0, py::arg("backend") = "",
                  "A scene given as YAML text (threads and backend as for Simulator()); `name` is used in messages and "
                  "to resolve relative mesh paths.")
      .def("step", &Held<&PySimulator::Step>::Call, py::arg("n") = 1,
           "Advances n steps of simulation.dt (the GIL released). Raises SimulationDiverged.")
      .def("reset", &Held<&PySimulator::Reset>::Call, "Back to the initial state at t = 0 (live parameter edits stay).")
      .def_property_readonly("time", &Held<&PySimulator::time>::Call, "Simulated time [s].")
      .def_property_readonly("step_count", &Held<&PySimulator::step_count>::Call)
      .def_property_readonly("dt", &Held<&PySimulator::dt>::Call, "The step Δt [s].")
      .def_property_readonly("threads", &Held<&PySimulator::threads>::Call)
      .def_property_readonly("backend", &Held<&PySimulator::backend>::Call,
                             "Where the MPM domain runs: 'cpu', 'cuda' or 'emulated' (simulation.backend, 'auto' "
                             "resolved); set_parameter('simulation.backend', ...) switches it live.")
      .def("state_hash", &Held<&PySimulator::StateHash>::Call,
           "64-bit hash of the full state: equal means bitwise equal.")
      .def("save_state", &Held<&PySimulator::SaveState>::Call, "The state as bytes (versioned, checksummed).")
      .def("restore_state", &Held<&PySimulator::RestoreState>::Call, py::arg("blob"),
           "Continues from save_state's bytes. Raises StateError (corrupt, truncated, another scene).")
      .def("save_state_file", &Held<&PySimulator::SaveStateFile>::Call, py::arg("path"))
      .def("load_state_file", &Held<&PySimulator::LoadStateFile>::Call, py::arg("path"))
      .def("set_parameter", &Held<&PySimulator::SetParameter>::Call, py::arg("key"), py::arg("value"),
           "Sets a live parameter from the next step on, e.g. ('materials.dough.youngs_modulus', 3e4). Raises "
           "ValueError naming what is wrong.")
      .def("parameters", &Held<&PySimulator::Parameters>::Call, "The parameter keys that apply to this scene.")
      .def_property_readonly("num_particles", &Held<&PySimulator::num_particles>::Call)
      .def("particle_fields", &Held<&PySimulator::ParticleFields>::Call,
           "Every particle field's name → its unit: what particle_field(name) reads.")
      .def("particle_field", &Held<&PySimulator::Field>::Call, py::arg("name"),
           "One particle field in id order (a copy): N, N×3 or N×3×3; ValueError names the fields.")
      .def("particle_positions", &Held<&PySimulator::Positions>::Call, "N×3 float32 [m], particle id order (a copy).")
      .def("particle_velocities", &Held<&PySimulator::Velocities>::Call,
           "N×3 float32 [m/s], particle id order (a copy).")
      .def("particle_F", &Held<&PySimulator::DeformationGradients>::Call,
           "N×3×3 float32 elastic deformation gradients.")
      .def("particle_materials", &Held<&PySimulator::Materials>::Call, "N int32 material indices.")
      .def("particle_objects", &Held<&PySimulator::Objects>::Call, "N int32 object indices.")
      .def("particle_plastic_strain", &Held<&PySimulator::PlasticStrain>::Call, "N float32 accumulated plastic strain.")
      .def("set_particle_positions", &Held<&PySimulator::SetPositions>::Call, py::arg("positions"),
           "Writes N×3 positions (id order); the transfer cache is rebuilt at the next step.")
      .def("set_particle_velocities", &Held<&PySimulator::SetVelocities>::Call, py::arg("velocities"),
           "Writes N×3 velocities (id order); the transfer cache is rebuilt at the next step.")
      .def("rigid_bodies", &Held<&PySimulator::BodyNames>::Call,
           "Names of the reported rigid bodies ('robot/link' for links).")
      .def("body_pose", &Held<&PySimulator::BodyPose>::Call, py::arg("name"),
           "(position [m], quaternion (w, x, y, z)) of a rigid body, world.")
      .def("body_contact", &Held<&PySimulator::BodyContact>::Call, py::arg("name"),
           "The body's mean contact force and torque over the last step [N, N·m] and its particle contacts.")
      .def("soft_bodies", &Held<&PySimulator::SoftBodyNames>::Call,
           "Names of the FEM–IPC bodies: the soft bodies, then the affine bodies.")
      .def("soft_body_pose", &Held<&PySimulator::SoftBodyPose>::Call, py::arg("name"),
           "(position, quaternion): a soft body's centre of mass (identity rotation), an affine body's centre of mass "
           "and nearest rotation (w, x, y, z).")
      .def("soft_body_mesh", &Held<&PySimulator::SoftBodyMesh>::Call, py::arg("name"),
           "(vertices V×3 float32 [m], triangles T×3 int32): a soft body's vertices (interior ones too) and surface, "
           "an affine body's surface, in the world now.")
      .def("bodies", &Held<&PySimulator::Bodies>::Call,
           "Every deformable body by name (MPM objects, soft bodies, affine bodies, pd bodies): its kind ('object', "
           "'soft_body', 'affine_body', 'pd_body'), mass, centre of mass, velocity, bounds, kinetic energy and "
           "quaternion (w, x, y, z; "
           "identity but for an affine body).")
      .def("loss_and_grad", &Held<&PySimulator::LossAndGrad>::Call, py::arg("loss"), py::arg("wrt"),
           py::arg("steps") = py::none(), py::arg("checkpoint") = 1, py::arg("check_fd") = false,
           "The loss of a run of the scene's pd bodies from t = 0 at the current parameters and its gradient by the "
           "adjoint method. loss: a list of {'body', 'quantity' ('center_of_mass' or 'velocity'), 'time', 'target', "
           "'weight'}, each weight/2 |x(time) - target|^2; wrt: parameter keys (pd_bodies.NAME.youngs_modulus, "
           "poisson_ratio, velocity, pneumatic_ratio, muscle_activation; pd.friction); steps: default the last "
           "term's step; checkpoint: keep a state every k steps; check_fd: also five-point central differences. "
           "Returns {'loss', 'names', 'values', 'gradient', 'central_difference', 'converged', 'steps'} (a vector "
           "key gives three entries). The simulator's own state is not touched. ValueError for a bad request.")
      .def("objects", &Held<&PySimulator::ObjectNames>::Call, "Names of the MPM objects.")
      .def("object_summary", &Held<&PySimulator::Object>::Call, py::arg("name"),
           "Mass, centre of mass, velocity, bounds and kinetic energy of an MPM object.")
      .def("robots", &Held<&PySimulator::Robots>::Call)
      .def("link_pose", &Held<&PySimulator::LinkPose>::Call, py::arg("robot"), py::arg("link"))
      .def("set_teleop_target", &Held<&PySimulator::SetTeleopTarget>::Call, py::arg("robot"), py::arg("link"),
           py::arg("position"), py::arg("quaternion") = py::none(),
           py::arg("tool_point") = std::vector<double>{0, 0, 0},
           "Moves a tool point of a robot link towards `position` (and the link to `quaternion` (w, x, y, z), "
           "when given) by the arm's IK from the next step on.")
      .def("clear_teleop_target", &Held<&PySimulator::ClearTeleopTarget>::Call, py::arg("robot"))
      .def("set_gripper", &Held<&PySimulator::SetGripper>::Call, py::arg("robot"), py::arg("opening") = 1.0,
           py::arg("force") = 0.0, "Opening in [0, 1] (0 closed), or a squeeze force per finger [N] when > 0.")
      .def("teleop_status", &Held<&PySimulator::TeleopStatusOf>::Call, py::arg("robot"))
      .def("joints", &Held<&PySimulator::Joints>::Call, py::arg("robot"),
           "The robot's moving joints, root to leaves: dicts of name, position, velocity, lower, upper (limits), "
           "controlled and target (the PD controller's, None without one). KeyError for an unknown robot.")
      .def("set_joint_target", &Held<&PySimulator::SetJointTarget>::Call, py::arg("robot"), py::arg("joint"),
           py::arg("position"), py::arg("velocity") = 0.0,
           "Sets a joint's PD controller target (position [rad or m], velocity) from the next step on; it holds until "
           "changed. ValueError for an unknown joint, one without a controller, a target outside the limits, or a "
           "joint that a teleoperation target or gripper command drives (clear_teleop_target first).")
      .def("telemetry", &Held<&PySimulator::Telemetry>::Call, "The last step's timings, contacts and solver figures.")
      .def("render", &Held<&PySimulator::Render>::Call, py::arg("width") = 640, py::arg("height") = 480,
           py::arg("camera") = py::none(), py::arg("color") = "material", py::arg("particles") = "surface",
           py::arg("samples") = 1, py::arg("depth") = false,
           "The current state drawn offscreen (Vulkan) as an H x W x 3 uint8 RGB array. camera: None (the scene's "
           "first preset, else a framing fixed at the first frame), a preset's name, or {'eye': ..., 'target': "
           "..., 'fov': deg}. color: material, speed, stress, plastic; particles: surface, beads; samples: "
           "anti-aliasing samples per pixel. depth=True: returns (rgb, depth), depth an H x W float32 array of "
           "distances along the camera's viewing axis [m] to the nearest opaque surface, inf where there is none "
           "(water, drawn translucent, writes no depth). Raises RuntimeError when there is no Vulkan device.");
  ductile::python::BindVideoWriter(m);
  ductile::python::BindExporter(m, [](const py::object& sim, const std::function<void(const ductile::Simulator&)>& f) {
    sim.cast<const PySimulator&>().WithSimulator(f);
  });
}
