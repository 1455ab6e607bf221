// SM5.1 descriptor ranges and register spaces: bounded and unbounded SRV ranges, a
// constant buffer array indexed dynamically, a sampler range, a UAV range in space 2,
// and a non-uniform index.
ps_5_1
.input SV_Position 0 v0 float POS
.input TEXCOORD 0 v1.xy float
.input MATERIAL 0 v2.x uint
.output SV_Target 0 o0 float
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[0:3][4], dynamicIndexed, space=0
dcl_sampler S0[0:1], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) T0[2:5], space=0
dcl_resource_texture2d (float,float,float,float) T1[10:*], space=1
dcl_resource_structured T2[0:0], 16, space=0
dcl_uav_typed_texture2d (float,float,float,float) U0[0:7], space=2
dcl_input_ps linear v1.xy
dcl_input_ps constant v2.x
dcl_output o0.xyzw
dcl_temps 3
and r0.x, v2.x, l(3)
mov r1.xyzw, CB0[r0.x + 0][2].xyzw
sample r2.xyzw, v1.xyxx, T0[r0.x + 2].xyzw, S0[0]
mul r1.xyzw, r1.xyzw, r2.xyzw
sample r2.xyzw, v1.xyxx, T1[v2.x + 10].xyzw {nonuniform}, S0[1]
add r1.xyzw, r1.xyzw, r2.xyzw
ld_structured r0.y, l(0), l(4), T2[0].xxxx
mul r1.xyzw, r1.xyzw, r0.yyyy
store_uav_typed U0[r0.x + 0].xyzw, l(0, 0, 0, 0), r1.xyzw
mov o0.xyzw, r1.xyzw
ret
