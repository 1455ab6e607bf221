// A vertex shader with a matrix, an array and a struct in its constant buffer.
// Built with: ../../tools/vkd3d-compiler.sh -x hlsl -p vs_4_0 -b dxbc-tpf -o vs_transform.dxbc vs_transform.hlsl
struct Light
{
    float3 direction;
    float intensity;
};

cbuffer Transforms : register(b1)
{
    float4x4 world_view_proj;
    Light lights[2];
    uint light_count;
};

struct VSOut
{
    float4 position : SV_Position;
    float3 normal : NORMAL;
    float shade : COLOR1;
};

VSOut main(float3 position : POSITION, float3 normal : NORMAL)
{
    VSOut o;
    o.position = mul(float4(position, 1.0), world_view_proj);
    o.normal = normal;
    float shade = 0.0;
    for (uint i = 0; i < light_count; ++i)
        shade += saturate(dot(normal, -lights[i].direction)) * lights[i].intensity;
    o.shade = shade;
    return o;
}
