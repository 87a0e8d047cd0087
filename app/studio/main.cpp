// `ductile [SCENE]`: the studio. Opens SCENE (default: the dough-rolling scene of this source tree) and starts the
// simulation unless --paused.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <QVulkanInstance>
#include <iostream>

#include "main_window.h"

int main(int argc, char** argv) {
  // On Mesa's CPU Vulkan driver (lavapipe) drawing runs on the same cores as the simulation: one rasteriser
  // thread keeps the simulation's share (set LP_NUM_THREADS yourself to choose otherwise). GPU drivers ignore it.
  if (qEnvironmentVariableIsEmpty("LP_NUM_THREADS")) qputenv("LP_NUM_THREADS", "1");
  QApplication app(argc, argv);
  QApplication::setApplicationName("Ductile");
  QApplication::setApplicationVersion(DUCTILE_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("Ductile studio: MPM and rigid bodies with frictional contact");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("SCENE", "Scene file (YAML); default: scenes/dough_rolling.yaml");
  QCommandLineOption paused("paused", "Open the scene without starting the simulation");
  parser.addOption(paused);
  QCommandLineOption measure("measure",
                             "Size the viewport to 1280x720, run for SECONDS of wall time, print the viewport's frame "
                             "rate and the simulation's ms per step, and quit",
                             "SECONDS");
  parser.addOption(measure);
  parser.process(app);

  QVulkanInstance vulkan;
  vulkan.setApiVersion(QVersionNumber(1, 3));
  const bool have_vulkan = vulkan.create();
  if (!have_vulkan)
    std::cerr << "ductile: no Vulkan implementation (error " << vulkan.errorCode() << "); the viewport stays empty\n";
  ductile::studio::MainWindow window(have_vulkan ? &vulkan : nullptr);
  window.show();
  const QStringList args = parser.positionalArguments();
  QString scene = args.isEmpty() ? QString(DUCTILE_SOURCE_DIR) + "/scenes/dough_rolling.yaml" : args.front();
  if (window.OpenScene(scene) && !parser.isSet(paused)) window.SetPlaying(true);
  if (parser.isSet(measure)) {
    const double seconds = parser.value(measure).toDouble();
    if (!(seconds > 0)) {
      std::cerr << "ductile: --measure needs a positive number of seconds\n";
      return 2;
    }
    // Grow the window by what the docks take, so the viewport itself is 1280x720.
    QWidget* view = window.centralWidget();
    window.resize(window.size() + QSize(1280, 720) - view->size());
    // Measure after a second of warm-up.
    auto* start = new ductile::studio::MeasureStart;
    QTimer::singleShot(1000, &window, [&window, start] { *start = ductile::studio::MeasureNow(window); });
    QTimer::singleShot(static_cast<int>(1000 * (1 + seconds)), &window, [&window, start] {
      const ductile::studio::MeasureStart end = ductile::studio::MeasureNow(window);
      const double wall = end.wall_s - start->wall_s;
      const double steps = static_cast<double>(end.steps - start->steps);
      std::cout << "viewport " << window.centralWidget()->width() << "x" << window.centralWidget()->height() << ": "
                << (end.frames - start->frames) / wall
                << " frames/s; simulation: " << (steps > 0 ? (end.step_ms_sum - start->step_ms_sum) / steps : 0.0)
                << " ms/step (mean over " << steps << " steps), real-time factor "
                << (end.sim_time - start->sim_time) / wall << '\n';
      delete start;
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
