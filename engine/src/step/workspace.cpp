#include "step/workspace.h"

#include <stdexcept>

#include "coupling/strong_coupling.h"
#include "coupling/weak_coupling.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"

namespace ductile {

contact::RigidState InitialRigidState(const Model& model) {
  const RigidModel& r = *model.rigid;
  contact::RigidState state = contact::InitialRigidState(r.tree);
  state.controllers = r.controllers;
  state.tau_applied = r.tau_applied;
  state.q = r.q0;
  state.v = r.v0;
  return state;
}

Workspace::Workspace(const Model& model, State::Data& state, int num_threads)
    : threads(num_threads), arena(num_threads) {
  mpm = std::make_unique<mpm::MpmDomain>(model, state.mpm, arena);
  if (model.fem && !model.fem->empty()) fem = std::make_unique<fem::FemDomain>(model, state.fem);
  ChooseCoupling(model);
  Reset(model, state);
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

std::string Workspace::ChooseBackend(const Model& model, State::Data& state) {
  const BackendKind resolved = backend::ResolveBackend(model);
  if (device && resolved == backend) return {};
  if (device) {
    device->SyncToHost();
    device.reset();
    mpm->Bind(state.mpm);
  }
  backend = resolved;
  try {
    if (resolved == BackendKind::kCuda) {
      device = std::make_unique<backend::DeviceMpmDomain>(model, state.mpm, backend::MakeCudaMpm(model), arena);
    } else if (resolved == BackendKind::kEmulated) {
      device = std::make_unique<backend::DeviceMpmDomain>(model, state.mpm, backend::MakeEmulatedMpm(model), arena);
    }
  } catch (const std::exception& e) {  // no memory for the particles on the device, a CUDA error
    device.reset();
    backend = BackendKind::kCpu;
    if (model.backend == BackendKind::kAuto) return {};  // `auto` runs where it can
    return std::string("simulation.backend: the device backend could not start (") + e.what() +
           "): the CPU backend goes on";
  }
  return {};
}

void Workspace::MakeRigid(const Model& model, State::Data& state) {
  rigid.reset();
  state.has_rigid = model.rigid && !model.rigid->empty();
  if (!state.has_rigid) return;
  contact::RigidSystemParams params;
  params.gravity = Eigen::Vector3d(model.gravity[0], model.gravity[1], model.gravity[2]);
  params.stiction_speed = model.rigid->stiction_speed;
  params.solver.max_iterations = model.rigid->max_solver_iterations;
  rigid = std::make_unique<contact::RigidSystem>(model.rigid->tree, model.rigid->world, model.rigid->welds, params,
                                                 state.rigid);
}

void Workspace::Reset(const Model& model, State::Data& state) {
  state.clock = {};
  state.inputs = {};
  state.impulses = {};
  mpm->Reset();
  if (fem) fem->Reset();
  device.reset();
  if (std::string failed = ChooseBackend(model, state); !failed.empty()) throw std::runtime_error(failed);
  state.rigid = model.rigid && !model.rigid->empty() ? InitialRigidState(model) : contact::RigidState{};
  MakeRigid(model, state);
  telemetry = {};
  robot_forces.Clear();
  rigid_failure.clear();
}

void Workspace::Bind(const Model& model, State::Data& state) {
  mpm->Bind(state.mpm);
  if (device) device->Bind(state.mpm);
  if (fem) fem->Bind(state.fem);
  MakeRigid(model, state);
  telemetry = {};
  robot_forces.Clear();
  rigid_failure.clear();
}

std::string Workspace::SetModel(const Model& model, State::Data& state) {
  SyncToHost();
  mpm->SetModel(model);
  if (fem) fem->SetModel(model);
  if (device && backend::ResolveBackend(model) == backend) {  // staying on the device: it takes the new model
    try {
      device->SetModel(model);
    } catch (const std::exception&) {  // a CUDA error: start a fresh device below (or the CPU backend goes on)
      device.reset();
      mpm->Bind(state.mpm);
      backend = BackendKind::kCpu;
    }
  }
  std::string failed = ChooseBackend(model, state);
  ChooseCoupling(model);
  if (!model.rigid || model.rigid->empty()) return failed;
  // Controller targets set while running (teleop) stay; gains and applied forces come from the new model.
  const std::vector<contact::JointController> running = state.rigid.controllers;
  state.rigid.controllers = model.rigid->controllers;
  for (std::size_t c = 0; c < running.size() && c < state.rigid.controllers.size(); ++c) {
    state.rigid.controllers[c].q_target = running[c].q_target;
    state.rigid.controllers[c].v_target = running[c].v_target;
  }
  state.rigid.tau_applied = model.rigid->tau_applied;
  MakeRigid(model, state);
  return failed;
}

}  // namespace ductile
