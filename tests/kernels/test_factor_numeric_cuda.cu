// The numeric ILU(0) / ICC(0) factorization by levels on the device
// (pdiag::cuda::hm_factor_numeric, kernels/src/factor_numeric.cu) against
// the sequential hm_ilu0 / hm_icc0 of pdiag/factor.hpp: 5/7/9/27-point grid
// stencils (also a 40x30x20 grid: levels of many blocks), random diagonal
// matrices with nonsymmetric patterns, factors restricted to the nonzeros
// or over every stored entry. The same operations in the same order per
// entry, so the factors agree to rounding of fused multiply-adds (relative
// 1e-13; a broken dependency reads an unfinished row and differs at order
// one, as a one-level schedule shows). Pivots that need PETSc's policy (a
// zero pivot) set the flag; clean factorizations leave it clear. A value
// outside the pattern is found (factor_pattern_misses). Invalid
// arguments are refused; the float instantiation. Without a CUDA device:
// SKIPPED, exit 77.
#define BOOST_TEST_MODULE factor_numeric_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "factor_testing.hpp"
#include "pdiag/factor_cuda.hpp"
#include "pdiag/levels_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// The inputs of a factorization on the device.
template <class T>
struct DeviceNumeric {
  Index n;
  DeviceArray<Index> off, base, tables, rows;
  DeviceArray<T> val;
  DeviceArray<unsigned char> pattern;
  DeviceArray<unsigned> flag;
  bool has_pattern;
  HmFactorPlan plan;
  DeviceNumeric(const NumericFactorInputs& in, const std::vector<T>& values, const LevelSchedule& s)
      : n(in.F.layout.nrows), off(in.F.offsets), base(in.base), tables(factor_plan_tables(in.plan)), rows(s.rows), val(values),
        pattern(in.pattern), flag(std::vector<unsigned>{0u}), has_pattern(!in.pattern.empty()), plan(in.plan) {}
  FactorValues<T> values() const { return {n, off.get(), base.get(), val.get()}; }
  FactorPlanView plan_view() const { return factor_plan_view(plan, tables.get()); }
  const unsigned char* pattern_or_null() const { return has_pattern ? pattern.get() : nullptr; }
};

const PivotScreen kScreen{1e-12, false, false};

/// The device factor of A against the sequential one; returns the flag.
unsigned compare_factor(const std::string& name, const HmMatrix<double>& A, bool ilu, bool nonzeros_only, cudaStream_t stream) {
  unsigned flag = 0;
  BOOST_TEST_CONTEXT(name << (ilu ? ", ILU" : ", ICC") << (nonzeros_only ? ", nonzero pattern" : ", stored pattern")) {
    const TestFactor ref = make_factor(A, ilu, nonzeros_only);
    const NumericFactorInputs in = numeric_factor_inputs(A, ilu, nonzeros_only);
    DeviceNumeric<double> d(in, in.F.val, in.schedule);
    const cuda::LevelsView lv{in.schedule.nlevels(), in.schedule.level_ptr.data(), d.rows.get()};
    PDIAG_CUDA_REQUIRE(cuda::hm_factor_numeric(d.values(), d.plan_view(), ilu, d.pattern_or_null(), lv, kScreen, d.flag.get(), stream));
    sync_checked(stream, "hm_factor_numeric");
    flag = d.flag.download()[0];
    BOOST_TEST(flag == 0u);
    BOOST_TEST(max_rel_diff(d.val.download(), ref.F.val) <= 1e-13);
  }
  return flag;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(factor_numeric, StreamFixture)

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(43);
  std::vector<GridCase> cases = grid_cases();
  cases.push_back({"7-point 40x30x20", 40, 30, 20, false, 40 + 30 + 20 - 2});
  for (const GridCase& g : cases)
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      compare_factor(g.name, A, true, nonzeros_only, stream);
      compare_factor(g.name, symmetrized(A), false, nonzeros_only, stream);
    }
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(47);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(3000, {-1001, -57, -13, -2, -1, 3, 8, 41, 120, 777}, density, rng);
      const std::string name = "random, density " + std::to_string(density);
      compare_factor(name, A, true, nonzeros_only, stream);
      compare_factor(name, symmetrized(A), false, nonzeros_only, stream);
    }
}

BOOST_AUTO_TEST_CASE(one_level_schedule_is_not_the_factor) {
  std::mt19937_64 rng(53);
  const HmMatrix<double> A = grid_matrix({"7-point 12x10x8", 12, 10, 8, false, 28}, rng);
  const TestFactor ref = make_factor(A, true, true);
  const NumericFactorInputs in = numeric_factor_inputs(A, true, true);
  LevelSchedule flat;
  flat.level_ptr = {0, A.layout.nrows};
  for (Index i = 0; i < A.layout.nrows; ++i) flat.rows.push_back(i);
  DeviceNumeric<double> d(in, in.F.val, flat);
  const cuda::LevelsView lv{1, flat.level_ptr.data(), d.rows.get()};
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_numeric(d.values(), d.plan_view(), true, d.pattern_or_null(), lv, kScreen, d.flag.get(), stream));
  sync_checked(stream, "hm_factor_numeric, one level");
  BOOST_TEST(max_rel_diff(d.val.download(), ref.F.val) > 1e-3);
}

