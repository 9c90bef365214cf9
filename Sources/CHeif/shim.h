// libheif's C API (a C++ library underneath that catches its own exceptions and returns
// every failure as a `struct heif_error` value: nothing unwinds or longjmps through Swift).
#include <libheif/heif.h>
