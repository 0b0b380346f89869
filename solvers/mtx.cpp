static const char help[] = "Loads a sparse matrix, reports how it would be stored by diagonals, converts it to diag.\n"
                           "  mtx -f A.mtx              Matrix Market: coordinate or array; real, integer or pattern;\n"
                           "                            general, symmetric or skew-symmetric (read with CHOLMOD)\n"
                           "  mtx -f A.petsc -binary    PETSc binary (MatLoad into aij)\n"
                           "Options:\n"
                           "  -min_fill <0.3>           refuse to convert when the fill (nonzeros / stored entries)\n"
                           "                            of the diag scheme is below this\n"
                           "  -force                    convert anyway\n"
                           "  -check                    compare MatMult and MatMultTranspose of diag with aij (1e-12)\n"
                           "  -solve                    solve A x = b, b = A*ones, with aij and with diag, and compare\n"
                           "                            (-ksp_type ..., -pc_type jacobi by default, -ksp_rtol ...)\n"
                           "  -solve_repeat <3>         solves per matrix; the fastest time is reported\n"
                           "  -view_structure <out.png> draw the sparsity pattern and the stored diagonals\n"
                           "  -plot_python <exe>        the Python with matplotlib that draws it\n"
                           "  -plot_script <path>       the drawing script (solvers/plot_structure.py)\n"
                           "  -mat_diag_storage <hm,cdm,auto>  the scheme of the converted matrix (auto: fewer bytes)\n"
                           "  -aij_type <aij>           the type the loaded matrix is compared as (aijcusparse on a GPU)\n"
                           "  -diag_type <diag>         the type it is converted to (diagcuda on a GPU: vectors and\n"
                           "                            products on the device)\n\n";

/* mtx: the program a user with a matrix file meets first.

   1. Load. Matrix Market files are read on rank 0 by CHOLMOD (Debian's
      libsuitesparse) after a light validation pass of our own (PreCheck,
      which says why it exists), then each process receives its rows and
      builds an aij matrix. PETSc binary files go through MatLoad.
   2. Report the diagonal structure of the whole matrix: diagonals, stored
      entries and fill of the HM and CDM schemes, and the bytes of HM, CDM
      and CSR (the formulas of pdiag::structure_report), and a verdict.
   3. Convert to diag with MatConvert, or refuse when the fill is below
      -min_fill (-force converts anyway).
   4. Optionally: -check (MatMult of diag against aij), -solve (KSP with aij
      and with diag), -view_structure (a picture drawn by plot_structure.py).

   A broken file is refused with "mtx: error: <file>, line <n>: <problem>"
   on stderr and exit code 1; a refused conversion is a result, exit code 0. */

#include <petscdiag.h>
#include <petscksp.h>
#include <petsctime.h>

#include <cholmod.h>

#include "pdiag/convert.hpp"
#include "petsc_compat.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef DIAG_PLOT_PYTHON
#define DIAG_PLOT_PYTHON "python3"
#endif
#ifndef DIAG_PLOT_SCRIPT
#define DIAG_PLOT_SCRIPT "plot_structure.py"
#endif

extern char **environ;

namespace {

std::string Fmt(const char *fmt, ...)
{
  char    buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

/* "14880 B (14.5 KiB)" */
std::string Bytes(std::size_t b)
{
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double      v      = (double)b;
  int         u      = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  return u == 0 ? Fmt("%zu B", b) : Fmt("%zu B (%.1f %s)", b, v, unit[u]);
}

/* What is wrong with an input file; line 0 when no line can be named. */
struct Problem {
  long        line = 0;
  std::string what;
  bool        bad() const { return !what.empty(); }
};

struct Options {
  char      file[PETSC_MAX_PATH_LEN]     = "";
  char      png[PETSC_MAX_PATH_LEN]      = "";
  char      python[PETSC_MAX_PATH_LEN]   = DIAG_PLOT_PYTHON;
  char      script[PETSC_MAX_PATH_LEN]   = DIAG_PLOT_SCRIPT;
  char      storage[16]                  = "auto";
  char      aij_type[32]                 = MATAIJ;  /* -aij_type: the loaded matrix's type (aijcusparse: on the GPU) */
  char      diag_type[32]                = MATDIAG; /* -diag_type: the conversion's type (diagcuda) */
  PetscBool binary = PETSC_FALSE, force = PETSC_FALSE, check = PETSC_FALSE, solve = PETSC_FALSE, view = PETSC_FALSE;
  PetscReal min_fill = 0.3;
  PetscInt  repeat   = 3;
};

/* ---------------------------------------------------------------------------
   Matrix Market: the validation pass
   ------------------------------------------------------------------------ */

/* Why this pre-check exists next to the library reader: CHOLMOD's
   cholmod_read_sparse does the reading, but
   - it reports errors through common->error_handler with the line of its
     own source (e.g. "../Check/cholmod_read.c:729 indices out of range"),
     never the line of the input file;
   - it accepts what it should not: NaN and Inf values (read with %lg), an
     index 0 (it then takes the whole file as 0-based and shifts it), more
     entries than the size line declares (the rest is ignored), nonzero
     diagonal entries of a skew-symmetric matrix (kept), and entries in both
     triangles of a symmetric file (summed, so off-diagonal values double).
   One pass over the text (header, size line, count of entries, index
   ranges, values) finds these and names the line; CHOLMOD still reads. */
struct MMHeader {
  std::string format, field, symmetry; /* lower case */
  long long   M = 0, N = 0, nnz = 0;   /* nnz: entries in the file (coordinate) */
  long        size_line = 0;
  bool        array() const { return format == "array"; }
};

std::string Printable(const std::string &s, std::size_t max = 40)
{
  std::string out;
  for (char c : s.substr(0, max)) out += std::isprint((unsigned char)c) ? c : '?';
  if (s.size() > max) out += "...";
  return out;
}

std::vector<std::string> Split(const std::string &s)
{
  std::vector<std::string> t;
  std::size_t              i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace((unsigned char)s[i])) i++;
    std::size_t j = i;
    while (j < s.size() && !std::isspace((unsigned char)s[j])) j++;
    if (j > i) t.push_back(s.substr(i, j - i));
    i = j;
  }
  return t;
}

bool ParseInt(const std::string &s, long long *v)
{
  char *end = nullptr;
  errno     = 0;
  *v        = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0' && !s.empty();
}

bool ParseReal(const std::string &s, double *v)
{
  char *end = nullptr;
  *v        = std::strtod(s.c_str(), &end); /* accepts "nan", "inf": checked by the caller */
  return end && *end == '\0' && !s.empty();
}

/* An integer value of an integer file: digits with an optional sign, no
   point or exponent ("1.5" and "2e3" are refused). */
bool IsIntegerValue(const std::string &s)
{
  long long v;
  return ParseInt(s, &v);
}

