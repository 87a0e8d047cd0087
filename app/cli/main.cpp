// ductile-cli: the headless front end of the engine. Subcommands: validate, run, replay, bench, sweep, grad, docs
// (docs/cli.md).
// Exit status: 0 success, 1 internal error or diverged simulation, 2 bad input or usage, 130 interrupted.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>

#include "bench_command.h"
#include "docs_command.h"
#include "ductile/record/video_encoder.h"
#include "ductile/scene.h"
#include "grad_command.h"
#include "run_command.h"
#include "sweep_command.h"

namespace {

// The outputs shared by `run` and `replay`: files, threads, pictures, video and the demo log.
void AddOutputOptions(CLI::App& cmd, ductile::cli::RunOptions& o) {
  cmd.add_option("--trajectory", o.trajectory_file, "CSV: time,body,x,y,z,qw,qx,qy,qz per output frame");
  cmd.add_option("--csv", o.csv_file,
                 "CSV: time,body,fx,fy,fz,tx,ty,tz,mpm_contacts: contact force and torque per rigid body "
                 "(frame means) and its particle contacts");
  cmd.add_option("--stats", o.stats_file, "JSON statistics (particles, timings, real-time factor)");
  cmd.add_option("--export", o.export_dir,
                 "Folder for DIR/frames.h5 (HDF5: particles' positions, velocities, stress, plastic strain, rigid "
                 "and cloth meshes, per output frame) and DIR/frames.xmf (its XDMF index for ParaView and VisIt)");
  cmd.add_option("--threads", o.threads,
                 "Worker threads (default: simulation.threads, 0 = all cores; results do not depend on it)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_flag("--quiet", o.quiet, "No summary line and no progress line");
  cmd.add_option("--screenshot", o.screenshot_file, "PNG of the scene rendered offscreen (Vulkan)");
  cmd.add_option("--at", o.screenshot_at, "Simulated time of the screenshot [s] (default: the end)");
  CLI::Option* video =
      cmd.add_option("--video", o.video_file,
                     "H.264 MP4 of the scene rendered offscreen (Vulkan): frame k shows the state at simulated "
                     "time t0 + k/fps (t0: the run's start); fragmented, so an interrupted or killed run leaves a "
                     "playable file");
  cmd.add_option("--fps", o.video_fps, "Video frames per simulated second, 1 to 240 (default 30)")->needs(video);
  cmd.add_option("--size", o.size,
                 "Size WIDTHxHEIGHT in pixels of the screenshot and the video (default 1280x720; even for a video)");
  cmd.add_option("--color", o.color_mode, "Particle colours: material, speed, stress or plastic")
      ->check(CLI::IsMember({"material", "speed", "stress", "plastic"}));
  cmd.add_option("--particles-as", o.particle_style,
                 "How the MPM continua are drawn in the screenshot and the video: surface (default; a reconstructed "
                 "surface per object, water translucent) or beads (one sphere per particle)")
      ->check(CLI::IsMember({"surface", "beads"}));
  cmd.add_flag("--overlay", o.overlay,
               "Draw the HUD (scene, time, step, particles, contacts) on the screenshot and the video");
  cmd.add_option("--demo-log", o.demo_log_file,
                 "Write the run's demo log (scene, overrides, inputs, steps, final state hash; YAML) for replay");
  cmd.add_option("--save-state", o.save_state_file,
                 "Write the final state (binary) at the end of the run, also when interrupted (SIGINT, SIGTERM), not "
                 "after a divergence; run --load-state goes on from it");
}

// What the command line asked for: the subcommand that was given, with its options.
struct Arguments {
  std::vector<std::string> set_texts;  // --set of any subcommand
  std::string backend;                 // --backend of validate, run and bench: simulation.backend after the --set
  std::string validate_scene;
  std::optional<double> validate_duration;
  ductile::cli::RunOptions run;
  std::string replay_log;
  ductile::cli::RunOptions replay;
  ductile::cli::BenchOptions bench;
  ductile::cli::SweepOptions sweep;
  ductile::cli::DocsOptions docs;
  ductile::cli::GradOptions grad;
};

// --backend: where the MPM domain runs (simulation.backend; docs/architecture.md, "The device backend").
void AddBackendOption(CLI::App& cmd, Arguments& a) {
  cmd.add_option("--backend", a.backend,
                 "Where the MPM domain runs: cpu, cuda (refused without a CUDA device), auto (cuda when a device "
                 "is present and runs the scene, else cpu) or emulated (the CUDA backend's code on the CPU); "
                 "default: simulation.backend, else cpu")
      ->check(CLI::IsMember({"cpu", "cuda", "auto", "emulated"}));
}

CLI::App* AddValidate(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand("validate", "Check a scene file and report its first error");
  cmd->add_option("SCENE", a.validate_scene, "Scene file (YAML)")->required();
  cmd->add_option("--set", a.set_texts, "Override a scalar: dotted.key=value (repeatable)");
  cmd->add_option("--duration", a.validate_duration,
                  "Simulated seconds of the planned run, for its step count and time estimate (default: "
                  "simulation.duration)");
  AddBackendOption(*cmd, a);
  return cmd;
}

CLI::App* AddRun(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scene and write its outputs");
  cmd->add_option("SCENE", a.run.scene, "Scene file (YAML)")->required();
  cmd->add_option("--duration", a.run.duration,
                  "Simulated seconds to run (default: simulation.duration; with --load-state: until "
                  "t = simulation.duration)");
  cmd->add_option("--set", a.set_texts, "Override a scalar: dotted.key=value (repeatable)");
  cmd->add_option("--probes", a.run.probes_file, "CSV of the scene's output probes per output frame");
  cmd->add_option("--load-state", a.run.load_state_file,
                  "Start from a state written by --save-state for the same scene, at its simulated time, instead "
                  "of t = 0");
  AddBackendOption(*cmd, a);
  AddOutputOptions(*cmd, a.run);
  return cmd;
}

CLI::App* AddReplay(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Run a demo log again (scene, overrides and every recorded input at its step) and check that the "
      "final state hash matches the log's");
  cmd->add_option("LOG", a.replay_log, "Demo log (YAML), written by the studio or by run --demo-log")->required();
  AddOutputOptions(*cmd, a.replay);
  return cmd;
}

CLI::App* AddBench(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run scenes and print the Table I columns of Yu et al. 2025 (default: the coupling and cloth scenes)");
  ductile::cli::BenchOptions& o = a.bench;
  cmd->add_option(
      "SCENES", o.scenes,
      "Scene files (default: scenes/panel_squeeze.yaml, scenes/close_lift_shake.yaml, "
      "scenes/dough_rolling.yaml, scenes/box_bagging.yaml, scenes/laundry.yaml, scenes/tshirt_folding.yaml)");
  cmd->add_option("--json", o.json_file,
                  "JSON list of rows: scene, h, particles, n_v, dt, substeps, ms_per_step, contacts_avg, "
                  "contacts_max, iterations_avg, realtime_factor");
  cmd->add_option("--duration", o.duration, "Simulated seconds per scene (default: its duration)");
  cmd->add_option("--set", a.set_texts, "Override a scalar in every scene: dotted.key=value (repeatable)");
  cmd->add_option("--threads", o.threads, "Worker threads (default: simulation.threads, 0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--quiet", o.quiet, "No progress line");
  AddBackendOption(*cmd, a);
  cmd->add_flag("--strong-table", o.strong_table,
                "Instead of SCENES: the five Table I scenes of Zong et al. 2024 (ball_on_slope, dough_tearing, "
                "dough_rolling, water_pouring, close_lift_shake) under the strong coupling at dt = 0.01 s, one step "
                "each (simulation.coupling=strong, simulation.dt=0.01, simulation.substeps=1 before any --set)");
  return cmd;
}

// This program's own path, for the sweep's child runs (/proc/self/exe, else argv[0]).
std::string SelfPath(const char* argv0) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(argv0) : self.string();
}

