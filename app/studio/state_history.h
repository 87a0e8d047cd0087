// StateHistory: the recent states of the open scene, for stepping back (docs/studio.md, "History"). A bounded ring
// of State copies, taken by the simulation thread every `interval` steps while it runs and whenever it stops, each
// with the model (the parameters) and overrides it ran with and the demo log's length at that moment, so that a
// state taken from the history continues exactly as the run did from there. The oldest states make room for new ones
// so that the copies stay within a memory bound; each costs State::MemoryBytes().
//
// States are numbered by a serial that grows by one per state kept: the history always holds the serials from
// first_serial() to last_serial(), with no gaps. Discarding the states after one (a run resumed from a past state)
// numbers the next one kept after it. Owned by the simulation thread; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/state.h"

namespace ductile::studio {

/// The simulated time the automatic interval aims for the history to span [s].
inline constexpr double kAutomaticHistorySpan = 5.0;
/// The default memory bound of the history: 512 MB, or a quarter of the physical memory when that is less [bytes].
std::size_t DefaultHistoryBytes();

/// One kept state.
struct HistoryEntry {
  std::uint64_t serial = 0;
  State state;
  /// The model compiled from the scene (when it opened, or at its last edit of a key that is not live), never
  /// edited in place; with `live_edits` applied, the parameters it ran with.
  std::shared_ptr<const Model> model;
  std::vector<Override> live_edits;  ///< Simulator::SetParameter's edits of `model` since, in the order applied.
  std::vector<Override> overrides;   ///< Every override in force, as the inspector and the demo log show them.
  std::size_t demo_events = 0;       ///< Inputs in the demo log when it was kept.
  std::size_t bytes = 0;             ///< state.MemoryBytes().
};

class StateHistory {
 public:
  /// At most `bytes` of states (> 0), kept every `interval` steps while playing (0: automatic, the fewest steps apart
  /// of 1, 2, 5, 10, 20, 50, 100, ... that lets `bytes` hold kAutomaticHistorySpan). Drops the oldest states beyond a
  /// lower bound.
  void SetLimit(std::size_t bytes, int interval);
  /// Forgets every state (a reset, a loaded state, another scene); serials start again at 1.
  void Clear();
  /// Whether a playing run keeps its state at `step` (Simulator::step_count): `interval()` or more steps after the
  /// newest kept one, or none is kept.
  bool Due(std::int64_t step) const;
  /// Keeps a copy of `state` as the newest, dropping the oldest ones as the bound requires. Returns its serial, or
  /// nothing when the state alone is larger than the bound (then nothing changes).
  std::optional<std::uint64_t> Keep(const State& state, std::shared_ptr<const Model> model,
                                    const std::vector<Override>& overrides, std::size_t demo_events,
                                    const std::vector<Override>& live_edits = {});
  /// The state numbered `serial`, or the oldest or newest when `serial` lies before or after them; null when empty.
  const HistoryEntry* Nearest(std::uint64_t serial) const;
  /// Forgets the states after `serial`; the next one kept is numbered `serial` + 1.
  void DiscardAfter(std::uint64_t serial);

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  std::uint64_t first_serial() const { return entries_.empty() ? 0 : entries_.front().serial; }
  std::uint64_t last_serial() const { return entries_.empty() ? 0 : entries_.back().serial; }
  const HistoryEntry& oldest() const { return entries_.front(); }
  const HistoryEntry& newest() const { return entries_.back(); }
  std::size_t bytes() const { return bytes_; }  ///< Held by the kept states [bytes].
  std::size_t limit() const { return limit_; }  ///< The bound [bytes].
  /// Steps between the states a playing run keeps: the one set, or the automatic one for the newest state's size
  /// and Δt (1 while none is kept).
  int interval() const { return interval_; }
  bool automatic_interval() const { return requested_interval_ == 0; }

 private:
  void DropOldest();
  void ChooseInterval();

  std::deque<HistoryEntry> entries_;
  std::optional<HistoryEntry> spare_;  // a dropped entry whose State's storage the next copy reuses
  std::size_t bytes_ = 0;
  std::size_t limit_ = DefaultHistoryBytes();
  int requested_interval_ = 0;
  int interval_ = 1;
  std::uint64_t next_serial_ = 1;
};

}  // namespace ductile::studio
