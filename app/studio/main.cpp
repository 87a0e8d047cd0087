// `ductile [SCENE]`: the studio. Opens SCENE (default: the dough-rolling scene installed beside it, else that of this
// source tree) and starts the simulation unless --paused.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <QVulkanInstance>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include "main_window.h"
#include "viewport.h"

namespace {

// `ductile --measure`: prints what the viewport and the simulation did between `start` and now, and quits.
void PrintMeasurement(ductile::studio::MainWindow& window, const ductile::studio::MeasureStart& start) {
  const ductile::studio::MeasureStart end = ductile::studio::MeasureNow(window);
  const double wall = end.wall_s - start.wall_s;
  const double steps = static_cast<double>(end.steps - start.steps);
  std::cout << "viewport " << window.centralWidget()->width() << "x" << window.centralWidget()->height();
  if (const ductile::studio::Viewport* v = window.viewport(); v && v->scene_size().isValid()) {
    std::cout << " (scene drawn at " << v->scene_size().width() << "x" << v->scene_size().height() << ")";
  }
  std::cout << ": " << (end.frames - start.frames) / wall
            << " frames/s; simulation: " << (steps > 0 ? (end.step_ms_sum - start.step_ms_sum) / steps : 0.0)
            << " ms/step (mean over " << steps << " steps from t = " << start.sim_time << " s to " << end.sim_time
            << " s), real-time factor " << (end.sim_time - start.sim_time) / wall << '\n';
  if (const ductile::studio::Viewport* v = window.viewport()) {
    const double limit = v->frame_rate_limit();
    std::cout << "frame rate limit: ";
    if (std::isfinite(limit))
      std::cout << limit << " frames/s\n";
    else
      std::cout << "none (the display rate)\n";
  }
  const double frames = end.frames - start.frames;
  if (frames > 0) {
    std::cout << "UI thread per frame: " << (end.times.build_ms - start.times.build_ms) / frames
              << " ms building the scene, " << (end.times.record_ms - start.times.record_ms) / frames
              << " ms with recording (and, scaled up on the host, drawing the scene and scaling it), "
              << (end.times.total_ms - start.times.total_ms) / frames << " ms with submitting and presenting\n";
  }
  QApplication::quit();
}

// Measures for `seconds` after a second of warm-up, counted from the scene's opening; a scene that does not open
// ends the measurement with exit status 1.
void ScheduleMeasurement(ductile::studio::MainWindow& window, double seconds) {
  QObject::connect(&window, &ductile::studio::MainWindow::sceneFailed, &window, [] { QApplication::exit(1); });
  auto start = std::make_shared<ductile::studio::MeasureStart>();
  QObject::connect(
      &window, &ductile::studio::MainWindow::sceneOpened, &window,
      [&window, start, seconds] {
        QTimer::singleShot(1000, &window, [&window, start] { *start = ductile::studio::MeasureNow(window); });
        QTimer::singleShot(static_cast<int>(1000 * (1 + seconds)), &window,
                           [&window, start] { PrintMeasurement(window, *start); });
      },
      Qt::SingleShotConnection);
}

// The studio's options besides --help and --version, in the order --help lists them.
struct Options {
  QCommandLineOption paused{"paused", "Open the scene without starting the simulation"};
  QCommandLineOption measure{"measure",
                             "Size the viewport to 1280x720, run for SECONDS of wall time after a second of warm-up, "
                             "print the viewport's frame rate (and the size the scene was drawn at), the simulation's "
                             "ms per step over the simulated span covered, and the UI thread's time per frame, and "
                             "quit",
                             "SECONDS"};
  QCommandLineOption render_scale{
      "render-scale",
      "Draw the viewport's scene at PERCENT of its width and height (10 to 100) and scale it up, or 'auto' (50 on a "
      "CPU Vulkan device such as lavapipe, 100 on a GPU); default: the View > Render scale choice",
      "PERCENT"};
  QCommandLineOption turntable{"turntable",
                               "Turn the camera about its target at DEGREES per second, drawing frames back to back "
                               "(View > Turntable turns at 20)",
                               "DEGREES"};
  QCommandLineOption max_fps{"max-fps",
                             "Draw at most RATE viewport frames per second (1 to 1000), 'none' (no limit but the "
                             "display rate) or 'auto' (36 on a CPU Vulkan device such as lavapipe, none on a GPU); "
                             "default: the View > Frame rate limit choice",
                             "RATE"};
  QCommandLineOption particles_as{
      "particles-as",
      "Draw the MPM continua as 'surface' (each object's reconstructed surface; default) or "
      "'beads' (one sphere per particle), as View > Particles as beads does",
      "surface|beads"};
  QCommandLineOption layout{"layout",
                            "Arrange the docks as the Layout menu's preset PRESET does: 'simulate' (the default), "
                            "'tune', 'teleop' or 'record'; default: the preset and arrangement of the last session",
                            "PRESET"};
  QCommandLineOption placement{"thread-placement",
                               "On a CPU Vulkan device such as lavapipe, keep the simulation thread and the "
                               "viewport's drawing on separate cores with drawing at a lower priority: 'on' (default) "
                               "or 'off'",
                               "on|off"};
};

// What the view options ask of the window; one not given leaves the window's own choice.
struct ViewSettings {
  float render_scale = -1;     // a fraction, 0 for 'auto'; -1: not given
  double turntable_speed = 0;  // [degrees/s]
  double rate_limit = -1;      // [frames/s], 0 for 'auto', infinity for 'none'; -1: not given
  bool place_threads = true;
  bool beads = false;                                   // --particles-as beads
  std::optional<ductile::studio::LayoutPreset> layout;  // --layout; nullopt: the last session's
};

// Environment defaults for the drivers, unless set already.
void SetEnvironmentDefaults() {
  // On Mesa's CPU Vulkan driver (lavapipe) drawing runs on the same cores as the simulation: one rasteriser
  // thread keeps the simulation's share (set LP_NUM_THREADS yourself to choose otherwise). GPU drivers ignore it.
  if (qEnvironmentVariableIsEmpty("LP_NUM_THREADS")) qputenv("LP_NUM_THREADS", "1");
  // New snapshots pace the viewport's frames (the 60 Hz poll asks for one per snapshot), so Qt's delay of a
  // window's update request (5 ms by default) only adds latency: on lavapipe, where a frame takes 30 ms or more, it
  // cost about 5 of the 45 ms between frames. Set QT_QPA_UPDATE_IDLE_TIME yourself to choose otherwise.
  if (qEnvironmentVariableIsEmpty("QT_QPA_UPDATE_IDLE_TIME")) qputenv("QT_QPA_UPDATE_IDLE_TIME", "0");
}

void DescribeCommandLine(QCommandLineParser& parser, const Options& options) {
  parser.setApplicationDescription("Ductile studio: MPM and rigid bodies with frictional contact");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("SCENE",
                               "Scene file (YAML); default: scenes/dough_rolling.yaml (installed: "
                               "PREFIX/share/ductile/scenes/dough_rolling.yaml)");
  for (const QCommandLineOption* option :
       {&options.paused, &options.measure, &options.render_scale, &options.turntable, &options.max_fps,
        &options.particles_as, &options.layout, &options.placement})
    parser.addOption(*option);
}

// --help and --version need no display: they are answered before the GUI application, which needs one, exists.
void AnswerHelpAndVersion(int argc, char** argv, QCommandLineParser& parser) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
      QCoreApplication core(argc, argv);
      parser.process(core);  // prints and exits
    }
  }
}

