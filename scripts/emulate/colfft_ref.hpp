#pragma once
// Shared by the column-FFT host emulators (scripts/colfft-emulate.sh part 2, scripts/colfft-onepass-emulate.sh):
// the grid runner (run_grid), random post / pre tables and the long-double reference of the fused column stage (the
// column DFT with eqs. 14/17, or eq. 15 with the inverse column DFT), and the error measure. Include after
// scripts/emulate/cuda_host.hpp and kernels/col_fft.cuh, with dct::cuda::colfft::colfft_smem defined (the CTA's
// dynamic shared memory) and `using LD = long double;` in scope. Not part of the build: the scripts include it with -I<repo root>.
#include <algorithm>
#include <barrier>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

// All CTAs of one launch: `threads` pool threads, CTAs one after another (thread 0 sets blockIdx and poisons shared
// memory between two barriers).
template <class F>
inline void run_grid(unsigned threads, Dim grid, F&& body) {
  std::barrier<> bar(static_cast<std::ptrdiff_t>(threads));
  g_barrier = &bar;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {t, 0, 0};
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            if (t == 0) {
              blockIdx = {x, y, z};
              std::memset(dct::cuda::colfft::colfft_smem, 0xFF, sizeof dct::cuda::colfft::colfft_smem);  // poison (NaN)
            }
            bar.arrive_and_wait();
            body();
            bar.arrive_and_wait();
          }
    });
  for (auto& th : pool) th.join();
}

using CLD = std::complex<LD>;

// Random tables (the kernels only index them): tw1, s1 (n1), tw2, s2 (n2); float-exact, shared by f32 and f64.
struct Tables { std::vector<double> tw1, s1, tw2, s2; };

template <class T>
struct TypedTables {
  std::vector<typename colfft::RowsTypes<T>::cx> tw1, tw2;
  std::vector<T> s1, s2;
  explicit TypedTables(const Tables& t) {
    for (std::size_t i = 0; i < t.s1.size(); ++i) {
      tw1.push_back({static_cast<T>(t.tw1[2 * i]), static_cast<T>(t.tw1[2 * i + 1])});
      s1.push_back(static_cast<T>(t.s1[i]));
    }
    for (std::size_t i = 0; i < t.s2.size(); ++i) {
      tw2.push_back({static_cast<T>(t.tw2[2 * i]), static_cast<T>(t.tw2[2 * i + 1])});
      s2.push_back(static_cast<T>(t.s2[i]));
    }
  }
  colfft::Dct2dTables<T> view() const { return {tw1.data(), s1.data(), tw2.data(), s2.data()}; }
};

// Long-double references. Forward: X = column DFT of the input (natural rows), then eq. (14)/(17) written with
// std::complex from dct_kernels.cu's derivation: s = W2 (W1 A + conj(W1) B), t = W2 (W1 A − conj(W1) B),
// Y(k1,k2) = Re s, Y(k1,N2−k2) = −Im s, Y(N1−k1,k2) = −Im t, Y(N1−k1,N2−k2) = −Re t, each times s1·s2 of its indices.
// Inverse: eq. (15) with the scaled inputs, then the unnormalized inverse column DFT. Only columns in `cols`.
static void fused_reference(long long n1, long long w, long long batch, bool inverse, const std::vector<double>& in,
                            const Tables& tab, const std::vector<long long>& cols, std::vector<LD>& ref,
                            std::vector<char>& checked) {
  const LD pi = 3.141592653589793238462643383279502884L;
  const long long n2 = 2 * (w - 1);
  const auto tw1 = [&](long long k) { return CLD(tab.tw1[2 * k], tab.tw1[2 * k + 1]); };
  const auto tw2 = [&](long long k) { return CLD(tab.tw2[2 * k], tab.tw2[2 * k + 1]); };
  std::vector<CLD> e(n1);
  for (long long t = 0; t < n1; ++t) e[t] = std::polar(LD(1), -2 * pi * t / n1);
  const auto dft = [&](const std::vector<CLD>& x, std::vector<CLD>& X, int sign) {
    for (long long k = 0; k < n1; ++k) {
      CLD acc = 0;
      for (long long i = 0; i < n1; ++i) {
        const CLD f = e[(i * k) & (n1 - 1)];
        acc += x[i] * (sign < 0 ? f : std::conj(f));
      }
      X[k] = acc;
    }
  };
  ref.assign(inverse ? static_cast<std::size_t>(2 * batch * n1 * w) : static_cast<std::size_t>(batch * n1 * n2), 0);
  checked.assign(ref.size(), 0);
  std::vector<CLD> x(n1), X(n1);
  for (long long b = 0; b < batch; ++b)
    for (const long long c : cols) {
      const long long k2 = c, m2 = n2 - c;
      if (!inverse) {
        for (long long r = 0; r < n1; ++r) {
          const std::size_t i = static_cast<std::size_t>(2 * ((b * n1 + r) * w + c));
          x[r] = CLD(in[i], in[i + 1]);
        }
        dft(x, X, -1);
        const auto put = [&](long long r, long long col, LD v) {
          const std::size_t i = static_cast<std::size_t>((b * n1 + r) * n2 + col);
          ref[i] = v * tab.s1[r] * tab.s2[col];
          checked[i] = 1;
        };
        for (long long k1 = 0; k1 <= n1 / 2; ++k1) {
          const long long m1 = (n1 - k1) % n1;
          const CLD s = tw2(k2) * (tw1(k1) * X[k1] + std::conj(tw1(k1)) * X[m1]);
          const CLD t = tw2(k2) * (tw1(k1) * X[k1] - std::conj(tw1(k1)) * X[m1]);
          put(k1, k2, s.real());
          if (k2 != 0 && 2 * k2 != n2) put(k1, m2, -s.imag());
          if (k1 != 0 && 2 * k1 != n1) {
            put(m1, k2, -t.imag());
            if (k2 != 0 && 2 * k2 != n2) put(m1, m2, -t.real());
          }
        }
      } else {
        const auto Y = [&](long long r, long long col) {
          return static_cast<LD>(in[static_cast<std::size_t>((b * n1 + r) * n2 + col)]) * tab.s1[r] * tab.s2[col];
        };
        for (long long k1 = 0; k1 <= n1 / 2; ++k1) {
          const long long m1 = n1 - k1;
          const bool has1 = k1 != 0, has2 = k2 != 0;
          const LD y00 = Y(k1, k2), y01 = has2 ? Y(k1, m2) : 0, y10 = has1 ? Y(m1, k2) : 0,
                   y11 = has1 && has2 ? Y(m1, m2) : 0;
          X[k1] = std::conj(tw1(k1) * tw2(k2)) * CLD(y00 - y11, -(y01 + y10));
          if (has1 && 2 * k1 != n1) X[m1] = CLD(0, 1) * tw1(k1) * std::conj(tw2(k2)) * CLD(y10 - y01, -(y11 + y00));
        }
        dft(X, x, +1);
        for (long long r = 0; r < n1; ++r) {
          const std::size_t i = static_cast<std::size_t>(2 * ((b * n1 + r) * w + c));
          ref[i] = x[r].real();
          ref[i + 1] = x[r].imag();
          checked[i] = checked[i + 1] = 1;
        }
      }
    }
}

static double rel_err(const std::vector<double>& out, const std::vector<LD>& ref, const std::vector<char>& checked) {
  if (out.size() != ref.size()) return INFINITY;
  LD err = 0, top = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!checked[i]) continue;
    err = std::max(err, std::fabs(static_cast<LD>(out[i]) - ref[i]));
    top = std::max(top, std::fabs(ref[i]));
  }
  return static_cast<double>(err / top);
}
