// The builder of the parameter table's rows (ductile/parameters.h) and what the row lists share: ranges, material
// model lists, choice names. parameter_table.cpp lists the simulation, grid, contact, material and object rows;
// parameter_rows_bodies.cpp the rigid bodies', joints', robots', welds', cameras' and FEM–IPC bodies'.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ductile/parameters.h"
#include "scene/scene_binding.h"
#include "scene/schema.h"

namespace ductile::params::rows {

using scene::AnyBody;
using scene::Body;
using scene::Controller;
using scene::Entry;
using scene::Fixed;
using scene::IsDynamic;
using scene::Joint;
using scene::KeyframeTime;
using scene::MapValue;
using scene::Material;
using scene::Named;
using scene::Names;
using scene::NoEntry;
using scene::Of;
using scene::RobotJoint;
using scene::Slot;

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

inline ParameterRange Positive() {
  return {0, kInfinity, true, true};
}
inline ParameterRange NonNegative() {
  return {0, kInfinity, false, true};
}
inline ParameterRange AtLeast(double min) {
  return {min, kInfinity, false, true};
}
inline ParameterRange Finite() {
  return {};
}

inline const std::vector<MaterialModelDesc> kAllModels{
    MaterialModelDesc::kFixedCorotated, MaterialModelDesc::kLinearCorotated, MaterialModelDesc::kStvkHencky,
    MaterialModelDesc::kDruckerPrager,  MaterialModelDesc::kFluid,           MaterialModelDesc::kCloth};
// The models with a Young's modulus and a Poisson's ratio (cloth: in its plane).
inline const std::vector<MaterialModelDesc> kSolids{MaterialModelDesc::kFixedCorotated,
                                                    MaterialModelDesc::kLinearCorotated, MaterialModelDesc::kStvkHencky,
                                                    MaterialModelDesc::kDruckerPrager, MaterialModelDesc::kCloth};
inline const std::vector<MaterialModelDesc> kPlastic{MaterialModelDesc::kLinearCorotated,
                                                     MaterialModelDesc::kStvkHencky};

// Builds one row: the constructor takes what every row has, the setters the rest.
class Row {
 public:
  Row(ParameterType type, std::string key, std::string name, std::string symbol, std::string unit) {
    p_.type = type;
    p_.key = std::move(key);
    p_.name = std::move(name);
    p_.symbol = std::move(symbol);
    p_.unit = std::move(unit);
    if (type == ParameterType::kVector) p_.range = Finite();
  }
  Row& In(const ParameterRange& range) {
    p_.range = range;
    return *this;
  }
  Row& Choices(const std::vector<std::pair<std::string, int>>& names) {
    for (const auto& [name, index] : names)
      if (index == static_cast<int>(p_.choices.size())) p_.choices.push_back(name);
    p_.range = {0, static_cast<double>(p_.choices.size()) - 1, false, false};
    for (std::size_t i = 0; i < p_.choices.size(); ++i)
      p_.range_note += (i == 0 ? "" : i + 1 == p_.choices.size() ? " or " : ", ") + ("`" + p_.choices[i] + "`");
    return *this;
  }
  Row& Within(std::string note) {  // the valid values depend on other keys
    p_.range_note = std::move(note);
    return *this;
  }
  Row& Default(double value) {
    p_.default_value = value;
    return *this;
  }
  Row& Default(const Vector3& value) {
    p_.default_vector = value;
    return *this;
  }
  Row& DefaultNote(std::string note) {
    p_.default_note = std::move(note);
    return *this;
  }
  Row& Required() {
    p_.required = true;
    return DefaultNote("*required*");
  }
  Row& Models(const std::vector<MaterialModelDesc>& models) {
    p_.models = models;
    return *this;
  }
  Row& Reset(std::string reason) {
    p_.apply = ParameterApply::kReset;
    p_.reason = std::move(reason);
    return *this;
  }
  /// kReset as an initial condition (ParameterInfo::initial_condition).
  Row& Initial();
  Row& Reload(std::string reason) {
    p_.apply = ParameterApply::kReload;
    p_.reason = std::move(reason);
    return *this;
  }
  Row& Type(std::string note) {  // the docs' type of a map's entries
    p_.type_note = std::move(note);
    return *this;
  }
  Row& Doc(std::string doc) {
    p_.doc = std::move(doc);
    return *this;
  }
  Row& At(scene::Accessor slot) {  // where the value lives in a SceneDesc
    p_.binding = std::make_shared<const ParameterBinding>(ParameterBinding{std::move(slot)});
    return *this;
  }
  Row& Derives(ParameterDerives derives) {  // what a live edit recomputes
    p_.derives = derives;
    return *this;
  }
  operator ParameterInfo() const { return p_; }  // implicit: the table lists rows as they are built

 private:
  ParameterInfo p_;
};

inline Row Number(std::string key, std::string name, std::string symbol, std::string unit) {
  return {ParameterType::kNumber, std::move(key), std::move(name), std::move(symbol), std::move(unit)};
}
inline Row Integer(std::string key, std::string name, std::string symbol) {
  return {ParameterType::kInteger, std::move(key), std::move(name), std::move(symbol), ""};
}
inline Row Choice(std::string key, std::string name, const std::vector<std::pair<std::string, int>>& names) {
  Row row(ParameterType::kChoice, std::move(key), std::move(name), "scheme", "");
  return row.Choices(names);
}
inline Row Vector(std::string key, std::string name, std::string symbol, std::string unit) {
  return {ParameterType::kVector, std::move(key), std::move(name), std::move(symbol), std::move(unit)};
}

// simulation.coupling's names with their CouplingKind values (the scene format's, scene/schema.h).
inline std::vector<std::pair<std::string, int>> CouplingChoices() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, kind] : scene::CouplingKindNames()) out.emplace_back(name, static_cast<int>(kind));
  return out;
}

// simulation.backend's names with their BackendKind values.
inline std::vector<std::pair<std::string, int>> BackendChoices() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, kind] : scene::BackendKindNames()) out.emplace_back(name, static_cast<int>(kind));
  return out;
}

inline const char* const kInitial = "is an initial condition";

inline Row& Row::Initial() {
  Reset(kInitial);
  p_.initial_condition = true;
  return *this;
}

inline const char* const kRigidStructure = "changes the rigid bodies' joints and controllers";

// The row lists of parameter_rows_bodies.cpp, in table order.
std::vector<ParameterInfo> RigidBodyRows();
std::vector<ParameterInfo> BodyJointRows();
std::vector<ParameterInfo> RobotWeldCameraRows();
std::vector<ParameterInfo> SoftAndAffineBodyRows();
std::vector<ParameterInfo> IpcRows();
// parameter_rows_pd.cpp: the projective-dynamics domain's.
std::vector<ParameterInfo> PdBodyRows();
std::vector<ParameterInfo> PdBoneRows();  // a pd body's skeleton's
std::vector<ParameterInfo> PdRows();

}  // namespace ductile::params::rows
