#include "run_outputs.h"

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include "stats_json.h"

namespace ductile::cli {
namespace {

// A state hash as 16 hex digits.
std::string HashText(std::uint64_t hash) {
  std::ostringstream text;
  text << std::hex << std::setw(16) << std::setfill('0') << hash;
  return text.str();
}

}  // namespace

int RunOutputs::Open(const RunPlan& plan) {
  if (const int code = OpenFiles(); code != kExitOk) return code;
  // The pictures: arguments and paths first (exit 2), then the renderer (a missing Vulkan device: exit 1).
  return pictures_.Open(options_, plan.scene, plan.start_time, plan.end_time());
}

// The files, each written to a temporary beside its target (atomic_file.h).
int RunOutputs::OpenFiles() {
  try {
    if (!options_.demo_log_file.empty()) demo_log_ = std::make_unique<AtomicFile>(options_.demo_log_file);
    frames_.Open(options_);
    if (!options_.stats_file.empty()) stats_ = std::make_unique<AtomicFile>(options_.stats_file);
    if (!options_.save_state_file.empty()) {
      if (const std::string problem = CheckWritableFolder("state", options_.save_state_file); !problem.empty())
        throw std::runtime_error(problem);
      state_ = std::make_unique<AtomicFile>(options_.save_state_file);
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  return kExitOk;
}

void RunOutputs::Start(const RunPlan& plan, std::string& failure) {
  try {
    frames_.Start(*plan.sim);
  } catch (const std::runtime_error& e) {  // the export could not write
    failure = e.what();
    return;
  }
  pictures_.Start(plan.model, *plan.sim, failure);
}

void RunOutputs::AfterStep(const Simulator& sim, std::string& failure) {
  try {
    frames_.AfterStep(sim);
  } catch (const std::runtime_error& e) {
    failure = e.what();
    return;
  }
  pictures_.Capture(sim, failure);
}

int RunOutputs::Finish(const Simulator& sim, RunResult& result) {
  const std::string video = pictures_.CloseVideo(result.failure);
  const std::string state_problem = SaveState(sim, result);
  if (result.interrupted) return ReportInterrupted(sim, video, state_problem);
  if (stats_) WriteStatsJson(options_.scene, sim, result, stats_->stream());
  const std::string verdict = ReplayVerdict(sim, result);
  std::vector<std::string> problems;
  if (!state_problem.empty()) problems.push_back(state_problem);
  if (const std::string problem = WriteDemoLog(sim, result); !problem.empty()) problems.push_back(problem);
  try {
    frames_.Commit();
    if (stats_) stats_->Commit();
  } catch (const std::exception& e) {
    problems.emplace_back(e.what());
  }
  for (const std::string& problem : problems) std::cerr << problem << '\n';
  if (!result.failure.empty()) {
    std::cerr << result.failure << '\n';
    if (!video.empty()) std::cerr << "video up to there: " << video << '\n';
    return kExitFailure;
  }
  if (!problems.empty()) return kExitFailure;
  if (!options_.quiet) PrintSummary(sim, result, video, verdict);
  return kExitOk;
}

// The --save-state file: the state the run ended in, at a step boundary, whether it ran to its end or was
// interrupted; not after a divergence (that state is no longer physical, nothing to go on from). Returns the
// problem, or an empty string.
std::string RunOutputs::SaveState(const Simulator& sim, const RunResult& result) {
  if (!state_) return {};
  if (result.diverged) {
    state_->Discard();
    return "state not saved to '" + options_.save_state_file +
           "': the run diverged, its last state is no place "
           "to go on from";
  }
  const std::vector<std::uint8_t> bytes = sim.SaveState();
  state_->stream().write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  try {
    state_->Commit();
  } catch (const std::exception& e) {
    return std::string("state not saved: ") + e.what();
  }
  return {};
}

// A replay's verdict: the final state against the log's hash. Sets the run's failure when they differ.
std::string RunOutputs::ReplayVerdict(const Simulator& sim, RunResult& result) const {
  const std::shared_ptr<const DemoLog>& log = options_.replay;
  if (!log || !result.failure.empty() || !log->final_state_hash) return {};
  const std::string hash = HashText(sim.StateHash());
  if (sim.StateHash() != *log->final_state_hash) {
    // The soft and affine bodies' and the strong scheme's factorisations go through BLAS, whose kernels (and so
    // roundings) OpenBLAS picks by CPU: a log recorded where it chose others replays with them forced.
    const std::string kernels = BlasKernels();
    std::string blas;
    if (!log->blas_kernels.empty() && log->blas_kernels != kernels)
      blas = "; it was recorded with OpenBLAS's " + log->blas_kernels + " kernels, this run has " +
             (kernels.empty() ? std::string("another BLAS") : kernels + "'s") +
             " (FEM bodies and the strong coupling round as they do): OPENBLAS_CORETYPE=" + log->blas_kernels +
             " forces them";
    else if (!kernels.empty() && log->blas_kernels.empty())
      blas = "; FEM bodies and the strong coupling also round as the BLAS kernels do, here OpenBLAS's " + kernels +
             ": OPENBLAS_CORETYPE=NAME forces the recording machine's";
    result.failure = "replay differs from the log: final state hash " + hash + ", the log has " +
                     HashText(*log->final_state_hash) + " (same scene file? same build? the hash is bitwise" + blas +
                     (std::string(sim.backend()) == "cuda"
                          ? "; the CUDA backend is reproducible to round-off only: replay with --backend cpu a log "
                            "recorded on the CPU)"
                          : ")");
    return {};
  }
  return "replay reproduces the log: final state hash " + hash + " after " + std::to_string(result.statistics.steps()) +
         " steps";
}

// The --demo-log of a run that did not fail: its scene, overrides, steps, final hash (and a replay's events).
std::string RunOutputs::WriteDemoLog(const Simulator& sim, const RunResult& result) {
  if (!demo_log_ || !result.failure.empty()) return {};
  DemoLog log;
  if (options_.replay) log = *options_.replay;
  log.scene = std::filesystem::absolute(options_.scene).lexically_normal();
  log.overrides = options_.overrides;
  log.steps = static_cast<std::int64_t>(result.statistics.steps());
  log.final_state_hash = sim.StateHash();
  log.blas_kernels = BlasKernels();
  demo_log_->Discard();  // ductile::WriteDemoLog writes atomically itself
  try {
    ductile::WriteDemoLog(options_.demo_log_file, log);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// An interrupted run keeps only what stays valid: the video up to there and the state it reached.
int RunOutputs::ReportInterrupted(const Simulator& sim, const std::string& video,
                                  const std::string& state_problem) const {
  std::vector<std::string> kept;
  if (state_ && state_problem.empty())
    kept.push_back("the state: " + options_.save_state_file + " (go on from it with --load-state)");
  if (!video.empty()) kept.push_back("the video: " + video);
  std::cerr << "interrupted at t = " << sim.time() << " s; no output files were written";
  for (std::size_t i = 0; i < kept.size(); ++i) std::cerr << (i == 0 ? " except " : " and ") << kept[i];
  std::cerr << '\n';
  if (!state_problem.empty()) std::cerr << state_problem << '\n';
  return kExitInterrupted;
}

void RunOutputs::PrintSummary(const Simulator& sim, const RunResult& result, const std::string& video,
                              const std::string& verdict) const {
  const double wall = result.wall_seconds;
  std::cout << options_.scene << ": " << result.statistics.steps() << " steps, ";
  if (!options_.load_state_file.empty()) std::cout << "from t = " << result.start_time << " s to ";
  std::cout << "t = " << sim.time() << " s, " << sim.model().num_particles << " particles, " << std::setprecision(3)
            << wall << " s wall, " << result.statistics.MeanStepMs() << " ms/step, "
            << result.RealtimeFactor(sim.time()) << "x real time"
            << (std::string(sim.backend()) == "cpu" ? std::string() : std::string(", ") + sim.backend() + " backend")
            << '\n';
  if (!video.empty()) std::cout << "video: " << video << '\n';
  if (!verdict.empty()) std::cout << verdict << '\n';
  if (demo_log_) std::cout << "demo log: " << options_.demo_log_file << '\n';
  if (state_) std::cout << "state: " << options_.save_state_file << " (t = " << sim.time() << " s)\n";
}

}  // namespace ductile::cli
