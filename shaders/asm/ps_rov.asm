// Rasterizer-ordered views: a pixel shader that declares a `_rov` UAV runs as one fragment
// shader interlock critical section (PixelInterlockOrderedEXT); the entry point calls the
// program between OpBeginInvocationInterlockEXT and OpEndInvocationInterlockEXT, so the early
// `retc` and the `discard` (a demote) keep them balanced.
ps_5_0
.input SV_Position 0 v0 float POS
.output SV_Target 0 o0 uint
dcl_globalFlags refactoringAllowed
dcl_uav_typed_texture2d_rov (uint,uint,uint,uint) u1
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_temps 2
ftou r0.xy, v0.xyxx
ld_uav_typed_indexable(texture2d)(uint,uint,uint,uint) r1.x, r0.xyyy, u1.xyzw
mov o0.xyzw, r1.xxxx
ieq r1.y, r1.x, l(7)
discard_nz r1.y
ige r1.y, r1.x, l(100)
retc_nz r1.y
iadd r1.x, r1.x, l(1)
store_uav_typed u1.xyzw, r0.xyyy, r1.xxxx
ret
