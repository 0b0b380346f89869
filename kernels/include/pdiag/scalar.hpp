// What the kernels' tests on matrix values mean, for real and complex
// scalars. A complex number has no order: a kernel that compares values
// says what it compares. A pivot or an entry is judged by its magnitude
// (scalar_abs), a diagonal that must be real and positive (the D of an
// ICC factor) by its parts (scalar_real_nonnegative), a structural zero by
// equality (scalar_is_zero: a value is an entry or not, whatever its
// type). A transpose that conjugates (A^H) uses scalar_conj, the identity
// for real types, so that one template serves A^T and A^H.
//
// For real types every helper is the plain expression (v < 0 ? -v : v,
// v >= 0, v * v, the identity): real results do not depend on them, to the
// bit. The helpers are __host__ __device__ under nvcc; a device scalar
// type (thrust::complex) takes part through its own scalar_traits
// (pdiag/scalar_cuda.cuh).
#pragma once

#include "pdiag/format.hpp"

#include <cmath>
#include <complex>
#include <type_traits>

namespace pdiag {

/// Whether T is a complex type and the real type of its parts. Specialized
/// for std::complex here; other complex types specialize it the same way.
template <class T>
struct scalar_traits {
  using real = T;
  static constexpr bool is_complex = false;
};
template <class R>
struct scalar_traits<std::complex<R>> {
  using real = R;
  static constexpr bool is_complex = true;
};

template <class T>
using real_t = typename scalar_traits<std::remove_cv_t<T>>::real;
template <class T>
inline constexpr bool is_complex_v = scalar_traits<std::remove_cv_t<T>>::is_complex;

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// |v| (for complex: the modulus, as PETSc's PetscAbsScalar).
template <class T>
PDIAG_HD real_t<T> scalar_abs(const T& v) {
  if constexpr (is_complex_v<T>) {
    using std::abs;
    return abs(v);
  } else {
    return v < T(0) ? -v : v;
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// |v|^2 as re^2 + im^2 (PETSc's PetscRealPart(PetscConj(v) * v), the sum
/// its Frobenius norms add), v * v for real types.
template <class T>
PDIAG_HD real_t<T> scalar_abs2(const T& v) {
  if constexpr (is_complex_v<T>) {
    return v.real() * v.real() + v.imag() * v.imag();
  } else {
    return v * v;
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// The real part (the value itself for real types).
template <class T>
PDIAG_HD real_t<T> scalar_real(const T& v) {
  if constexpr (is_complex_v<T>) return v.real();
  else return v;
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// The imaginary part (0 for real types).
template <class T>
PDIAG_HD real_t<T> scalar_imag(const T& v) {
  if constexpr (is_complex_v<T>) return v.imag();
  else return real_t<T>(0);
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// The complex conjugate, of type T (std::conj of a real number would be
/// complex): the identity for real types.
template <class T>
PDIAG_HD T scalar_conj(const T& v) {
  if constexpr (is_complex_v<T>) return T(v.real(), -v.imag());
  else return v;
}

/// conj(v) when Conj, else v: the values of A^H (Conj) or A^T as one template.
template <bool Conj, class T>
PDIAG_HD T maybe_conj(const T& v) {
  if constexpr (Conj) return scalar_conj(v);
  else return v;
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// Whether v is an exact zero (both parts; -0 is zero): the structural test.
template <class T>
PDIAG_HD bool scalar_is_zero(const T& v) {
  return v == T(0);
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// Whether v is real and >= 0 (the D of an ICC factor, whose square root
/// its symmetric halves take; PETSc requires the same). NaN is not.
template <class T>
PDIAG_HD bool scalar_real_nonnegative(const T& v) {
  if constexpr (is_complex_v<T>) return v.imag() == real_t<T>(0) && v.real() >= real_t<T>(0);
  else return v >= T(0);
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// sqrt of the real part, as a T (for a value scalar_real_nonnegative accepts).
template <class T>
PDIAG_HD T scalar_sqrt_real(const T& v) {
  using std::sqrt;
  if constexpr (is_complex_v<T>) return T(sqrt(v.real()));
  else return sqrt(v);
}

/// Whether both parts are finite.
template <class T>
bool scalar_isfinite(const T& v) {
  if constexpr (is_complex_v<T>) return std::isfinite(v.real()) && std::isfinite(v.imag());
  else return std::isfinite(v);
}

}  // namespace pdiag
