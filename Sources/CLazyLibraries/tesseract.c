#include "lazy_libraries.h"
#include "loader.h"
#include <tesseract/capi.h>

/* libtesseract's functions SpineOCR calls. */
#define TESSERACT_FUNCTIONS(F) \
    F(TessVersion) F(TessBaseAPICreate) F(TessBaseAPIDelete) F(TessBaseAPIInit2) F(TessBaseAPIEnd) \
    F(TessBaseAPIClear) F(TessBaseAPISetVariable) F(TessBaseAPISetPageSegMode) F(TessBaseAPISetImage) \
    F(TessBaseAPISetSourceResolution) F(TessBaseAPIRecognize) F(TessBaseAPIGetIterator) F(TessBaseAPIIsValidWord) \
    F(TessDeleteText) F(TessMonitorCreate) F(TessMonitorDelete) F(TessMonitorSetCancelFunc) \
    F(TessMonitorSetCancelThis) F(TessMonitorSetDeadlineMSecs) F(TessPageIteratorBoundingBox) \
    F(TessPageIteratorIsAtBeginningOf) F(TessResultIteratorConfidence) F(TessResultIteratorDelete) \
    F(TessResultIteratorGetPageIteratorConst) F(TessResultIteratorGetUTF8Text) F(TessResultIteratorNext)

RS_LAZY_LIBRARY(tesseract, TESSERACT_FUNCTIONS, 0, "libtesseract5", "libtesseract.so.5", "libtesseract.so")
#define CALL(name) RS_CALL(tesseract, name)

const char *TessVersion(void) { return CALL(TessVersion)(); }
TessBaseAPI *TessBaseAPICreate(void) { return rs_tesseract_load() ? NULL : api.TessBaseAPICreate(); }
void TessBaseAPIDelete(TessBaseAPI *handle) { CALL(TessBaseAPIDelete)(handle); }
int TessBaseAPIInit2(TessBaseAPI *handle, const char *datapath, const char *language, TessOcrEngineMode oem) {
    return CALL(TessBaseAPIInit2)(handle, datapath, language, oem);
}
void TessBaseAPIEnd(TessBaseAPI *handle) { CALL(TessBaseAPIEnd)(handle); }
void TessBaseAPIClear(TessBaseAPI *handle) { CALL(TessBaseAPIClear)(handle); }
BOOL TessBaseAPISetVariable(TessBaseAPI *handle, const char *name, const char *value) {
    return CALL(TessBaseAPISetVariable)(handle, name, value);
}
void TessBaseAPISetPageSegMode(TessBaseAPI *handle, TessPageSegMode mode) { CALL(TessBaseAPISetPageSegMode)(handle, mode); }
void TessBaseAPISetImage(TessBaseAPI *handle, const unsigned char *imagedata, int width, int height, int bytes_per_pixel,
                         int bytes_per_line) {
    CALL(TessBaseAPISetImage)(handle, imagedata, width, height, bytes_per_pixel, bytes_per_line);
}
void TessBaseAPISetSourceResolution(TessBaseAPI *handle, int ppi) { CALL(TessBaseAPISetSourceResolution)(handle, ppi); }
int TessBaseAPIRecognize(TessBaseAPI *handle, ETEXT_DESC *monitor) { return CALL(TessBaseAPIRecognize)(handle, monitor); }
TessResultIterator *TessBaseAPIGetIterator(TessBaseAPI *handle) { return CALL(TessBaseAPIGetIterator)(handle); }
int TessBaseAPIIsValidWord(TessBaseAPI *handle, const char *word) { return CALL(TessBaseAPIIsValidWord)(handle, word); }
void TessDeleteText(const char *text) { CALL(TessDeleteText)(text); }
ETEXT_DESC *TessMonitorCreate(void) { return CALL(TessMonitorCreate)(); }
void TessMonitorDelete(ETEXT_DESC *monitor) { CALL(TessMonitorDelete)(monitor); }
void TessMonitorSetCancelFunc(ETEXT_DESC *monitor, TessCancelFunc cancel) { CALL(TessMonitorSetCancelFunc)(monitor, cancel); }
void TessMonitorSetCancelThis(ETEXT_DESC *monitor, void *cancelThis) { CALL(TessMonitorSetCancelThis)(monitor, cancelThis); }
void TessMonitorSetDeadlineMSecs(ETEXT_DESC *monitor, int deadline) { CALL(TessMonitorSetDeadlineMSecs)(monitor, deadline); }
BOOL TessPageIteratorBoundingBox(const TessPageIterator *handle, TessPageIteratorLevel level, int *left, int *top,
                                 int *right, int *bottom) {
    return CALL(TessPageIteratorBoundingBox)(handle, level, left, top, right, bottom);
}
BOOL TessPageIteratorIsAtBeginningOf(const TessPageIterator *handle, TessPageIteratorLevel level) {
    return CALL(TessPageIteratorIsAtBeginningOf)(handle, level);
}
float TessResultIteratorConfidence(const TessResultIterator *handle, TessPageIteratorLevel level) {
    return CALL(TessResultIteratorConfidence)(handle, level);
}
void TessResultIteratorDelete(TessResultIterator *handle) { CALL(TessResultIteratorDelete)(handle); }
const TessPageIterator *TessResultIteratorGetPageIteratorConst(const TessResultIterator *handle) {
    return CALL(TessResultIteratorGetPageIteratorConst)(handle);
}
char *TessResultIteratorGetUTF8Text(const TessResultIterator *handle, TessPageIteratorLevel level) {
    return CALL(TessResultIteratorGetUTF8Text)(handle, level);
}
BOOL TessResultIteratorNext(TessResultIterator *handle, TessPageIteratorLevel level) {
    return CALL(TessResultIteratorNext)(handle, level);
}