// The parsing of one option's value: false, with the complaint printed, for a value it does not take.
bool ParseRenderScale(const QCommandLineParser& parser, const QCommandLineOption& option, float& scale) {
  if (!parser.isSet(option)) return true;
  const QString value = parser.value(option);
  bool ok = false;
  const double percent = value == "auto" ? 0.0 : value.toDouble(&ok);
  if (value != "auto" && (!ok || !(percent >= 10 && percent <= 100))) {
    std::cerr << "ductile: --render-scale needs a percentage from 10 to 100 or 'auto', got '" << value.toStdString()
              << "'\n";
    return false;
  }
  scale = static_cast<float>(percent / 100.0);
  return true;
}

bool ParseTurntable(const QCommandLineParser& parser, const QCommandLineOption& option, double& speed) {
  if (!parser.isSet(option)) return true;
  bool ok = false;
  speed = parser.value(option).toDouble(&ok);
  if (!ok || !std::isfinite(speed) || std::abs(speed) > 3600) {
    std::cerr << "ductile: --turntable needs degrees per second from -3600 to 3600, got '"
              << parser.value(option).toStdString() << "'\n";
    return false;
  }
  return true;
}

bool ParseMaxFps(const QCommandLineParser& parser, const QCommandLineOption& option, double& rate_limit) {
  if (!parser.isSet(option)) return true;
  const QString value = parser.value(option);
  bool ok = false;
  rate_limit = value == "auto" ? 0.0 : value == "none" ? std::numeric_limits<double>::infinity() : value.toDouble(&ok);
  if (value != "auto" && value != "none" && (!ok || !(rate_limit >= 1 && rate_limit <= 1000))) {
    std::cerr << "ductile: --max-fps needs frames per second from 1 to 1000, 'none' or 'auto', got '"
              << value.toStdString() << "'\n";
    return false;
  }
  return true;
}

bool ParseParticlesAs(const QCommandLineParser& parser, const QCommandLineOption& option, bool& beads) {
  if (!parser.isSet(option)) return true;
  const QString value = parser.value(option);
  if (value != "surface" && value != "beads") {
    std::cerr << "ductile: --particles-as needs 'surface' or 'beads', got '" << value.toStdString() << "'\n";
    return false;
  }
  beads = value == "beads";
  return true;
}

