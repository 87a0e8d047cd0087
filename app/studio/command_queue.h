// CommandQueue: the commands the UI posted and the simulation thread has not taken yet, in order, except that a
// newer command of some kinds takes the place of a queued older one that it makes pointless (as RenderDoc's replay
// thread drops an older request with the same tag):
//
//   - SetSpeed and SetHistoryLimit replace any queued one of their kind: only the last setting counts;
//   - a Perturb move replaces a queued move of the same grab (the same kind, index and anchor): a mouse drag posts one
//     per mouse event, and the spring only needs the newest target;
//   - a Teleop target replaces a queued target of the same robot and link;
//   - a Scrub replaces a queued Scrub: only the newest slider position is worth showing.
//
// The newer command takes the older one's place. It never moves across a command that fixes a point of the run (a
// step, play, pause, reset, scrub, load or save, an opened scene, a demo log's capture, a recording's start or
// stop), nor across another command on the same subject that it does not replace (a Perturb across the spring's
// end, a Teleop target across the same robot's TeleopClear): it is appended then, and the order the UI posted is
// kept. A Scrub moves across nothing but SetSpeed and SetHistoryLimit, as any other command changes the run it
// would land in. Not thread-safe: the SimController holds its mutex around every call.
#pragma once

#include <deque>

#include "commands.h"

namespace ductile::studio {

/// What a newly posted command does about a queued older one (CommandQueue::Push looks back from the newest).
enum class QueuedCommand {
  kReplace,  ///< The newer takes its place.
  kPass,     ///< Unrelated: look further back.
  kStop,     ///< The newer may not move before it: append the newer.
};

/// The replacement rule between a newly posted command and a queued older one (see the top of this file).
QueuedCommand Compare(const Command& newer, const Command& older);

class CommandQueue {
 public:
  /// Appends `command`, or puts it in the place of the queued older one that it replaces.
  void Push(Command command);
  /// Moves every queued command, oldest first, into `out` (cleared first) and empties the queue.
  void TakeAll(std::deque<Command>& out);
  bool empty() const { return commands_.empty(); }
  std::size_t size() const { return commands_.size(); }
  /// The queued commands, oldest first (for tests).
  const std::deque<Command>& commands() const { return commands_; }

 private:
  std::deque<Command> commands_;
};

}  // namespace ductile::studio
