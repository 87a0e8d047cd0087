#include "support/test_paths.h"

namespace ductile::test {

const char* SourceDir() {
  return DUCTILE_TEST_PATHS_SOURCE_DIR;
}
const char* TestDataDir() {
  return DUCTILE_TEST_PATHS_DATA_DIR;
}
const char* CliPath() {
  return DUCTILE_TEST_PATHS_CLI;
}

}  // namespace ductile::test
