#include "core/kernels/memory_policy.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace hs {

void keep_freed_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);   // the largest glibc accepts; fixed, not adaptive
    mallopt(M_TRIM_THRESHOLD, 1 << 30);    // keep up to 1 GiB of free heap at its top
    mallopt(M_ARENA_MAX, 1);
#endif
}

bool release_free_memory() {
#if defined(__GLIBC__)
    return malloc_trim(0) != 0;
#else
    return false;
#endif
}

}  // namespace hs