std::string Lower(std::string s)
{
  for (char &c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

/* A value of an entry: a number, finite. */
bool CheckValue(const std::string &tok, long line, double *v, Problem *p)
{
  if (!ParseReal(tok, v)) {
    *p = {line, "value '" + Printable(tok) + "' is not a number"};
    return false;
  }
  if (std::isnan(*v)) {
    *p = {line, "value is NaN ('" + Printable(tok) + "')"};
    return false;
  }
  if (std::isinf(*v)) {
    *p = {line, "value is infinite ('" + Printable(tok) + "')"};
    return false;
  }
  return true;
}

/* Lines longer than this are refused: a text file of entries has short
   lines, and a file without newlines (binary junk, zeros) would otherwise
   be read into memory whole. */
constexpr std::size_t kMaxLine = 1 << 20;

/* Complex Matrix Market files are refused: the loader reads real values
   (in a build with complex scalars too). */
#if defined(PETSC_USE_COMPLEX)
constexpr const char *kComplexRefusal = "complex matrix: mtx reads real matrices only";
#else
constexpr const char *kComplexRefusal = "complex matrix: this PETSc build has real scalars and cannot load it";
#endif

/* std::getline with a length limit: false at the end of the file, or with
   *too_long set when a line exceeds kMaxLine. in.eof() afterwards tells a
   last line without a newline, as after std::getline. */
bool GetLine(std::istream &in, std::string &s, bool *too_long)
{
  s.clear();
  *too_long = false;
  std::streambuf *buf = in.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !s.empty();
    }
    if (c == '\n') return true;
    if (s.size() >= kMaxLine) {
      *too_long = true;
      return false;
    }
    s.push_back((char)c);
  }
}

/* Only regular files are read: a device (/dev/zero), a pipe or a directory
   would be read forever, block or fail obscurely. *bytes: its size. */
bool RegularFile(const char *path, long long *bytes, Problem *p)
{
  std::error_code ec;
  const auto      st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) {
    *p = {0, "cannot open the file: " + (ec ? ec.message() : std::string("no such file"))};
    return false;
  }
  if (!std::filesystem::is_regular_file(st)) {
    *p = {0, "not a regular file (a device, pipe or directory): only matrix files are read"};
    return false;
  }
  *bytes = (long long)std::filesystem::file_size(path, ec);
  if (ec) {
    *p = {0, "cannot read the size of the file: " + ec.message()};
    return false;
  }
  return true;
}

