#include "state/domain_registry.h"

#include <array>
#include <type_traits>

#include "backend/mpm_backend_domain.h"
#include "fem/fem_domain.h"
#include "model/pd_domain.h"

namespace ductile {
namespace {

// A registry line for domain class D, which works on the State's member `part`: D(model, state.*part, arena) (or
// without the arena), D::Bind(state.*part), D::MemoryBytes(state.*part), and its static Present, StructureChanged,
// Refusal, SwitchRefusal, Fingerprint and Describe.
template <typename D, auto part>
constexpr DomainKind Kind(const char* name) {
  return {name,
          &D::Present,
          [](const Model& model, State::Data& state, tbb::task_arena& arena) -> std::unique_ptr<DeformableDomain> {
            if constexpr (std::is_constructible_v<D, const Model&, decltype(state.*part)&, tbb::task_arena&>) {
              return std::make_unique<D>(model, state.*part, arena);
            } else {  // a domain that keeps to its own threads
              return std::make_unique<D>(model, state.*part);
            }
          },
          [](DeformableDomain& domain, State::Data& state) { static_cast<D&>(domain).Bind(state.*part); },
          &D::StructureChanged,
          &D::Refusal,
          &D::SwitchRefusal,
          &D::Fingerprint,
          [](const State::Data& state) { return D::MemoryBytes(state.*part); },
          &D::Describe};
}

constexpr std::array kKinds = {
    Kind<backend::MpmBackendDomain, &State::Data::mpm>("mpm"),
    Kind<fem::FemDomain, &State::Data::fem>("fem"),
    Kind<PdDomain, &State::Data::pd>("pd"),
};

}  // namespace

std::span<const DomainKind> DomainKinds() {
  return kKinds;
}

DomainRefusal ModelRefusal(const Model& model) {
  for (const DomainKind& kind : kKinds)
    if (DomainRefusal refusal = kind.refusal(model)) return refusal;
  return {};
}

DomainRefusal EditRefusal(const Model& before, const Model& after) {
  if (DomainRefusal refusal = ModelRefusal(after)) return refusal;
  for (const DomainKind& kind : kKinds)
    if (DomainRefusal refusal = kind.switch_refusal(before, after)) return refusal;
  return {};
}

std::string Describe(const DomainRefusal& refusal) {
  return refusal.key + ": " + refusal.value + ": " + refusal.why + (refusal.reset ? ": reset to apply" : "");
}

}  // namespace ductile
