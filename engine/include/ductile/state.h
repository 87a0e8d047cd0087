// The State: everything about a running scene that changes as it runs (the particles and the MPM transfer cache,
// the rigid bodies' q and v, the controllers' targets, teleoperation targets and the mouse spring, time and step
// count), apart from the immutable Model it runs. A State is a value: copying one copies it whole, so a history of
// past states is a list of copies (the studio's rewind). Simulator::state() reads the current one,
// Simulator::SetState continues from one; SaveStateFile and LoadStateFile keep one in a file.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ductile {

/// A state file or blob that cannot be used: not a state file, another format version, truncated or corrupt, or
/// saved from another scene. what() names the file (when there is one) and the reason.
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class State {
 public:
  State();
  ~State();
  State(const State& other);
  State& operator=(const State& other);
  State(State&& other) noexcept;
  State& operator=(State&& other) noexcept;

  double time() const;              ///< Simulated time [s].
  std::int64_t step_count() const;  ///< Steps since the last reset.
  /// Bytes of memory this state holds (particles, the transfer cache, rigid state): what one copy costs.
  std::size_t MemoryBytes() const;

  /// The engine's view of the contents (engine/src/state/state_data.h); not part of the public API.
  struct Data;
  Data& data() { return *data_; }
  const Data& data() const { return *data_; }

 private:
  std::unique_ptr<Data> data_;
};

}  // namespace ductile