bool PreCheck(const char *path, MMHeader *h, Problem *p)
{
  long long file_bytes;
  if (!RegularFile(path, &file_bytes, p)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *p = {0, std::string("cannot open the file: ") + std::strerror(errno)};
    return false;
  }
  std::string s;
  long        line = 0;
  bool        too_long = false;
  auto        next_line = [&]() {
    const bool got = GetLine(in, s, &too_long);
    if (too_long) *p = {line + 1, Fmt("line longer than %zu bytes: not a Matrix Market file (binary data? then add -binary)", kMaxLine)};
    return got;
  };
  /* header */
  if (!next_line()) {
    if (!too_long) *p = {1, "empty file: no Matrix Market header"};
    return false;
  }
  line = 1;
  if (!s.empty() && s.back() == '\r') s.pop_back();
  const std::string banner = "%%MatrixMarket";
  if (Lower(s.substr(0, banner.size())) != Lower(banner)) {
    *p = {1, "wrong header: the file must start with \"%%MatrixMarket matrix ...\", found \"" + Printable(s) + "\"" + (s.find('\0') != std::string::npos || s.empty() ? " (a PETSc binary file? then add -binary)" : "")};
    return false;
  }
  std::vector<std::string> t = Split(s.substr(banner.size()));
  if (t.size() != 4) {
    *p = {1, Fmt("wrong header: %d words after %%%%MatrixMarket, expected 4 (matrix <coordinate|array> <real|integer|pattern> <general|symmetric|skew-symmetric>)", (int)t.size())};
    return false;
  }
  for (auto &w : t) w = Lower(w);
  if (t[0] != "matrix") {
    *p = {1, "wrong header: object '" + Printable(t[0]) + "', only 'matrix' is supported"};
    return false;
  }
  if (t[1] != "coordinate" && t[1] != "array") {
    *p = {1, "wrong header: format '" + Printable(t[1]) + "', expected 'coordinate' or 'array'"};
    return false;
  }
  if (t[2] == "complex") {
    *p = {1, kComplexRefusal};
    return false;
  }
  if (t[2] != "real" && t[2] != "integer" && t[2] != "pattern" && t[2] != "double") {
    *p = {1, "wrong header: field '" + Printable(t[2]) + "', expected real, integer or pattern"};
    return false;
  }
  if (t[2] == "double") t[2] = "real";
  if (t[3] == "hermitian") t[3] = "symmetric"; /* a real hermitian matrix is symmetric */
  if (t[3] != "general" && t[3] != "symmetric" && t[3] != "skew-symmetric") {
    *p = {1, "wrong header: symmetry '" + Printable(t[3]) + "', expected general, symmetric or skew-symmetric"};
    return false;
  }
  if (t[2] == "pattern" && (t[1] == "array" || t[3] == "skew-symmetric")) {
    *p = {1, "wrong header: a pattern matrix must be coordinate and not skew-symmetric"};
    return false;
  }
  h->format   = t[1];
  h->field    = t[2];
  h->symmetry = t[3];

  /* size line: the first line that is neither a comment nor blank */
  std::vector<std::string> sz;
  while (next_line()) {
    line++;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (!s.empty() && s[0] == '%') continue;
    sz = Split(s);
    if (!sz.empty()) break;
  }
  if (too_long) return false;
  if (sz.empty()) {
    *p = {line + 1, "truncated: the file ends before the size line"};
    return false;
  }
  h->size_line            = line;
  const std::size_t nsize = h->array() ? 2 : 3;
  const char       *names = h->array() ? "rows cols" : "rows cols entries";
  if (sz.size() != nsize) {
    *p = {line, Fmt("size line has %d numbers, expected %d (%s)", (int)sz.size(), (int)nsize, names)};
    return false;
  }
  long long v[3] = {0, 0, 0};
  for (std::size_t k = 0; k < nsize; k++) {
    if (!ParseInt(sz[k], &v[k])) {
      *p = {line, "size line: '" + Printable(sz[k]) + "' is not an integer (" + names + ")"};
      return false;
    }
    if (v[k] < 0) {
      *p = {line, Fmt("negative size: %s %lld on the size line", k == 0 ? "rows" : k == 1 ? "cols" : "entries", v[k])};
      return false;
    }
  }
  h->M   = v[0];
  h->N   = v[1];
  h->nnz = v[2];
  if (h->M == 0 || h->N == 0) {
    *p = {line, Fmt("empty matrix: %lld x %lld", h->M, h->N)};
    return false;
  }
  const long long imax = std::numeric_limits<int>::max();
  if (h->M > imax || h->N > imax || h->nnz > imax) {
    *p = {line, Fmt("too large for 32-bit indices: %lld x %lld, %lld entries", h->M, h->N, h->nnz)};
    return false;
  }
  if (h->symmetry != "general" && h->M != h->N) {
    *p = {line, Fmt("a %s matrix must be square, the size line says %lld x %lld", h->symmetry.c_str(), h->M, h->N)};
    return false;
  }

  /* entries */
  const bool sym = h->symmetry == "symmetric", skew = h->symmetry == "skew-symmetric";
  if (h->array()) {
    const long long expect = sym ? h->M * (h->M + 1) / 2 : skew ? h->M * (h->M - 1) / 2 : h->M * h->N;
    if (expect > imax) {
      *p = {line, Fmt("dense (array) matrix %lld x %lld too large", h->M, h->N)};
      return false;
    }
    long long count = 0;
    /* each value takes 2 bytes at least: a file too short for its size line is refused before reading on */
    if (expect > file_bytes / 2 + 1) {
      *p = {line, Fmt("the size line declares a %lld x %lld array (%lld values), more than a file of %lld bytes can hold", h->M, h->N, expect, file_bytes)};
      return false;
    }
    while (next_line()) {
      line++;
      if (!s.empty() && s[0] == '%') continue;
      for (const std::string &tok : Split(s)) {
        double x;
        if (count == expect) {
          *p = {line, Fmt("more values than the %lld a %s %lld x %lld array holds (size line %ld)", expect, h->symmetry.c_str(), h->M, h->N, h->size_line)};
          return false;
        }
        if (!CheckValue(tok, line, &x, p)) return false;
        if (h->field == "integer" && !IsIntegerValue(tok)) {
          *p = {line, "value '" + Printable(tok) + "' is not an integer (the header says integer)"};
          return false;
        }
        count++;
      }
    }
    if (too_long) return false;
    if (count < expect) {
      *p = {line + 1, Fmt("truncated: the file ends after %lld of the %lld values of a %s %lld x %lld array", count, expect, h->symmetry.c_str(), h->M, h->N)};
      return false;
    }
    return true;
  }
  const std::size_t want   = h->field == "pattern" ? 2 : 3;
  const char       *fields = want == 2 ? "row col" : "row col value";
  long long         count = 0;
  long              upper_line = 0, lower_line = 0;
  /* an entry takes 4 bytes at least ("1 1\n"): a size line declaring more
     than the file can hold is refused before reading on */
  if (h->nnz > file_bytes / 4 + 1) {
    *p = {line, Fmt("the size line declares %lld entries, more than a file of %lld bytes can hold", h->nnz, file_bytes)};
    return false;
  }
  while (next_line()) {
    line++;
    const bool no_newline = in.eof(); /* the last line, cut short? */
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (!s.empty() && s[0] == '%') continue;
    t = Split(s);
    if (t.empty()) continue;
    if (count == h->nnz) {
      *p = {line, Fmt("more entries than the %lld declared on the size line (line %ld)", h->nnz, h->size_line)};
      return false;
    }
    if (t.size() != want) {
      if (t.size() < want && no_newline) *p = {line, Fmt("truncated: the last entry has %d of its %d fields (%s)", (int)t.size(), (int)want, fields)};
      else *p = {line, Fmt("entry has %d fields, expected %d (%s)", (int)t.size(), (int)want, fields)};
      return false;
    }
    long long i, j;
    if (!ParseInt(t[0], &i)) {
      *p = {line, "row index '" + Printable(t[0]) + "' is not an integer"};
      return false;
    }
    if (!ParseInt(t[1], &j)) {
      *p = {line, "column index '" + Printable(t[1]) + "' is not an integer"};
      return false;
    }
    if (i < 1 || i > h->M) {
      *p = {line, Fmt("row index %lld out of range [1, %lld]", i, h->M)};
      return false;
    }
    if (j < 1 || j > h->N) {
      *p = {line, Fmt("column index %lld out of range [1, %lld]", j, h->N)};
      return false;
    }
    double x = 1;
    if (want == 3 && !CheckValue(t[2], line, &x, p)) return false;
    if (want == 3 && h->field == "integer" && !IsIntegerValue(t[2])) {
      *p = {line, "value '" + Printable(t[2]) + "' is not an integer (the header says integer)"};
      return false;
    }
    if (sym || skew) {
      if (i < j && !upper_line) upper_line = line;
      if (i > j && !lower_line) lower_line = line;
      if (upper_line && lower_line) {
        *p = {line, Fmt("%s file holds entries on both sides of the diagonal (line %ld above, line %ld below): it must store one triangle", h->symmetry.c_str(), upper_line, lower_line)};
        return false;
      }
      if (skew && i == j && x != 0) {
        *p = {line, Fmt("skew-symmetric matrix with a nonzero diagonal entry (%lld, %lld)", i, j)};
        return false;
      }
    }
    count++;
  }
  if (too_long) return false;
  if (count < h->nnz) {
    *p = {line + 1, Fmt("truncated: the file ends after %lld of the %lld entries declared on the size line (line %ld)", count, h->nnz, h->size_line)};
    return false;
  }
  /* The sizes against the entries read, before anything is allocated for
     them (CHOLMOD and the rows take memory per row and per column): each
     entry fills one row and one column (two of each when mirrored), so
     more than twice as many rows or columns means most of them empty, a
     size line that does not describe the entries. Small matrices pass. */
  const long long reach = (sym || skew ? 2 : 1) * count, most = 2 * reach + 1024;
  if (h->M > most || h->N > most) {
    *p = {h->size_line, Fmt("the size line declares %lld x %lld, but the file holds %lld entries: more than half of the %s would be empty", h->M, h->N, count, h->M > most ? "rows" : "columns")};
    return false;
  }
  return true;
}

/* ---------------------------------------------------------------------------
   Matrix Market: reading with CHOLMOD (rank 0), rows sent to their owners
   ------------------------------------------------------------------------ */

std::string g_cholmod_msg;

/* CHOLMOD calls this on each error; the first message is the cause (later
   ones, such as "argument missing", follow from it). */
void CholmodHandler(int status, const char *file, int line, const char *message)
{
  if (g_cholmod_msg.empty()) g_cholmod_msg = Fmt("%s (CHOLMOD status %d at %s:%d)", message ? message : "?", status, file ? file : "?", line);
}

struct Csr {
  long long                M = 0, N = 0;
  std::vector<PetscInt>    rowptr, col;
  std::vector<PetscScalar> val;
};

