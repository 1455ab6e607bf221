/* Creates a D3D12 device through libvkd3d-utils and compute pipelines from DXBC, so that
 * vkd3d's shader compiles (its internal UAV-clear shaders at device creation, then these)
 * reach whatever libvkd3d-shader.so.1 is loaded. Run under tools/in-vkd3d.sh: with the
 * stand-in, DXBC_SPIRV_VKD3D_STATS=1 shows the compiles it did.
 *
 * Prints one line per step; exits 0 when the device and the root-constant pipeline were
 * created, 1 otherwise. The second pipeline (a typed UAV in a descriptor table: under vkd3d's
 * default descriptor heaps its descriptor index comes from a push constant, under
 * VKD3D_CONFIG=virtual_heaps from a static offset) is reported; the caller checks it. */
#define COBJMACROS
#define INITGUID
#define WIDL_C_INLINE_WRAPPERS
#include <stdio.h>
#include <string.h>
#include <vkd3d_windows.h>
#include <vkd3d_d3d12.h>
#include <vkd3d_d3dcompiler_types.h>

/* libvkd3d-utils' exports (vkd3d_utils.h needs Vulkan's headers, which this does not). */
HRESULT WINAPI D3D12CreateDevice(IUnknown *adapter, D3D_FEATURE_LEVEL feature_level,
        REFIID iid, void **device);
HRESULT WINAPI D3D12SerializeRootSignature(const D3D12_ROOT_SIGNATURE_DESC *desc,
        D3D_ROOT_SIGNATURE_VERSION version, ID3DBlob **blob, ID3DBlob **error_blob);
HRESULT WINAPI D3DCompile(const void *data, SIZE_T data_size, const char *filename,
        const D3D_SHADER_MACRO *defines, ID3DInclude *include, const char *entrypoint,
        const char *target, UINT flags, UINT effect_flags, ID3DBlob **shader, ID3DBlob **error_messages);

static ID3DBlob *compile_cs(const char *hlsl)
{
    ID3DBlob *blob = NULL, *errors = NULL;
    HRESULT hr = D3DCompile(hlsl, strlen(hlsl), "cs", NULL, NULL, "main", "cs_5_0", 0, 0,
            &blob, &errors);

    if (FAILED(hr))
    {
        printf("D3DCompile failed: %#x %s\n", (unsigned int)hr,
                errors ? (const char *)ID3D10Blob_GetBufferPointer(errors) : "");
        return NULL;
    }
    return blob;
}

static ID3D12RootSignature *root_signature(ID3D12Device *device, const D3D12_ROOT_SIGNATURE_DESC *desc)
{
    ID3D12RootSignature *rs = NULL;
    ID3DBlob *blob = NULL, *errors = NULL;
    HRESULT hr;

    if (FAILED(hr = D3D12SerializeRootSignature(desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &errors)))
    {
        printf("D3D12SerializeRootSignature failed: %#x\n", (unsigned int)hr);
        return NULL;
    }
    hr = ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob),
            ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature, (void **)&rs);
    ID3D10Blob_Release(blob);
    if (FAILED(hr))
        printf("CreateRootSignature failed: %#x\n", (unsigned int)hr);
    return rs;
}

static HRESULT pipeline(ID3D12Device *device, ID3D12RootSignature *rs, ID3DBlob *cs)
{
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc;
    ID3D12PipelineState *state = NULL;
    HRESULT hr;

    memset(&desc, 0, sizeof(desc));
    desc.pRootSignature = rs;
    desc.CS.pShaderBytecode = ID3D10Blob_GetBufferPointer(cs);
    desc.CS.BytecodeLength = ID3D10Blob_GetBufferSize(cs);
    hr = ID3D12Device_CreateComputePipelineState(device, &desc, &IID_ID3D12PipelineState, (void **)&state);
    if (SUCCEEDED(hr))
        ID3D12PipelineState_Release(state);
    return hr;
}

int main(void)
{
    static const char constants_cs[] =
        "cbuffer c : register(b0) { uint4 v; }\n"
        "groupshared uint g[4];\n"
        "[numthreads(4, 1, 1)] void main(uint i : SV_GroupIndex)\n"
        "{ g[i] = v.x + i; GroupMemoryBarrierWithGroupSync(); }\n";
    static const char uav_cs[] =
        "RWBuffer<uint> u : register(u0);\n"
        "cbuffer c : register(b0) { uint4 v; }\n"
        "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { u[id.x] = v.x; }\n";
    D3D12_ROOT_PARAMETER params[2];
    D3D12_DESCRIPTOR_RANGE range;
    D3D12_ROOT_SIGNATURE_DESC desc;
    ID3D12RootSignature *rs;
    ID3D12Device *device;
    ID3DBlob *cs;
    HRESULT hr;
    int ok = 1;

    if (FAILED(hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device)))
    {
        printf("device: FAILED %#x\n", (unsigned int)hr);
        return 1;
    }
    printf("device: created\n");

    memset(params, 0, sizeof(params));
    params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
    params[0].Constants.ShaderRegister = 0;
    params[0].Constants.Num32BitValues = 4;
    params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    memset(&desc, 0, sizeof(desc));
    desc.NumParameters = 1;
    desc.pParameters = params;
    if (!(rs = root_signature(device, &desc)) || !(cs = compile_cs(constants_cs)))
        return 1;
    hr = pipeline(device, rs, cs);
    printf("root-constant pipeline: %s (%#x)\n", SUCCEEDED(hr) ? "created" : "FAILED", (unsigned int)hr);
    ok = SUCCEEDED(hr);
    ID3D12RootSignature_Release(rs);
    ID3D10Blob_Release(cs);

    memset(&range, 0, sizeof(range));
    range.RangeType = D3D12_DESCRIPTOR_RANGE_TYPE_UAV;
    range.NumDescriptors = 1;
    params[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
    params[1].DescriptorTable.NumDescriptorRanges = 1;
    params[1].DescriptorTable.pDescriptorRanges = &range;
    params[1].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    desc.NumParameters = 2;
    if (!(rs = root_signature(device, &desc)) || !(cs = compile_cs(uav_cs)))
        return 1;
    hr = pipeline(device, rs, cs);
    printf("descriptor-table pipeline: %s (%#x)\n", SUCCEEDED(hr) ? "created" : "failed", (unsigned int)hr);
    ID3D12RootSignature_Release(rs);
    ID3D10Blob_Release(cs);

    ID3D12Device_Release(device);
    return ok ? 0 : 1;
}
