#pragma once
// The backend registry: an explicit table filled by app/registry.cpp (no static self-registration),
// `auto` selection in table order, and the reasons a backend is refused.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"

namespace dct::core {

class Registry {
 public:
  // Order of add() is the `auto` preference order: the first backend that supports the request and
  // whose runtime is usable here wins. `auto_eligible` false keeps a backend out of auto (oracles).
  void add(std::unique_ptr<Backend> b, bool auto_eligible = true);
  const std::vector<const Backend*>& all() const { return order_; }
  const Backend* find(std::string_view name) const;  // nullptr if unknown
  // The usage error (exit 2) for an unknown backend name given to `option`, listing the known ones after `also`.
  Error unknown(std::string_view name, std::string_view option, std::string_view also = {}) const;
  bool auto_eligible(const Backend& b) const;

  // Resolves a --backend value ("auto" or a name) for `d`. Throws dct::Error:
  //   kUsage for an unknown name (listing the known ones),
  //   kUnsupported when the named backend cannot run here or does not support `d` (with the reason),
  //   kUnsupported when no backend supports `d` under auto (with each candidate's reason).
  const Backend& select(const TransformDesc& d, std::string_view name) const;
  // Backends listing `op` whose runtime is usable here, in table order (oracles included).
  std::vector<const Backend*> usable_for(Op op) const;
  // The runtime whose host memory (Runtime::allocate_host) a command's tensors should use under --backend `name`:
  // the named backend's, under auto the first usable one in preference order (a CUDA device when one is usable);
  // null when that is not usable here or the name is unknown.
  const Runtime* transfer_runtime(std::string_view name) const;

 private:
  struct Entry {
    std::unique_ptr<Backend> backend;
    bool auto_eligible;
  };
  std::vector<Entry> entries_;
  std::vector<const Backend*> order_;
};

}  // namespace dct::core