bool ReadWithCholmod(const char *path, const MMHeader &h, Csr *out, Problem *p)
{
  cholmod_common cc;
  cholmod_start(&cc);
  cc.print         = 0;
  cc.error_handler = CholmodHandler;
  g_cholmod_msg.clear();
  std::FILE *f = std::fopen(path, "r");
  if (!f) {
    cholmod_finish(&cc);
    *p = {0, std::string("cannot open the file: ") + std::strerror(errno)};
    return false;
  }
  cholmod_sparse *A = nullptr;
  if (!h.array()) A = cholmod_read_sparse(f, &cc);
  else { /* cholmod_read_sparse refuses array files: read dense, drop the zeros */
    cholmod_dense *D = cholmod_read_dense(f, &cc);
    if (D) {
      A = cholmod_dense_to_sparse(D, 1, &cc);
      cholmod_free_dense(&D, &cc);
    }
  }
  std::fclose(f);
  auto fail = [&](const std::string &what) {
    if (A) cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
    *p = {0, what};
    return false;
  };
  if (!A) return fail("CHOLMOD could not read the file: " + (g_cholmod_msg.empty() ? Fmt("status %d", cc.status) : g_cholmod_msg));
  if (A->xtype == CHOLMOD_COMPLEX || A->xtype == CHOLMOD_ZOMPLEX) return fail(std::string(kComplexRefusal) + " (CHOLMOD xtype complex)");
  if (A->itype != CHOLMOD_INT) return fail("unexpected CHOLMOD index type");
  /* Symmetric files: CHOLMOD keeps one triangle (stype > 0 upper, < 0
     lower; entries of either triangle in the file land in it). cholmod_copy
     with stype 0 mirrors it into the whole matrix. Skew-symmetric files
     come back with stype 0, both triangles present and A(j,i) = -A(i,j)
     already applied (checked on small files): nothing to expand. */
  if (A->stype != 0) {
    cholmod_sparse *F = cholmod_copy(A, 0, A->xtype == CHOLMOD_PATTERN ? 0 : 1, &cc);
    cholmod_free_sparse(&A, &cc);
    A = F;
    if (!A) return fail("CHOLMOD could not expand the symmetric matrix: " + g_cholmod_msg);
  }
  out->M                       = (long long)A->nrow;
  out->N                       = (long long)A->ncol;
  const int    *Ap = (const int *)A->p, *Ai = (const int *)A->i, *Anz = (const int *)A->nz;
  const double *Ax = A->xtype == CHOLMOD_PATTERN ? nullptr : (const double *)A->x;
  /* CSC -> CSR */
  out->rowptr.assign((std::size_t)out->M + 1, 0);
  for (long long c = 0; c < out->N; c++) {
    const int p0 = Ap[c], p1 = A->packed ? Ap[c + 1] : Ap[c] + Anz[c];
    for (int q = p0; q < p1; q++) out->rowptr[(std::size_t)Ai[q] + 1]++;
  }
  for (long long r = 0; r < out->M; r++) out->rowptr[(std::size_t)r + 1] += out->rowptr[(std::size_t)r];
  out->col.resize((std::size_t)out->rowptr.back());
  out->val.resize((std::size_t)out->rowptr.back());
  std::vector<PetscInt> next(out->rowptr.begin(), out->rowptr.end() - 1);
  for (long long c = 0; c < out->N; c++) {
    const int p0 = Ap[c], p1 = A->packed ? Ap[c + 1] : Ap[c] + Anz[c];
    for (int q = p0; q < p1; q++) {
      const PetscInt k = next[(std::size_t)Ai[q]]++;
      out->col[(std::size_t)k] = (PetscInt)c;
      out->val[(std::size_t)k] = Ax ? Ax[q] : 1.0;
    }
  }
  cholmod_free_sparse(&A, &cc);
  cholmod_finish(&cc);
  return true;
}

