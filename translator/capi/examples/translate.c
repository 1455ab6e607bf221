/*
 * translate OUTDIR FILE...
 *
 * Translates each shader file -- a DXBC container (SM4.0-5.1) or a bare Direct3D 9 token
 * stream (vs/ps 1.x-3.0) -- to SPIR-V through libdxbc_spirv's C API and writes
 * OUTDIR/<input file name>.spv. Each DXBC shader is also scanned (the scan takes DXBC only)
 * and its reflection read and checked against the scan, so that running this under valgrind
 * covers every call. Prints one line per failure, then "N translated, M failed"; exits 1 when
 * something failed (or on bad usage).
 *
 * Build, from translator/capi after `cargo build --release -p dxbc-spirv-capi` (static):
 *   cc -std=c99 -I include examples/translate.c ../../target/release/libdxbc_spirv.a -lpthread -ldl -lm -o translate
 * or, from anywhere, against an installed library (docs/capi.md, "Install"):
 *   cc -std=c99 translator/capi/examples/translate.c $(pkg-config --cflags --libs dxbc_spirv) -o translate
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc_spirv.h"

/* Reads a whole file; NULL on failure. The caller frees the buffer. */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long length;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
    {
        data = malloc(length ? (size_t)length : 1);
        if (data && fread(data, 1, (size_t)length, f) != (size_t)length)
        {
            free(data);
            data = NULL;
        }
        *size = (size_t)length;
    }
    fclose(f);
    return data;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Translates one file; returns 0 on success, printing why on failure. */
static int translate_file(const char *out_dir, const char *path)
{
    dxbc_spirv_shader_create_info create_info;
    dxbc_spirv_translate_info translate_info;
    dxbc_spirv_reflection *reflection = NULL;
    dxbc_spirv_scan_info *scan = NULL;
    dxbc_spirv_shader *shader = NULL;
    dxbc_spirv_code code = {NULL, 0};
    char *message = NULL, *out_path;
    unsigned char *data;
    size_t size = 0;
    int failed = 1, is_dxbc;
    FILE *out;

    if (!(data = read_file(path, &size)))
    {
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }

    memset(&create_info, 0, sizeof(create_info));
    create_info.s_type = DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO;
    /* A DXBC container starts with its magic; anything else is taken for a D3D9 stream. */
    is_dxbc = size >= 4 && memcmp(data, "DXBC", 4) == 0;
    create_info.source_type = is_dxbc ? DXBC_SPIRV_SOURCE_TYPE_DXBC : DXBC_SPIRV_SOURCE_TYPE_D3DBC;
    create_info.code = data;
    create_info.code_size = size;
    if (dxbc_spirv_shader_create(&create_info, &shader, &message) != DXBC_SPIRV_OK)
        goto done;
    /* The shader holds its own copy. */
    free(data);
    data = NULL;

    if (is_dxbc && dxbc_spirv_scan(shader, &scan, &message) != DXBC_SPIRV_OK)
        goto done;

    memset(&translate_info, 0, sizeof(translate_info));
    translate_info.s_type = DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO;
    translate_info.target_env = DXBC_SPIRV_TARGET_ENV_VULKAN_1_3;
    if (dxbc_spirv_translate(shader, &translate_info, &code, &reflection, &message) != DXBC_SPIRV_OK)
        goto done;
    if (scan && (reflection->stage != scan->stage || reflection->output_count > scan->output_count))
    {
        fprintf(stderr, "%s: the reflection disagrees with the scan\n", path);
        goto done;
    }

    out_path = malloc(strlen(out_dir) + strlen(base_name(path)) + 6);
    if (!out_path)
        goto done;
    sprintf(out_path, "%s/%s.spv", out_dir, base_name(path));
    if ((out = fopen(out_path, "wb")))
    {
        failed = fwrite(code.words, sizeof(uint32_t), code.word_count, out) != code.word_count;
        failed |= fclose(out) != 0;
    }
    if (failed)
        fprintf(stderr, "%s: cannot write %s\n", path, out_path);
    free(out_path);

done:
    if (message)
        fprintf(stderr, "%s: %s\n", path, message);
    dxbc_spirv_free_message(message);
    dxbc_spirv_free_code(&code);
    dxbc_spirv_free_reflection(reflection);
    dxbc_spirv_free_scan(scan);
    dxbc_spirv_shader_destroy(shader);
    free(data);
    return failed;
}

int main(int argc, char **argv)
{
    unsigned int translated = 0, failed = 0;
    int i;

    if (argc < 3)
    {
        fprintf(stderr, "usage: %s OUTDIR FILE...\n", argv[0]);
        return 1;
    }
    for (i = 2; i < argc; ++i)
    {
        if (translate_file(argv[1], argv[i]))
            ++failed;
        else
            ++translated;
    }
    printf("%u translated, %u failed\n", translated, failed);
    return failed ? 1 : 0;
}
