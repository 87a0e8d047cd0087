// LoadLossFile (ductile/gradient.h): a loss as a YAML list of terms, each checked with its place in the file.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ductile/gradient.h"
#include "ductile/scene.h"

namespace ductile {

namespace {

[[noreturn]] void FailAt(const std::string& file, const YAML::Node& node, const std::string& message) {
  const YAML::Mark mark = node.Mark();
  throw SceneError(file, mark.line + 1, mark.column + 1, message);
}

double Number(const std::string& file, const YAML::Node& node, const std::string& what) {
  try {
    const double x = node.as<double>();
    if (std::isfinite(x)) return x;
  } catch (const YAML::Exception&) {
  }
  FailAt(file, node, what + " must be a finite number");
}

LossTerm ReadTerm(const std::string& file, const YAML::Node& entry) {
  if (!entry.IsMap()) FailAt(file, entry, "a loss term is a map {body, quantity, time, target, weight}");
  LossTerm term;
  for (const auto& field : entry) {
    const std::string key = field.first.as<std::string>();
    const YAML::Node& value = field.second;
    if (key == "body") {
      term.body = value.as<std::string>();
    } else if (key == "quantity") {
      const std::string q = value.as<std::string>();
      if (!LossQuantityFromName(q, term.quantity))
        FailAt(file, value, "unknown quantity '" + q + "' (center_of_mass or velocity)");
    } else if (key == "time") {
      term.time = Number(file, value, "'time'");
      if (term.time < 0) FailAt(file, value, "'time' must be >= 0");
    } else if (key == "target") {
      if (!value.IsSequence() || value.size() != 3) FailAt(file, value, "'target' must be a list of 3 numbers");
      for (std::size_t k = 0; k < 3; ++k) term.target[k] = Number(file, value[k], "'target'");
    } else if (key == "weight") {
      term.weight = Number(file, value, "'weight'");
      if (term.weight < 0) FailAt(file, value, "'weight' must be >= 0");
    } else {
      FailAt(file, field.first, "unknown key '" + key + "' in a loss term (body, quantity, time, target, weight)");
    }
  }
  if (term.body.empty()) FailAt(file, entry, "a loss term needs 'body'");
  if (!entry["time"]) FailAt(file, entry, "a loss term needs 'time'");
  if (!entry["target"]) FailAt(file, entry, "a loss term needs 'target'");
  return term;
}

}  // namespace

bool LossQuantityFromName(const std::string& name, LossQuantity& quantity) {
  if (name == "center_of_mass") {
    quantity = LossQuantity::kCenterOfMass;
  } else if (name == "velocity") {
    quantity = LossQuantity::kVelocity;
  } else {
    return false;
  }
  return true;
}

std::vector<LossTerm> LoadLossFile(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(file, 0, 0, "cannot open the loss file");
  std::ostringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    throw SceneError(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap() || !root["loss"]) throw SceneError(file, 1, 1, "a loss file holds 'loss:', a list of terms");
  for (const auto& field : root)
    if (field.first.as<std::string>() != "loss")
      FailAt(file, field.first, "unknown key '" + field.first.as<std::string>() + "' (a loss file holds 'loss:')");
  const YAML::Node list = root["loss"];
  if (!list.IsSequence() || list.size() == 0) FailAt(file, list, "'loss' must be a non-empty list of terms");
  std::vector<LossTerm> terms;
  try {
    for (const YAML::Node& entry : list) terms.push_back(ReadTerm(file, entry));
  } catch (const YAML::Exception& e) {
    throw SceneError(file, e.mark.line + 1, e.mark.column + 1, "bad loss term: " + e.msg);
  }
  return terms;
}

}  // namespace ductile
