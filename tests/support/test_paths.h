#pragma once
// Where the tests find the repository, their data and ductile-cli. The macros DUCTILE_SOURCE_DIR,
// DUCTILE_TEST_DATA_DIR and DUCTILE_CLI_PATH (every test target force-includes this header) call these functions,
// whose absolute paths are compiled into test_paths.cpp alone: every other test object's command line and text are
// then the same in a clone in another folder, so ccache shares them (docs/ci.md).

#define DUCTILE_SOURCE_DIR (::ductile::test::SourceDir())
#define DUCTILE_TEST_DATA_DIR (::ductile::test::TestDataDir())
#define DUCTILE_CLI_PATH (::ductile::test::CliPath())

namespace ductile::test {

const char* SourceDir();    // the repository's root
const char* TestDataDir();  // tests/data
const char* CliPath();      // the ductile-cli executable of this build

}  // namespace ductile::test
