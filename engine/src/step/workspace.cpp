#include "step/workspace.h"

#include <span>
#include <utility>

#include "coupling/strong_coupling.h"
#include "coupling/weak_coupling.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"
#include "state/domain_registry.h"

namespace ductile {

contact::RigidState InitialRigidState(const Model& model) {
  const RigidModel& r = *model.rigid;
  contact::RigidState state = contact::InitialRigidState(r.tree);
  state.targets = contact::InitialTargets(r.controllers);
  state.tau_applied = r.tau_applied;
  state.q = r.q0;
  state.v = r.v0;
  return state;
}

Workspace::Workspace(const Model& model, State::Data& state, int num_threads)
    : threads(num_threads), arena(num_threads) {
  for (const DomainKind& kind : DomainKinds())
    if (kind.present(model)) domains.push_back(kind.make(model, state, arena));
  for (const std::unique_ptr<DeformableDomain>& d : domains)
    if (auto* found = dynamic_cast<backend::MpmBackendDomain*>(d.get())) mpm_ = found;
  ChooseCoupling(model);
  ResetShared(model, state);
}

void Workspace::ChooseCoupling(const Model& model) {
  if (coupling && model.coupling == coupling_kind) return;
  if (model.coupling == CouplingKind::kStrong) {
    coupling = std::make_unique<StrongCoupling>();
  } else {
    coupling = std::make_unique<WeakCoupling>();
  }
  coupling_kind = model.coupling;
}

void Workspace::MakeRigid(const Model& model, State::Data& state) {
  rigid.reset();
  state.has_rigid = model.rigid && !model.rigid->empty();
  if (!state.has_rigid) return;
  contact::RigidSystemParams params;
  params.gravity = Eigen::Vector3d(model.gravity[0], model.gravity[1], model.gravity[2]);
  params.stiction_speed = model.rigid->stiction_speed;
  params.solver.max_iterations = model.rigid->max_solver_iterations;
  rigid = std::make_unique<contact::RigidSystem>(model.rigid->tree, model.rigid->world, model.rigid->welds,
                                                 model.rigid->controllers, params, state.rigid);
}

void Workspace::ResetShared(const Model& model, State::Data& state) {
  state.clock = {};
  state.inputs = {};
  state.impulses = {};
  state.rigid = model.rigid && !model.rigid->empty() ? InitialRigidState(model) : contact::RigidState{};
  MakeRigid(model, state);
  telemetry = {};
  robot_forces.Clear();
  rigid_failure.clear();
}

void Workspace::Reset(const Model& model, State::Data& state) {
  for (const std::unique_ptr<DeformableDomain>& d : domains) d->Reset();
  ResetShared(model, state);
}

void Workspace::Bind(const Model& model, State::Data& state) {
  const std::span<const DomainKind> kinds = DomainKinds();
  std::size_t next = 0;
  for (const DomainKind& kind : kinds)
    if (kind.present(model)) kind.bind(*domains[next++], state);
  MakeRigid(model, state);
  telemetry = {};
  robot_forces.Clear();
  rigid_failure.clear();
}

std::string Workspace::SetModel(const Model& model, State::Data& state, const Model* before) {
  SyncToHost();
  std::string failed;
  for (const std::unique_ptr<DeformableDomain>& d : domains) {
    std::string why = d->SetModel(model);
    if (failed.empty()) failed = std::move(why);
  }
  ChooseCoupling(model);
  if (!model.rigid || model.rigid->empty()) return failed;
  // Controller targets set while running (teleop, a script) stay unless the new model changes the target (an edit
  // of the scene's `target`, which then applies now); gains (the model's), feed-forward efforts and applied forces
  // come from the new model, and a squeeze ends (the gripper's command sets it again before the next step).
  // A controller is the same one when it drives the same joint (an edit of a gain to or from 0 adds or removes one).
  const std::vector<contact::JointTarget> running = std::move(state.rigid.targets);
  const std::vector<contact::JointController>& now = model.rigid->controllers;
  const std::vector<contact::JointController>* old = before && before->rigid ? &before->rigid->controllers : nullptr;
  state.rigid.targets.clear();
  for (std::size_t c = 0; c < now.size(); ++c) {
    const contact::JointTarget& initial = now[c].initial;
    std::size_t was = c;  // its place among the running targets
    if (old) {
      was = old->size();
      for (std::size_t k = 0; k < old->size(); ++k)
        if ((*old)[k].body == now[c].body) was = k;
    }
    const bool edited = old && was < old->size() && (*old)[was].initial.q_target != initial.q_target;
    const bool keep = was < running.size() && !edited;
    state.rigid.targets.push_back({keep ? running[was].q_target : initial.q_target,
                                   keep ? running[was].v_target : initial.v_target, initial.feedforward, false, 0});
  }
  state.rigid.tau_applied = model.rigid->tau_applied;
  MakeRigid(model, state);
  return failed;
}

}  // namespace ductile