/* Every process learns rank 0's verdict on the file. */
PetscErrorCode BcastProblem(Problem *p)
{
  long long line = p->line;
  int       len  = (int)p->what.size();

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(&line, 1, MPI_LONG_LONG, 0, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  p->what.resize((std::size_t)len);
  if (len) PetscCallMPI(MPI_Bcast(&p->what[0], len, MPI_CHAR, 0, PETSC_COMM_WORLD));
  p->line = (long)line;
  PetscFunctionReturn(0);
}

/* Rows of rank r in PETSc's default split of M rows over size processes. */
void DefaultSplit(PetscInt M, PetscMPIInt size, PetscMPIInt r, PetscInt *lo, PetscInt *hi)
{
  const PetscInt base = M / size, rem = M % size;
  *lo = r * base + PetscMin((PetscInt)r, rem);
  *hi = *lo + base + (r < rem ? 1 : 0);
}

PetscErrorCode LoadMatrixMarket(const char *path, Mat *A, Problem *p, MMHeader *h, std::string *note)
{
  PetscMPIInt rank, size;
  Csr         csr;

  PetscFunctionBeginUser;
  *A = NULL;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (rank == 0 && PreCheck(path, h, p)) ReadWithCholmod(path, *h, &csr, p);
  PetscCall(BcastProblem(p));
  if (p->bad()) PetscFunctionReturn(0);
  { /* the header, for the report */
    char hdr[3][32] = {"", "", ""};
    if (rank == 0) {
      std::snprintf(hdr[0], 32, "%s", h->format.c_str());
      std::snprintf(hdr[1], 32, "%s", h->field.c_str());
      std::snprintf(hdr[2], 32, "%s", h->symmetry.c_str());
    }
    PetscCallMPI(MPI_Bcast(hdr, 3 * 32, MPI_CHAR, 0, PETSC_COMM_WORLD));
    h->format   = hdr[0];
    h->field    = hdr[1];
    h->symmetry = hdr[2];
    PetscCallMPI(MPI_Bcast(&h->nnz, 1, MPI_LONG_LONG, 0, PETSC_COMM_WORLD));
  }
  if (h->field == "pattern") *note = h->symmetry == "symmetric" ? "pattern file: values as CHOLMOD gives them: -1 off the diagonal, 1 + the number of off-diagonal entries of the column on it" : "pattern file: every entry gets the value 1";

  long long MN[2] = {csr.M, csr.N};
  PetscCallMPI(MPI_Bcast(MN, 2, MPI_LONG_LONG, 0, PETSC_COMM_WORLD));
  const PetscInt M = (PetscInt)MN[0], N = (PetscInt)MN[1];
  PetscInt       lo, hi;
  DefaultSplit(M, size, rank, &lo, &hi);

  /* rank 0 sends each process the entries of its rows */
  std::vector<int> counts(size, 0), displs(size, 0);
  if (rank == 0) {
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscInt rlo, rhi;
      DefaultSplit(M, size, r, &rlo, &rhi);
      counts[r] = (int)(csr.rowptr[rhi] - csr.rowptr[rlo]);
      displs[r] = (int)csr.rowptr[rlo];
    }
  }
  int nloc = 0;
  PetscCallMPI(MPI_Scatter(counts.data(), 1, MPI_INT, &nloc, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  std::vector<PetscInt> rows_all, ii((std::size_t)nloc), jj((std::size_t)nloc);
  std::vector<PetscScalar> vv((std::size_t)nloc);
  if (rank == 0) {
    rows_all.resize(csr.col.size());
    for (PetscInt r = 0; r < M; r++)
      for (PetscInt k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++) rows_all[(std::size_t)k] = r;
  }
  PetscCallMPI(MPI_Scatterv(rows_all.data(), counts.data(), displs.data(), MPIU_INT, ii.data(), nloc, MPIU_INT, 0, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Scatterv(csr.col.data(), counts.data(), displs.data(), MPIU_INT, jj.data(), nloc, MPIU_INT, 0, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Scatterv(csr.val.data(), counts.data(), displs.data(), MPIU_SCALAR, vv.data(), nloc, MPIU_SCALAR, 0, PETSC_COMM_WORLD));
  csr = Csr();

  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, hi - lo, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetPreallocationCOO(*A, (PetscCount)nloc, ii.data(), jj.data()));
  PetscCall(MatSetValuesCOO(*A, vv.data(), INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------
   PETSc binary
   ------------------------------------------------------------------------ */

std::string LastPetscMessage()
{
  const char *specific = NULL;
  if (PetscDiagErrorMessage(0, NULL, &specific) || !specific) return "";
  std::string s = specific;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/* The checks of a PETSc binary matrix file that MatLoad does not make
   (it trusts the file: a column out of range is written out of bounds, a
   lying header makes it allocate what the header says or leaves one
   process waiting for data that never comes). Run on rank 0 before
   MatLoad, streaming, allocating only the row lengths (which the file
   holds, so their bytes are bounded by its size):
   class id, sizes, the bytes the header implies against the file size,
   row lengths (non-negative, summing to the declared count), and in every
   row column indices in [0, N), strictly increasing. */
bool BinaryPreCheck(const char *path, Problem *p)
{
  long long bytes;
  if (!RegularFile(path, &bytes, p)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *p = {0, std::string("cannot open the file: ") + std::strerror(errno)};
    return false;
  }
  const std::size_t isz = sizeof(PetscInt);
  auto read_ints = [&](std::vector<long long> *out, std::size_t n) {
    std::vector<unsigned char> raw(n * isz);
    if (!in.read((char *)raw.data(), (std::streamsize)raw.size())) return false;
    out->resize(n);
    for (std::size_t k = 0; k < n; k++) { /* big-endian, signed */
      unsigned long long u = 0;
      for (std::size_t b = 0; b < isz; b++) u = (u << 8) | raw[k * isz + b];
      (*out)[k] = isz == 4 ? (long long)(std::int32_t)(std::uint32_t)u : (long long)u;
    }
    return true;
  };
  std::vector<long long> hdr;
  if (!read_ints(&hdr, 4)) {
    *p = {0, Fmt("truncated: %lld bytes, less than the header of a PETSc binary matrix", bytes)};
    return false;
  }
  const long long classid = hdr[0], M = hdr[1], N = hdr[2], nz = hdr[3];
  if (classid != MAT_FILE_CLASSID) {
    *p = {0, Fmt("not a PETSc binary matrix: class id %lld, expected %d", classid, (int)MAT_FILE_CLASSID)};
    return false;
  }
  if (M <= 0 || N <= 0) {
    *p = {0, Fmt("header declares a %lld x %lld matrix", M, N)};
    return false;
  }
  if (nz < 0) {
    *p = {0, Fmt("header declares %lld entries (a dense-format file? only sparse ones are read)", nz)};
    return false;
  }
  const long long need = (4 + M + nz) * (long long)isz + nz * (long long)sizeof(PetscScalar);
  if (need > bytes) {
    *p = {0, Fmt("truncated or wrong header: a %lld x %lld matrix with %lld entries takes %lld bytes, the file has %lld", M, N, nz, need, bytes)};
    return false;
  }
  std::vector<long long> rowlen;
  if (!read_ints(&rowlen, (std::size_t)M)) {
    *p = {0, "truncated in the row lengths"};
    return false;
  }
  long long sum = 0;
  for (long long r = 0; r < M; r++) {
    if (rowlen[(std::size_t)r] < 0 || rowlen[(std::size_t)r] > N) {
      *p = {0, Fmt("row %lld has length %lld, outside [0, %lld]", r, rowlen[(std::size_t)r], N)};
      return false;
    }
    sum += rowlen[(std::size_t)r];
  }
  if (sum != nz) {
    *p = {0, Fmt("the row lengths add up to %lld entries, the header declares %lld", sum, nz)};
    return false;
  }
  std::vector<long long> cols;
  for (long long r = 0; r < M; r++) {
    if (!read_ints(&cols, (std::size_t)rowlen[(std::size_t)r])) {
      *p = {0, Fmt("truncated in the column indices of row %lld", r)};
      return false;
    }
    for (std::size_t k = 0; k < cols.size(); k++) {
      if (cols[k] < 0 || cols[k] >= N) {
        *p = {0, Fmt("row %lld: column index %lld outside [0, %lld)", r, cols[k], N)};
        return false;
      }
      if (k > 0 && cols[k] <= cols[k - 1]) {
        *p = {0, Fmt("row %lld: column indices not increasing (%lld after %lld)", r, cols[k], cols[k - 1])};
        return false;
      }
    }
  }
  return true;
}

PetscErrorCode LoadBinary(const char *path, Mat *A, Problem *p)
{
  PetscViewer    v = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  *A = NULL;
  { /* rank 0 checks the file; every process learns its verdict before any of them reads */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) BinaryPreCheck(path, p);
    PetscCall(BcastProblem(p));
    if (p->bad()) PetscFunctionReturn(0);
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscViewerBinaryOpen(PETSC_COMM_WORLD, path, FILE_MODE_READ, &v);
  if (!ierr) ierr = MatLoad(*A, v);
  PetscCall(PetscPopErrorHandler());
  if (ierr) p->what = "not a PETSc binary matrix file (MatLoad: " + LastPetscMessage() + ")";
  PetscCall(PetscViewerDestroy(&v));
  if (ierr) {
    PetscCall(MatDestroy(A));
    PetscFunctionReturn(0);
  }
  /* NaN / Inf: the first row holding one (binary files have no lines) */
  {
    PetscInt rs, re, bad = PETSC_MAX_INT, badg, badcol = -1;
    PetscCall(MatGetOwnershipRange(*A, &rs, &re));
    for (PetscInt r = rs; r < re && bad == PETSC_MAX_INT; r++) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(*A, r, &nc, &cols, &vals));
      for (PetscInt k = 0; k < nc; k++)
        if (PetscIsInfOrNanScalar(vals[k])) {
          bad    = r;
          badcol = cols[k];
          break;
        }
      PetscCall(MatRestoreRow(*A, r, &nc, &cols, &vals));
    }
    PetscCallMPI(MPI_Allreduce(&bad, &badg, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (badg != PETSC_MAX_INT) {
      PetscInt col = bad == badg ? badcol : -1, colg;
      PetscCallMPI(MPI_Allreduce(&col, &colg, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
      p->what = Fmt("NaN or infinite value in row %d, column %d (0-based; binary files have no lines)", (int)badg, (int)colg);
      PetscCall(MatDestroy(A));
    }
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------
   Structure
   ------------------------------------------------------------------------ */

struct Structure {
  PetscInt              M = 0, N = 0;
  long long             nnz = 0;
  std::vector<PetscInt> offsets; /* all diagonals j - i holding an entry, ascending */
  pdiag::StructureReport r;
  pdiag::Scheme         cheaper = pdiag::Scheme::HM;
};

/* pdiag::structure_report's numbers for the whole matrix, from its offsets
   alone (structure_report needs the HM matrix with its values, which for
   the poorly filled matrices is many times larger than the matrix). */
pdiag::StructureReport ReportFromOffsets(PetscInt M, PetscInt N, const std::vector<PetscInt> &offsets, long long nnz)
{
  const pdiag::Layout       L = pdiag::Layout::rect(M, N);
  pdiag::StructureReport    r;
  std::vector<pdiag::Index> offs(offsets.begin(), offsets.end());
  r.nrows    = M;
  r.ncols    = N;
  r.ndiag_hm = (pdiag::Index)offs.size();
  for (pdiag::Index d : offs) r.stored_hm += L.length(d);
  r.nonzeros  = nnz;
  r.bytes_hm  = sizeof(PetscScalar) * std::size_t(r.stored_hm) + sizeof(pdiag::Index) * std::size_t(2 * r.ndiag_hm + 1);
  r.bytes_csr = (sizeof(PetscScalar) + 4) * std::size_t(nnz) + 4 * std::size_t(M + 1);
  r.fill_hm   = r.stored_hm ? double(nnz) / double(r.stored_hm) : 1.0;
  if (L.is_square()) {
    r.ndiag_cdm  = (pdiag::Index)pdiag::cdm_offsets_of(L, offs).size();
    r.stored_cdm = r.ndiag_cdm * M;
    r.bytes_cdm  = sizeof(PetscScalar) * std::size_t(r.stored_cdm) + sizeof(pdiag::Index) * std::size_t(r.ndiag_cdm);
    r.fill_cdm   = r.stored_cdm ? double(nnz) / double(r.stored_cdm) : 1.0;
  }
  return r;
}

/* The union over processes of the diagonals of the aij matrix's rows; with
   want_pattern, rank 0 also receives every (row, col). */
PetscErrorCode ComputeStructure(Mat A, Structure *S, bool want_pattern, std::vector<PetscInt> *pat_rows, std::vector<PetscInt> *pat_cols)
{
  PetscInt    rs, re;
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatGetSize(A, &S->M, &S->N));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  std::vector<char>     seen((std::size_t)(S->M + S->N), 0);
  std::vector<PetscInt> mine, li, lj;
  long long             nloc = 0;
  for (PetscInt r = rs; r < re; r++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(A, r, &nc, &cols, NULL));
    nloc += nc;
    for (PetscInt k = 0; k < nc; k++) {
      const std::size_t slot = (std::size_t)(cols[k] - r + S->M);
      if (!seen[slot]) {
        seen[slot] = 1;
        mine.push_back(cols[k] - r);
      }
      if (want_pattern) {
        li.push_back(r);
        lj.push_back(cols[k]);
      }
    }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, NULL));
  }
  PetscCallMPI(MPI_Allreduce(&nloc, &S->nnz, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD));
  int              nmine = (int)mine.size();
  std::vector<int> cnt(size), dsp(size, 0);
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, cnt.data(), 1, MPI_INT, PETSC_COMM_WORLD));
  for (int r = 1; r < size; r++) dsp[r] = dsp[r - 1] + cnt[r - 1];
  std::vector<PetscInt> all((std::size_t)(dsp[size - 1] + cnt[size - 1]));
  PetscCallMPI(MPI_Allgatherv(mine.data(), nmine, MPIU_INT, all.data(), cnt.data(), dsp.data(), MPIU_INT, PETSC_COMM_WORLD));
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  S->offsets = all;
  S->r       = ReportFromOffsets(S->M, S->N, S->offsets, S->nnz);
  S->cheaper = pdiag::cheaper_scheme(S->r, pdiag::Layout::rect(S->M, S->N));
  if (want_pattern) {
    int n = (int)li.size();
    PetscCallMPI(MPI_Gather(&n, 1, MPI_INT, cnt.data(), 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (rank == 0)
      for (int r = 1; r < size; r++) dsp[r] = dsp[r - 1] + cnt[r - 1];
    const std::size_t tot = rank == 0 ? (std::size_t)(dsp[size - 1] + cnt[size - 1]) : 0;
    pat_rows->resize(tot);
    pat_cols->resize(tot);
    PetscCallMPI(MPI_Gatherv(li.data(), n, MPIU_INT, pat_rows->data(), cnt.data(), dsp.data(), MPIU_INT, 0, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Gatherv(lj.data(), n, MPIU_INT, pat_cols->data(), cnt.data(), dsp.data(), MPIU_INT, 0, PETSC_COMM_WORLD));
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------
   Products and solves
   ------------------------------------------------------------------------ */

PetscErrorCode FillVec(Vec v, PetscInt seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = lo; k < hi; k++) a[k - lo] = PetscSinReal((PetscReal)(k * 7 + seed)) + 0.1 * (PetscReal)((k + seed) % 5);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode RelDiff(Vec u, Vec ref, PetscReal *rel)
{
  Vec       w;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(ref, &w));
  PetscCall(VecWAXPY(w, -1.0, ref, u));
  PetscCall(VecNorm(w, NORM_2, &nd));
  PetscCall(VecNorm(ref, NORM_2, &nr));
  PetscCall(VecDestroy(&w));
  *rel = nr > 0 ? nd / nr : nd;
  PetscFunctionReturn(0);
}

/* MatMult and MatMultTranspose of diag against aij. */
PetscErrorCode Check(Mat A, Mat D, bool *ok)
{
  const PetscReal tol = 1e-12;
  Vec             x, y1, y2, xt, t1, t2;
  PetscReal       rel, relt;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecDuplicate(y1, &xt));
  PetscCall(VecDuplicate(x, &t1));
  PetscCall(VecDuplicate(x, &t2));
  PetscCall(FillVec(x, 1));
  PetscCall(FillVec(xt, 2));
  PetscCall(MatMult(D, x, y1));
  PetscCall(MatMult(A, x, y2));
  PetscCall(RelDiff(y1, y2, &rel));
  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(MatMultTranspose(A, xt, t2));
  PetscCall(RelDiff(t1, t2, &relt));
  *ok = rel <= tol && relt <= tol;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "check: diag vs aij, relative 2-norm difference: MatMult %.3e, MatMultTranspose %.3e (tolerance %.0e): %s\n", (double)rel, (double)relt, (double)tol, *ok ? "ok" : "FAILED"));
  for (Vec *v : {&x, &y1, &y2, &xt, &t1, &t2}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(0);
}

struct SolveResult {
  PetscInt           its = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscReal          err = 0, setup = 0, solve = 0;
  PetscInt           repeat = 1;
  std::string        ksp, pc;
};

/* The solve is repeated (from x = 0 each time) and the fastest time kept:
   the first solve of a program pays for first touches and cache misses, and
   would otherwise penalize whichever matrix goes first. */
PetscErrorCode Solve(Mat M, Vec b, Vec ones, PetscInt repeat, SolveResult *res)
{
  KSP            ksp;
  PC             pc;
  Vec            x;
  PetscLogDouble t0, t1, t2;
  KSPType        kt;
  PCType         pt;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI)); /* works on diag; -pc_type overrides */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t1));
  res->solve = PETSC_MAX_REAL;
  for (PetscInt k = 0; k < PetscMax(repeat, 1); k++) {
    PetscLogDouble s0;
    PetscCall(VecSet(x, 0.0));
    PetscCall(PetscTime(&s0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscTime(&t2));
    res->solve = PetscMin(res->solve, (PetscReal)(t2 - s0));
  }
  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason));
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(PCGetType(pc, &pt));
  res->ksp = kt ? kt : "?";
  res->pc  = pt ? pt : "?";
  PetscCall(VecAXPY(x, -1.0, ones));
  PetscCall(VecNorm(x, NORM_2, &res->err));
  res->setup  = (PetscReal)(t1 - t0);
  res->repeat = PetscMax(repeat, 1);
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

PetscErrorCode PrintSolve(const char *label, const SolveResult &r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s: %4d iterations, %s, ||x - ones|| = %.3e, setup %.3f ms, solve %.3f ms (best of %d)\n", label, (int)r.its, KSPConvergedReasons[r.reason], (double)r.err, 1e3 * (double)r.setup, 1e3 * (double)r.solve, (int)r.repeat));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------
   The picture: a CSV of the pattern and of the offsets, drawn by Python
   ------------------------------------------------------------------------ */

/* Runs argv[0] (searched in PATH), waits; returns its exit status or -1. */
int RunProgram(const std::vector<std::string> &args)
{
  std::vector<char *> argv;
  for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], NULL, NULL, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Rank 0 only. Returns an empty string or what went wrong. */
std::string DrawStructure(const Options &o, const Structure &S, const std::vector<PetscInt> &rows, const std::vector<PetscInt> &cols, const std::string &title)
{
  std::error_code ec;
  std::string     base = (std::filesystem::temp_directory_path(ec) / "mtx-structure-XXXXXX").string();
  std::vector<char> tmpl(base.begin(), base.end());
  tmpl.push_back('\0');
  if (!mkdtemp(tmpl.data())) return std::string("cannot create a temporary folder: ") + std::strerror(errno);
  const std::filesystem::path dir(tmpl.data());
  const std::string           pattern = (dir / "pattern.csv").string(), offsets = (dir / "offsets.csv").string();
  std::string                 err;
  {
    std::FILE *f = std::fopen(pattern.c_str(), "w");
    std::FILE *g = std::fopen(offsets.c_str(), "w");
    if (f && g) {
      std::fprintf(f, "row,col\n");
      for (std::size_t k = 0; k < rows.size(); k++) std::fprintf(f, "%d,%d\n", (int)rows[k], (int)cols[k]);
      std::fprintf(g, "offset\n");
      for (PetscInt d : S.offsets) std::fprintf(g, "%d\n", (int)d);
    } else err = "cannot write the CSV files in " + dir.string();
    if (f) std::fclose(f);
    if (g) std::fclose(g);
  }
  if (err.empty()) {
    const bool        cdm  = S.cheaper == pdiag::Scheme::CDM;
    const std::string info = Fmt("%d x %d, %lld nonzeros, %d diagonals; fill HM %.3f%s; cheaper: %s", (int)S.M, (int)S.N, S.nnz, (int)S.r.ndiag_hm, S.r.fill_hm, S.r.ndiag_cdm ? Fmt(", CDM %.3f", S.r.fill_cdm).c_str() : "", cdm ? "CDM" : "HM");
    const int st = RunProgram({o.python, o.script, "--pattern", pattern, "--offsets", offsets, "--rows", std::to_string(S.M), "--cols", std::to_string(S.N), "--title", title, "--info", info, "--out", o.png});
    if (st != 0) err = st < 0 ? "could not run " + std::string(o.python) : Fmt("the plot script failed (exit %d): %s %s", st, o.python, o.script);
  }
  std::filesystem::remove_all(dir, ec);
  return err;
}

/* ---------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------ */

PetscErrorCode Fail(const Options &o, const Problem &p, int *code)
{
  PetscFunctionBeginUser;
  if (p.line > 0) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "mtx: error: %s, line %ld: %s\n", o.file, p.line, p.what.c_str()));
  else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "mtx: error: %s: %s\n", o.file, p.what.c_str()));
  *code = 1;
  PetscFunctionReturn(0);
}

