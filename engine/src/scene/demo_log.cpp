#include "ductile/demo_log.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "ductile/model.h"
#include "ductile/parameters.h"

namespace ductile {
namespace {

constexpr int kFormatVersion = 1;

// Doubles with 17 significant digits: they read back bitwise the same.
std::string Number(double x) {
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

template <std::size_t N>
std::string Vector(const std::array<double, N>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < N; ++i) out += (i ? ", " : "") + Number(v[i]);
  return out + "]";
}

// A YAML double-quoted string.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

const char* PerturbKind(Perturbation::Kind kind) {
  switch (kind) {
    case Perturbation::Kind::kBody:
      return "body";
    case Perturbation::Kind::kObject:
      return "object";
    case Perturbation::Kind::kNone:
      break;
  }
  return "none";
}

// Reading: every failure names the log, line and column.
class LogReader {
 public:
  explicit LogReader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const YAML::Node& at, const std::string& message) const {
    const YAML::Mark mark = at.Mark();
    throw SceneError(file_.string(), mark.line + 1, mark.column + 1, message);
  }
  YAML::Node Need(const YAML::Node& map, const char* key, const YAML::Node& where) const {
    YAML::Node found = map[key];
    if (!found) Fail(where, std::string("missing '") + key + "'");
    return found;
  }
  template <typename T>
  T As(const YAML::Node& node, const std::string& what) const {
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      Fail(node, what + ": cannot read '" + (node.IsScalar() ? node.Scalar() : std::string("(not a scalar)")) + "'");
    }
  }
  template <std::size_t N>
  std::array<double, N> Array(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence() || node.size() != N) Fail(node, what + ": expected a list of " + std::to_string(N));
    std::array<double, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = As<double>(node[i], what);
    return out;
  }

 private:
  std::filesystem::path file_;
};

// The log's YAML document: a map of the supported format version.
YAML::Node ParseLog(const std::filesystem::path& file, const LogReader& r) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw SceneError(file.string(), 0, 0, std::string("cannot read the demo log: ") + std::strerror(errno));
  std::stringstream text;
  text << stream.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    throw SceneError(file.string(), e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  if (!root.IsMap()) throw SceneError(file.string(), 1, 1, "not a demo log (expected a YAML map)");
  const YAML::Node version = root["ductile_demo_log"];
  if (!version) throw SceneError(file.string(), 1, 1, "not a demo log (no 'ductile_demo_log' version)");
  if (r.As<int>(version, "ductile_demo_log") != kFormatVersion) {
    r.Fail(version, "demo log version " + version.Scalar() + " is not supported (this build reads " +
                        std::to_string(kFormatVersion) + ")");
  }
  return root;
}

// The "key=value" overrides of the log's scene, if any.
void ReadOverrides(const LogReader& r, const YAML::Node& root, std::vector<Override>& overrides) {
  const YAML::Node list = root["overrides"];
  if (!list) return;
  if (!list.IsSequence()) r.Fail(list, "overrides: expected a list of \"key=value\"");
  for (const YAML::Node& o : list) {
    try {
      overrides.push_back(ParseOverride(r.As<std::string>(o, "override")));
    } catch (const SceneError& e) {
      r.Fail(o, e.message());
    }
  }
}

// The BLAS kernels the run used, if recorded.
void ReadBlasKernels(const LogReader& r, const YAML::Node& root, DemoLog& log) {
  if (const YAML::Node kernels = root["blas_kernels"]) log.blas_kernels = r.As<std::string>(kernels, "blas_kernels");
}

// The hash of the state the log's replay must end in, if recorded.
void ReadFinalStateHash(const LogReader& r, const YAML::Node& root, DemoLog& log) {
  const YAML::Node hash = root["final_state_hash"];
  if (!hash) return;
  const std::string hex = r.As<std::string>(hash, "final_state_hash");
  std::size_t used = 0;
  try {
    log.final_state_hash = std::stoull(hex, &used, 16);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != hex.size() || hex.empty()) r.Fail(hash, "final_state_hash: '" + hex + "' is not a hexadecimal hash");
}

void ReadTeleopTarget(const LogReader& r, const YAML::Node& t, DemoEvent& e) {
  e.type = DemoEvent::Type::kTeleopTarget;
  e.teleop.robot = r.As<std::string>(r.Need(t, "robot", t), "robot");
  e.teleop.link = r.As<std::string>(r.Need(t, "link", t), "link");
  if (const YAML::Node p = t["tool_point"]) e.teleop.tool_point = r.Array<3>(p, "tool_point");
  e.teleop.position = r.Array<3>(r.Need(t, "position", t), "position");
  if (const YAML::Node q = t["quaternion"]) e.teleop.quaternion = r.Array<4>(q, "quaternion");
  if (const YAML::Node o = t["track_orientation"]) e.teleop.track_orientation = r.As<bool>(o, "track_orientation");
}

