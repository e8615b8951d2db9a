/* cpu-dct4-sec4 / cpu-dct4-sec8: the N = 17 DCT-IV of [3] (Chiper & Dobrea 2024, §3) on the host, every
   transform computed section by section exactly as the GPU lanes do (math/dct4_n17.hpp derives the
   factorization and counts its operations). The sections share nothing but the prologue (x_C, x_a) and
   the final recursion; 8-section partners exchange their five products as the GPU lanes do by shuffles.
   Rows of length 17 only (--axis rows); the norms and the inverse fold into the prologue factor σ. */
#include "cpu/dct4_sections.hpp"

#include <string>

#include "core/error.hpp"
#include "cpu/backends.hpp"
#include "cpu/common.hpp"
#include "math/dct4_n17.hpp"

namespace dct::cpu {
namespace {

using core::Op;
namespace n17 = dct::math::n17;

template <class T>
void transform4(const T* x, T* y, const n17::Tables<T>& t, const n17::Sec4Lane<T> (&lanes)[4]) {
  T xa[n17::kN], tc[n17::kN];
  n17::prologue(x, t.pre, xa);
  for (int s = 0; s < 4; ++s) {
    T out[4], y0;
    n17::sec4_run(lanes[s], xa, out, y0);
    for (int a = 0; a < 4; ++a) tc[lanes[s].k[a]] = out[a];
    if (s == 0) tc[0] = y0;
  }
  n17::recursion(tc, y);
}

template <class T>
void transform8(const T* x, T* y, const n17::Tables<T>& t, const n17::Sec8Lane<T> (&lanes)[8]) {
  T xa[n17::kN], tc[n17::kN];
  n17::prologue(x, t.pre, xa);
  T m[8][5], x0[8];
  for (int s = 0; s < 8; ++s) n17::sec8_products(lanes[s], xa, m[s], x0[s]);
  for (int s = 0; s < 8; ++s) {
    T out[2], y0;
    n17::sec8_finish(lanes[s], m[s], m[s ^ 1], x0[s], x0[s ^ 1], xa[0], out, y0);
    tc[lanes[s].k[0]] = out[0];
    tc[lanes[s].k[1]] = out[1];
    if (s == 0) tc[0] = y0;
  }
  n17::recursion(tc, y);
}

template <class T>
class SectionsPlan final : public core::Plan {
 public:
  SectionsPlan(const core::TransformDesc& d, int sections, std::string name)
      : desc_(d),
        sections_(sections),
        name_(std::move(name)),
        tables_(n17::make_tables<T>(n17::sigma(d.op == Op::kIdct4, d.norm == core::Norm::kOrtho))) {
    for (int s = 0; s < 4; ++s) lanes4_[s] = n17::sec4_lane(tables_, s);
    for (int s = 0; s < 8; ++s) lanes8_[s] = n17::sec8_lane(tables_, s);
  }
  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(name_, desc_, in, out);
    const T* x = static_cast<const T*>(in.data);
    T* y = static_cast<T*>(out.data);
    const std::int64_t lines = desc_.batch * desc_.shape.rows;
#pragma omp parallel for schedule(static) if (lines >= 4096) num_threads(detail::thread_count())
    for (std::int64_t l = 0; l < lines; ++l) {
      if (sections_ == 4)
        transform4(x + l * n17::kN, y + l * n17::kN, tables_, lanes4_);
      else
        transform8(x + l * n17::kN, y + l * n17::kN, tables_, lanes8_);
    }
  }

 private:
  core::TransformDesc desc_;
  int sections_;
  std::string name_;
  n17::Tables<T> tables_;
  n17::Sec4Lane<T> lanes4_[4];
  n17::Sec8Lane<T> lanes8_[8];
};

class SectionsBackend final : public core::Backend {
 public:
  explicit SectionsBackend(int sections)
      : sections_(sections),
        name_("cpu-dct4-sec" + std::to_string(sections)),
        description_("[3] sectioned N=17 DCT-IV, " + std::to_string(sections) +
                     " sections (host reference): " + dct4_sections_counts(sections)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::vector<Op> ops() const override { return {Op::kDct4, Op::kIdct4}; }
  std::string_view sizes() const override { return "N = 17 (rows)"; }
  const core::Runtime& runtime() const override { return host_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override {
    using core::Support;
    if (d.op != Op::kDct4 && d.op != Op::kIdct4)
      return Support::no("implements dct4 and idct4 only, not " + std::string(core::to_string(d.op)));
    if (d.block != 0) return Support::no("no block mode");
    if (d.norm == core::Norm::kForward) return Support::no("norm forward is defined for dct/dst/r2r only");
    if (d.axis != core::Axis::kRows) return Support::no("transforms along rows only (--axis rows)");
    if (d.shape.cols != n17::kN)
      return Support::no("the sectioned algorithm is for N = 17 only (rows of length " + std::to_string(d.shape.cols) +
                         " given)");
    if (d.shape.rows < 1 || d.batch < 1) return Support::no("empty shape");
    return Support::yes();
  }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s)
      throw Error(ErrorCode::kUnsupported, name_, "does not support " + d.to_string() + ": " + s.reason);
    if (d.prec == core::Precision::kF32) return std::make_unique<SectionsPlan<float>>(d, sections_, name_);
    return std::make_unique<SectionsPlan<double>>(d, sections_, name_);
  }

 private:
  int sections_;
  std::string name_, description_;
};

}  // namespace

std::string dct4_sections_counts(int sections) {
  const n17::OpCounts& c = sections == 4 ? n17::kCounts4 : n17::kCounts8;
  return "per section " + std::to_string(c.section_mul) + " mul + " + std::to_string(c.section_add) +
         " add, 0 shifts; per transform " + std::to_string(c.total_mul) + " mul + " + std::to_string(c.total_add) +
         " add (direct eq. 1: " + std::to_string(n17::kDirectMul) + " + " + std::to_string(n17::kDirectAdd) +
         "); paper: 5 mul, 29 add, 18 shifts per section";
}

std::unique_ptr<core::Backend> make_dct4_sections_backend(int sections) {
  if (sections != 4 && sections != 8)
    throw Error(ErrorCode::kRuntime, "internal: the sectioned DCT-IV has 4 or 8 sections");
  return std::make_unique<SectionsBackend>(sections);
}

}  // namespace dct::cpu
