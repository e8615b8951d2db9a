// libjpeg-turbo reports errors through error_exit, which must not return. A C++ exception thrown through
// libjpeg's C frames is undefined behaviour, so the functions that call libjpeg are C-style: they own no
// object with a destructor, catch libjpeg's errors with setjmp/longjmp and return the message; the C++
// wrappers turn it into a dct::Error.
#include "app/jpeg_file.hpp"

#include <jpeglib.h>
// after jpeglib.h
#include <jerror.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <memory>
#include <type_traits>

#include "app/image_decode.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

// Scans a decoder follows before it gives up: a crafted progressive file can hold thousands of tiny scans, each a
// pass over the whole coefficient buffer (libjpeg-turbo's own fuzz targets stop at 500 as well).
constexpr int kMaxScans = 500;

struct ErrorManager {
  jpeg_error_mgr pub;
  jpeg_progress_mgr progress;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void error_exit(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorManager*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

void no_output(j_common_ptr) {}  // warnings are not printed

// Decoding is strict: libjpeg's corrupt-data warnings (premature end of file, bad Huffman or arithmetic code,
// extraneous bytes, a marker inside entropy-coded data, bogus progression) are errors; an unknown JFIF revision
// or an ICC profile split oddly are not (the pixels are intact).
void strict_emit(j_common_ptr c, int level) {
  if (level >= 0) return;  // trace messages
  if (c->err->msg_code == JWRN_JFIF_MAJOR || c->err->msg_code == JWRN_BOGUS_ICC) return;
  error_exit(c);
}

void scan_limit(j_common_ptr c) {
  if (!c->is_decompressor || reinterpret_cast<j_decompress_ptr>(c)->input_scan_number <= kMaxScans) return;
  auto* e = reinterpret_cast<ErrorManager*>(c->err);
  std::snprintf(e->message, sizeof e->message, "more than %d scans (a crafted progressive file?)", kMaxScans);
  std::longjmp(e->jump, 1);
}

// err as libjpeg's error manager: errors jump to err.jump (set by the caller) with the message in err.message.
jpeg_error_mgr* install(ErrorManager& err) {
  jpeg_error_mgr* m = jpeg_std_error(&err.pub);
  err.pub.error_exit = error_exit;
  err.pub.output_message = no_output;
  err.message[0] = '\0';
  return m;
}

// The same for a decoder: strict warnings, and the scan limit through the progress monitor.
jpeg_error_mgr* install_strict(ErrorManager& err, j_decompress_ptr cinfo) {
  jpeg_error_mgr* m = install(err);
  err.pub.emit_message = strict_emit;
  err.progress.progress_monitor = scan_limit;
  err.progress.pass_counter = err.progress.pass_limit = 0;
  err.progress.completed_passes = err.progress.total_passes = 0;
  cinfo->progress = &err.progress;
  return m;
}

// What coefficients8_c gives back besides DecodeState's fields: whether the file is one core::JpegCoefficients8
// describes (else it is decoded as usual), the luma's sampling factors, each component's blocks and table.
struct Coefficients8 {
  bool taken = false;
  int h_factor = 1, v_factor = 1;
  JDIMENSION blocks_wide[3] = {}, blocks_high[3] = {};
  std::uint16_t q[3][DCTSIZE2] = {};
};

// What a C-style decoder needs from its C++ caller and gives back.
struct DecodeState {
  Coefficients8* coef8 = nullptr;  // coefficients8_c's output
  const unsigned char* data = nullptr;
  unsigned long size = 0;
  J_DCT_METHOD method = JDCT_ISLOW;
  std::int64_t max_pixels = 0;
  void* (*alloc)(void* ctx, std::size_t bytes) = nullptr;  // nullptr on failure; never throws
  void* alloc_ctx = nullptr;
  JDIMENSION width = 0, height = 0, blocks_wide = 0, blocks_high = 0;
  int components = 0;
  bool size_refused = false;  // width/height zero or over max_pixels: the caller words the message
  char message[JMSG_LENGTH_MAX] = {};
};

// Whether the header's dimensions are acceptable; sets size_refused otherwise.
bool size_ok(DecodeState* s, const jpeg_decompress_struct& cinfo) {
  s->width = cinfo.image_width;
  s->height = cinfo.image_height;
  if (s->width != 0 && s->height != 0 &&
      static_cast<std::int64_t>(s->width) <= s->max_pixels / static_cast<std::int64_t>(s->height))
    return true;
  s->size_refused = true;
  return false;
}

// Gray or three-component (YCbCr, or RGB as Adobe marks it) only; a message for the rest.
bool colour_ok(DecodeState* s, const jpeg_decompress_struct& cinfo) {
  if (cinfo.num_components == 1 ||
      (cinfo.num_components == 3 && (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_RGB)))
    return true;
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK)
    std::snprintf(s->message, sizeof s->message, "CMYK/YCCK JPEG files are not supported (convert to RGB first)");
  else
    std::snprintf(s->message, sizeof s->message, "JPEG files of %d components are not supported", cinfo.num_components);
  return false;
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

// The coefficient planes as libjpeg's "virtual arrays", without copying them: libjpeg's transcoder reads the
// arrays only through its memory manager's access_virt_barray (a method of the public jpeg_memory_mgr, per
// compress object), so the encoder requests placeholder arrays of one block and routes the access to row
// tables over the planes. Rows past a plane (4:2:0's luma rounded up to whole MCUs, fetched though never coded:
// libjpeg codes dummy blocks there) read a zeroed row.
struct PlaneRows {
  jvirt_barray_ptr arrays[3];
  JBLOCKROW* rows[3];
  JDIMENSION count[3];  // rows in each table
  int n;
};

JBLOCKARRAY access_planes(j_common_ptr cinfo, jvirt_barray_ptr ptr, JDIMENSION start_row, JDIMENSION num_rows,
                          boolean writable) {
  const auto* t = static_cast<const PlaneRows*>(cinfo->client_data);
  for (int c = 0; c < t->n; ++c)
    if (t->arrays[c] == ptr && !writable && start_row + num_rows <= t->count[c]) return t->rows[c] + start_row;
  ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
  return nullptr;
}

// A JFIF file in memory, made by `body` on a compressor whose destination is set (body starts and feeds it; the
// caller of libjpeg's finish is here). Errors inside libjpeg jump back here: `body` holds nothing that needs a
// destructor. Throws dct::Error (kRuntime) naming `path`.
template <class Body>
std::vector<unsigned char> compress_to_memory(Body&& body, const std::string& path) {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    // `out` not freed: once libjpeg's memory destination has grown its buffer, out still names the first one, which
    // it freed itself (freeing it again aborted the process). An encoding error is an internal one; the leak is
    // bounded.
    throw Error(ErrorCode::kRuntime, path, std::string("libjpeg-turbo: ") + err.message);
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &out, &size);
  body(cinfo);
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::vector<unsigned char> file(out, out + size);
  std::free(out);
  return file;
}

// Sets up `cinfo` (destination set) to write the coefficient planes of `a` (jpeg_write_coefficients).
void coefficients_body(const EncodeArgs* a, jpeg_compress_struct& cinfo) {
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
  // image's (ceil(H/8) x ceil(W/8) luma) are never coded: libjpeg codes its dummy blocks there (AC 0, the DC of the
  // block before), as cjpeg does.
  static_assert(std::is_same_v<JCOEF, std::int16_t>, "the coefficient planes are read as libjpeg's JCOEF");
  auto* t = static_cast<PlaneRows*>((*cinfo.mem->alloc_small)((j_common_ptr)&cinfo, JPOOL_IMAGE, sizeof(PlaneRows)));
  t->n = a->components;
  jvirt_barray_ptr arrays[3];
  for (int c = 0; c < a->components; ++c) {
    jpeg_component_info* comp = &cinfo.comp_info[c];
    comp->h_samp_factor = comp->v_samp_factor = c == 0 ? a->luma_factor : 1;
    comp->quant_tbl_no = a->chroma[c] ? 1 : 0;
    const JDIMENSION f = c == 0 ? static_cast<JDIMENSION>(a->luma_factor) : 1;
    const JDIMENSION wide = (a->blocks_wide[c] + f - 1) / f * f, high = (a->blocks_high[c] + f - 1) / f * f;
    arrays[c] = t->arrays[c] = (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, FALSE, 1, 1, 1);
    t->count[c] = high;
    t->rows[c] = static_cast<JBLOCKROW*>(
        (*cinfo.mem->alloc_small)((j_common_ptr)&cinfo, JPOOL_IMAGE, std::size_t(high) * sizeof(JBLOCKROW)));
    JBLOCKROW zero = nullptr;
    if (high > a->blocks_high[c]) {
      zero = static_cast<JBLOCKROW>(
          (*cinfo.mem->alloc_large)((j_common_ptr)&cinfo, JPOOL_IMAGE, std::size_t(wide) * sizeof(JBLOCK)));
      std::memset(zero, 0, std::size_t(wide) * sizeof(JBLOCK));
    }
    for (JDIMENSION by = 0; by < high; ++by)
      t->rows[c][by] = by < a->blocks_high[c] ? reinterpret_cast<JBLOCKROW>(const_cast<std::int16_t*>(
                                                    a->planes[c] + std::size_t(by) * a->blocks_wide[c] * DCTSIZE2))
                                              : zero;
  }
  cinfo.optimize_coding = a->optimize ? TRUE : FALSE;
  if (a->progressive) jpeg_simple_progression(&cinfo);  // cjpeg -progressive's scan script
  jpeg_write_coefficients(&cinfo, arrays);              // the data is read in jpeg_finish_compress, from the planes:
  cinfo.client_data = t;
  cinfo.mem->access_virt_barray = access_planes;
}

// Sets up `cinfo` (destination set) and writes 8-bit samples (`components` 1: gray, 3: RGB, interleaved), 4:4:4,
// libjpeg's tables at `quality`.
void pixels_body(const unsigned char* pixels, JDIMENSION width, JDIMENSION height, int components, int quality,
                 jpeg_compress_struct& cinfo) {
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  for (int c = 0; c < cinfo.num_components; ++c)
    cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t stride = std::size_t(width) * components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + std::size_t(cinfo.next_scanline) * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
}

// After the caller's setjmp: the decoder made on s->data, its header read and checked; false (the decoder destroyed,
// s->message or size_refused set) where the image is refused. libjpeg's errors jump to the caller's setjmp.
bool start_decoder(DecodeState* s, jpeg_decompress_struct& cinfo, ErrorManager& err) {
  jpeg_create_decompress(&cinfo);
  install_strict(err, &cinfo);
  jpeg_mem_src(&cinfo, s->data, s->size);
  jpeg_read_header(&cinfo, TRUE);
  if (size_ok(s, cinfo) && colour_ok(s, cinfo)) return true;
  jpeg_destroy_decompress(&cinfo);
  return false;
}

// Decodes s->data into a buffer from s->alloc: interleaved 8-bit samples, height x width x components.
bool decode_c(DecodeState* s) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  if (setjmp(err.jump)) {
    std::memcpy(s->message, err.message, sizeof err.message);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  if (!start_decoder(s, cinfo, err)) return false;
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo.dct_method = s->method;
  s->components = cinfo.num_components == 1 ? 1 : 3;
  const std::size_t stride = std::size_t(s->width) * std::size_t(s->components);
  auto* pixels = static_cast<unsigned char*>(s->alloc(s->alloc_ctx, stride * s->height));
  if (pixels == nullptr) {
    std::snprintf(s->message, sizeof s->message, "out of host memory");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_start_decompress(&cinfo);
  if (cinfo.output_width != s->width || cinfo.output_height != s->height || cinfo.output_components != s->components) {
    std::snprintf(s->message, sizeof s->message, "unexpected output layout");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels + std::size_t(cinfo.output_scanline) * stride;
    if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
      std::snprintf(s->message, sizeof s->message, "decoder stalled");
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// The stored coefficients of s->data, dequantized, into a buffer from s->alloc: int32, components planes of
// (8 blocks_high) x (8 blocks_wide), block (i, j) at rows 8i.., cols 8j.., natural (row-major) order in a block.
bool coefficients_c(DecodeState* s) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  if (setjmp(err.jump)) {
    std::memcpy(s->message, err.message, sizeof err.message);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  if (!start_decoder(s, cinfo, err)) return false;
  int max_h = 1, max_v = 1;
  for (int c = 0; c < cinfo.num_components; ++c) {
    max_h = cinfo.comp_info[c].h_samp_factor > max_h ? cinfo.comp_info[c].h_samp_factor : max_h;
    max_v = cinfo.comp_info[c].v_samp_factor > max_v ? cinfo.comp_info[c].v_samp_factor : max_v;
  }
  for (int c = 0; c < cinfo.num_components; ++c)
    if (cinfo.comp_info[c].h_samp_factor != max_h || cinfo.comp_info[c].v_samp_factor != max_v) {
      std::snprintf(s->message, sizeof s->message,
                    "chroma-subsampled JPEG (component %d sampled %dx%d of %dx%d): --jpeg-coefficients reads 4:4:4 "
                    "and gray files only",
                    c + 1, cinfo.comp_info[c].h_samp_factor, cinfo.comp_info[c].v_samp_factor, max_h, max_v);
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
  jvirt_barray_ptr* arrays = jpeg_read_coefficients(&cinfo);
  s->components = cinfo.num_components;
  s->blocks_wide = (s->width + 7) / 8;
  s->blocks_high = (s->height + 7) / 8;
  for (int c = 0; c < cinfo.num_components; ++c)
    if (cinfo.comp_info[c].width_in_blocks != s->blocks_wide || cinfo.comp_info[c].height_in_blocks != s->blocks_high ||
        cinfo.comp_info[c].quant_table == nullptr) {
      std::snprintf(s->message, sizeof s->message, "component %d has no coefficients of the whole image", c + 1);
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
  const std::size_t cols = std::size_t(s->blocks_wide) * DCTSIZE, rows = std::size_t(s->blocks_high) * DCTSIZE;
  auto* out = static_cast<std::int32_t*>(
      s->alloc(s->alloc_ctx, sizeof(std::int32_t) * cols * rows * std::size_t(cinfo.num_components)));
  if (out == nullptr) {
    std::snprintf(s->message, sizeof s->message, "out of host memory");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  for (int c = 0; c < cinfo.num_components; ++c) {
    const UINT16* q = cinfo.comp_info[c].quant_table->quantval;  // natural order
    std::int32_t* plane = out + std::size_t(c) * rows * cols;
    for (JDIMENSION by = 0; by < s->blocks_high; ++by) {
      JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[c], by, 1, FALSE);
      for (JDIMENSION bx = 0; bx < s->blocks_wide; ++bx)
        for (int k = 0; k < DCTSIZE2; ++k)
          plane[(std::size_t(by) * DCTSIZE + k / DCTSIZE) * cols + std::size_t(bx) * DCTSIZE + k % DCTSIZE] =
              std::int32_t(row[0][bx][k]) * std::int32_t(q[k]);
    }
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// coefficients8_c's whole-image coefficient arrays in one buffer from s->alloc, so that libjpeg-turbo decodes straight
// into it: no arrays of its own (made, zeroed and freed per file) and no copy out of them. The memory manager's
// virtual-array methods (public, per decompress object, as the encoder's access_planes) are routed here for the
// arrays jpeg_read_coefficients asks for, one per component in component order. libjpeg rounds each array up to whole
// MCUs and decodes dummy blocks there: rows past the component's blocks all go to one scratch row, and a width
// rounded up is kept as the rows' pitch (compact_planes then moves the rows together). Any other array (none is asked
// for in a sequential file's coefficient read) and libjpeg realizes every array as usual; the file is then decoded as
// pixels (coefficients8_c takes nothing).
constexpr int kMaxDirect = 4;
struct DirectArrays {
  jpeg_memory_mgr lib;  // libjpeg's own methods
  DecodeState* s;
  int n;       // arrays asked for
  bool other;  // an array that is not one of the components': libjpeg's own realize, nothing routed here
  jvirt_barray_ptr arrays[kMaxDirect];
  JDIMENSION pitch[kMaxDirect], rows[kMaxDirect];  // as asked: blocks per row and rows, rounded up to MCUs
  JBLOCKROW* table[kMaxDirect];
  JBLOCK* blocks;  // the buffer: component c's rows at pitch[c], one component after another
};

DirectArrays* direct_of(j_common_ptr cinfo) { return static_cast<DirectArrays*>(cinfo->client_data); }

jvirt_barray_ptr direct_request_b(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocksperrow,
                                  JDIMENSION numrows, JDIMENSION maxaccess) {
  DirectArrays* d = direct_of(cinfo);
  jvirt_barray_ptr p = (*d->lib.request_virt_barray)(cinfo, pool_id, pre_zero, blocksperrow, numrows, maxaccess);
  if (d->n < kMaxDirect) {
    d->arrays[d->n] = p;
    d->pitch[d->n] = blocksperrow;
    d->rows[d->n] = numrows;
    ++d->n;
  } else {
    d->other = true;
  }
  return p;
}

jvirt_sarray_ptr direct_request_s(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION samplesperrow,
                                  JDIMENSION numrows, JDIMENSION maxaccess) {
  DirectArrays* d = direct_of(cinfo);
  d->other = true;
  return (*d->lib.request_virt_sarray)(cinfo, pool_id, pre_zero, samplesperrow, numrows, maxaccess);
}

void direct_realize(j_common_ptr cinfo) {
  DirectArrays* d = direct_of(cinfo);
  const auto* dc = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->other || d->n != dc->num_components) {
    d->n = 0;
    (*d->lib.realize_virt_arrays)(cinfo);
    return;
  }
  std::size_t total = 0;
  JDIMENSION widest = 0;
  for (int c = 0; c < d->n; ++c) {
    total += std::size_t(d->pitch[c]) * dc->comp_info[c].height_in_blocks;
    widest = std::max(widest, d->pitch[c]);
  }
  d->blocks = static_cast<JBLOCK*>(d->s->alloc(d->s->alloc_ctx, sizeof(JBLOCK) * total));
  if (d->blocks == nullptr) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
  std::memset(static_cast<void*>(d->blocks), 0, sizeof(JBLOCK) * total);  // libjpeg codes only nonzero values
  auto* scratch = static_cast<JBLOCKROW>((*d->lib.alloc_large)(cinfo, JPOOL_IMAGE, sizeof(JBLOCK) * widest));
  JBLOCK* at = d->blocks;
  for (int c = 0; c < d->n; ++c) {
    const JDIMENSION high = dc->comp_info[c].height_in_blocks;
    d->table[c] = static_cast<JBLOCKROW*>((*d->lib.alloc_small)(cinfo, JPOOL_IMAGE, sizeof(JBLOCKROW) * d->rows[c]));
    for (JDIMENSION r = 0; r < d->rows[c]; ++r) d->table[c][r] = r < high ? at + std::size_t(r) * d->pitch[c] : scratch;
    at += std::size_t(d->pitch[c]) * high;
  }
}

JBLOCKARRAY direct_access_b(j_common_ptr cinfo, jvirt_barray_ptr ptr, JDIMENSION start_row, JDIMENSION num_rows,
                            boolean writable) {
  DirectArrays* d = direct_of(cinfo);
  for (int c = 0; c < d->n; ++c)
    if (d->arrays[c] == ptr) {
      if (start_row + num_rows > d->rows[c]) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
      return d->table[c] + start_row;
    }
  return (*d->lib.access_virt_barray)(cinfo, ptr, start_row, num_rows, writable);
}

// Routes cinfo's coefficient arrays into d (after the header is read, before jpeg_read_coefficients).
void route_arrays(j_decompress_ptr cinfo, DirectArrays* d, DecodeState* s) {
  std::memset(static_cast<void*>(d), 0, sizeof *d);
  d->lib = *cinfo->mem;
  d->s = s;
  cinfo->client_data = d;
  cinfo->mem->request_virt_barray = direct_request_b;
  cinfo->mem->request_virt_sarray = direct_request_s;
  cinfo->mem->realize_virt_arrays = direct_realize;
  cinfo->mem->access_virt_barray = direct_access_b;
}

// The components' blocks of d's buffer moved together (core::JpegCoefficients8's layout: each component's
// width x height blocks, one component after another); nothing moves where every pitch is the width.
void compact_planes(const DirectArrays* d, const jpeg_component_info* ci) {
  JBLOCK* to = d->blocks;
  const JBLOCK* from = d->blocks;
  for (int c = 0; c < d->n; ++c) {
    const JDIMENSION wide = ci[c].width_in_blocks, high = ci[c].height_in_blocks;
    for (JDIMENSION r = 0; r < high; ++r, to += wide, from += d->pitch[c])
      if (to != from) std::memmove(static_cast<void*>(to), from, sizeof(JBLOCK) * wide);
  }
}

// The quantized coefficients of s->data as stored, into a buffer from s->alloc (core::JpegCoefficients8's layout),
// where the file is one JpegCoefficients8 describes (s->coef8->taken); nothing else read otherwise.
bool coefficients8_c(DecodeState* s) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = install(err);
  if (setjmp(err.jump)) {
    std::memcpy(s->message, err.message, sizeof err.message);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  if (!start_decoder(s, cinfo, err)) return false;
  const int n = cinfo.num_components;
  const jpeg_component_info* ci = cinfo.comp_info;
  const auto sampled = [&](int c, int h, int v) { return ci[c].h_samp_factor == h && ci[c].v_samp_factor == v; };
  const bool fits = cinfo.data_precision == 8 && !cinfo.progressive_mode &&
                    ((n == 1 && cinfo.jpeg_color_space == JCS_GRAYSCALE && sampled(0, 1, 1)) ||
                     (n == 3 && cinfo.jpeg_color_space == JCS_YCbCr && sampled(1, 1, 1) && sampled(2, 1, 1) &&
                      (sampled(0, 1, 1) || sampled(0, 2, 1) || sampled(0, 2, 2))));
  if (!fits) {
    jpeg_destroy_decompress(&cinfo);
    return true;
  }
  Coefficients8* o = s->coef8;
  o->h_factor = ci[0].h_samp_factor;
  o->v_factor = ci[0].v_samp_factor;
  DirectArrays direct;
  route_arrays(&cinfo, &direct, s);
  jpeg_read_coefficients(&cinfo);
  for (int c = 0; c < n; ++c) {
    if (ci[c].quant_table == nullptr) {
      std::snprintf(s->message, sizeof s->message, "component %d has no quantization table", c + 1);
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
    o->blocks_wide[c] = ci[c].width_in_blocks;
    o->blocks_high[c] = ci[c].height_in_blocks;
    for (int k = 0; k < DCTSIZE2; ++k) o->q[c][k] = static_cast<std::uint16_t>(ci[c].quant_table->quantval[k]);
  }
  // libjpeg's own arrays (DirectArrays::other; no sequential file asks for them): the file is decoded as pixels.
  if (direct.n != n) {
    jpeg_destroy_decompress(&cinfo);
    return true;
  }
  compact_planes(&direct, ci);
  s->components = n;
  o->taken = true;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// Runs `fn` on `file`; throws the input error naming `name` when it fails.
void run_decoder(bool (*fn)(DecodeState*), DecodeState& s, Bytes file, DecodeBuffer& buffer, const std::string& name,
                 std::int64_t max_pixels) {
  s.data = file.data();
  s.size = static_cast<unsigned long>(file.size());
  s.max_pixels = max_pixels;
  s.alloc = allocate_decode_buffer;
  s.alloc_ctx = &buffer;
  if (fn(&s)) return;
  if (s.size_refused) check_image_size(name, "JPEG", s.width, s.height, max_pixels);
  decode_failure(name, "JPEG", s.message);
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
  return compress_to_memory([&](jpeg_compress_struct& cinfo) { coefficients_body(&a, cinfo); }, path);
}

std::vector<unsigned char> encode_jpeg_pixels(const unsigned char* pixels, std::int64_t height, std::int64_t width,
                                              int components, int quality, const std::string& path) {
  if (width < 1 || height < 1 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
    throw Error(ErrorCode::kInput, path, "a JPEG file holds at most 65500 pixels a side");
  // JPEG keeps no alpha: gray+alpha and RGBA lose their last sample.
  const int coded = components == 2 || components == 1 ? 1 : 3;
  std::vector<unsigned char> packed;
  if (coded != components) {
    const std::size_t n = std::size_t(height) * std::size_t(width);
    packed.resize(n * std::size_t(coded));
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < coded; ++c) packed[i * coded + c] = pixels[i * std::size_t(components) + c];
    pixels = packed.data();
  }
  return compress_to_memory(
      [&](jpeg_compress_struct& cinfo) {
        pixels_body(pixels, static_cast<JDIMENSION>(width), static_cast<JDIMENSION>(height), coded, quality, cinfo);
      },
      path);
}

core::HostTensor decode_jpeg(const std::vector<unsigned char>& file, const std::string& path) {
  DecodeState s;
  s.method = JDCT_FLOAT;
  DecodeBuffer buffer;
  run_decoder(decode_c, s, file, buffer, path, core::kMaxElements);
  return planar_dataset(buffer.data(), s.width, s.height, s.components, core::Precision::kF32).tensor;
}

core::Dataset decode_jpeg_image(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  if (opt.samples8 && opt.jpeg_coefficients) {
    DecodeState s;
    Coefficients8 o;
    s.coef8 = &o;
    DecodeBuffer buffer;
    buffer.pool = opt.pool;
    run_decoder(coefficients8_c, s, file, buffer, name, opt.max_pixels);
    if (o.taken) {
      auto j = std::make_shared<core::JpegCoefficients8>();
      j->rows = s.height;
      j->cols = s.width;
      j->components = s.components;
      j->h_factor = o.h_factor;
      j->v_factor = o.v_factor;
      for (int c = 0; c < s.components; ++c) {
        core::JpegCoefficients8::Plane p;
        p.blocks_wide = o.blocks_wide[c];
        p.blocks_high = o.blocks_high[c];
        std::copy_n(o.q[c], DCTSIZE2, p.q.begin());
        p.offset = j->values;
        j->values += p.blocks_wide * p.blocks_high * DCTSIZE2;
        j->planes.push_back(p);
      }
      j->coef_bytes = std::move(buffer.bytes);
      j->decode = [bytes = std::make_shared<const std::vector<unsigned char>>(file.begin(), file.end()), name,
                   max = opt.max_pixels, pool = opt.pool] {
        DecodeState d;
        d.method = JDCT_ISLOW;
        DecodeBuffer b;
        b.pool = pool;
        run_decoder(decode_c, d, *bytes, b, name, max);
        auto s8 = std::make_shared<core::Samples8>();
        s8->bytes = std::move(b.bytes);
        s8->rows = d.height;
        s8->cols = d.width;
        s8->channels = d.components;
        return std::shared_ptr<const core::Samples8>(std::move(s8));
      };
      core::Dataset d;
      d.kind = core::SourceKind::kImage8;
      d.jpeg = std::move(j);
      return d;
    }
  }
  DecodeState s;
  s.method = JDCT_ISLOW;
  DecodeBuffer buffer;
  // Samples kept as the Dataset's (ReadOptions::samples8) come from the pool; a buffer only read into planes (which
  // come from the pool) is the heap's: blocks of two sizes in one pool would take turns being dropped and made.
  buffer.pool = opt.samples8 ? opt.pool : nullptr;
  run_decoder(decode_c, s, file, buffer, name, opt.max_pixels);
  return image_dataset8(std::move(buffer), s.width, s.height, s.components, opt);
}

core::HostTensor read_jpeg_coefficients(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  DecodeState s;
  DecodeBuffer buffer;
  run_decoder(coefficients_c, s, file, buffer, name, opt.max_pixels);
  const std::int64_t rows = std::int64_t(s.blocks_high) * 8, cols = std::int64_t(s.blocks_wide) * 8;
  core::HostTensor t(core::Shape2{rows, cols}, s.components, opt.prec);
  const auto* v = reinterpret_cast<const std::int32_t*>(buffer.data());
  const std::int64_t n = t.elements();
  if (opt.prec == core::Precision::kF32) {
    float* d = t.data<float>();
    for (std::int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(v[i]);
  } else {
    double* d = t.data<double>();
    for (std::int64_t i = 0; i < n; ++i) d[i] = v[i];
  }
  return t;
}

}  // namespace dct::app
