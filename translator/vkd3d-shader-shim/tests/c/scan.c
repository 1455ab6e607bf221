/* Prints what vkd3d_shader_scan of the library it is linked with reports for one shader:
 *
 *   scan SOURCE_TYPE API_VERSION FILE
 *
 * SOURCE_TYPE is "dxbc" or "d3dbc". One line per descriptor ("d type space index
 * resource_type data_type flags count"), per resource-sampler pair ("c resource_space
 * resource_index sampler_space sampler_index"), then "t x y z" (thread-group size) and
 * "h output_primitive partitioning". Exit status 0, or 2 with the result code on stderr
 * when the scan fails. tests/scan.rs compares this with the stand-in's scan. */

#include <stdio.h>
#include <stdlib.h>
#include <vkd3d_shader.h>

int main(int argc, char **argv)
{
    struct vkd3d_shader_scan_thread_group_size_info group = {0};
    struct vkd3d_shader_scan_hull_shader_tessellation_info tess = {0};
    struct vkd3d_shader_scan_combined_resource_sampler_info pairs = {0};
    struct vkd3d_shader_scan_descriptor_info descriptors = {0};
    struct vkd3d_shader_compile_option option;
    struct vkd3d_shader_compile_info info = {0};
    unsigned int i;
    char *data;
    long size;
    FILE *f;
    int rc;

    if (argc != 4)
    {
        fprintf(stderr, "usage: scan dxbc|d3dbc API_VERSION FILE\n");
        return 1;
    }
    if (!(f = fopen(argv[3], "rb")))
    {
        perror(argv[3]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc(size);
    if (!data || fread(data, 1, size, f) != (size_t)size)
    {
        fprintf(stderr, "cannot read %s\n", argv[3]);
        return 1;
    }
    fclose(f);

    group.type = VKD3D_SHADER_STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO;
    tess.type = VKD3D_SHADER_STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO;
    tess.next = &group;
    pairs.type = VKD3D_SHADER_STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO;
    pairs.next = &tess;
    descriptors.type = VKD3D_SHADER_STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO;
    descriptors.next = &pairs;
    option.name = VKD3D_SHADER_COMPILE_OPTION_API_VERSION;
    option.value = atoi(argv[2]);

    info.type = VKD3D_SHADER_STRUCTURE_TYPE_COMPILE_INFO;
    info.next = &descriptors;
    info.source.code = data;
    info.source.size = size;
    info.source_type = argv[1][1] == 'x' ? VKD3D_SHADER_SOURCE_DXBC_TPF : VKD3D_SHADER_SOURCE_D3D_BYTECODE;
    info.target_type = VKD3D_SHADER_TARGET_SPIRV_BINARY;
    info.options = &option;
    info.option_count = 1;
    info.log_level = VKD3D_SHADER_LOG_NONE;

    if ((rc = vkd3d_shader_scan(&info, NULL)) < 0)
    {
        fprintf(stderr, "scan failed: %d\n", rc);
        return 2;
    }
    for (i = 0; i < descriptors.descriptor_count; ++i)
    {
        const struct vkd3d_shader_descriptor_info *d = &descriptors.descriptors[i];

        printf("d %u %u %u %u %u %u %u\n", d->type, d->register_space, d->register_index,
                d->resource_type, d->resource_data_type, d->flags, d->count);
    }
    for (i = 0; i < pairs.combined_sampler_count; ++i)
    {
        const struct vkd3d_shader_combined_resource_sampler_info *c = &pairs.combined_samplers[i];

        printf("c %u %u %u %u\n", c->resource_space, c->resource_index, c->sampler_space, c->sampler_index);
    }
    printf("t %u %u %u\n", group.x, group.y, group.z);
    printf("h %u %u\n", tess.output_primitive, tess.partitioning);
    vkd3d_shader_free_scan_descriptor_info(&descriptors);
    vkd3d_shader_free_scan_combined_resource_sampler_info(&pairs);
    free(data);
    return 0;
}
