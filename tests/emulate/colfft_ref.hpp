#pragma once
// Shared by the column-FFT host emulators (emulate_colfft.cpp part 2, emulate_colfft_onepass.cpp): the grid runner
// (run_grid), random post / pre tables and the long-double reference of the fused column stage (the column DFT with
// eqs. 14/17, or eq. 15 with the inverse column DFT), and the error measure. Include after cuda_host.hpp and
// kernels/dct2d/col_fft.cuh, with dct::cuda::colfft::colfft_smem defined (the CTA's dynamic shared memory) and
// `using LD = long double;` in scope.
#include <algorithm>
#include <barrier>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
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
struct Tables {
  std::vector<double> tw1, s1, tw2, s2;
};

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
// std::complex as math/dct2d.hpp derives it: s = W2 (W1 A + conj(W1) B), t = W2 (W1 A − conj(W1) B),
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

// A random case from seed: tables (tw1, s1 of n1; tw2, s2 of n2 = 2(w − 1)) and then the input (forward: 2·batch·n1·w
// values for data's w columns, re/im; inverse: batch·n1·n2 values of y), float-exact uniform in [−1, 1].
inline void random_case(long long n1, long long w, long long batch, bool inverse, unsigned seed, Tables& tab,
                        std::vector<double>& in) {
  const long long n2 = 2 * (w - 1);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  tab = Tables{};
  for (long long i = 0; i < 2 * n1; ++i) tab.tw1.push_back(u(g));
  for (long long i = 0; i < n1; ++i) tab.s1.push_back(u(g));
  for (long long i = 0; i < 2 * n2; ++i) tab.tw2.push_back(u(g));
  for (long long i = 0; i < n2; ++i) tab.s2.push_back(u(g));
  in.assign(static_cast<std::size_t>(inverse ? batch * n1 * n2 : 2 * batch * n1 * w), 0.0);
  for (double& v : in) v = u(g);
}

// ---- buffers and the two-kernel route of a fused-column-stage case ----

constexpr long long kFusedGuard = 64;  // elements before and after the matrices

// Guarded, NaN-poisoned buffers of one case: data (batch matrices n1 x pitch complex, w = n2/2 + 1 columns used) and
// y (batch matrices n1 x n2 real); the input goes into data's w columns (forward: in = 2·batch·n1·w values, re/im) or
// y (inverse: batch·n1·n2 values). collect() checks what the kernels must leave alone and returns the outputs.
template <class T>
struct FusedBuffers {
  using C = typename dct::cuda::colfft::RowsTypes<T>::cx;
  long long n1, w, pitch, batch, ms, n2, ys;
  bool inverse;
  std::vector<C> buf, before;
  std::vector<T> ybuf, ybefore;
  C* data;
  T* y;
  FusedBuffers(long long n1_, long long w_, long long pitch_, long long batch_, bool inverse_,
               const std::vector<double>& in)
      : n1(n1_),
        w(w_),
        pitch(pitch_),
        batch(batch_),
        ms(n1_ * pitch_),
        n2(2 * (w_ - 1)),
        ys(n1_ * n2),
        inverse(inverse_),
        buf(static_cast<std::size_t>(2 * kFusedGuard + batch_ * ms)),
        ybuf(static_cast<std::size_t>(2 * kFusedGuard + batch_ * ys)) {
    std::memset(buf.data(), 0xFF, buf.size() * sizeof(C));  // NaN: guards, padding columns, unwritten outputs
    std::memset(ybuf.data(), 0xFF, ybuf.size() * sizeof(T));
    data = buf.data() + kFusedGuard;
    y = ybuf.data() + kFusedGuard;
    if (!inverse) {
      for (long long b = 0; b < batch; ++b)
        for (long long r = 0; r < n1; ++r)
          for (long long c = 0; c < w; ++c) {
            const std::size_t i = static_cast<std::size_t>(2 * ((b * n1 + r) * w + c));
            data[b * ms + r * pitch + c] = C{static_cast<T>(in[i]), static_cast<T>(in[i + 1])};
          }
    } else {
      for (long long i = 0; i < batch * ys; ++i) y[i] = static_cast<T>(in[static_cast<std::size_t>(i)]);
    }
    before = buf;
    ybefore = ybuf;
  }
  // Forward: data's guards (all of data when data_unchanged) and y's guards unchanged, every y finite -> y. Inverse: y
  // unchanged, data's guards and padding columns unchanged, its w columns finite -> them (re, im). Empty with *why
  // set on a failure.
  std::vector<double> collect(bool data_unchanged, const char** why) const {
    const auto fail = [&](const char* w_) {
      *why = w_;
      return std::vector<double>{};
    };
    std::vector<double> out;
    if (!inverse) {
      if (data_unchanged && std::memcmp(buf.data(), before.data(), buf.size() * sizeof(C)) != 0)
        return fail("data changed");
      if (std::memcmp(buf.data(), before.data(), kFusedGuard * sizeof(C)) != 0 ||
          std::memcmp(buf.data() + kFusedGuard + batch * ms, before.data() + kFusedGuard + batch * ms,
                      kFusedGuard * sizeof(C)) != 0)
        return fail("data guard changed");
      for (long long i = 0; i < kFusedGuard; ++i)
        if (std::memcmp(&ybuf[i], &ybefore[i], sizeof(T)) != 0 ||
            std::memcmp(&ybuf[kFusedGuard + batch * ys + i], &ybefore[kFusedGuard + batch * ys + i], sizeof(T)) != 0)
          return fail("y guard changed");
      for (long long i = 0; i < batch * ys; ++i) {
        if (!std::isfinite(y[i])) {
          std::printf("  y[%lld][%lld][%lld] not finite\n", i / ys, i % ys / n2, i % n2);
          return fail("y not fully written");
        }
        out.push_back(y[i]);
      }
    } else {
      if (std::memcmp(ybuf.data(), ybefore.data(), ybuf.size() * sizeof(T)) != 0) return fail("y changed");
      for (std::size_t i = 0; i < buf.size(); ++i) {
        const long long e = static_cast<long long>(i) - kFusedGuard, c = e < 0 ? -1 : e % pitch;
        if ((e < 0 || e >= batch * ms || c >= w) && std::memcmp(&buf[i], &before[i], sizeof(C)) != 0)
          return fail("data guard / padding column changed");
      }
      for (long long b = 0; b < batch; ++b)
        for (long long r = 0; r < n1; ++r)
          for (long long c = 0; c < w; ++c) {
            const C o = data[b * ms + r * pitch + c];
            if (!std::isfinite(o.x) || !std::isfinite(o.y)) {
              std::printf("  data[%lld][%lld][%lld] not finite\n", b, r, c);
              return fail("data not finite");
            }
            out.push_back(o.x);
            out.push_back(o.y);
          }
    }
    return out;
  }
};

