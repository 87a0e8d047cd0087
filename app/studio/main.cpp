// `ductile [SCENE]`: the studio. Opens SCENE (default: the dough-rolling scene of this source tree) and starts the
// simulation unless --paused.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
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
  return QApplication::exec();
}