CLI::App* AddSweep(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run the product of --grid overrides, each run in its own folder, with a summary CSV (docs/cli.md)");
  ductile::cli::SweepOptions& o = a.sweep;
  cmd->add_option("SCENE", o.scene, "Scene file (or --replay)");
  cmd->add_option("--grid", o.grids, "KEY=V1,V2,...: one axis of the sweep (repeatable; the runs are the product)");
  cmd->add_option("--seeds", o.seeds,
                  "Run each grid point with simulation.seed 0 to N-1 (other samplings of the particles; the last, "
                  "fastest axis)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--replay", o.replay,
                  "Instead of SCENE and grids: replay every demo log (*.demo.yaml) of this folder, a run each");
  cmd->add_option("--out", o.out, "Folder of the runs (DIR/run_NNNN) and DIR/summary.csv")->required();
  cmd->add_option("--set", o.sets, "Override a scalar in every run: dotted.key=value (repeatable)");
  cmd->add_option("--duration", o.duration, "Simulated seconds per run (default: the scene's; not with --replay)");
  cmd->add_flag("--video", o.video, "Also a video of each run (DIR/run_NNNN/run.mp4, 640x360)");
  cmd->add_option("--jobs", o.jobs, "Runs at once per process (default: the cores; 1 per rank under mpirun)")
      ->check(CLI::NonNegativeNumber);
  return cmd;
}

