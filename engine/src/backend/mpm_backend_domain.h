// The MPM domain as the engine steps it: the CPU solver's domain (mpm/mpm_domain.h), always there, and the device
// stepper's (device_mpm_domain.h) when the model runs on one (simulation.backend, `auto` resolved by
// ResolveBackend). Every stage goes to the one that steps; a switch of backend (a live edit, a device that could
// not start) carries the State's MpmState over through its host copy. The engine sees one MPM domain whichever
// backend steps it, so the inputs, the coupling schemes and the step never ask which one it is.
#pragma once

#include <tbb/task_arena.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/device_mpm_domain.h"
#include "domain/deformable_domain.h"
#include "mpm/mpm_domain.h"
#include "mpm/mpm_state.h"

namespace ductile::backend {

class MpmBackendDomain final : public DeformableDomain {
 public:
  /// A domain of `model` working on `state` with the threads of `arena`, reset to the model's initial particles
  /// (the CPU solver's construction) on the model's backend. Throws std::runtime_error when the model names a device
  /// backend that cannot start. All three must outlive it (or the next SetModel or Bind).
  MpmBackendDomain(const Model& model, mpm::MpmState& state, tbb::task_arena& arena);
  /// Every model has the MPM domain, with no particles when the scene has no objects (the strong scheme, the mouse
  /// spring and the snapshot read its particles).
  static bool Present(const Model& /*model*/) { return true; }
  static std::string StructureChanged(const Model& before, const Model& after) {
    return mpm::MpmDomain::StructureChanged(before, after);
  }
  static void Fingerprint(const Model& model, Fnv1a64& hash) { mpm::MpmDomain::Fingerprint(model, hash); }
  static std::size_t MemoryBytes(const mpm::MpmState& state) { return mpm::MpmDomain::MemoryBytes(state); }
  static std::string Describe(const Model& model) { return mpm::MpmDomain::Describe(model); }
  /// What the MPM domain cannot run: under the strong coupling, colliders and the drucker_prager and cloth materials
  /// (its implicit step has neither); a device backend that cannot start or cannot run the scheme (BackendRefusal).
  static DomainRefusal Refusal(const Model& model);
  /// A running MPM state takes any scheme and backend live (a backend switch carries it over).
  static DomainRefusal SwitchRefusal(const Model& /*before*/, const Model& /*after*/) { return {}; }

  /// Works on `state` from now on, as it is (a restored state of the same model; the device uploads it).
  void Bind(mpm::MpmState& state);
  /// The backend stepping now: kCpu, kCuda or kEmulated.
  BackendKind backend() const { return backend_; }
  /// The CPU backend's domain: the strong scheme steps its particles.
  mpm::MpmDomain& cpu() { return *cpu_; }
  const mpm::MpmState& state() const { return *state_; }
  /// Edits the particles' velocities between steps (the mouse spring): `edit` gets the particles and their
  /// velocities, on the host; a device takes them back.
  void EditVelocities(const std::function<void(const mpm::Particles&, std::vector<Vec3f>&)>& edit);
  /// Whether the last substep of a step also does the next step's first P2G (the CPU backend's
  /// MpmSolver::set_prepare_next_step; off while the velocities are edited before every step).
  void set_prepare_next_step(bool on) { cpu_->set_prepare_next_step(on); }

  const char* name() const override { return "mpm"; }
  void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) override {
    stepping().FreezeRigidGeometry(rigid, impulses);
    frozen_ = true;
  }
  /// Also records the contact solve's statistics (MpmState::contact) in `telemetry` when the step froze the rigid
  /// geometry and the scene has particles.
  void Advance(double time, double dt, StepTelemetry& telemetry) override;
  bool diverged() const override { return stepping().diverged(); }
  std::string DescribeDivergence() const override { return stepping().DescribeDivergence(); }
  std::string DivergenceMessage(const Model& model) const override { return stepping().DivergenceMessage(model); }
  /// Also switches the backend when the model names another one; returns why a device could not start (the CPU
  /// backend goes on), or empty.
  std::string SetModel(const Model& model) override;
  /// The model's initial particles, on the model's backend: throws std::runtime_error when it names a device
  /// backend that cannot start.
  void Reset() override;
  void CaptureSnapshot(Snapshot& out, bool with_stress) const override { stepping().CaptureSnapshot(out, with_stress); }
  int num_bodies() const override { return stepping().num_bodies(); }
  BodySummary SummarizeBody(int body) const override { return stepping().SummarizeBody(body); }
  /// The strong scheme steps the CPU backend's particles (a device backend refuses the scheme: Refusal).
  bool BuildStrongBlock(double dt, coupling::MpmRigidContact* frozen, StrongBlock& block) override {
    return cpu_->BuildStrongBlock(dt, frozen, block);
  }
  void AssembleStrongSystem(StrongBlock& block) override { cpu_->AssembleStrongSystem(block); }
  Eigen::VectorXd SolveStrongFreeMotion(const StrongBlock& block) override {
    return cpu_->SolveStrongFreeMotion(block);
  }
  void ApplyStrongVelocities(double dt, const Eigen::VectorXd& v, StepTelemetry& telemetry) override {
    cpu_->ApplyStrongVelocities(dt, v, telemetry);
  }
  void SyncToHost() const override {
    if (device_) device_->SyncToHost();
  }

 private:
  DeformableDomain& stepping() { return device_ ? static_cast<DeformableDomain&>(*device_) : *cpu_; }
  const DeformableDomain& stepping() const { return device_ ? static_cast<const DeformableDomain&>(*device_) : *cpu_; }
  // The model's backend; a switch carries the state over through the host copy. Returns why the device backend
  // could not start (the CPU backend then goes on), or empty.
  std::string ChooseBackend();

  const Model* model_;
  mpm::MpmState* state_;
  tbb::task_arena* arena_;
  std::unique_ptr<mpm::MpmDomain> cpu_;
  std::unique_ptr<DeviceMpmDomain> device_;  // when the model runs on a device backend, else null
  BackendKind backend_ = BackendKind::kCpu;
  bool frozen_ = false;  // FreezeRigidGeometry was called for the coming Advance
};

}  // namespace ductile::backend
