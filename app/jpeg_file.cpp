// libjpeg-turbo reports errors through error_exit, which must not return. A C++ exception thrown through
// libjpeg's C frames is undefined behaviour, so the two functions that call libjpeg are C-style: they own no
// object with a destructor, catch libjpeg's errors with setjmp/longjmp and return the message; the C++
// wrappers turn it into a dct::Error.
#include "app/jpeg_file.hpp"

#include <jpeglib.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace dct::app {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void error_exit(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorManager*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

void no_output(j_common_ptr) {}  // warnings are not printed

// err as libjpeg's error manager: errors jump to err.jump (set by the caller) with the message in err.message.
jpeg_error_mgr* install(ErrorManager& err) {
  jpeg_error_mgr* m = jpeg_std_error(&err.pub);
  err.pub.error_exit = error_exit;
  err.pub.output_message = no_output;
  return m;
}

struct EncodeArgs {
  const std::int16_t* const* planes;  // natural order blocks, raster order
  const bool* chroma;
  int components;
  JDIMENSION blocks_wide[3], blocks_high[3], width, height;
  int luma_factor;  // sampling factor of component 0 (h and v): 1 (4:4:4), 2 (4:2:0)
  int quality;
  bool optimize, progressive;
};

// Returns true on success; *out (malloc'ed by libjpeg, caller frees) and *size set. On failure `message`.
bool encode_c(const EncodeArgs* a, unsigned char** out, unsigned long* size, char* message) {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  *out = nullptr;
  *size = 0;
  if (setjmp(err.jump)) {
    std::memcpy(message, err.message, sizeof err.message);
    jpeg_destroy_compress(&cinfo);
    std::free(*out);
    *out = nullptr;
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, out, size);
  cinfo.image_width = a->width;
  cinfo.image_height = a->height;
  cinfo.input_components = a->components;
  cinfo.in_color_space = a->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr;
  jpeg_set_defaults(&cinfo);
  jpeg_set_colorspace(&cinfo, cinfo.in_color_space);
  for (int t = 0; t < 2; ++t) {
    if (cinfo.quant_tbl_ptrs[t] == nullptr) cinfo.quant_tbl_ptrs[t] = jpeg_alloc_quant_table((j_common_ptr)&cinfo);
    const auto table = core::quant_table(a->quality, t == 1);
    for (int k = 0; k < DCTSIZE2; ++k)
      cinfo.quant_tbl_ptrs[t]->quantval[k] = static_cast<UINT16>(table[k]);  // natural order
    cinfo.quant_tbl_ptrs[t]->sent_table = FALSE;                             // FALSE: still to be written (DQT)
  }
  // The arrays cover whole MCUs (as jpegtran's): 4:2:0's luma rounded up to 2x2 blocks; the blocks past the
  // image's (ceil(H/8) x ceil(W/8) luma) are never read: libjpeg codes its dummy blocks there (AC 0, the DC of the
  // block before), as cjpeg does.
  jvirt_barray_ptr arrays[3];
  for (int c = 0; c < a->components; ++c) {
    jpeg_component_info* comp = &cinfo.comp_info[c];
    comp->h_samp_factor = comp->v_samp_factor = c == 0 ? a->luma_factor : 1;
    comp->quant_tbl_no = a->chroma[c] ? 1 : 0;
    const JDIMENSION f = c == 0 ? static_cast<JDIMENSION>(a->luma_factor) : 1;
    arrays[c] =
        (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, TRUE, (a->blocks_wide[c] + f - 1) / f * f,
                                          (a->blocks_high[c] + f - 1) / f * f, f);
  }
  cinfo.optimize_coding = a->optimize ? TRUE : FALSE;
  if (a->progressive) jpeg_simple_progression(&cinfo);  // cjpeg -progressive's scan script
  jpeg_write_coefficients(&cinfo, arrays);              // realizes the arrays; the data is read in jpeg_finish_compress
  for (int c = 0; c < a->components; ++c)
    for (JDIMENSION by = 0; by < a->blocks_high[c]; ++by) {
      JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[c], by, 1, TRUE);
      const std::int16_t* src = a->planes[c] + std::size_t(by) * a->blocks_wide[c] * DCTSIZE2;
      for (JDIMENSION bx = 0; bx < a->blocks_wide[c]; ++bx)
        for (int k = 0; k < DCTSIZE2; ++k) row[0][bx][k] = static_cast<JCOEF>(src[std::size_t(bx) * DCTSIZE2 + k]);
    }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

