#include "core/registry.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace dct::core {

void Registry::add(std::unique_ptr<Backend> b, bool auto_eligible) {
  order_.push_back(b.get());
  entries_.push_back({std::move(b), auto_eligible});
}

const Backend* Registry::find(std::string_view name) const {
  for (const auto* b : order_)
    if (b->name() == name) return b;
  return nullptr;
}

bool Registry::auto_eligible(const Backend& b) const {
  for (const auto& e : entries_)
    if (e.backend.get() == &b) return e.auto_eligible;
  return false;
}

Error Registry::unknown(std::string_view name, std::string_view option, std::string_view also) const {
  std::string known(also);
  for (const auto* k : order_) {
    if (!known.empty()) known += ", ";
    known += k->name();
  }
  return Error(ErrorCode::kUsage, std::string(option),
               "unknown backend '" + std::string(name) + "' (known: " + known + ")");
}

const Backend& Registry::select(const TransformDesc& d, std::string_view name) const {
  if (name != "auto") {
    const Backend* b = find(name);
    if (b == nullptr) throw unknown(name, "--backend");
    if (Support u = b->runtime().usable(); !u)
      throw Error(ErrorCode::kUnsupported, std::string(name), "not usable here: " + u.reason);
    if (Support s = b->supports(d); !s)
      throw Error(ErrorCode::kUnsupported, std::string(name), "does not support " + d.to_string() + ": " + s.reason);
    return *b;
  }
  std::string reasons;
  for (const auto& e : entries_) {
    const Backend& b = *e.backend;
    if (!e.auto_eligible) continue;
    Support u = b.runtime().usable();
    Support s = u ? b.supports(d) : u;
    if (s) return b;
    if (!reasons.empty()) reasons += "; ";
    reasons += std::string(b.name()) + ": " + s.reason;
  }
  throw Error(ErrorCode::kUnsupported, "auto", "no backend supports " + d.to_string() + " (" + reasons + ")");
}

std::vector<const Backend*> Registry::usable_for(Op op) const {
  std::vector<const Backend*> out;
  for (const auto& e : entries_) {
    const auto ops = e.backend->ops();
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    if (!e.backend->runtime().usable()) continue;
    out.push_back(e.backend.get());
  }
  return out;
}

const Runtime* Registry::transfer_runtime(std::string_view name) const {
  if (name != "auto") {
    const Backend* b = find(name);
    return b != nullptr && b->runtime().usable() ? &b->runtime() : nullptr;
  }
  for (const auto& e : entries_)
    if (e.auto_eligible && e.backend->runtime().usable()) return &e.backend->runtime();
  return nullptr;
}

}  // namespace dct::core
