#include "observe/mpi_names.hpp"
#include "error/hot_path.hpp"

#include <atomic>
#include <cstddef>
#include <utility>

namespace papcoll::observe {
namespace {

// Built at first use (the handles are link-time constants, but MPICH's are ints and Open MPI's
// are addresses: a table of values, not of names, works with both).
struct TypeRow {
  MPI_Datatype type;
  const char* name;
};
const TypeRow* type_rows(int* n) {
  static const TypeRow rows[] = {
      {MPI_CHAR, "MPI_CHAR"},
      {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
      {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"},
      {MPI_BYTE, "MPI_BYTE"},
      {MPI_SHORT, "MPI_SHORT"},
      {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"},
      {MPI_INT, "MPI_INT"},
      {MPI_UNSIGNED, "MPI_UNSIGNED"},
      {MPI_LONG, "MPI_LONG"},
      {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
      {MPI_LONG_LONG, "MPI_LONG_LONG"},
      {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
      {MPI_FLOAT, "MPI_FLOAT"},
      {MPI_DOUBLE, "MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
      {MPI_WCHAR, "MPI_WCHAR"},
      {MPI_C_BOOL, "MPI_C_BOOL"},
      {MPI_INT8_T, "MPI_INT8_T"},
      {MPI_INT16_T, "MPI_INT16_T"},
      {MPI_INT32_T, "MPI_INT32_T"},
      {MPI_INT64_T, "MPI_INT64_T"},
      {MPI_UINT8_T, "MPI_UINT8_T"},
      {MPI_UINT16_T, "MPI_UINT16_T"},
      {MPI_UINT32_T, "MPI_UINT32_T"},
      {MPI_UINT64_T, "MPI_UINT64_T"},
      {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
      {MPI_AINT, "MPI_AINT"},
      {MPI_OFFSET, "MPI_OFFSET"},
      {MPI_FLOAT_INT, "MPI_FLOAT_INT"},
      {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
      {MPI_LONG_INT, "MPI_LONG_INT"},
      {MPI_2INT, "MPI_2INT"},
      {MPI_SHORT_INT, "MPI_SHORT_INT"},
      {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
  };
  *n = static_cast<int>(sizeof rows / sizeof rows[0]);
  return rows;
}

struct OpRow {
  MPI_Op op;
  const char* name;
};
const OpRow* op_rows(int* n) {
  static const OpRow rows[] = {
      {MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
      {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
      {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
      {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
      {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
  };
  *n = static_cast<int>(sizeof rows / sizeof rows[0]);
  return rows;
}

}  // namespace

PAPCOLL_HOT int type_index(MPI_Datatype t) {
  int n = 0;
  const TypeRow* rows = type_rows(&n);
  for (int i = 0; i < n; ++i)
    if (rows[i].type == t) return i;
  return -1;
}

MPI_Datatype type_of_index(int index) {
  int n = 0;
  const TypeRow* rows = type_rows(&n);
  return index >= 0 && index < n ? rows[index].type : MPI_DATATYPE_NULL;
}

const char* type_name(int index) {
  int n = 0;
  const TypeRow* rows = type_rows(&n);
  return index >= 0 && index < n ? rows[index].name : "?";
}

PAPCOLL_HOT int op_index(MPI_Op op) {
  int n = 0;
  const OpRow* rows = op_rows(&n);
  for (int i = 0; i < n; ++i)
    if (rows[i].op == op) return i;
  return -1;
}

MPI_Op op_of_index(int index) {
  int n = 0;
  const OpRow* rows = op_rows(&n);
  return index >= 0 && index < n ? rows[index].op : MPI_OP_NULL;
}

const char* op_name(int index) {
  int n = 0;
  const OpRow* rows = op_rows(&n);
  return index >= 0 && index < n ? rows[index].name : "?";
}

}  // namespace papcoll::observe
