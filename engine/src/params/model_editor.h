// Live edits of a running model (Simulator::SetParameter). A parameter of the table (ductile/parameters.h) is
// checked, set in a copy of the model's scene description, and the fields of the Model that follow from it are
// derived again with CompileModel's own functions (model/compile_parts.h, model/compile_rigid.h): the edited model
// holds bitwise the numbers CompileModel gives the edited scene. No YAML is parsed and no particle is sampled.
// Copy on write: the first edit copies the model (sharing its rigid part), the first edit of a rigid setting copies
// the rigid part; later edits patch those copies in place.
#pragma once

#include <memory>
#include <string>

#include "ductile/model.h"
#include "ductile/parameters.h"
#include "model/rigid_model.h"

namespace ductile::params {

/// Applies live edits to the models of one simulator. Not thread-safe.
class ModelEditor {
 public:
  /// Applies `key` = `value` to `model`. On success `model` is the edited model (this editor's copy) and the result
  /// is empty. Otherwise the result says why (unknown key or entry, a bad value, a key that needs a reset, a model
  /// not compiled from a scene) and `model` and what it points to are unchanged.
  std::string Apply(std::shared_ptr<const Model>& model, const std::string& key, const std::string& value);

 private:
  // The model to patch: this editor's copy of `model`, made on the first edit of it.
  Model& Own(std::shared_ptr<const Model>& model);
  // The rigid part of `model` (this editor's copy) to patch, copied on its first edit.
  RigidModel& OwnRigid(Model& model);

  std::shared_ptr<Model> model_;
  std::shared_ptr<RigidModel> rigid_;
};

/// Whether Apply knows how to derive the model's fields after an edit of `row` (every kLive row must).
bool DerivesLive(const ParameterInfo& row);

}  // namespace ductile::params
