// math::jpeg::h2v2_fancy_row (the 4:2:0 chroma of compress's in-loop PSNR) against libjpeg-turbo itself: a 4:2:0
// file is decoded twice, once as raw downsampled planes (raw_data_out) and once to YCbCr at full size (libjpeg's own
// fancy upsampling); every chroma sample of the second must be h2v2_fancy_row of the first's rows, exactly. Sizes
// cover odd widths and heights, chroma rows of 1 and 2 samples (plain repetition in libjpeg-turbo), and 1x1.
#include <cstddef>  // before jpeglib.h, which uses size_t and FILE
#include <cstdio>

#include <jpeglib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "app_support.hpp"
#include "math/jpeg.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

struct Decoder {
  jpeg_decompress_struct c{};
  jpeg_error_mgr e{};
  explicit Decoder(const std::string& bytes) {
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&c, TRUE);
    c.dct_method = JDCT_FLOAT;
  }
  ~Decoder() { jpeg_destroy_decompress(&c); }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
};

// The three planes as stored (chroma downsampled), each padded to whole iMCU rows; row stride in `stride`.
std::vector<std::vector<std::uint8_t>> raw_planes(const std::string& bytes, std::vector<int>& stride) {
  Decoder d(bytes);
  d.c.raw_data_out = TRUE;
  jpeg_start_decompress(&d.c);
  const int mcu_rows = d.c.max_v_samp_factor * DCTSIZE;
  std::vector<std::vector<std::uint8_t>> planes(3);
  stride.assign(3, 0);
  for (int ci = 0; ci < 3; ++ci) {
    const jpeg_component_info& k = d.c.comp_info[ci];
    stride[ci] = static_cast<int>((k.width_in_blocks + k.h_samp_factor) * DCTSIZE);
    planes[ci].assign(std::size_t(stride[ci]) * d.c.total_iMCU_rows * k.v_samp_factor * DCTSIZE, 0);
  }
  for (JDIMENSION row = 0; row < d.c.total_iMCU_rows; ++row) {
    std::vector<JSAMPROW> rows[3];
    JSAMPARRAY arrays[3];
    for (int ci = 0; ci < 3; ++ci) {
      const int n = d.c.comp_info[ci].v_samp_factor * DCTSIZE;
      for (int i = 0; i < n; ++i)
        rows[ci].push_back(planes[ci].data() + (std::size_t(row) * n + std::size_t(i)) * std::size_t(stride[ci]));
      arrays[ci] = rows[ci].data();
    }
    REQUIRE(jpeg_read_raw_data(&d.c, arrays, static_cast<JDIMENSION>(mcu_rows)) == JDIMENSION(mcu_rows));
  }
  jpeg_finish_decompress(&d.c);
  return planes;
}

// The image decoded to interleaved Y, Cb, Cr at full size (libjpeg's fancy upsampling).
std::vector<std::uint8_t> ycc_image(const std::string& bytes, int& w, int& h) {
  Decoder d(bytes);
  d.c.out_color_space = JCS_YCbCr;
  jpeg_start_decompress(&d.c);
  w = static_cast<int>(d.c.output_width);
  h = static_cast<int>(d.c.output_height);
  std::vector<std::uint8_t> px(std::size_t(w) * h * 3);
  while (d.c.output_scanline < d.c.output_height) {
    JSAMPROW row = px.data() + std::size_t(d.c.output_scanline) * w * 3;
    jpeg_read_scanlines(&d.c, &row, 1);
  }
  jpeg_finish_decompress(&d.c);
  return px;
}

}  // namespace

TEST_CASE("compress .jpg 4:2:0: h2v2_fancy_row is libjpeg-turbo's fancy upsampling, exactly", "[compress][jpeg]") {
  TempDir dir;
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{
           {301, 453}, {64, 48}, {17, 9}, {33, 17}, {1, 1}, {3, 5}, {4, 4}, {5, 3}, {2, 7}, {6, 1}, {9, 31}}) {
    INFO(w << "x" << h);
    const std::string png = dir.file("in.png"), jpg = dir.file("out.jpg");
    // The photograph resized to w x h (Pillow, of scripts/setup.sh's packages), 8-bit RGB.
    REQUIRE(run_cmd(q(python()) + " -c " +
                    q("from PIL import Image; Image.open('" + source_dir() +
                      "/data/astronaut.png').convert('RGB')"
                      ".resize((" +
                      std::to_string(w) + ", " + std::to_string(h) + "), Image.LANCZOS).save('" + png + "')"))
                .code == 0);
    REQUIRE(run_dctool("-q compress " + q(png) + " -o " + q(jpg) + " --sampling 420 --quality 40").code == 0);
    const std::string bytes = slurp(jpg);
    std::vector<int> stride;
    const auto planes = raw_planes(bytes, stride);
    int ow = 0, oh = 0;
    const std::vector<std::uint8_t> ycc = ycc_image(bytes, ow, oh);
    REQUIRE(ow == w);
    REQUIRE(oh == h);
    const std::int64_t n = (w + 1) / 2, chr = (h + 1) / 2;
    std::vector<std::uint8_t> up(static_cast<std::size_t>(w));
    std::int64_t bad = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) bad += ycc[(std::size_t(y) * w + x) * 3] != planes[0][std::size_t(y) * stride[0] + x];
      const std::int64_t cy = y / 2, far = y % 2 == 0 ? std::max<std::int64_t>(cy - 1, 0) : std::min(cy + 1, chr - 1);
      for (int c = 1; c < 3; ++c) {
        const std::uint8_t* p = planes[c].data();
        dct::math::jpeg::h2v2_fancy_row(p + cy * stride[c], p + far * stride[c], n, w, up.data());
        for (int x = 0; x < w; ++x) bad += ycc[(std::size_t(y) * w + x) * 3 + c] != up[std::size_t(x)];
      }
    }
    CHECK(bad == 0);
  }
}
