#include <png.h>

/* libpng's format macros are expressions Swift cannot import; these are their values. */
static const png_uint_32 pipeline_png_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 pipeline_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 pipeline_png_flag_16bit_srgb = PNG_IMAGE_FLAG_16BIT_sRGB;
static const png_uint_32 pipeline_png_format_linear_rgba = PNG_FORMAT_LINEAR_RGB_ALPHA;
static const png_uint_32 pipeline_png_format_flag_linear = PNG_FORMAT_FLAG_LINEAR;
