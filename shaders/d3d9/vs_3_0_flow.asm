vs_3_0
defi i0, 4, 0, 1, 0
defb b0, true
def c0, 1.0, -2.5, 0.0, 0x7fc00000
dcl_position v0
dcl_texcoord1 v1
dcl_position o0
dcl_texcoord o1.xy
dcl_2d s0
mova a0.x, v1.x
mov r0, c[a0.x + 3]
loop aL, i0
add r0, r0, v[aL]
mov o[aL + 1].xy, r0
endloop
setp_gt p0.x, r0.x, c0.y
(p0.x) add r0.xyz, r0, c0
(!p0.y) mov r0.w, c0.x
callnz l1, b0
callnz l0, !p0.z
call l0
if b0
sincos r1.xy, r0.x
else
sgn r1, r0
endif
if_lt r0.x, c0.x
texldl r2, v1, s0
endif
mov o0, r0
ret
label l0
rep i0
breakp !p0.x
break_ne r0.x, c0.z
break
endrep
ret
label l1
abs r3, -r0_abs.wzyx
nrm r3.xyz, r3
crs r4.xyz, r3, v0
pow r4.w, r3.x, r3.y
ret
