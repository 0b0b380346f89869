// Device-side helpers for the CUDA kernel tests: checked CUDA calls, RAII
// device arrays, device copies of HM / CDM blocks. Every failure goes
// through BOOST_REQUIRE with the CUDA error string, so a broken device or a
// kernel fault stops the test case with a readable message.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"

#include <boost/test/unit_test.hpp>
#include <cuda_runtime_api.h>

#include <cstdio>

#include <cstddef>
#include <utility>
#include <vector>

namespace pdiag::testing {

/// Requires a CUDA call to succeed; the message names the call and the error.
#define PDIAG_CUDA_REQUIRE(call)                                                                         \
  do {                                                                                                   \
    const cudaError_t pdiag_err_ = (call);                                                               \
    BOOST_REQUIRE_MESSAGE(pdiag_err_ == cudaSuccess,                                                     \
                          #call << " failed: " << cudaGetErrorName(pdiag_err_) << ": "                   \
                                << cudaGetErrorString(pdiag_err_));                                       \
  } while (0)

/// A device array with the contents of a host vector. At least one element
/// is always allocated, so that an empty vector still gives a non-null
/// pointer (a null z or shift would change the kernels' semantics).
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(const std::vector<T>& h) : n_(h.size()) {
    PDIAG_CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p_), bytes(n_ ? n_ : 1)));
    if (n_) PDIAG_CUDA_REQUIRE(cudaMemcpy(p_, h.data(), bytes(n_), cudaMemcpyHostToDevice));
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~DeviceArray() {
    if (p_) cudaFree(p_);  // no REQUIRE in a destructor; errors show at the next checked call
  }

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  /// Overwrites the device contents (same size) from the host.
  void upload(const std::vector<T>& h) {
    BOOST_REQUIRE_EQUAL(h.size(), n_);
    if (n_) PDIAG_CUDA_REQUIRE(cudaMemcpy(p_, h.data(), bytes(n_), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_) PDIAG_CUDA_REQUIRE(cudaMemcpy(h.data(), p_, bytes(n_), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  static std::size_t bytes(std::size_t n) { return n * sizeof(T); }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Device copy of an HM block; view() holds device pointers.
template <class T>
struct DeviceHm {
  Layout layout;
  Index ndiag = 0;
  DeviceArray<Index> offsets, start;
  DeviceArray<T> val;
  explicit DeviceHm(const HmMatrix<T>& A)
      : layout(A.layout), ndiag(A.ndiag()), offsets(A.offsets), start(A.start), val(A.val) {}
  HmView<const T> view() const { return {layout, ndiag, offsets.get(), start.get(), val.get()}; }
};

/// Device copy of a CDM block; view() holds device pointers.
template <class T>
struct DeviceCdm {
  Layout layout;
  Index ndiag = 0;
  DeviceArray<Index> koffsets;
  DeviceArray<T> val;
  explicit DeviceCdm(const CdmMatrix<T>& A) : layout(A.layout), ndiag(A.ndiag()), koffsets(A.koffsets), val(A.val) {}
  CdmView<const T> view() const { return {layout, ndiag, koffsets.get(), val.get()}; }
};

/// Device copy of a compressed HM block; view() holds device pointers.
template <class T>
struct DeviceCompressed {
  Layout layout;
  Index ndiag = 0, npacked = 0, nrows_exc = 0;
  DeviceArray<Index> offsets, vbase, exc_rows, exc_ptr, exc_diag;
  DeviceArray<T> cval, packed, exc_delta;
  explicit DeviceCompressed(const HmCompressed<T>& C)
      : layout(C.layout),
        ndiag(C.ndiag()),
        npacked(Index(C.packed.size())),
        nrows_exc(C.nrows_exc()),
        offsets(C.offsets),
        vbase(C.vbase),
        exc_rows(C.exc_rows),
        exc_ptr(C.exc_ptr),
        exc_diag(C.exc_diag),
        cval(C.cval),
        packed(C.packed),
        exc_delta(C.exc_delta) {}
  HmCompressedView<T> view() const {
    HmCompressedView<T> v;
    v.layout = layout;
    v.ndiag = ndiag;
    v.offsets = offsets.get();
    v.vbase = vbase.get();
    v.cval = cval.get();
    v.packed = packed.get();
    v.npacked = npacked;
    v.nrows_exc = nrows_exc;
    v.exc_rows = exc_rows.get();
    v.exc_ptr = exc_ptr.get();
    v.exc_diag = exc_diag.get();
    v.exc_delta = exc_delta.get();
    return v;
  }
};

/// Waits for the stream and requires that the kernel ran without fault.
inline void sync_checked(cudaStream_t stream, const char* what) {
  const cudaError_t e = cudaStreamSynchronize(stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": kernel execution failed: " << cudaGetErrorName(e) << ": "
                                               << cudaGetErrorString(e));
}

/// One non-default stream for all runs of a test, so that the stream
/// argument is used. Blocking (not cudaStreamNonBlocking): the synchronous
/// cudaMemcpy uploads on the legacy default stream are then ordered before
/// the kernels.
struct StreamFixture {
  cudaStream_t stream = nullptr;
  StreamFixture() { PDIAG_CUDA_REQUIRE(cudaStreamCreate(&stream)); }
  ~StreamFixture() { cudaStreamDestroy(stream); }
};

}  // namespace pdiag::testing

/// The main of a GPU test (with BOOST_TEST_NO_MAIN and
/// BOOST_TEST_ALTERNATIVE_INIT_API): skips (exit 77, before any test) when no
/// CUDA device can be used, so that ctest reports "skipped", never "passed",
/// on machines without a GPU; otherwise names the device and runs the tests.
#define PDIAG_CUDA_TEST_MAIN(test_name)                                                                          \
  int main(int argc, char* argv[]) {                                                                        \
    int count = 0;                                                                                          \
    const cudaError_t e = cudaGetDeviceCount(&count);                                                       \
    if (e != cudaSuccess || count == 0) {                                                                   \
      std::printf("%s: SKIPPED: no CUDA device (%s)\n", test_name,                                               \
                  e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices");         \
      std::fflush(stdout);                                                                                  \
      return 77;                                                                                            \
    }                                                                                                       \
    cudaDeviceProp prop{};                                                                                  \
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)                                                   \
      std::printf("%s: running on device 0: %s (sm_%d%d)\n", test_name, prop.name, prop.major, prop.minor);      \
    std::fflush(stdout);                                                                                    \
    return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);                                  \
  }
