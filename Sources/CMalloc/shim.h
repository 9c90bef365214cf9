// glibc's allocator controls (malloc_trim, mallopt): not in Swift's Glibc module.
#if defined(__linux__)
#include <malloc.h>
#endif
