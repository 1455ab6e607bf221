// A textured, tinted pixel shader: the bundled example for `dxbc disasm`.
// Built with: ../../tools/vkd3d-compiler.sh -x hlsl -p ps_5_0 -b dxbc-tpf -o ps_texture.dxbc ps_texture.hlsl
Texture2D<float4> diffuse : register(t0);
SamplerState linear_sampler : register(s0);

cbuffer Material : register(b0)
{
    float4 tint;
    float2 uv_scale;
    float exposure;
};

float4 main(float4 position : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 color = diffuse.Sample(linear_sampler, uv * uv_scale);
    return color * tint * exposure;
}
