// Residency feedback on raw and structured buffers: t0 and t1 are read with a status
// (ld_raw_s, ld_structured_s), so they are R32_UINT uniform texel buffers read with
// OpImageSparseFetch, one texel per dword; each status is resident only when every dword's
// fetch was. t1's plain ld_structured and bufinfo go through the same texel buffer.
ps_5_0
.output SV_Target 0 o0 uint
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_resource_structured t1, 12
dcl_output o0.xyzw
dcl_temps 3
ld_raw_s r0.xy, r2.x, l(4), t0.xyxx
check_access_fully_mapped r2.x, r2.x
ld_structured_s r1.xyz, r2.y, l(1), l(0), t1.xyzx
check_access_fully_mapped r2.y, r2.y
ld_structured r1.w, l(2), l(8), t1.xxxx
bufinfo r2.z, t1.xxxx
iadd r0.x, r0.x, r0.y
iadd r0.x, r0.x, r1.x
iadd r0.x, r0.x, r1.y
iadd r0.x, r0.x, r1.z
iadd r0.x, r0.x, r1.w
iadd r0.y, r2.z, l(0)
and r0.z, r2.x, r2.y
mov r0.w, l(0)
mov o0.xyzw, r0.xyzw
ret