bool ParseThreadPlacement(const QCommandLineParser& parser, const QCommandLineOption& option, bool& place_threads) {
  if (!parser.isSet(option)) return true;
  const QString value = parser.value(option);
  if (value != "on" && value != "off") {
    std::cerr << "ductile: --thread-placement needs 'on' or 'off', got '" << value.toStdString() << "'\n";
    return false;
  }
  place_threads = value == "on";
  return true;
}

bool ParseLayout(const QCommandLineParser& parser, const QCommandLineOption& option,
                 std::optional<ductile::studio::LayoutPreset>& layout) {
  if (!parser.isSet(option)) return true;
  const QString value = parser.value(option);
  layout = ductile::studio::ParseLayoutPreset(value.toStdString());
  if (!layout) {
    std::cerr << "ductile: --layout needs 'simulate', 'tune', 'teleop' or 'record', got '" << value.toStdString()
              << "'\n";
    return false;
  }
  return true;
}

// The view options, checked in the order --help lists them; nullopt after the first complaint.
std::optional<ViewSettings> ParseViewSettings(const QCommandLineParser& parser, const Options& options) {
  ViewSettings s;
  if (!ParseRenderScale(parser, options.render_scale, s.render_scale) ||
      !ParseTurntable(parser, options.turntable, s.turntable_speed) ||
      !ParseMaxFps(parser, options.max_fps, s.rate_limit) || !ParseParticlesAs(parser, options.particles_as, s.beads) ||
      !ParseLayout(parser, options.layout, s.layout) ||
      !ParseThreadPlacement(parser, options.placement, s.place_threads))
    return std::nullopt;
  return s;
}

void ApplyViewSettings(ductile::studio::MainWindow& window, const ViewSettings& s) {
  if (s.render_scale >= 0) window.SetRenderScale(s.render_scale);
  if (s.turntable_speed != 0) window.SetTurntable(s.turntable_speed);
  if (s.rate_limit >= 0) window.SetFrameRateLimit(s.rate_limit);
  if (s.beads) window.SetParticlesAsBeads(true);
  if (s.layout) window.ApplyLayout(*s.layout);
  window.SetThreadPlacement(s.place_threads);
}

// `--measure SECONDS`: sizes the viewport and schedules the measurement; false, with the complaint printed, for a
// number of seconds that is not positive.
bool StartMeasurement(ductile::studio::MainWindow& window, const QString& value) {
  const double seconds = value.toDouble();
  if (!(seconds > 0)) {
    std::cerr << "ductile: --measure needs a positive number of seconds\n";
    return false;
  }
  // Grow the window by what the docks take, so the viewport itself is 1280x720.
  QWidget* view = window.centralWidget();
  window.resize(window.size() + QSize(1280, 720) - view->size());
  ScheduleMeasurement(window, seconds);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  SetEnvironmentDefaults();
  QCoreApplication::setApplicationName("Ductile");  // static: for the --help/--version application and the GUI one
  QCoreApplication::setApplicationVersion(DUCTILE_VERSION);
  QCommandLineParser parser;
  const Options options;
  DescribeCommandLine(parser, options);
  AnswerHelpAndVersion(argc, argv, parser);
  QApplication app(argc, argv);
  parser.process(app);
  const std::optional<ViewSettings> settings = ParseViewSettings(parser, options);
  if (!settings) return 2;

  QVulkanInstance vulkan;
  vulkan.setApiVersion(QVersionNumber(1, 3));
  const bool have_vulkan = vulkan.create();
  if (!have_vulkan)
    std::cerr << "ductile: no Vulkan implementation (error " << vulkan.errorCode() << "); the viewport stays empty\n";
  ductile::studio::MainWindow window(have_vulkan ? &vulkan : nullptr);
  ApplyViewSettings(window, *settings);
  window.show();
  const QStringList args = parser.positionalArguments();
  // The default scene: beside an installed studio (PREFIX/bin/ductile, the .deb's PREFIX/share/ductile), else in
  // the source tree it was built from.
  const QString installed = QCoreApplication::applicationDirPath() + "/../share/ductile/scenes/dough_rolling.yaml";
  const QString fallback =
      QFileInfo::exists(installed) ? installed : QString(DUCTILE_SOURCE_DIR) + "/scenes/dough_rolling.yaml";
  QString scene = args.isEmpty() ? fallback : args.front();
  window.OpenScene(scene);
  // Play waits behind the scene's compilation on the simulation thread, so it starts the scene just opened.
  if (!parser.isSet(options.paused)) window.SetPlaying(true);
  if (parser.isSet(options.measure) && !StartMeasurement(window, parser.value(options.measure))) return 2;
  return QApplication::exec();
}
