// The registry of deformable domain kinds (docs/architecture.md, "Domains and couplings"): one line per kind in
// domain_registry.cpp, saying its name, whether a model has it, how its domain is built on its part of the State,
// how it is bound to another State, and when a live edit changes its structure. The Workspace builds its list of
// domains from it, in this order (the order the weak scheme advances them in, and the snapshot and divergence
// checks visit them in); UpdateModel asks each kind whether an edited model can go on from the current state. Each
// kind also declares its capabilities (which settings it refuses), which the Simulator checks when it starts and at
// every edit: the refusal rules live with their domains, not in the model compiler or the editor.
#pragma once

#include <tbb/task_arena.h>

#include <memory>
#include <span>
#include <string>

#include "core/hash.h"
#include "domain/deformable_domain.h"
#include "state/state_data.h"

namespace ductile {

struct DomainKind {
  const char* name;
  /// The model has this domain (a scene with no soft bodies has no FEM domain).
  bool (*present)(const Model& model);
  /// The domain of a model that has it, working on its part of `state`, reset to the model's initial state.
  std::unique_ptr<DeformableDomain> (*make)(const Model& model, State::Data& state, tbb::task_arena& arena);
  /// Makes a domain of this kind work on its part of `state` from now on, as it is (a restored state).
  void (*bind)(DeformableDomain& domain, State::Data& state);
  /// Why a state of `before` cannot go on with `after` (the domain came, went or changed its structure), or empty.
  std::string (*structure_changed)(const Model& before, const Model& after);
  /// Its capabilities: what of a model's settings it cannot run (a coupling scheme, a backend), or none. Asked of
  /// every kind, present in the model or not (a kind decides what its absence allows).
  DomainRefusal (*refusal)(const Model& model);
  /// What a running state of `before` cannot take live in `after`'s settings (a switch of scheme), or none.
  DomainRefusal (*switch_refusal)(const Model& before, const Model& after);
  /// Its part of a state file's fingerprint: what of the model a saved state of the domain belongs to (sizes, not
  /// the parameters that live edits change).
  void (*fingerprint)(const Model& model, Fnv1a64& hash);
  /// The bytes its part of `state` holds (State::MemoryBytes).
  std::size_t (*memory_bytes)(const State::Data& state);
  /// Its bodies in a few words for messages ("120 particles in 2 objects"), or empty when the model has none.
  std::string (*describe)(const Model& model);
};

/// Every domain kind, in the order a Workspace lists them.
std::span<const DomainKind> DomainKinds();

/// The first refusal of a domain kind (in registry order) to run `model`, or none.
DomainRefusal ModelRefusal(const Model& model);
/// The first refusal of `after`, or of the live switch from `before` to it, or none.
DomainRefusal EditRefusal(const Model& before, const Model& after);
/// "KEY: VALUE: WHY", with ": reset to apply" for a switch that a reset makes possible.
std::string Describe(const DomainRefusal& refusal);

}  // namespace ductile
