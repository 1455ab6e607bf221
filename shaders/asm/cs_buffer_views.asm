// Raw and structured views every way a D3D12 layer may bind them: SRVs read plainly and
// with residency feedback, UAVs read, written, queried and updated atomically (with and
// without results, compare-exchange), hidden counters incremented and decremented, in
// single views and in ranges indexed with a uniform and a non-uniform register. Translated
// with storage buffers (the default) and with every kind as an R32_UINT texel buffer
// (Options::texel_buffers), each passes spirv-val.
cs_5_1
dcl_globalFlags refactoringAllowed
dcl_resource_raw T0[0:0], space=0
dcl_resource_structured T1[1:4], 8, space=0
dcl_uav_raw U0[0:0], space=0
dcl_uav_structured_opc U1[1:1], 4, space=0
dcl_uav_structured_opc U2[2:*], 16, space=1
dcl_input vThreadID.xy
dcl_temps 4
dcl_thread_group 4, 1, 1
ld_raw r0.xy, l(8), T0[0].xyxx
ld_structured_s r1.xy, r3.x, vThreadID.x, l(4), T1[vThreadID.y + 1].xyxx {nonuniform}
check_access_fully_mapped r3.x, r3.x
iadd r0.x, r0.x, r1.x
store_raw U0[0].xy, l(16), r0.xyxx
ld_raw r2.xyz, vThreadID.x, U0[0].xyzx
bufinfo r2.w, U0[0].xxxx
atomic_iadd U0[0], l(0), r2.x
imm_atomic_cmp_exch r3.y, U0[0], l(4), r2.y, r2.z
imm_atomic_alloc r0.z, U1[1]
store_structured U1[1].x, r0.z, l(0), r2.w
imm_atomic_consume r0.w, U2[vThreadID.y + 2]
imm_atomic_umax r1.z, U2[r0.x + 2], l(1, 4, 0, 0), r0.w
atomic_or U2[vThreadID.y + 2] {nonuniform}, l(0, 8, 0, 0), r3.y
store_structured U2[vThreadID.y + 2].xy {nonuniform}, r1.z, l(0), r3.xyxx
ld_structured r1.w, l(1), l(12), U2[3].xxxx
bufinfo r3.z, U2[vThreadID.x + 2].xxxx
store_raw U0[0].xy, l(32), r1.zwzz
store_raw U0[0].x, l(40), r3.z
ret
