// Minimum precision: min16f/min16i/min16u operands are computed at 32 bits (D3D allows
// more precision than asked) and their arithmetic is decorated RelaxedPrecision.
ps_5_0
.input TEXCOORD 0 v0.xy float
.output SV_Target 0 o0 float
dcl_globalFlags refactoringAllowed | enableMinimumPrecision
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
mul r0.x {min16f}, v0.x {min16f}, v0.y {min16f}
add r0.y {min16f}, r0.x {min16f}, l(0.5)
ftoi r1.x {min16i}, r0.y {min16f}
iadd r1.y {min16i}, r1.x {min16i}, l(3)
itof r0.z, r1.y {min16i}
mul r0.w, v0.x, v0.y
mov o0.xyzw, r0.xyzw
ret
