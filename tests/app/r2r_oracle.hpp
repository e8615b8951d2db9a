#pragma once
// The scipy oracle of the real-to-real commands (dct, dst, r2r): inputs generated from a manifest, then every output
// checked against scipy.fft's dctn / dstn / idctn / idstn composed axis by axis, in one python run.
//
// scipy before 1.11 scaled the wrong index in ortho DST-II/III (scipy issue 18452, fixed by pull request 18613: the
// ortho DST-II divides y[N-1] by √2, as the orthonormal definition needs); with such a scipy the oracle below builds
// ortho DST-II/III from scipy's orthogonalize=False transform and the corrected end factor.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "app_support.hpp"

namespace dct::test::cli {

inline constexpr const char* kOraclePy = R"PY(
import sys, numpy as np, scipy, scipy.fft as F
OLD_DST_ORTHO = tuple(int(v) for v in scipy.__version__.split('.')[:2]) < (1, 11)

def one(x, fam, t, inv, axis, norm):
    if inv: fam_t = {2: 3, 3: 2}.get(t, t)
    else: fam_t = t
    if fam == 'dst' and norm == 'ortho' and fam_t in (2, 3) and OLD_DST_ORTHO:
        x = np.moveaxis(x, axis, -1).copy()
        if fam_t == 2:
            y = F.dst(x, 2, norm='ortho', orthogonalize=False); y[..., -1] /= np.sqrt(2)
        else:
            x[..., -1] *= np.sqrt(2); y = F.dst(x, 3, norm='ortho', orthogonalize=False)
        return np.moveaxis(y, -1, axis)
    f = {('dct', False): F.dct, ('dct', True): F.idct, ('dst', False): F.dst, ('dst', True): F.idst}[(fam, inv)]
    return f(x, t, axis=axis, norm=norm)

def reference(x, kinds, axes, inv, norm):
    for k, a in zip(kinds, axes):
        x = one(x, k[:3], int(k[3]), inv, a, norm)
    return x

def gen(path):
    for line in open(path):
        name, dims, dtype, seed = line.split()
        shape = tuple(int(v) for v in dims.split('x'))
        a = np.random.default_rng(int(seed)).uniform(-1, 1, shape).astype(dtype)
        np.save(name, a)

def check(path):
    bad = n = 0
    for line in open(path):
        out, inp, kinds, axes, inv, norm, dtype, tol = line.split()
        x = np.load(inp).astype(np.float64)
        axes = [int(v) for v in axes.split(',')] if axes != '-' else list(range(x.ndim))
        kinds = kinds.split(',')
        if len(kinds) == 1: kinds = kinds * len(axes)
        ref = reference(x, kinds, axes, inv == '1', norm)
        y = np.load(out)
        n += 1
        msg = None
        if y.shape != ref.shape: msg = 'shape %s, expected %s' % (y.shape, ref.shape)
        elif y.dtype != np.dtype(dtype): msg = 'dtype %s, expected %s' % (y.dtype, dtype)
        else:
            e = np.linalg.norm(y - ref) / max(np.linalg.norm(ref), 1e-300)
            if not e <= float(tol): msg = 'relative L2 %.3g > %s' % (e, tol)
        if msg: bad += 1; print('FAIL', line.strip(), msg)
    print('checked', n, 'failed', bad)
    sys.exit(1 if bad else 0)

def dreamplace(inp, shifted, ref):
    # DREAMPlace's IDCT_IDXST (dreamplace/ops/dct: idct_idxst = idct(idxst(x)), idcst2) of an M x N field:
    #   y[u, v] = sum_p sum_q x[p, q] cos(pi p (2u+1) / 2M) sin(pi q (2v+1) / 2N)
    # where idxst(x)_v = sum_q x_q sin(pi q (2v+1) / 2N) is computed there as (-1)^v idct(flip-and-shift(x))_v,
    # flip-and-shift(x) = [0, x_{N-1}, ..., x_1]. The same through scipy's kinds: idxst(x) = N idst(z, 2) with
    # z = [x_1, ..., x_{N-1}, 0], and DREAMPlace's idct(x) = M idct(w, 2) with w = [2 x_0, x_1, ..., x_{M-1}].
    x = np.load(inp).astype(np.float64)
    M, N = x.shape
    u = np.arange(M); v = np.arange(N)
    C = np.cos(np.pi * np.outer(2 * u + 1, u) / (2 * M))   # C[u, p]
    S = np.sin(np.pi * np.outer(2 * v + 1, v) / (2 * N))   # S[v, q]
    y = C @ x @ S.T
    # flip-and-shift + idct + negate odd entries, literally, along axis 1 as a cross-check of the identity
    fs = np.zeros_like(x); fs[:, 1:] = x[:, :0:-1]
    idct_dp = lambda a, n: np.cos(np.pi * np.outer(2 * np.arange(n) + 1, np.arange(n)) / (2 * n)) @ a
    idxst_dp = (idct_dp(fs.T, N).T) * ((-1.0) ** v)
    y2 = idct_dp(idxst_dp, M)
    assert np.allclose(y, y2, atol=1e-12 * np.abs(y).max()), 'DREAMPlace identity'
    w = np.zeros_like(x); w[:, :N - 1] = x[:, 1:]; w[0, :] *= 2
    np.save(shifted, w)
    np.save(ref, y / (M * N))

{'gen': lambda: gen(sys.argv[2]), 'check': lambda: check(sys.argv[2]),
 'dreamplace': lambda: dreamplace(*sys.argv[2:5])}[sys.argv[1]]()
)PY";

inline std::string oracle_py(const TempDir& dir) {
  const std::string path = dir.file("r2r_oracle.py");
  spit(path, kOraclePy);
  return q(python()) + " " + q(path);
}

struct R2rCase {
  std::string args;  // dctool arguments
  std::string out, in, kinds, axes, inverse, norm, dtype, tol;
};

// Runs every case's command (each must exit 0) through `run` (dctool's arguments in, its result out), then checks all
// outputs against scipy in one python run.
inline void run_all(const TempDir& dir, const std::vector<R2rCase>& cases,
                    const std::function<RunResult(const std::string&)>& run = run_dctool) {
  std::string manifest;
  int failed = 0;
  for (const R2rCase& c : cases) {
    const RunResult r = run(c.args);
    if (r.code != 0) {
      ++failed;
      UNSCOPED_INFO("dctool " << c.args << " -> exit " << r.code << ": " << r.err);
      continue;
    }
    manifest += c.out + " " + c.in + " " + c.kinds + " " + c.axes + " " + c.inverse + " " + c.norm + " " + c.dtype +
                " " + c.tol + "\n";
  }
  CHECK(failed == 0);
  spit(dir.file("check.txt"), manifest);
  const RunResult chk = run_cmd(oracle_py(dir) + " check " + q(dir.file("check.txt")));
  INFO(chk.out << chk.err);
  CHECK(chk.code == 0);
  std::printf("r2r scipy agreement: %zu cases: %s", cases.size(), chk.out.c_str());
}

// Writes the inputs `lines` name ("NAME DIMS DTYPE SEED": uniform in [-1, 1]) into `dir`.
inline void generate(const TempDir& dir, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += dir.file(l) + "\n";
  spit(dir.file("gen.txt"), text);
  const RunResult r = run_cmd(oracle_py(dir) + " gen " + q(dir.file("gen.txt")));
  INFO(r.err);
  REQUIRE(r.code == 0);
}

}  // namespace dct::test::cli
