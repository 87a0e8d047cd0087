// The BLAS thread setting of contact/cholmod_support.h.
#include "contact/cholmod_support.h"

#include <dlfcn.h>

#include <mutex>

namespace ductile::contact {

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
  });
}

}  // namespace ductile::contact