// Decodes into `pixels` (interleaved, height*width*components bytes, allocated by the caller after the header
// is read: first call with pixels == nullptr fills the dimensions only).
bool decode_c(const unsigned char* data, unsigned long size, unsigned char* pixels, JDIMENSION* width,
              JDIMENSION* height, int* components, char* message) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  if (setjmp(err.jump)) {
    std::memcpy(message, err.message, sizeof err.message);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, size);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo.dct_method = JDCT_FLOAT;
  *width = cinfo.image_width;
  *height = cinfo.image_height;
  *components = cinfo.num_components == 1 ? 1 : 3;
  if (pixels == nullptr) {
    jpeg_destroy_decompress(&cinfo);
    return true;
  }
  jpeg_start_decompress(&cinfo);
  const std::size_t stride = std::size_t(cinfo.output_width) * cinfo.output_components;
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels + std::size_t(cinfo.output_scanline) * stride;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

}  // namespace

bool is_jpeg_path(const std::string& path) {
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return ext == "jpg" || ext == "jpeg";
}

std::vector<unsigned char> encode_jpeg(const core::QuantizedCoefficients& q, std::int64_t height, std::int64_t width,
                                       bool optimize, const std::string& path, bool progressive) {
  const int n = static_cast<int>(q.planes.size());
  const bool s420 = q.sampling == core::ChromaSampling::k420;
  const std::int64_t cbh = s420 ? (height + 15) / 16 : (height + 7) / 8,
                     cbw = s420 ? (width + 15) / 16 : (width + 7) / 8;
  bool ok = (n == 1 || n == 3) && q.blocks_wide == (width + 7) / 8 && q.blocks_high == (height + 7) / 8 &&
            width <= JPEG_MAX_DIMENSION && height <= JPEG_MAX_DIMENSION && q.chroma.size() == q.planes.size();
  for (int c = 0; ok && c < n; ++c)
    ok = q.planes[static_cast<std::size_t>(c)].size() ==
         static_cast<std::size_t>((c == 0 ? q.blocks_high * q.blocks_wide : cbh * cbw) * DCTSIZE2);
  if (ok && n == 3) ok = q.chroma_blocks_high == cbh && q.chroma_blocks_wide == cbw;
  if (!ok)
    throw Error(ErrorCode::kRuntime, path, "no JPEG coefficients of this image to write (or over 65500 pixels a side)");
  EncodeArgs a{};
  const std::int16_t* planes[3] = {};
  bool chroma[3] = {};
  for (int c = 0; c < n; ++c) {
    planes[c] = q.planes[static_cast<std::size_t>(c)].data();
    chroma[c] = q.chroma[static_cast<std::size_t>(c)];
    a.blocks_wide[c] = static_cast<JDIMENSION>(c == 0 ? q.blocks_wide : cbw);
    a.blocks_high[c] = static_cast<JDIMENSION>(c == 0 ? q.blocks_high : cbh);
  }
  a.planes = planes;
  a.chroma = chroma;
  a.components = n;
  a.width = static_cast<JDIMENSION>(width);
  a.height = static_cast<JDIMENSION>(height);
  a.luma_factor = n == 3 && s420 ? 2 : 1;
  a.quality = q.quality;
  a.optimize = optimize;
  a.progressive = progressive;
  unsigned char* out = nullptr;
  unsigned long size = 0;
  char message[JMSG_LENGTH_MAX] = {};
  if (!encode_c(&a, &out, &size, message))
    throw Error(ErrorCode::kRuntime, path, std::string("libjpeg-turbo: ") + message);
  std::vector<unsigned char> file(out, out + size);
  std::free(out);
  return file;
}

core::HostTensor decode_jpeg(const std::vector<unsigned char>& file, const std::string& path) {
  JDIMENSION w = 0, h = 0;
  int comps = 0;
  char message[JMSG_LENGTH_MAX] = {};
  if (!decode_c(file.data(), file.size(), nullptr, &w, &h, &comps, message))
    throw Error(ErrorCode::kInput, path, std::string("libjpeg-turbo: ") + message);
  std::vector<unsigned char> pixels(std::size_t(w) * h * comps);
  if (!decode_c(file.data(), file.size(), pixels.data(), &w, &h, &comps, message))
    throw Error(ErrorCode::kInput, path, std::string("libjpeg-turbo: ") + message);
  core::HostTensor t(core::Shape2{std::int64_t(h), std::int64_t(w)}, comps, core::Precision::kF32);
  float* d = t.data<float>();
  const std::size_t hw = std::size_t(w) * h;
  for (std::size_t i = 0; i < hw; ++i)
    for (int c = 0; c < comps; ++c) d[c * hw + i] = pixels[i * comps + c];
  return t;
}

}  // namespace dct::app
