#pragma once
// Helpers for the CLI end-to-end tests (tests/app): a shell runner, file helpers, an .npy writer, the
// one-line-error assertion, and dctest.py (input generation, the scipy oracle, a dependency-free PNG
// codec, JSON flattening) written into a TempDir and run with /usr/bin/python3.
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "support.hpp"

namespace dct::test::cli {

namespace fs = std::filesystem;

// Quotes one shell word.
inline std::string q(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

inline bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

// Every entry under `dir` (recursively), as paths relative to it. Lexically: fs::relative canonicalizes, which throws
// when a running dctool renames a temporary between the listing and that call (a test that polls a batch's output
// directory failed so once).
inline std::set<std::string> list_dir(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    out.insert(it->path().lexically_relative(dir).string());
  return out;
}

// Runs a shell command line, capturing stdout and stderr.
inline RunResult run_cmd(const std::string& cmd) {
  TempDir tmp;
  const std::string o = tmp.file("stdout"), e = tmp.file("stderr");
  const std::string full = "( " + cmd + " ) >" + q(o) + " 2>" + q(e) + " </dev/null";
  const int status = std::system(full.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

inline std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

// ---- .npy writer (format 1.0), for hand-made and deliberately broken files ------------------------
// `header_dict` is written verbatim (e.g. "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }").
inline std::string npy_bytes(const std::string& header_dict, const std::string& data) {
  std::string h = header_dict;
  const std::size_t pre = 10;  // magic(6) + version(2) + header length(2)
  std::size_t total = pre + h.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  h += std::string(pad, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>((h.size() >> 8) & 0xff);
  return out + h + data;
}

inline std::string npy_header(const std::string& descr, const std::string& shape_tuple, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape_tuple +
         ", }";
}

template <class T>
std::string raw_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// n values uniform in [-1, 1] as float or double (tests/support.hpp's random_tensor as a vector).
template <class T>
std::vector<T> random_vector(std::int64_t n, unsigned seed) {
  const core::HostTensor t =
      random_tensor({1, n}, 1, std::is_same_v<T, float> ? core::Precision::kF32 : core::Precision::kF64, seed);
  return std::vector<T>(t.data<T>(), t.data<T>() + n);
}

// A C-order float64 .npy of a rows x cols matrix.
inline void write_npy_f64(const std::string& path, std::int64_t rows, std::int64_t cols, const std::vector<double>& v) {
  REQUIRE(static_cast<std::int64_t>(v.size()) == rows * cols);
  spit(path,
       npy_bytes(npy_header("<f8", "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"), raw_bytes(v)));
}

// ---- error assertions ----------------------------------------------------------------------------
// The run failed with `code`; stderr is exactly one line "dctool: error: ..." that mentions each of `names`.
inline void check_one_line_error(const RunResult& r, int code, const std::vector<std::string>& names = {}) {
  INFO("exit code " << r.code << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.code == code);
  CHECK(r.err.rfind("dctool: error: ", 0) == 0);
  std::string body = r.err;
  if (!body.empty() && body.back() == '\n') body.pop_back();
  CHECK(!body.empty());
  CHECK(body.find('\n') == std::string::npos);  // exactly one line
  for (const auto& n : names) {
    INFO("the message should name " << n);
    CHECK(contains(r.err, n));
  }
}

// ---- dctest.py -------------------------------------------------------------------------------------
inline const char* kDctestPy = R"PY(
# Helper for tests/app: input generation, the scipy oracle, a dependency-free PNG/PGM codec, JSON flattening.
# Usage: dctest.py gen MANIFEST | check MANIFEST | pngwrite NPY OUT.png | pngread IN.png OUT.npy |
#        pgmwrite NPY OUT.pgm | jsonflat FILE | csvflat FILE
import json
import struct
import sys
import zlib

import numpy as np


# ---- the oracle -----------------------------------------------------------------------------------
def ref_transform(x, op, norm, axis, block):
    import scipy.fft as F
    n = None if norm == "none" else "ortho"
    axes = {"both": (0, 1), "rows": (1,), "cols": (0,)}[axis]
    fns = {
        "dct2": lambda a, ax: F.dctn(a, type=2, norm=n, axes=ax),
        "idct2": lambda a, ax: F.idctn(a, type=2, norm=n, axes=ax),
        "dct4": lambda a, ax: F.dctn(a, type=4, norm=n, axes=ax),
        "idct4": lambda a, ax: F.idctn(a, type=4, norm=n, axes=ax),
    }
    fn = fns[op]
    if block > 0:
        H, W = x.shape[:2]
        B = block
        t = x.reshape((H // B, B, W // B, B) + x.shape[2:])
        bax = tuple({0: 1, 1: 3}[a] for a in axes)
        return np.ascontiguousarray(fn(t, bax)).reshape(x.shape)
    return fn(x, axes)


# ---- gen: NAME H W C DTYPE SEED [notext] ----------------------------------------------------------
# Writes NAME.npy (in DTYPE), NAME.ref.npy (float64, the exact stored values), and for C == 1 also
# NAME.txt (numpy.savetxt, space separated), NAME.csv (comma separated), NAME.tab.txt (tab separated)
# unless "notext", and NAME.<DTYPE> (raw, C order, native little-endian).
def gen(manifest):
    for line in open(manifest):
        f = line.split()
        if not f:
            continue
        name, H, W, C, dtype, seed = f[0], int(f[1]), int(f[2]), int(f[3]), f[4], int(f[5])
        text = "notext" not in f[6:]
        rng = np.random.default_rng(seed)
        shape = (H, W) if C == 1 else (H, W, C)
        if dtype in ("f32", "f64"):
            x = rng.uniform(-1.0, 1.0, shape)
            x = x.astype(np.float32 if dtype == "f32" else np.float64)
        else:
            np_t = {"u8": np.uint8, "u16": np.uint16, "i16": np.int16, "i32": np.int32}[dtype]
            info = np.iinfo(np_t)
            x = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np_t)
        np.save(name + ".npy", x)
        np.save(name + ".ref.npy", x.astype(np.float64))
        if C == 1:
            if text:
                np.savetxt(name + ".txt", x)
                np.savetxt(name + ".csv", x, delimiter=",")
                np.savetxt(name + ".tab.txt", x, delimiter="\t")
            x.tofile(name + "." + dtype)


# ---- check: ID OUT REF OP NORM AXIS PREC BLOCK --------------------------------------------------
# Prints "RESULT ID RELERR OK|FAIL reason" per line.
def check(manifest):
    for line in open(manifest):
        f = line.split("\t")
        if len(f) < 8:
            continue
        cid, out, ref, op, norm, axis, prec, block = f[0], f[1], f[2], f[3], f[4], f[5], f[6], int(f[7])
        try:
            x = np.load(ref).astype(np.float64)
            want = ref_transform(x, op, norm, axis, block)
            if out.endswith(".npy"):
                y = np.load(out)
                want_dtype = np.float32 if prec == "f32" else np.float64
                if y.dtype != want_dtype:
                    print("RESULT %s nan FAIL dtype %s, expected %s" % (cid, y.dtype, np.dtype(want_dtype)))
                    continue
            elif out.endswith(".txt") or out.endswith(".csv"):
                y = np.loadtxt(out, delimiter="," if out.endswith(".csv") else None, ndmin=2)
            elif out.endswith(".f32") or out.endswith(".f64"):
                y = np.fromfile(out, dtype=np.float32 if out.endswith(".f32") else np.float64)
                y = y.reshape(want.shape) if y.size == want.size else y
            else:
                y = read_png(out)
            if y.shape != want.shape:
                print("RESULT %s nan FAIL shape %s, expected %s" % (cid, y.shape, want.shape))
                continue
            y = y.astype(np.float64)
            nref = np.linalg.norm(want.ravel())
            err = np.linalg.norm((y - want).ravel()) / (nref if nref > 0 else 1.0)
            tol = 1e-5 if prec == "f32" else 1e-11
            ok = np.isfinite(err) and err <= tol
            print("RESULT %s %.3e %s%s" % (cid, err, "OK" if ok else "FAIL", "" if ok else " tolerance %g" % tol))
        except Exception as e:  # noqa: BLE001 - report, do not crash the batch
            print("RESULT %s nan FAIL %s" % (cid, repr(e).replace("\n", " ")))
    sys.stdout.flush()


# ---- PNG / PGM ------------------------------------------------------------------------------------
def write_png(path, a, bit_depth=8):
    a = np.asarray(a)
    H, W = a.shape[:2]
    C = 1 if a.ndim == 2 else a.shape[2]
    color = {1: 0, 2: 4, 3: 2, 4: 6}[C]
    dt = ">u2" if bit_depth == 16 else "u1"
    rows = a.reshape(H, W * C).astype(dt)
    raw = b"".join(b"\x00" + rows[i].tobytes() for i in range(H))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", W, H, bit_depth, color, 0, 0, 0)
    with open(path, "wb") as fp:
        fp.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        t = data[pos + 4:pos + 8]
        d = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if t == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", d)
        elif t == b"IDAT":
            idat += d
        elif t == b"IEND":
            break
    W, H, depth, color, _, _, interlace = hdr
    if interlace or depth not in (8, 16) or color not in (0, 2, 4, 6):
        raise ValueError("unsupported PNG variant")
    C = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    bps = depth // 8
    bpp = C * bps
    stride = W * bpp
    raw = zlib.decompress(idat)
    out = np.zeros((H, stride), dtype=np.uint8)
    prior = np.zeros(stride, dtype=np.int64)
    for y in range(H):
        ft = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int64)
        if ft == 0:
            cur = line
        elif ft == 1:
            cur = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) % 256
        elif ft == 2:
            cur = (line + prior) % 256
        else:
            cur = bytearray(stride)
            lb, pb = line.tolist(), prior.tolist()
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = pb[i]
                if ft == 3:
                    cur[i] = (lb[i] + ((a + b) >> 1)) & 255
                else:
                    c = pb[i - bpp] if i >= bpp else 0
                    cur[i] = (lb[i] + _paeth(a, b, c)) & 255
            cur = np.frombuffer(bytes(cur), dtype=np.uint8).astype(np.int64)
        out[y] = cur
        prior = cur
    if bps == 2:
        img = out.view(">u2").astype(np.uint16).reshape(H, W, C)
    else:
        img = out.reshape(H, W, C)
    return img[:, :, 0] if C == 1 else img


def write_pgm(path, a):
    a = np.asarray(a)
    H, W = a.shape[:2]
    if a.ndim == 2:
        head = b"P5\n%d %d\n255\n" % (W, H)
    else:
        head = b"P6\n%d %d\n255\n" % (W, H)
    with open(path, "wb") as fp:
        fp.write(head + a.astype(np.uint8).tobytes())


# ---- JSON / CSV flattening for the C++ side ---------------------------------------------------------
# Lines "TYPE dict|list N" then "KEY\tJSONVALUE" (dict) or "I\tKEY\tJSONVALUE" (list of objects). With KEY, the
# value under that key of the top-level object.
def jsonflat(path, key=None):
    d = json.load(open(path))
    if key is not None:
        d = d[key]
    if isinstance(d, dict):
        print("TYPE dict %d" % len(d))
        for k, v in d.items():
            print("%s\t%s" % (k, json.dumps(v)))
    elif isinstance(d, list):
        print("TYPE list %d" % len(d))
        for i, o in enumerate(d):
            if isinstance(o, dict):
                for k, v in o.items():
                    print("%d\t%s\t%s" % (i, k, json.dumps(v)))
            else:
                print("%d\t\t%s" % (i, json.dumps(o)))
    else:
        print("TYPE scalar 1")


# Every object key, at any depth, one per line as its path ("a/b/0/c"); then "NONFINITE" if a number is not finite
# and "NAN_STRING" if a string value is "inf", "-inf" or "nan".
def jsonkeys(path):
    def walk(v, at):
        if isinstance(v, dict):
            for k, x in v.items():
                print(at + k)
                walk(x, at + k + "/")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, at + str(i) + "/")
        elif isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            print("NONFINITE")
        elif isinstance(v, str) and v.lower() in ("inf", "-inf", "nan"):
            print("NAN_STRING")
    walk(json.load(open(path)), "")


# CSV (header + rows) to the jsonflat layout: "TYPE list N" then "I\tKEY\tJSONSTRING"; the header first as
# "HEADER\t<the header line verbatim>".
def csvflat(path):
    import csv
    lines = open(path, newline="").read().splitlines()
    print("HEADER\t" + (lines[0] if lines else ""))
    rows = list(csv.DictReader(lines))
    print("TYPE list %d" % len(rows))
    for i, r in enumerate(rows):
        for k, v in r.items():
            print("%d\t%s\t%s" % (i, k, json.dumps(v)))


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "check":
        check(sys.argv[2])
    elif cmd == "pngwrite":
        write_png(sys.argv[3], np.load(sys.argv[2]), int(sys.argv[4]) if len(sys.argv) > 4 else 8)
    elif cmd == "pngread":
        np.save(sys.argv[3], read_png(sys.argv[2]))
    elif cmd == "png2pnm":
        write_pgm(sys.argv[3], read_png(sys.argv[2]))
    elif cmd == "pgmwrite":
        write_pgm(sys.argv[3], np.load(sys.argv[2]))
    elif cmd == "csvflat":
        csvflat(sys.argv[2])
    elif cmd == "jsonflat":
        jsonflat(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "jsonkeys":
        jsonkeys(sys.argv[2])
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
)PY";

// Writes dctest.py into `dir` and returns the command prefix that runs it.
inline std::string dctest_py(const TempDir& dir) {
  const std::string path = dir.file("dctest.py");
  if (!exists(path)) spit(path, kDctestPy);
  return q(python()) + " " + q(path);
}

// Flattened JSON (see dctest.py jsonflat): for an object, key -> JSON text of the value; for an array of
// objects, "i.key" -> JSON text. `type` is "dict", "list" or "" when the text is not valid JSON.
struct FlatJson {
  std::string type;
  std::size_t size = 0;
  std::map<std::string, std::string> v;
  std::string error;
  std::string header;  // csv only: the header line verbatim
  bool has(const std::string& k) const { return v.count(k) != 0; }
  std::string at(const std::string& k) const {
    auto it = v.find(k);
    return it == v.end() ? std::string() : it->second;
  }
};

inline FlatJson parse_flat(const TempDir& dir, const std::string& text, const std::string& how,
                           const std::string& extra = "") {
  static int counter = 0;
  const std::string f = dir.file("flat_" + std::to_string(counter++) + ".txt");
  spit(f, text);
  const RunResult r = run_cmd(dctest_py(dir) + " " + how + " " + q(f) + (extra.empty() ? "" : " " + q(extra)));
  FlatJson j;
  if (r.code != 0) {
    j.error = r.err;
    return j;
  }
  auto lines = split_lines(r.out);
  std::size_t first = 0;
  if (!lines.empty() && lines[0].rfind("HEADER\t", 0) == 0) j.header = lines[first++].substr(7);
  if (lines.size() <= first) return j;
  {
    std::stringstream ss(lines[first]);
    std::string t;
    ss >> t >> j.type >> j.size;
  }
  for (std::size_t i = first + 1; i < lines.size(); ++i) {
    auto f2 = split(lines[i], '\t');
    if (j.type == "dict" && f2.size() >= 2)
      j.v[f2[0]] = f2[1];
    else if (j.type == "list" && f2.size() >= 3)
      j.v[f2[0] + "." + f2[1]] = f2[2];
  }
  return j;
}

inline FlatJson parse_json_text(const TempDir& dir, const std::string& text) {
  return parse_flat(dir, text, "jsonflat");
}
// The array under `key` of a top-level JSON object, flattened as parse_json_text flattens an array.
inline FlatJson parse_json_member(const TempDir& dir, const std::string& text, const std::string& key) {
  return parse_flat(dir, text, "jsonflat", key);
}

// Every key path of a JSON text at any depth (dctest.py jsonkeys) and whether a value is not finite or a
// string "inf"/"nan"; `ok` is false when the text is not valid JSON.
struct JsonKeys {
  bool ok = false;
  std::vector<std::string> keys;
  bool nonfinite = false, nan_string = false;
};

inline JsonKeys json_keys(const TempDir& dir, const std::string& text) {
  static int counter = 0;
  const std::string f = dir.file("keys_" + std::to_string(counter++) + ".json");
  spit(f, text);
  const RunResult r = run_cmd(dctest_py(dir) + " jsonkeys " + q(f));
  JsonKeys k;
  k.ok = r.code == 0;
  for (const auto& line : split_lines(r.out)) {
    if (line == "NONFINITE")
      k.nonfinite = true;
    else if (line == "NAN_STRING")
      k.nan_string = true;
    else
      k.keys.push_back(line);
  }
  return k;
}

// JSON typed for machines: valid, no key with a space, no non-finite number, no "inf"/"nan" strings.
inline void check_json_typed(const TempDir& dir, const std::string& text) {
  INFO("JSON: " << text);
  const JsonKeys k = json_keys(dir, text);
  REQUIRE(k.ok);
  CHECK_FALSE(k.nonfinite);
  CHECK_FALSE(k.nan_string);
  for (const auto& key : k.keys) {
    INFO("key " << key);
    CHECK(key.find(' ') == std::string::npos);
  }
}
inline FlatJson parse_csv_text(const TempDir& dir, const std::string& text) { return parse_flat(dir, text, "csvflat"); }

// A JSON string value without its quotes ("" for anything else).
inline std::string unquote(const std::string& json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"') return json.substr(1, json.size() - 2);
  return "";
}

// ---- batched scipy agreement ------------------------------------------------------------------------
// One dctool run whose .npy/.txt/raw output is compared with scipy.fft applied to `ref` (a float64 .npy).
struct Case {
  std::string args;  // everything after the binary
  std::string out;   // output path
  std::string ref;   // float64 .npy of the input values
  std::string op;    // dct2 | idct2 | dct4 | idct4 (the scipy function)
  std::string norm;  // none | ortho (as scipy sees it)
  std::string axis;  // both | rows | cols (as scipy sees it)
  std::string prec;  // f32 | f64 (tolerance and the expected output dtype)
  int block = 0;
};

// Runs every case through dctool, then checks all outputs in one python call; one CHECK per case.
inline void run_cases(const TempDir& dir, const std::vector<Case>& cases) {
  std::vector<RunResult> runs;
  runs.reserve(cases.size());
  for (const auto& c : cases) runs.push_back(run_dctool(c.args));
  static int batch = 0;
  const std::string manifest = dir.file("check_" + std::to_string(batch++) + ".tsv");
  {
    std::ofstream m(manifest);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& c = cases[i];
      if (runs[i].code != 0) continue;
      m << i << '\t' << c.out << '\t' << c.ref << '\t' << c.op << '\t' << c.norm << '\t' << c.axis << '\t' << c.prec
        << '\t' << c.block << "\t\n";
    }
  }
  const RunResult chk = run_cmd(dctest_py(dir) + " check " + q(manifest));
  INFO("checker stderr: " << chk.err);
  REQUIRE(chk.code == 0);
  std::map<std::size_t, std::string> results;
  for (const auto& line : split_lines(chk.out)) {
    std::stringstream ss(line);
    std::string tag;
    std::size_t id = 0;
    ss >> tag >> id;
    if (tag == "RESULT") results[id] = line;
  }
  std::size_t failed = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    INFO("dctool " << c.args);
    INFO("exit " << runs[i].code << " stderr: " << runs[i].err);
    CHECK(runs[i].code == 0);
    if (runs[i].code != 0) {
      ++failed;
      continue;
    }
    const std::string res = results.count(i) ? results[i] : std::string("no result from the checker");
    INFO("checker: " << res);
    const auto fields = split(res, ' ');
    const bool ok = fields.size() >= 4 && fields[0] == "RESULT" && fields[3] == "OK";
    CHECK(ok);
    if (!ok) ++failed;
  }
  INFO(failed << " of " << cases.size() << " cases failed");
  CHECK(failed == 0);
}

}  // namespace dct::test::cli
