/* Calls a vkd3d log callback (PFN_vkd3d_log: a printf-style format and a va_list), which Rust
 * cannot build a va_list for. */
#include <stdarg.h>

typedef void (*dxbc_spirv_shim_log_fn)(const char *format, va_list args);

static void call_log(dxbc_spirv_shim_log_fn callback, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    callback(format, args);
    va_end(args);
}

void dxbc_spirv_shim_call_log(dxbc_spirv_shim_log_fn callback, const char *text)
{
    call_log(callback, "%s", text);
}
