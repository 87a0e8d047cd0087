// FrameSink: where a recording's frames go (docs/studio.md, "Recording"). The SimController hands it the state at
// fixed intervals of simulated time on the simulation thread; the studio's Recorder renders and encodes them.
#pragma once

#include <cstdint>

#include "ductile/snapshot.h"

namespace ductile::studio {

/// Where a recording's frames go: the studio's Recorder renders and encodes them. Every call comes from the
/// simulation thread, so an implementation needs no lock for what only these calls touch. A sink handed over with
/// command::StartRecording gets exactly one Finish: at command::StopRecording, at a reset, a loaded state, a scrub
/// or an opened scene, when another recording starts, when it fails, or at the latest when the SimController is
/// destroyed (a start still queued then is finished at once).
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  /// Frames per second of simulated time, > 0; read once, when the recording starts.
  virtual double fps() const = 0;
  /// Whether the frames need the particles' von Mises stress (the export's do; a video's only in the stress view).
  virtual bool wants_stress() const { return false; }
  /// `snapshot` is the state at the step boundary that is due as the next `count` (>= 1) frames. Returns false when
  /// the recording failed (the sink keeps the reason): the controller then finishes it and sends no more frames.
  virtual bool WriteFrames(const Snapshot& snapshot, std::int64_t count) = 0;
  /// Ends the recording at simulated time `end_time` [s] (the state reached when it was stopped); the last call.
  virtual void Finish(double end_time) = 0;
};

}  // namespace ductile::studio