// The two-kernel route of kernels/dct2d/col_fft.cuh on b, n1 = 2^(lg_na + lg_nb), as kernels/dct2d/col_fft.cu launches
// it: forward pass A (col_fft_plan) then col_fft_post with tiles of `tile` columns; inverse col_fft_pre with g groups
// per thread (16-column tiles) then pass A'. tw: col_fft_twiddles(lg_na + lg_nb). False when the fused kernel's
// shared memory does not fit the emulator's buffer.
template <class T>
bool run_two_kernel(FusedBuffers<T>& b, int lg_na, int lg_nb, int tile, int g,
                    const std::vector<typename dct::cuda::colfft::RowsTypes<T>::cx>& tw,
                    dct::cuda::colfft::Dct2dTables<T> tab) {
  namespace cf = dct::cuda::colfft;
  const unsigned lg_n = unsigned(lg_na + lg_nb), batch = static_cast<unsigned>(b.batch);
  const int l = 1 << lg_na;
  if (cf::fused_smem_bytes<T>(l, b.inverse ? cf::kTile : tile) > static_cast<int>(sizeof cf::colfft_smem)) return false;
  cf::ColPass plan[2];
  cf::col_fft_plan(lg_na, lg_nb, b.inverse, plan);
  const cf::ColPass& plain = b.inverse ? plan[1] : plan[0];
  const unsigned tiles = static_cast<unsigned>((b.w + cf::kTile - 1) / cf::kTile),
                 ftiles = static_cast<unsigned>((b.w + tile - 1) / tile);
  const unsigned long long ms = static_cast<unsigned long long>(b.ms);
  const auto run_plain = [&] {
    const cf::ColFftFn<T> fn = cf::col_fft_kernel<T>(plain.l);
    run_grid(cf::kThreads, Dim{tiles, plain.groups, batch}, [&] {
      fn(b.data, tw.data(), unsigned(b.pitch), unsigned(b.w), plain.gs, plain.rs, ms, lg_n, plain.flags);
    });
  };
  if (!b.inverse) {
    run_plain();
    run_grid(static_cast<unsigned>(cf::fused_threads(tile, 1)), Dim{ftiles, (1u << lg_nb) / 2, batch}, [&] {
      cf::col_fft_post_kernel<T>(l, tile)(b.data, b.y, tw.data(), tab, unsigned(b.pitch), unsigned(b.w), unsigned(b.n2),
                                          ms, lg_n, unsigned(lg_nb));
    });
  } else {
    run_grid(static_cast<unsigned>(cf::fused_threads(cf::kTile, g)), Dim{tiles, (1u << lg_nb) / 2, batch}, [&] {
      cf::col_fft_pre_kernel<T>(l, g)(b.y, b.data, tw.data(), tab, unsigned(b.pitch), unsigned(b.w), unsigned(b.n2), ms,
                                      lg_n, unsigned(lg_nb));
    });
    run_plain();
  }
  return true;
}
