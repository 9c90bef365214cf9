#include "CImageCodecs.h"
int rs_codecs_version(void) { return 1; }
