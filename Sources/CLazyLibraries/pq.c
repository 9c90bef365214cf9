#include "lazy_libraries.h"
#include "loader.h"
#include <postgresql/libpq-fe.h>

/* libpq's functions PostgresCatalogue calls. */
#define PQ_FUNCTIONS(F) \
    F(PQconnectdbParams) F(PQstatus) F(PQerrorMessage) F(PQfinish) F(PQexecParams) F(PQresultStatus) \
    F(PQresultErrorField) F(PQresultErrorMessage) F(PQntuples) F(PQnfields) F(PQgetisnull) F(PQgetvalue) F(PQclear) \
    F(PQsetNoticeProcessor)

RS_LAZY_LIBRARY(pq, PQ_FUNCTIONS, RS_OWN_SCOPE_FIRST, "libpq5", "libpq.so.5", "libpq.so")
#define CALL(name) RS_CALL(pq, name)

PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return CALL(PQconnectdbParams)(keywords, values, expand_dbname);
}
ConnStatusType PQstatus(const PGconn *conn) { return CALL(PQstatus)(conn); }
char *PQerrorMessage(const PGconn *conn) { return CALL(PQerrorMessage)(conn); }
void PQfinish(PGconn *conn) { CALL(PQfinish)(conn); }
PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                       const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    return CALL(PQexecParams)(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
ExecStatusType PQresultStatus(const PGresult *res) { return CALL(PQresultStatus)(res); }
char *PQresultErrorField(const PGresult *res, int fieldcode) { return CALL(PQresultErrorField)(res, fieldcode); }
char *PQresultErrorMessage(const PGresult *res) { return CALL(PQresultErrorMessage)(res); }
int PQntuples(const PGresult *res) { return CALL(PQntuples)(res); }
int PQnfields(const PGresult *res) { return CALL(PQnfields)(res); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return CALL(PQgetisnull)(res, tup_num, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { return CALL(PQgetvalue)(res, tup_num, field_num); }
void PQclear(PGresult *res) { CALL(PQclear)(res); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return CALL(PQsetNoticeProcessor)(conn, proc, arg);
}