void ReadGripper(const LogReader& r, const YAML::Node& g, DemoEvent& e) {
  e.type = DemoEvent::Type::kGripper;
  e.gripper.robot = r.As<std::string>(r.Need(g, "robot", g), "robot");
  if (const YAML::Node o = g["opening"]) e.gripper.opening = r.As<double>(o, "opening");
  if (const YAML::Node f = g["force"]) e.gripper.force = r.As<double>(f, "force");
}

void ReadPerturb(const LogReader& r, const YAML::Node& p, DemoEvent& e) {
  e.type = DemoEvent::Type::kPerturb;
  const std::string kind = r.As<std::string>(r.Need(p, "kind", p), "kind");
  if (kind == "body") {
    e.perturbation.kind = Perturbation::Kind::kBody;
  } else if (kind == "object") {
    e.perturbation.kind = Perturbation::Kind::kObject;
  } else if (kind == "none") {
    e.perturbation.kind = Perturbation::Kind::kNone;
  } else {
    r.Fail(p["kind"], "perturb kind '" + kind + "' is not body, object or none");
  }
  if (const YAML::Node i = p["index"]) e.perturbation.index = r.As<int>(i, "index");
  if (const YAML::Node a = p["anchor"]) e.perturbation.anchor = r.Array<3>(a, "anchor");
  if (const YAML::Node target = p["target"]) e.perturbation.target = r.Array<3>(target, "target");
  if (const YAML::Node f = p["frequency"]) e.perturbation.frequency = r.As<double>(f, "frequency");
}

// One event: its step (not before `previous`, not past the log's `steps`), time and the one action it holds.
DemoEvent ReadEvent(const LogReader& r, const YAML::Node& node, std::int64_t previous, std::int64_t steps) {
  if (!node.IsMap()) r.Fail(node, "an event must be a map");
  DemoEvent e;
  const YAML::Node step = r.Need(node, "step", node);
  e.step = r.As<std::int64_t>(step, "step");
  if (e.step < previous || e.step > steps) {
    r.Fail(step,
           "step " + std::to_string(e.step) + " is out of order or past the log's " + std::to_string(steps) + " steps");
  }
  if (const YAML::Node time = node["time"]) e.time = r.As<double>(time, "time");
  if (const YAML::Node t = node["teleop"]) {
    ReadTeleopTarget(r, t, e);
  } else if (const YAML::Node c = node["teleop_clear"]) {
    e.type = DemoEvent::Type::kTeleopClear;
    e.teleop.robot = r.As<std::string>(c, "teleop_clear");
  } else if (const YAML::Node g = node["gripper"]) {
    ReadGripper(r, g, e);
  } else if (const YAML::Node p = node["perturb"]) {
    ReadPerturb(r, p, e);
  } else if (const YAML::Node s = node["set"]) {
    e.type = DemoEvent::Type::kSet;
    try {
      e.set = ParseOverride(r.As<std::string>(s, "set"));
    } catch (const SceneError& error) {
      r.Fail(s, error.message());
    }
  } else {
    r.Fail(node, "an event needs one of teleop, teleop_clear, gripper, perturb, set");
  }
  return e;
}

}  // namespace

void WriteDemoLog(const std::filesystem::path& file, const DemoLog& log) {
  std::ostringstream out;
  out << "# Ductile demo log: the scene, its overrides and every input of the run with the step it was applied\n"
      << "# before. Replay: ductile-cli replay THIS_FILE [--video FILE.mp4]\n"
      << "ductile_demo_log: " << kFormatVersion << "\n"
      << "scene: " << Quoted(log.scene.string()) << "\n"
      << "overrides: [";
  for (std::size_t i = 0; i < log.overrides.size(); ++i) {
    out << (i ? ", " : "") << Quoted(log.overrides[i].path + "=" + log.overrides[i].value);
  }
  out << "]\n"
      << "steps: " << log.steps << "\n";
  if (log.final_state_hash) {
    std::ostringstream hash;
    hash << std::hex << std::setw(16) << std::setfill('0') << *log.final_state_hash;
    out << "final_state_hash: \"" << hash.str() << "\"\n";
  }
  if (!log.blas_kernels.empty()) out << "blas_kernels: " << Quoted(log.blas_kernels) << "\n";
  out << "events:" << (log.events.empty() ? " []\n" : "\n");
  for (const DemoEvent& e : log.events) {
    out << "  - {step: " << e.step << ", time: " << Number(e.time) << ", ";
    switch (e.type) {
      case DemoEvent::Type::kTeleopTarget:
        out << "teleop: {robot: " << Quoted(e.teleop.robot) << ", link: " << Quoted(e.teleop.link)
            << ", tool_point: " << Vector(e.teleop.tool_point) << ", position: " << Vector(e.teleop.position)
            << ", quaternion: " << Vector(e.teleop.quaternion)
            << ", track_orientation: " << (e.teleop.track_orientation ? "true" : "false") << "}";
        break;
      case DemoEvent::Type::kTeleopClear:
        out << "teleop_clear: " << Quoted(e.teleop.robot);
        break;
      case DemoEvent::Type::kGripper:
        out << "gripper: {robot: " << Quoted(e.gripper.robot) << ", opening: " << Number(e.gripper.opening)
            << ", force: " << Number(e.gripper.force) << "}";
        break;
      case DemoEvent::Type::kPerturb:
        out << "perturb: {kind: " << PerturbKind(e.perturbation.kind) << ", index: " << e.perturbation.index
            << ", anchor: " << Vector(e.perturbation.anchor) << ", target: " << Vector(e.perturbation.target)
            << ", frequency: " << Number(e.perturbation.frequency) << "}";
        break;
      case DemoEvent::Type::kSet:
        out << "set: " << Quoted(e.set.path + "=" + e.set.value);
        break;
    }
    out << "}\n";
  }

  std::filesystem::path temporary = file;
  temporary += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream stream(temporary, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!stream) throw std::runtime_error("cannot write '" + file.string() + "': " + std::strerror(errno));
    stream << out.str();
    stream.flush();
    if (!stream) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::runtime_error("writing '" + file.string() + "' failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error("cannot write '" + file.string() + "': " + ec.message());
  }
}

