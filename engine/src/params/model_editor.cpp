#include "params/model_editor.h"

#include <functional>

#include "ductile/parameters.h"
#include "model/compile_parts.h"
#include "model/compile_rigid.h"
#include "model/fem_model.h"
#include "model/pd_bodies.h"
#include "scene/overrides.h"
#include "scene/scene_slots.h"
#include "scene/schema.h"
#include "state/domain_registry.h"

namespace ductile::params {

namespace {

// One edit being derived: the edited scene, the key, the model to patch and its rigid part (copied when asked for).
struct Edit {
  const SceneDesc& scene;
  const ParameterKey& key;
  Model& model;
  std::function<RigidModel&()> rigid;
};

// Re-derives the fields of the model that the edited key feeds.
using Derive = void (*)(const Edit& edit);

template <typename Desc>
std::size_t IndexOf(const std::vector<Desc>& entries, const std::string& name) {
  std::size_t i = 0;
  while (i < entries.size() && entries[i].name != name) ++i;
  return i;  // the key was checked: the entry exists
}

void Timing(const Edit& e) {
  CompileSimulation(e.scene.simulation, e.model);
}

void SolverSettings(const Edit& e) {
  CompileSimulation(e.scene.simulation, e.model);
  CompileRigidSettings(e.scene, e.rigid());
}

void GeometryContact(const Edit& e) {
  CompileGeometryContact(e.scene, e.rigid());
}

void RobotLimits(const Edit& e) {
  CompileRobotLimits(e.scene, e.rigid());
}

void Walls(const Edit& e) {
  e.model.walls = CompileWalls(e.scene.walls);
}

void Collider(const Edit& e) {
  const std::size_t i = IndexOf(e.scene.colliders, e.key.names[0]);
  e.model.colliders[i] = CompileCollider(e.scene.colliders[i]);
}

// A material's constants; after a change of density also the masses of the particles made of it.
void Material(const Edit& e) {
  const std::size_t m = IndexOf(e.scene.materials, e.key.names[0]);
  e.model.materials[m] = CompileMaterial(e.scene.materials[m]);
  e.model.material_friction[m] = e.scene.materials[m].friction;
  if (e.key.info->key != "materials.*.density") return;
  for (std::size_t o = 0; o < e.model.objects.size(); ++o)
    if (e.model.objects[o].material == static_cast<int>(m)) CompileObjectMasses(e.scene, static_cast<int>(o), e.model);
}

// The IPC domain's live parameters: a copy of the FEM model with the edited settings, soft body material or affine
// body stiffness (the meshes are shared by value: a copy of their vectors).
void Fem(const Edit& e) {
  auto fem = std::make_shared<FemModel>(*e.model.fem);
  fem->settings = CompileIpcSettings(e.scene);
  for (std::size_t b = 0; b < fem->soft_bodies.size(); ++b) {
    const SoftBodyDesc& desc = e.scene.soft_bodies[b];
    fem->soft_bodies[b].desc.model = ElasticModelOf(desc.model);
    fem->soft_bodies[b].desc.lame = fem::LameFromYoungPoisson(desc.youngs_modulus, desc.poisson_ratio);
  }
  for (std::size_t b = 0; b < fem->affine_bodies.size(); ++b)
    fem->affine_bodies[b].desc.stiffness = e.scene.affine_bodies[b].stiffness;
  e.model.fem = std::move(fem);
}

// The projective-dynamics domain's live parameters: a copy of its model with the edited materials, activations and
// settings (the domain refactorises what changed, model/pd_domain.h).
void Pd(const Edit& e) {
  auto pd = std::make_shared<PdBodiesModel>(*e.model.pd);
  ApplyPdParameters(e.scene, *pd);
  e.model.pd = std::move(pd);
}

// The function of a row's ParameterDerives, null for kNone.
Derive DeriveOf(ParameterDerives derives) {
  switch (derives) {
    case ParameterDerives::kTiming:
      return Timing;
    case ParameterDerives::kSolverSettings:
      return SolverSettings;
    case ParameterDerives::kGeometryContact:
      return GeometryContact;
    case ParameterDerives::kRobotLimits:
      return RobotLimits;
    case ParameterDerives::kWalls:
      return Walls;
    case ParameterDerives::kCollider:
      return Collider;
    case ParameterDerives::kMaterial:
      return Material;
    case ParameterDerives::kFem:
      return Fem;
    case ParameterDerives::kPd:
      return Pd;
    case ParameterDerives::kNone:
      break;
  }
  return nullptr;
}

}  // namespace

bool DerivesLive(const ParameterInfo& row) {
  return DeriveOf(row.derives) != nullptr;
}

std::string ModelEditor::Apply(std::shared_ptr<const Model>& model, const std::string& key_text,
                               const std::string& value_text) {
  const std::string key = scene::TrimSpace(key_text), value = scene::TrimSpace(value_text);
  if (!model->scene) return key + " = " + value + ": the model was not compiled from a scene, it has no parameters";
  if (std::string bad = CheckParameter(*model->scene, key, value); !bad.empty()) return bad;
  const ParameterKey matched = *MatchParameter(key);
  const Derive derive = DeriveOf(matched.info->derives);
  if (matched.info->apply != ParameterApply::kLive || derive == nullptr) return NeedsResetMessage(matched);
  if (matched.info->key == "simulation.backend" || matched.info->key == "simulation.coupling") {
    // A scheme or backend the domains may refuse (their capabilities, state/domain_registry.h): tried first.
    Model trial = *model;
    for (const auto& [name, kind] : scene::BackendKindNames())
      if (matched.info->key == "simulation.backend" && name == value) trial.backend = kind;
    for (const auto& [name, kind] : scene::CouplingKindNames())
      if (matched.info->key == "simulation.coupling" && name == value) trial.coupling = kind;
    if (const DomainRefusal refusal = EditRefusal(*model, trial))
      return key + " = " + value + ": " + refusal.why + (refusal.reset ? ": reset to apply" : "");
  }

  // The edited scene description; CheckParameter found the slot and read the value.
  auto desc = std::make_shared<SceneDesc>(*model->scene);
  std::string why;
  const scene::Slot slot = scene::FindSlot(*desc, matched, why);
  scene::Value parsed;
  scene::ReadValue(matched, value, parsed);
  scene::Store(slot, matched, parsed);

  Model& edited = Own(model);
  edited.scene = desc;
  derive(Edit{*desc, matched, edited, [this, &edited]() -> RigidModel& { return OwnRigid(edited); }});
  return {};
}

Model& ModelEditor::Own(std::shared_ptr<const Model>& model) {
  if (model_.get() != model.get()) {
    model_ = std::make_shared<Model>(*model);  // shares the rigid part and the scene until they are edited
    rigid_.reset();
    model = model_;
  }
  return *model_;
}

RigidModel& ModelEditor::OwnRigid(Model& model) {
  if (rigid_.get() != model.rigid.get()) {
    rigid_ = std::make_shared<RigidModel>(*model.rigid);
    model.rigid = rigid_;
  }
  return *rigid_;
}

}  // namespace ductile::params