BOOST_AUTO_TEST_CASE(pivots_needing_the_policy_are_flagged) {
  // row 1 of [[1 1],[1 1]] has a zero pivot
  HmMatrix<double> S(Layout::square(2), {-1, 0, 1});
  *S.find(0, 0) = *S.find(0, 1) = *S.find(1, 0) = *S.find(1, 1) = 1.0;
  for (bool ilu : {true, false}) {
    const NumericFactorInputs in = numeric_factor_inputs(S, ilu, true);
    DeviceNumeric<double> d(in, in.F.val, in.schedule);
    const cuda::LevelsView lv{in.schedule.nlevels(), in.schedule.level_ptr.data(), d.rows.get()};
    PDIAG_CUDA_REQUIRE(cuda::hm_factor_numeric(d.values(), d.plan_view(), ilu, d.pattern_or_null(), lv, kScreen, d.flag.get(), stream));
    sync_checked(stream, "hm_factor_numeric, zero pivot");
    BOOST_TEST(d.flag.download()[0] != 0u, (ilu ? "ILU" : "ICC"));
  }
}

BOOST_AUTO_TEST_CASE(pattern_misses) {
  std::mt19937_64 rng(67);
  const HmMatrix<double> A = grid_matrix(grid_cases()[1], rng);
  const NumericFactorInputs in = numeric_factor_inputs(A, true, true);
  const Index n = Index(in.F.val.size());
  std::vector<double> val = in.F.val;
  DeviceArray<unsigned char> marks(in.pattern);
  DeviceArray<unsigned> flag(std::vector<unsigned>{0u});
  DeviceArray<double> dval(val);
  PDIAG_CUDA_REQUIRE(cuda::factor_pattern_misses(dval.get(), marks.get(), n, flag.get(), stream));
  sync_checked(stream, "factor_pattern_misses");
  BOOST_TEST(flag.download()[0] == 0u);  // A's nonzeros are in its pattern
  std::size_t unmarked = 0;
  while (unmarked < in.pattern.size() && in.pattern[unmarked]) ++unmarked;
  BOOST_TEST_REQUIRE(unmarked < in.pattern.size());  // the grid's stored zeros are unmarked
  val[unmarked] = 0.5;
  dval.upload(val);
  PDIAG_CUDA_REQUIRE(cuda::factor_pattern_misses(dval.get(), marks.get(), n, flag.get(), stream));
  sync_checked(stream, "factor_pattern_misses, a miss");
  BOOST_TEST(flag.download()[0] != 0u);
  BOOST_TEST(cuda::factor_pattern_misses(dval.get(), marks.get(), n, static_cast<unsigned*>(nullptr), stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::factor_pattern_misses(static_cast<const double*>(nullptr), marks.get(), n, flag.get(), stream) == cudaErrorInvalidValue);
}

BOOST_AUTO_TEST_CASE(refuses_bad_arguments) {
  std::mt19937_64 rng(59);
  const HmMatrix<double> A = grid_matrix(grid_cases()[0], rng);
  const NumericFactorInputs in = numeric_factor_inputs(A, true, true);
  DeviceNumeric<double> d(in, in.F.val, in.schedule);
  cuda::LevelsView lv{in.schedule.nlevels(), in.schedule.level_ptr.data(), d.rows.get()};
  FactorPlanView no_main = d.plan_view();
  no_main.main = -1;
  BOOST_TEST(cuda::hm_factor_numeric(d.values(), no_main, true, d.pattern_or_null(), lv, kScreen, d.flag.get(), stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::hm_factor_numeric(d.values(), d.plan_view(), true, d.pattern_or_null(), lv, kScreen, nullptr, stream) == cudaErrorInvalidValue);
  std::vector<Index> short_ptr(in.schedule.level_ptr);
  short_ptr.back() -= 1;  // does not cover the rows
  const cuda::LevelsView bad{in.schedule.nlevels(), short_ptr.data(), d.rows.get()};
  BOOST_TEST(cuda::hm_factor_numeric(d.values(), d.plan_view(), true, d.pattern_or_null(), bad, kScreen, d.flag.get(), stream) == cudaErrorInvalidValue);
  sync_checked(stream, "after refusals");
  BOOST_TEST((d.val.download() == in.F.val));  // nothing ran
}

BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(61);
  const HmMatrix<double> A = grid_matrix(grid_cases()[1], rng);
  NumericFactorInputs in = numeric_factor_inputs(A, true, true);
  std::vector<float> vf(in.F.val.begin(), in.F.val.end());
  DeviceNumeric<float> d(in, vf, in.schedule);
  const cuda::LevelsView lv{in.schedule.nlevels(), in.schedule.level_ptr.data(), d.rows.get()};
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_numeric(d.values(), d.plan_view(), true, d.pattern_or_null(), lv, kScreen, d.flag.get(), stream));
  sync_checked(stream, "float hm_factor_numeric");
  // the float reference: the host runner on float values
  HmMatrix<float> Ff(in.F.layout, in.F.offsets);
  std::copy(vf.begin(), vf.end(), Ff.val.begin());
  const FactorValues<float> hv{in.F.layout.nrows, Ff.offsets.data(), in.base.data(), Ff.val.data()};
  BOOST_TEST(hm_factor_numeric_by_levels(hv, factor_plan_view(in.plan), true, in.pattern_or_null(), in.schedule, kScreen));
  const std::vector<float> g = d.val.download();
  double worst = 0;
  for (std::size_t p = 0; p < g.size(); ++p) worst = std::max(worst, std::abs(double(g[p]) - double(Ff.val[p])) / (1.0 + std::abs(double(Ff.val[p]))));
  BOOST_TEST(worst < 1e-5);
  BOOST_TEST(d.flag.download()[0] == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_factor_numeric_cuda")
