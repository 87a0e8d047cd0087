// Every output of `ductile-cli run` and `replay`, driven in the run's stages: Open before the run (so that a bad
// path or option fails at once and nothing runs), Start with the state the run starts from, AfterStep after
// every step, AfterRun when the stepping stops, Finish to write what is written at the end and report.
//
// What each output does at each stage:
//   output                     Open                 Start / AfterStep        Finish
//   --trajectory --probes --csv temporary files      rows per output frame    renamed over the targets
//   --stats                    temporary file       -                        written, renamed
//   --screenshot --video       checks, renderer     drawn when due           video closed (always)
//   --save-state               temporary file       -                        state written, renamed (not diverged)
//   --demo-log                 path checked         -                        written (a run that did not fail)
#pragma once

#include <memory>
#include <string>

#include "atomic_file.h"
#include "frame_files.h"
#include "pictures.h"
#include "run_command.h"
#include "run_plan.h"
#include "run_result.h"

namespace ductile::cli {

class RunOutputs {
 public:
  explicit RunOutputs(const RunOptions& options) : options_(options) {}

  /// Opens every output for the planned run. Prints the problem; returns the exit code (kExitBadInput for a bad
  /// path or option, kExitFailure when the renderer cannot be created).
  int Open(const RunPlan& plan);
  /// The state the run starts from: the first output frame, the video's first frame. Sets `failure` on a problem.
  void Start(const RunPlan& plan, std::string& failure);
  /// After each step. Sets `failure` when an output fails (the run then stops).
  void AfterStep(const Simulator& sim, std::string& failure);
  /// When the stepping has stopped, before the wall time is taken: the screenshot of a run that ended early.
  void AfterRun(const Simulator& sim, const RunResult& result) { pictures_.AfterRun(sim, result.interrupted); }
  /// Writes what is written at the end, reports the run on stdout and its problems on stderr. Returns the exit
  /// code.
  int Finish(const Simulator& sim, RunResult& result);

 private:
  int OpenFiles();
  std::string SaveState(const Simulator& sim, const RunResult& result);
  std::string ReplayVerdict(const Simulator& sim, RunResult& result) const;
  std::string WriteDemoLog(const Simulator& sim, const RunResult& result);
  int ReportInterrupted(const Simulator& sim, const std::string& video, const std::string& state_problem) const;
  void PrintSummary(const Simulator& sim, const RunResult& result, const std::string& video,
                    const std::string& verdict) const;

  const RunOptions& options_;
  FrameFiles frames_;
  RunPictures pictures_;
  std::unique_ptr<AtomicFile> stats_, demo_log_, state_;
};

}  // namespace ductile::cli
