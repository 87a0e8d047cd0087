// The per-frame CSV outputs of `ductile-cli run` (docs/cli.md): the --trajectory, the --probes and the --csv of
// contact forces. They share one schedule: a frame at the run's start and whenever the simulated time reaches the
// next multiple of 1 / simulation.output_rate, each row carrying the simulated time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "atomic_file.h"
#include "ductile/record/frame_export.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "run_command.h"

namespace ductile::cli {

class FrameFiles {
 public:
  /// Opens the requested files (written to a temporary beside each, atomic_file.h) and the --export. Throws
  /// std::runtime_error naming a path that cannot be written.
  void Open(const RunOptions& options);
  /// Headers, and the frame of the state the run starts from (t = 0 or a loaded state's time).
  void Start(const Simulator& sim);
  /// After each step: adds the step's contact impulses, and writes a frame when one is due. Throws
  /// std::runtime_error when the export fails.
  void AfterStep(const Simulator& sim);
  /// Renames every file over its target and finishes the export. Throws std::runtime_error naming the path.
  void Commit();

 private:
  // Contact force and torque on each rigid body, integrated over the steps of the current output frame.
  struct Wrenches {
    std::vector<std::array<double, 6>> impulse;  // per output body: ∫f dt [N·s], ∫τ dt [N·m·s]
    double elapsed = 0;                          // [s]
  };

  void WriteFrame(const Simulator& sim);
  void WriteTrajectoryRows(const Simulator& sim, std::ostream& out) const;
  void WriteProbeRows(const Simulator& sim, std::ostream& out) const;
  void AddWrenches(const Simulator& sim);
  void WriteWrenchRows(const Simulator& sim, std::ostream& out);

  std::unique_ptr<AtomicFile> trajectory_, probes_, contacts_;
  std::unique_ptr<record::FrameExporter> export_;
  Snapshot snapshot_;  // the export's frame
  Wrenches wrenches_;
  double frame_interval_ = 0;    // [s]
  std::int64_t next_frame_ = 0;  // index k of the next frame, due at t = k · frame_interval_
};

}  // namespace ductile::cli
