vs_1_1
dcl_position v0
dcl_normal v1
dcl_blendindices v2
mov a0.x, v2.x
m4x4 oPos, v0, c[a0.x + 8]
dp3 r0.x, v1, c[a0.x]
lit r1, r0
dst r2, r0, r1
expp r3.xy, r0.x
logp r3.z, r0.w
mov oD0, r1
mov oFog, r0.x
mov oT0.xy, v1.yx
mov oPts, c95.w
