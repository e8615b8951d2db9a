#pragma once
// Stand-ins for backends this build cannot run (e.g. the CUDA backends of a build without CUDA): they are
// listed by `dctool backends` and selecting one is an "unsupported" error (exit 4) carrying the reason.
#include <string>
#include <vector>

#include "core/backend.hpp"

namespace dct::core {

class UnavailableRuntime final : public Runtime {
 public:
  UnavailableRuntime(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  Memory memory() const override { return Memory::kDevice; }
  Support usable() const override { return Support::no(reason_); }
  std::string device_name() const override { return {}; }
  std::size_t cache_bytes() const override { return 0; }
  std::unique_ptr<Buffer> allocate(std::size_t) const override;
  void upload(Buffer&, const void*, std::size_t) const override;
  void download(void*, const Buffer&, std::size_t) const override;
  void copy(Buffer&, const Buffer&, std::size_t, Stream) const override;
  void fill_bytes(Buffer&, unsigned char) const override;
  std::unique_ptr<Timer> make_timer() const override;
  void synchronize() const override {}
  std::unique_ptr<Plan> make_baseline(Baseline, Shape2, std::int64_t, Precision, Effort) const override;

 private:
  [[noreturn]] void fail() const;
  std::string name_, reason_;
};

class UnavailableBackend final : public Backend {
 public:
  // sizes and description: what the backend would do (its row of the backend table).
  UnavailableBackend(std::string name, std::vector<Op> ops, std::string sizes, std::string description,
                     const Runtime& rt)
      : name_(std::move(name)),
        ops_(std::move(ops)),
        sizes_(std::move(sizes)),
        description_(std::move(description)),
        rt_(rt) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::vector<Op> ops() const override { return ops_; }
  std::string_view sizes() const override { return sizes_; }
  const Runtime& runtime() const override { return rt_; }
  Support supports(const TransformDesc&) const override { return rt_.usable(); }
  std::unique_ptr<Plan> make_plan(const TransformDesc&) const override;

 private:
  std::string name_;
  std::vector<Op> ops_;
  std::string sizes_, description_;
  const Runtime& rt_;
};

}  // namespace dct::core
