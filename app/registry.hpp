#pragma once
// The one place that knows which backends exist and whether CUDA was compiled in.
#include <string_view>
#include <vector>

#include "core/compress.hpp"
#include "core/formats.hpp"
#include "core/plan_cache.hpp"
#include "core/registry.hpp"

namespace dct::app {

const core::Registry& registry();
core::PlanCache& plan_cache();
const core::ImageCodec& image_codec();  // app/image_codec.hpp
// The compress implementations in preference order: the fused GPU jpeg path first (when CUDA is compiled
// in), the CPU compressor last (it supports every request).
const std::vector<const core::Compressor*>& compressors();
// The compressor of that name in compressors(), or null.
const core::Compressor* find_compressor(std::string_view name);
bool cuda_compiled();
// Applies --device N / thread count before the registry is first used.
void configure_runtimes(int device, int threads);

}  // namespace dct::app
