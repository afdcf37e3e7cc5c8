/*
 * pq_thrift.h - the Thrift compact protocol's element types, shared by the
 * footer encoder (pq_meta_write.c) and decoder (pq_meta_read.c)
 * (layer 4, format/parquet, private).
 */
#ifndef FL_FORMAT_PARQUET_PQ_THRIFT_H
#define FL_FORMAT_PARQUET_PQ_THRIFT_H

/* The 4-bit type codes of field headers and list headers. */
enum {
  CT_STOP = 0,
  CT_TRUE = 1,
  CT_FALSE = 2,
  CT_BYTE = 3,
  CT_I16 = 4,
  CT_I32 = 5,
  CT_I64 = 6,
  CT_DOUBLE = 7,
  CT_BINARY = 8,
  CT_LIST = 9,
  CT_SET = 10,
  CT_MAP = 11,
  CT_STRUCT = 12,
};

#endif