DemoLog LoadDemoLog(const std::filesystem::path& file) {
  const LogReader r(file);
  const YAML::Node root = ParseLog(file, r);
  DemoLog log;
  const std::filesystem::path scene = r.As<std::string>(r.Need(root, "scene", root), "scene");
  log.scene = scene.is_absolute() ? scene : (file.parent_path() / scene).lexically_normal();
  ReadOverrides(r, root, log.overrides);
  const YAML::Node steps = r.Need(root, "steps", root);
  log.steps = r.As<std::int64_t>(steps, "steps");
  if (log.steps < 0) r.Fail(steps, "steps must be >= 0");
  ReadFinalStateHash(r, root, log);
  ReadBlasKernels(r, root, log);
  const YAML::Node events = root["events"];
  if (events && !events.IsSequence()) r.Fail(events, "events: expected a list");
  std::int64_t previous = 0;
  for (const YAML::Node& node : events) {
    log.events.push_back(ReadEvent(r, node, previous, log.steps));
    previous = log.events.back().step;
  }
  return log;
}

void SetOverride(std::vector<Override>& overrides, const Override& edit) {
  const auto same =
      std::find_if(overrides.begin(), overrides.end(), [&](const Override& o) { return o.path == edit.path; });
  if (same != overrides.end()) {
    *same = edit;
  } else {
    overrides.push_back(edit);
  }
}

std::string ApplyDemoEvent(Simulator& sim, const DemoEvent& event, const std::string& scene_text,
                           const std::filesystem::path& scene_file, std::vector<Override>& overrides) {
  switch (event.type) {
    case DemoEvent::Type::kTeleopTarget:
      return sim.SetTeleopTarget(event.teleop);
    case DemoEvent::Type::kTeleopClear:
      sim.ClearTeleopTarget(event.teleop.robot);
      return {};
    case DemoEvent::Type::kGripper:
      return sim.SetGripper(event.gripper);
    case DemoEvent::Type::kPerturb:
      sim.SetPerturbation(event.perturbation);
      return {};
    case DemoEvent::Type::kSet: {
      std::vector<Override> edited = overrides;
      SetOverride(edited, event.set);
      // A live parameter is set as the studio sets it; anything else is the scene recompiled with the edit.
      const std::optional<ParameterKey> key = MatchParameter(event.set.path);
      if (key && key->info->apply == ParameterApply::kLive) {
        if (std::string refused = sim.SetParameter(event.set.path, event.set.value); !refused.empty()) return refused;
        overrides = std::move(edited);
        return {};
      }
      std::shared_ptr<const Model> model;
      try {
        model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene_text, scene_file, edited)));
      } catch (const std::exception& e) {
        return event.set.path + " = " + event.set.value + ": " + e.what();
      }
      if (std::string refused = sim.UpdateModel(model); !refused.empty()) return refused;
      overrides = std::move(edited);
      return {};
    }
  }
  return {};
}

DemoPlayer::DemoPlayer(const DemoLog& log) : log_(log), overrides_(log.overrides) {
  std::ifstream stream(log_.scene, std::ios::binary);
  if (!stream) {
    throw SceneError(log_.scene.string(), 0, 0, std::string("cannot read the scene: ") + std::strerror(errno));
  }
  std::stringstream text;
  text << stream.rdbuf();
  scene_text_ = text.str();
}

std::string DemoPlayer::ApplyDue(Simulator& sim) {
  while (next_ < log_.events.size() && log_.events[next_].step <= sim.step_count()) {
    const DemoEvent& e = log_.events[next_++];
    if (std::string refused = ApplyDemoEvent(sim, e, scene_text_, log_.scene, overrides_); !refused.empty()) {
      return "event at step " + std::to_string(e.step) + " (t = " + Number(e.time) + " s) refused: " + refused;
    }
  }
  return {};
}

std::string BlasKernels() {
  // Asked at run time: Debian's BLAS is an alternative, which may be another library than OpenBLAS.
  using CoreName = char* (*)();
  const auto core_name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = core_name ? core_name() : nullptr;
  return name ? std::string(name) : std::string();
}

}  // namespace ductile
