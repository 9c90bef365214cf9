#include <stdio.h>
#include <tesseract/capi.h>
