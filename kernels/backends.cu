// The CUDA backend table (auto-preference order) and the one Backend class every row goes through.
#include "kernels/backends.hpp"

#include "core/error.hpp"
#include "kernels/engines.cuh"

namespace dct::cuda {
namespace {

class CudaBackend final : public core::Backend {
 public:
  explicit CudaBackend(BackendSpec spec) : spec_(std::move(spec)) {}
  std::string_view name() const override { return spec_.name; }
  std::string_view description() const override { return spec_.description; }
  std::vector<core::Op> ops() const override { return spec_.ops; }
  std::string_view sizes() const override { return spec_.sizes; }
  const core::Runtime& runtime() const override { return cuda_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override { return spec_.supports(d); }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = spec_.supports(d); !s) throw_unsupported(spec_.name, d, s);
    activate_device();
    return spec_.make(d);
  }

 private:
  BackendSpec spec_;
};

}  // namespace

std::vector<std::unique_ptr<core::Backend>> make_backends() {
  std::vector<BackendSpec> table{fft2d_spec(), rowcol_spec()};
  for (auto& s : family_specs()) table.push_back(std::move(s));
  std::vector<std::unique_ptr<core::Backend>> out;
  for (auto& s : table) out.push_back(std::make_unique<CudaBackend>(std::move(s)));
  return out;
}

}  // namespace dct::cuda
