#pragma once
/* Radix selection of the k-th largest magnitude (compress --mode keep on the GPU, kernels/compress/whole.cu):
   the digit arithmetic shared by the CUDA kernels and a host reference that the CPU-side unit test
   (tests/kernels/test_compress_whole_gpu.cpp, tag [host]) checks against std::nth_element.

   Non-negative IEEE-754 numbers order like their bit patterns read as unsigned integers, so the magnitude
   |c| is represented by the key bits(|c|) (u32 for float, u64 for double; -0 becomes +0) and the k-th largest
   |c| is the k-th largest key. Radix select, most significant digit first, kDigitBits per pass: pass p
   histograms digit p of the keys whose higher digits equal the prefix chosen so far, and pick_digit walks
   that histogram from the largest digit down, subtracting counts until the wanted rank (1-based, descending)
   falls into a bin. After the last pass the prefix is the key of the threshold t, `rank` is how many of the
   keys equal to t must be kept (1 <= rank <= count of them) and `count` is how many there are: the keep rule
   of the CPU compressor (ties broken by lower index kept) is then |c| > t, or |c| == t among the first
   `rank` such indices. Plain C++ when not compiled by nvcc. */
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define DCT_HD __host__ __device__ __forceinline__
#else
#define DCT_HD inline
#endif

namespace dct::cuda::topk {

constexpr int kDigitBits = 8;
constexpr int kBins = 1 << kDigitBits;

template <class T>
struct KeyOf;
template <>
struct KeyOf<float> {
  using type = std::uint32_t;
};
template <>
struct KeyOf<double> {
  using type = std::uint64_t;
};
template <class T>
using KeyT = typename KeyOf<T>::type;
template <class T>
constexpr int kPasses = static_cast<int>(sizeof(T)) * 8 / kDigitBits;

// bits(|x|): the bits of x with the sign cleared (-0 becomes +0).
template <class T>
DCT_HD KeyT<T> magnitude_key(T x) {
  constexpr KeyT<T> kSign = KeyT<T>(1) << (sizeof(T) * 8 - 1);
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4)
    return __float_as_uint(x) & ~kSign;
  else
    return static_cast<std::uint64_t>(__double_as_longlong(x)) & ~kSign;
#else
  KeyT<T> k;
  std::memcpy(&k, &x, sizeof k);
  return k & ~kSign;
#endif
}

// The value whose bits are `key`.
template <class T>
DCT_HD T value_of_key(KeyT<T> key) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4)
    return __uint_as_float(key);
  else
    return __longlong_as_double(static_cast<long long>(key));
#else
  T v;
  std::memcpy(&v, &key, sizeof v);
  return v;
#endif
}

// Right shift of digit `pass` (0 = most significant).
template <class T>
DCT_HD int digit_shift(int pass) {
  return (kPasses<T> - 1 - pass) * kDigitBits;
}
template <class T>
DCT_HD int digit_of(KeyT<T> key, int pass) {
  return static_cast<int>((key >> digit_shift<T>(pass)) & (kBins - 1));
}
// The bits above digit `pass` (0 for pass 0: every key matches the empty prefix).
template <class T>
DCT_HD KeyT<T> prefix_mask(int pass) {
  return pass == 0 ? KeyT<T>(0) : static_cast<KeyT<T>>(~KeyT<T>(0) << (digit_shift<T>(pass) + kDigitBits));
}

// Walks hist[hi], hist[hi-1], ..., hist[lo] (digits in descending order) for the bin holding the element of
// 1-based descending rank `rank` among them; returns that digit, leaves in `rank` the rank inside the bin and
// in `count` the bin's count. Returns -1 (rank, count unchanged) when the bins hold fewer than `rank`.
DCT_HD int pick_digit(const unsigned long long* hist, int hi, int lo, unsigned long long& rank,
                      unsigned long long& count) {
  unsigned long long r = rank;
  for (int d = hi; d >= lo; --d) {
    const unsigned long long c = hist[d];
    if (r <= c) {
      rank = r;
      count = c;
      return d;
    }
    r -= c;
  }
  return -1;
}

// The state of one channel's selection between passes (device memory in kernels/compress/whole.cu).
template <class T>
struct SelectState {
  KeyT<T> prefix = 0;            // the digits chosen so far, in place
  unsigned long long rank = 0;   // 1-based descending rank of the wanted key among the keys matching prefix
  unsigned long long count = 0;  // after the last pass: how many keys equal the threshold
};

// Host reference of the whole selection on one channel (the device runs the same passes and the same
// pick_digit; its histograms come from atomics instead of this loop). k in 1..n. Returns the state after the
// last pass: threshold key = prefix, ties to keep = rank, ties present = count.
template <class T>
SelectState<T> reference_select(const T* c, std::int64_t n, std::int64_t k) {
  SelectState<T> st;
  st.rank = static_cast<unsigned long long>(k);
  for (int pass = 0; pass < kPasses<T>; ++pass) {
    unsigned long long hist[kBins] = {};
    const KeyT<T> mask = prefix_mask<T>(pass);
    for (std::int64_t i = 0; i < n; ++i) {
      const KeyT<T> key = magnitude_key(c[i]);
      if ((key & mask) == st.prefix) ++hist[digit_of<T>(key, pass)];
    }
    const int d = pick_digit(hist, kBins - 1, 0, st.rank, st.count);
    if (d < 0) return st;  // k > n: not called so
    st.prefix |= static_cast<KeyT<T>>(static_cast<KeyT<T>>(d) << digit_shift<T>(pass));
  }
  return st;
}

}  // namespace dct::cuda::topk