CLI::App* AddGrad(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "grad", "Print the loss of a run of the scene's pd bodies and its gradient by scene parameters (adjoint method)");
  cmd->add_option("SCENE", a.grad.scene, "Scene file (YAML)")->required();
  cmd->add_option("--loss", a.grad.loss_file,
                  "Loss file (YAML): loss: a list of {body, quantity: center_of_mass | velocity, time, target, "
                  "weight}, each term weight/2 |x(time) - target|^2")
      ->required();
  cmd->add_option("--wrt", a.grad.wrt,
                  "Comma-separated parameter keys: pd_bodies.NAME.youngs_modulus, poisson_ratio, velocity, "
                  "pneumatic_ratio, muscle_activation, pd.friction")
      ->required();
  cmd->add_option("--steps", a.grad.steps, "Steps of the run from t = 0 (default: the last loss term's step)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--checkpoint", a.grad.checkpoint_interval,
                  "Keep a state every K steps and recompute the others in the backward pass (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--set", a.set_texts, "Override a scalar: dotted.key=value (repeatable)");
  cmd->add_flag("--json", a.grad.json, "Print JSON (loss, values, gradient, central_difference) instead of a table");
  cmd->add_flag("--check-fd", a.grad.check_fd,
                "Also five-point central differences of the loss per parameter; exit 1 if any is more than 1e-4 "
                "(relative) off the gradient");
  return cmd;
}

// `docs parameters` and `docs telemetry`: the engine's tables as the Markdown of docs/scene-format.md and
// docs/python.md.
CLI::App* AddDocs(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand("docs", "Print reference documentation generated from the engine's tables");
  cmd->require_subcommand(1);
  const auto add_file_options = [&a](CLI::App* topic, const std::string& what) {
    CLI::Option* check =
        topic->add_option("--check", a.docs.check_file,
                          "Instead of printing: say whether this Markdown file's " + what + " differ (exit 1 if so)");
    topic
        ->add_option("--update", a.docs.update_file,
                     "Instead of printing: write the " + what + " into this Markdown file")
        ->excludes(check);
  };
  add_file_options(cmd->add_subcommand("parameters",
                                       "The parameter table (every --set key: type, unit, default, valid range, "
                                       "meaning) as the Markdown tables of docs/scene-format.md"),
                   "parameters' table lines");
  add_file_options(cmd->add_subcommand("telemetry",
                                       "The telemetry channels (Python's telemetry() keys, the plots CSV's columns, "
                                       "their --stats keys) as the Markdown table of docs/python.md"),
                   "telemetry table");
  return cmd;
}

// The command line's parse and the subcommand it names; the subcommands' errors are caught here with their exit
// codes (docs/cli.md).
int RunCommandLine(int argc, char** argv) {
  using namespace ductile;
  record::QuietEncoderLogs();
  CLI::App app{"ductile-cli: run Ductile scenes (MPM) headless; see docs/cli.md"};
  app.set_version_flag("--version", std::string("ductile-cli ") + DUCTILE_VERSION);
  app.require_subcommand(1);
  Arguments a;
  const CLI::App* validate = AddValidate(app, a);
  AddRun(app, a);
  const CLI::App* replay = AddReplay(app, a);
  const CLI::App* bench = AddBench(app, a);
  const CLI::App* sweep = AddSweep(app, a);
  const CLI::App* docs = AddDocs(app, a);
  const CLI::App* grad = AddGrad(app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitBadInput;
  }

  try {
    std::vector<Override> overrides;
    overrides.reserve(a.set_texts.size());
    for (const std::string& s : a.set_texts) overrides.push_back(ParseOverride(s));
    if (!a.backend.empty()) overrides.push_back({"simulation.backend", a.backend});
    if (*validate) return cli::Validate(a.validate_scene, overrides, a.validate_duration);
    if (*bench) {
      a.bench.overrides = overrides;
      return cli::Bench(a.bench);
    }
    if (*replay) return cli::Replay(a.replay_log, a.replay);
    if (*grad) {
      a.grad.overrides = overrides;
      return cli::Grad(a.grad);
    }
    if (*docs) return docs->got_subcommand("telemetry") ? cli::DocsTelemetry(a.docs) : cli::DocsParameters(a.docs);
    if (*sweep) {
      a.sweep.self = SelfPath(argv[0]);
      return cli::Sweep(a.sweep);
    }
    a.run.overrides = overrides;
    return cli::Run(a.run);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return cli::kExitFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Only what escapes RunCommandLine's own handlers lands here: building the command line itself failed.
  try {
    return RunCommandLine(argc, argv);
  } catch (const std::exception& e) {
    std::fputs("internal error: ", stderr);
    std::fputs(e.what(), stderr);
    std::fputs("\n", stderr);
  } catch (...) {
    std::fputs("internal error: an exception of unknown type\n", stderr);
  }
  return ductile::cli::kExitFailure;
}