PetscErrorCode Run(int *code)
{
  Options     o;
  PetscBool   has_help, set;
  PetscMPIInt rank, size;
  Mat         A = NULL, D = NULL;
  Problem     prob;
  MMHeader    h;
  std::string note;

  PetscFunctionBeginUser;
  *code = 0;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", o.file, sizeof(o.file), &set));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-binary", &o.binary, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_fill", &o.min_fill, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-force", &o.force, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check", &o.check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &o.solve, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-solve_repeat", &o.repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-view_structure", o.png, sizeof(o.png), &o.view));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-plot_python", o.python, sizeof(o.python), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-plot_script", o.script, sizeof(o.script), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_diag_storage", o.storage, sizeof(o.storage), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-aij_type", o.aij_type, sizeof(o.aij_type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-diag_type", o.diag_type, sizeof(o.diag_type), NULL));
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (!set || !o.file[0]) {
    if (!has_help) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "mtx: error: give a matrix file with -f <file.mtx> (or -f <file> -binary); -help lists the options\n"));
      *code = 1;
    }
    PetscFunctionReturn(0);
  }
  if (o.view && !o.png[0]) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "mtx: error: -view_structure needs a file name: -view_structure out.png\n"));
    *code = 1;
    PetscFunctionReturn(0);
  }

  /* 1. load */
  PetscLogDouble t0, t1;
  PetscCall(PetscTime(&t0));
  if (o.binary) PetscCall(LoadBinary(o.file, &A, &prob));
  else PetscCall(LoadMatrixMarket(o.file, &A, &prob, &h, &note));
  PetscCall(PetscTime(&t1));
  if (prob.bad()) {
    PetscCall(Fail(o, prob, code));
    PetscFunctionReturn(0);
  }
  if (std::string(o.aij_type) != MATAIJ) PetscCall(MatConvert(A, o.aij_type, MAT_INPLACE_MATRIX, &A));

  /* 2. structure */
  Structure             S;
  std::vector<PetscInt> prow, pcol;
  PetscCall(ComputeStructure(A, &S, o.view, &prow, &pcol));
  const pdiag::StructureReport &r = S.r;
  const bool  square = S.M == S.N;
  std::string scheme = S.cheaper == pdiag::Scheme::CDM ? "CDM" : "HM";
  if (!strcmp(o.storage, "hm")) scheme = "HM";
  else if (!strcmp(o.storage, "cdm") && square) scheme = "CDM";
  const bool        use_cdm  = scheme == "CDM";
  const double      fill     = use_cdm ? r.fill_cdm : r.fill_hm;
  const std::size_t bytes    = use_cdm ? r.bytes_cdm : r.bytes_hm;
  const std::string filename = std::filesystem::path(o.file).filename().string();

  if (o.binary) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: PETSc binary, loaded in %.3f s on %d process(es)\n", filename.c_str(), (double)(t1 - t0), (int)size));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: Matrix Market %s %s %s, %lld %s in the file, loaded in %.3f s on %d process(es)\n", filename.c_str(), h.format.c_str(), h.field.c_str(), h.symmetry.c_str(), h.array() ? (long long)S.M * S.N : h.nnz, h.array() ? "values" : "entries", (double)(t1 - t0), (int)size));
  if (!note.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  note: %s\n", note.c_str()));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  rows %d, cols %d, nonzeros %lld (%.2f per row)\n", (int)S.M, (int)S.N, S.nnz, (double)S.nnz / (double)S.M));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  diagonals %d", (int)r.ndiag_hm));
  if (!S.offsets.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " (offsets %d .. %d)", (int)S.offsets.front(), (int)S.offsets.back()));
  if (square) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", compact (CDM) diagonals %d", (int)r.ndiag_cdm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  HM : stored %10lld entries, fill %.4f, %s\n", (long long)r.stored_hm, r.fill_hm, Bytes(r.bytes_hm).c_str()));
  if (square) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  CDM: stored %10lld entries, fill %.4f, %s\n", (long long)r.stored_cdm, r.fill_cdm, Bytes(r.bytes_cdm).c_str()));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  CDM: not for rectangular matrices\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  CSR: stored %10lld entries,             %s\n", S.nnz, Bytes(r.bytes_csr).c_str()));

  /* 3. verdict and conversion */
  const bool poor = fill < o.min_fill;
  if (poor) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "verdict: diag does not pay off: fill %.4f below -min_fill %g (%s would store %zu bytes vs CSR %zu)\n", fill, (double)o.min_fill, scheme.c_str(), bytes, r.bytes_csr));
  else if (bytes < r.bytes_csr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "verdict: diag pays off: %s stores %zu bytes vs CSR %zu (fill %.4f)\n", scheme.c_str(), bytes, r.bytes_csr, fill));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "verdict: diag stores more than CSR: %s %zu bytes vs CSR %zu (fill %.4f, above -min_fill %g: products still run stride-1 along the diagonals)\n", scheme.c_str(), bytes, r.bytes_csr, fill, (double)o.min_fill));

  bool converted = false;
  if (poor && !o.force) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conversion: refused: fill %.4f of %s is below -min_fill %g (-force converts anyway)\n", fill, scheme.c_str(), (double)o.min_fill));
  } else {
    PetscErrorCode ierr;
    PetscLogDouble c0, c1;
    PetscCall(PetscTime(&c0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatConvert(A, o.diag_type, MAT_INITIAL_MATRIX, &D);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscTime(&c1));
    if (ierr) {
      D = NULL;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conversion: refused by the diag type: %s\n", LastPetscMessage().c_str()));
    } else {
      MatDiagStorage st;
      PetscInt       nd, ndmax, ndsum;
      MatInfo        info;
      PetscCall(MatDiagGetStorage(D, &st));
      PetscCall(MatDiagGetDiagonals(D, &nd, NULL));
      PetscCallMPI(MPI_Allreduce(&nd, &ndmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
      PetscCallMPI(MPI_Allreduce(&nd, &ndsum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &info));
      converted = true;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conversion: converted to diag%s in %.3f ms: storage %s, ", poor ? " (-force)" : "", 1e3 * (double)(c1 - c0), st == MAT_DIAG_STORAGE_CDM ? "CDM" : "HM"));
      if (size > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diagonals per process <= %d (sum %d), ", (int)ndmax, (int)ndsum));
      else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d diagonals, ", (int)nd));
      /* nz_allocated: the entries diag stores (diagonals and listed
         entries); nz_used counts those an aij matrix would hold */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stored %.0f entries, fill %.4f\n", info.nz_allocated, info.nz_allocated > 0 ? (double)S.nnz / info.nz_allocated : 1.0));
    }
  }

  /* 4a. -check */
  if (o.check) {
    if (converted) {
      bool ok = false;
      PetscCall(Check(A, D, &ok));
      if (!ok) *code = 1;
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "check: skipped (not converted)\n"));
  }

  /* 4b. -solve */
  if (o.solve) {
    Vec         ones, b;
    SolveResult ra, rd;
    if (!square) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve: skipped (the matrix is not square)\n"));
    else {
      PetscCall(MatCreateVecs(A, &ones, &b));
      PetscCall(VecSet(ones, 1.0));
      PetscCall(MatMult(A, ones, b));
      PetscCall(Solve(A, b, ones, o.repeat, &ra));
      if (converted) PetscCall(Solve(D, b, ones, o.repeat, &rd));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve: A x = b with b = A*ones, %s + %s, ||ones|| = %.3e\n", ra.ksp.c_str(), ra.pc.c_str(), (double)PetscSqrtReal((PetscReal)S.M)));
      PetscCall(PrintSolve("aij", ra));
      if (converted) {
        PetscCall(PrintSolve("diag", rd));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  diag vs aij: iterations %d vs %d, solve time ratio aij/diag %.2f\n", (int)rd.its, (int)ra.its, rd.solve > 0 ? (double)(ra.solve / rd.solve) : 0.0));
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  diag: not converted\n"));
      PetscCall(VecDestroy(&ones));
      PetscCall(VecDestroy(&b));
    }
  }

  /* 4c. -view_structure */
  if (o.view) {
    std::string err;
    if (rank == 0) err = DrawStructure(o, S, prow, pcol, filename);
    int bad = !err.empty();
    PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (bad) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "mtx: error: -view_structure %s: %s\n", o.png, err.c_str()));
      *code = 1;
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "structure: drew %s\n", o.png));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(Run(&code));
  PetscCall(PetscFinalize());
  return code;
}
