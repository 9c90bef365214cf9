#ifndef RS_LAZY_LIBRARIES_H
#define RS_LAZY_LIBRARIES_H

/* The system libraries only some commands need — libheif (HEIC/AVIF photos), libtesseract
   (spines, printed ISBNs), libpq (a PostgreSQL library), libcurl (the metadata sources),
   libzbar (barcodes; it brings X11, D-Bus, V4L and systemd's libraries) — are opened with dlopen on first use,
   not linked: together with the ~80 libraries they pull in they were most of every command's
   start-up. This target defines their C functions the program calls, each forwarding to the
   library once opened. Each `rs_*_load` opens its library (once per process) and returns NULL
   when it is ready, else why it could not be opened (a missing package, a function missing
   from an older version): the Swift type using the library checks it first and throws. */
const char *rs_heif_load(void);
const char *rs_tesseract_load(void);
const char *rs_pq_load(void);
const char *rs_curl_load(void);
const char *rs_zbar_load(void);

#endif
